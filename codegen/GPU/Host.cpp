//===- Host.cpp - a GPU partition's host side: device arena, copies, weights --===//
#include "codegen/GPU/Passes.h"

#include "llvm/ADT/MapVector.h"

namespace kiln::codegen::gpu {
#define GEN_PASS_DEF_HOSTPASS
#include "codegen/GPU/Passes.h.inc"
} // namespace kiln::codegen::gpu

using namespace mlir;

namespace {

constexpr int64_t kAlignment = 256;
constexpr llvm::StringLiteral kBegin = "kiln_mgpu_part_begin";
constexpr llvm::StringLiteral kEnd = "kiln_mgpu_part_end";

int64_t alignUp(int64_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

/// The bytes of a static buffer with the identity layout, or nullopt for another.
std::optional<int64_t> byteSize(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity() ||
      !memref.getElementType().isIntOrFloat())
    return std::nullopt;
  return memref.getNumElements() * int64_t((memref.getElementTypeBitWidth() + 7) / 8);
}

struct HostPass : kiln::codegen::gpu::impl::HostPassBase<HostPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && kiln::dialect::isOnGpu(func))
        funcs.push_back(func);
    for (func::FuncOp func : funcs)
      if (failed(rewrite(module, func)))
        return signalPassFailure();
  }

  /// The number of inputs of `func`'s part, from the kiln.model.
  FailureOr<int64_t> inputCount(ModuleOp module, func::FuncOp func) {
    std::optional<int64_t> count;
    module.walk([&](kiln::dialect::EntryOp entry) {
      if (auto parts = entry.getParts())
        for (auto part : parts->getAsRange<kiln::dialect::PartAttr>())
          if (part.getFunction().getValue() == func.getSymName())
            count = int64_t(part.getInputs().size());
    });
    if (!count)
      return func.emitOpError() << "is placed on a GPU but no kiln.entry runs it as a part";
    return *count;
  }

  func::FuncOp declare(ModuleOp module, StringRef name, FunctionType type) {
    if (auto f = module.lookupSymbol<func::FuncOp>(name))
      return f;
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto f = func::FuncOp::create(b, module.getLoc(), name, type);
    f.setPrivate();
    return f;
  }

  LogicalResult rewrite(ModuleOp module, func::FuncOp func) {
    MLIRContext *ctx = &getContext();
    Location loc = func.getLoc();
    if (!func.getBody().hasOneBlock())
      return func.emitOpError() << "placed on a GPU must have one block";
    Block &entry = func.front();
    unsigned n = entry.getNumArguments();
    FailureOr<int64_t> inputs = inputCount(module, func);
    if (failed(inputs))
      return failure();
    auto scratchType = n ? dyn_cast<MemRefType>(entry.getArgument(n - 1).getType()) : nullptr;
    if (!scratchType || scratchType.getRank() != 1 || !scratchType.hasStaticShape() ||
        *inputs > int64_t(n) - 1)
      return func.emitOpError() << "placed on a GPU does not take (inputs, outputs, scratch)";

    // The device arena: the scratch, then each constant, input and output.
    int64_t size = alignUp(scratchType.getNumElements());
    auto place = [&](int64_t bytes) {
      int64_t at = size;
      size = alignUp(size + bytes);
      return at;
    };
    llvm::MapVector<StringAttr, std::pair<int64_t, MemRefType>> constants;
    SmallVector<memref::GetGlobalOp> gets;
    WalkResult walk = func.walk([&](memref::GetGlobalOp get) {
      std::optional<int64_t> bytes = byteSize(get.getType());
      if (!bytes) {
        get.emitOpError() << "of a buffer a GPU cannot take yet";
        return WalkResult::interrupt();
      }
      gets.push_back(get);
      if (!constants.count(get.getNameAttr().getAttr()))
        constants[get.getNameAttr().getAttr()] = {place(*bytes), get.getType()};
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    SmallVector<int64_t> argOffsets;
    for (unsigned i = 0; i + 1 < n; ++i) {
      std::optional<int64_t> bytes = byteSize(entry.getArgument(i).getType());
      if (!bytes)
        return func.emitOpError() << "argument " << i << " is not a buffer a GPU can take yet";
      argOffsets.push_back(place(*bytes));
    }

    // The partition's static {arena address, fresh} pair, which the runtime fills.
    auto i64 = IntegerType::get(ctx, 64);
    auto slotType = MemRefType::get({2}, i64);
    OpBuilder detached(ctx);
    auto slot = memref::GlobalOp::create(
        detached, loc, StringAttr::get(ctx, (func.getSymName() + ".gpu_arena").str()),
        detached.getStringAttr("private"), TypeAttr::get(slotType),
        DenseElementsAttr::get(RankedTensorType::get({2}, i64), APInt(64, 0)), UnitAttr(),
        IntegerAttr());
    SymbolTable(module).insert(slot, module.getBody()->begin()); // a unique name
    auto byteType = MemRefType::get({1}, IntegerType::get(ctx, 8));
    func::FuncOp begin =
        declare(module, kBegin, FunctionType::get(ctx, {slotType, i64}, {byteType}));
    func::FuncOp end = declare(module, kEnd, FunctionType::get(ctx, {slotType}, {}));

    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Value slotRef = memref::GetGlobalOp::create(b, loc, slotType, slot.getSymName());
    Value bytes = arith::ConstantIntOp::create(b, loc, i64, size);
    Value base = func::CallOp::create(b, loc, begin, ValueRange{slotRef, bytes}).getResult(0);
    auto arenaType = MemRefType::get({size}, b.getI8Type());
    Value arena = memref::ReinterpretCastOp::create(b, loc, arenaType, base, int64_t(0),
                                                    ArrayRef<int64_t>{size}, ArrayRef<int64_t>{1});
    auto view = [&](OpBuilder &at, int64_t offset, Type type) -> Value {
      Value shift = arith::ConstantIndexOp::create(at, loc, offset);
      return memref::ViewOp::create(at, loc, type, arena, shift, ValueRange{});
    };
    // Weights go up once, on the call that allocated the arena.
    DenseMap<StringAttr, Value> deviceConstants;
    for (auto &[name, placed] : constants)
      deviceConstants[name] = view(b, placed.first, placed.second);
    if (!constants.empty()) {
      Value fresh = memref::LoadOp::create(b, loc, slotRef,
                                           ValueRange{arith::ConstantIndexOp::create(b, loc, 1)});
      Value isFresh = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, fresh,
                                            arith::ConstantIntOp::create(b, loc, i64, 0));
      auto upload = scf::IfOp::create(b, loc, isFresh, /*withElseRegion=*/false);
      OpBuilder ub = OpBuilder::atBlockBegin(&upload.getThenRegion().front());
      for (auto &[name, placed] : constants) {
        Value host = memref::GetGlobalOp::create(ub, loc, placed.second, name.getValue());
        mlir::gpu::MemcpyOp::create(ub, loc, Type(), ValueRange{}, deviceConstants[name], host);
      }
    }
    // (Erased at the end: `b` inserts before the function's first op, which may be one.)
    for (memref::GetGlobalOp get : gets)
      get.replaceAllUsesWith(deviceConstants[get.getNameAttr().getAttr()]);
    // Inputs are copied in; the function then works on device copies of its arguments.
    SmallVector<std::pair<Value, Value>> copyOut; // {host, device}
    for (unsigned i = 0; i + 1 < n; ++i) {
      BlockArgument arg = entry.getArgument(i);
      Value device = view(b, argOffsets[i], arg.getType());
      arg.replaceAllUsesExcept(device, device.getDefiningOp());
      if (int64_t(i) < *inputs)
        mlir::gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, device, arg);
      else
        copyOut.push_back({arg, device});
    }
    BlockArgument scratch = entry.getArgument(n - 1);
    Value deviceScratch = view(b, 0, scratchType);
    scratch.replaceAllUsesExcept(deviceScratch, deviceScratch.getDefiningOp());
    // Outputs are copied back before the runtime ends the call.
    auto ret = cast<func::ReturnOp>(entry.getTerminator());
    b.setInsertionPoint(ret);
    for (auto [host, device] : copyOut)
      mlir::gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, host, device);
    func::CallOp::create(b, loc, end, ValueRange{slotRef});
    for (memref::GetGlobalOp get : gets)
      get.erase();
    func->setAttr(kiln::dialect::kGpuArenaBytesAttrName, b.getI64IntegerAttr(size));
    ++numPartitions;
    arenaBytes += size;
    return success();
  }
};

} // namespace
