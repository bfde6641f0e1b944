//===- ParallelLaunchers.cpp - hand parallel loop bodies to the thread pool ---===//
#include "codegen/KilnToLLVM/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_PARALLELLAUNCHERSPASS
#include "codegen/KilnToLLVM/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kSuffix = ".launch";
constexpr llvm::StringLiteral kParallelFor = "kiln_parallel_for";

struct ParallelLaunchersPass
    : kiln::codegen::impl::ParallelLaunchersPassBase<ParallelLaunchersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> launchers;
    for (auto f : module.getOps<LLVM::LLVMFuncOp>())
      if (f.isExternal() && f.getName().ends_with(kSuffix))
        launchers.push_back(f);
    for (LLVM::LLVMFuncOp launcher : launchers)
      if (failed(define(module, launcher)))
        return signalPassFailure();
  }

  /// The thunk kiln_parallel_for calls, void(ctx, begin, end): loads the body's buffers
  /// from the array at ctx and calls body(begin, end, buffers...).
  LLVM::LLVMFuncOp thunk(ModuleOp module, LLVM::LLVMFuncOp body) {
    MLIRContext *ctx = module.getContext();
    OpBuilder b(ctx);
    b.setInsertionPointAfter(body);
    Location loc = body.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr, i64, i64});
    auto f = LLVM::LLVMFuncOp::create(b, loc, (body.getName() + ".thunk").str(), type,
                                      LLVM::Linkage::Internal);
    Block *entry = f.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    SmallVector<Value> args = {entry->getArgument(1), entry->getArgument(2)};
    for (auto [i, t] : llvm::enumerate(body.getFunctionType().getParams().drop_front(2))) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, entry->getArgument(0),
                                       ArrayRef<LLVM::GEPArg>{int32_t(i)});
      args.push_back(LLVM::LoadOp::create(b, loc, t, slot));
    }
    LLVM::CallOp::create(b, loc, body, args);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
    return f;
  }

  /// Gives `launcher`, launch(count, grain, buffers...), its body: the buffers into an
  /// array on the stack, then kiln_parallel_for(count, grain, thunk, array).
  LogicalResult define(ModuleOp module, LLVM::LLVMFuncOp launcher) {
    StringRef name = launcher.getName().drop_back(kSuffix.size());
    auto body = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
    LLVM::LLVMFunctionType type = launcher.getFunctionType();
    if (!body || body.isExternal() || body.getFunctionType().getNumParams() != type.getNumParams())
      return launcher.emitOpError()
             << "declares the launcher of '" << name << "', which has no matching body";
    MLIRContext *ctx = module.getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    OpBuilder b(ctx);
    auto parallelFor = module.lookupSymbol<LLVM::LLVMFuncOp>(kParallelFor);
    if (!parallelFor) {
      b.setInsertionPointToEnd(module.getBody());
      parallelFor = LLVM::LLVMFuncOp::create(
          b, module.getLoc(), kParallelFor,
          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {i64, i64, ptr, ptr}));
    }
    LLVM::LLVMFuncOp fn = thunk(module, body);
    Location loc = launcher.getLoc();
    launcher.setLinkage(LLVM::Linkage::Internal);
    Block *entry = launcher.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    int64_t buffers = type.getNumParams() - 2;
    Value array;
    if (buffers == 0) {
      array = LLVM::ZeroOp::create(b, loc, ptr);
    } else {
      Value size = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(buffers));
      array = LLVM::AllocaOp::create(b, loc, ptr, ptr, size);
      for (int64_t i = 0; i < buffers; ++i) {
        Value slot =
            LLVM::GEPOp::create(b, loc, ptr, ptr, array, ArrayRef<LLVM::GEPArg>{int32_t(i)});
        LLVM::StoreOp::create(b, loc, entry->getArgument(2 + i), slot);
      }
    }
    Value address = LLVM::AddressOfOp::create(b, loc, fn);
    LLVM::CallOp::create(b, loc, parallelFor,
                         ValueRange{entry->getArgument(0), entry->getArgument(1), address, array});
    LLVM::ReturnOp::create(b, loc, ValueRange{});
    return success();
  }
};

} // namespace
