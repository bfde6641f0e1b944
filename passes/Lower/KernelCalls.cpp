//===- KernelCalls.cpp - large matrix products call the runtime's kernels -----===//
#include "passes/Lower/Passes.h"

#include "kiln/runtime/abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln::lower {
#define GEN_PASS_DEF_KERNELCALLSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

struct MatmulMatch {
  Value a, b, c;
  int64_t m, n, k;
  int32_t flags;
};

bool isContiguousF32(Value v, int64_t rank) {
  auto t = dyn_cast<MemRefType>(v.getType());
  return t && t.getRank() == rank && t.hasStaticShape() && t.getLayout().isIdentity() &&
         t.getElementType().isF32();
}

/// Matches the generic the MatMul lowering makes (loops m, k, n; C += A * B).
std::optional<MatmulMatch> matchMatmul(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  auto iterators = op.getIteratorTypesArray();
  if (iterators.size() != 3 || iterators[0] != utils::IteratorType::parallel ||
      iterators[1] != utils::IteratorType::reduction ||
      iterators[2] != utils::IteratorType::parallel)
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  AffineExpr m, k, n;
  bindDims(ctx, m, k, n);
  auto map = [&](AffineExpr r, AffineExpr c) { return AffineMap::get(3, 0, {r, c}, ctx); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MatmulMatch match{op.getDpsInputs()[0], op.getDpsInputs()[1], op.getDpsInits()[0], 0, 0, 0, 0};
  if (maps[0] == map(k, m))
    match.flags |= KILN_MATMUL_TRANSPOSE_A;
  else if (maps[0] != map(m, k))
    return std::nullopt;
  if (maps[1] == map(n, k))
    match.flags |= KILN_MATMUL_TRANSPOSE_B;
  else if (maps[1] != map(k, n))
    return std::nullopt;
  if (maps[2] != map(m, n))
    return std::nullopt;
  if (!isContiguousF32(match.a, 2) || !isContiguousF32(match.b, 2) ||
      !isContiguousF32(match.c, 2))
    return std::nullopt;
  // Body: yield(out + in0 * in1).
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 3)
    return std::nullopt;
  auto mul = dyn_cast<arith::MulFOp>(&body.front());
  auto add = dyn_cast<arith::AddFOp>(mul ? mul->getNextNode() : nullptr);
  if (!mul || !add)
    return std::nullopt;
  Value in0 = body.getArgument(0), in1 = body.getArgument(1), out = body.getArgument(2);
  bool mulOk = (mul.getLhs() == in0 && mul.getRhs() == in1) ||
               (mul.getLhs() == in1 && mul.getRhs() == in0);
  bool addOk = (add.getLhs() == out && add.getRhs() == mul.getResult()) ||
               (add.getRhs() == out && add.getLhs() == mul.getResult());
  if (!mulOk || !addOk)
    return std::nullopt;
  auto cType = cast<MemRefType>(match.c.getType());
  auto aType = cast<MemRefType>(match.a.getType());
  match.m = cType.getDimSize(0);
  match.n = cType.getDimSize(1);
  match.k = aType.getDimSize((match.flags & KILN_MATMUL_TRANSPOSE_A) ? 0 : 1);
  return match;
}

struct DepthwiseMatch {
  Value input, filter, output;
  ArrayRef<int64_t> window; // strides, dilations, pads before (see kDepthwiseAttr)
};

/// Matches the f32 depthwise generic the DepthwiseConv2dNative lowering marks with
/// kDepthwiseAttr: the filter is its input, the output its init, and the image the one
/// buffer its body loads from.
std::optional<DepthwiseMatch> matchDepthwise(linalg::GenericOp op) {
  auto window = op->getAttrOfType<DenseI64ArrayAttr>(kiln::lower::kDepthwiseAttr);
  if (!window || window.size() != 6 || !op.hasPureBufferSemantics() ||
      op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1)
    return std::nullopt;
  DepthwiseMatch match{Value(), op.getDpsInputs()[0], op.getDpsInits()[0], window.asArrayRef()};
  for (auto load : op.getRegion().front().getOps<memref::LoadOp>()) {
    if (match.input && match.input != load.getMemRef())
      return std::nullopt;
    match.input = load.getMemRef();
  }
  if (!match.input || !isContiguousF32(match.input, 4) || !isContiguousF32(match.filter, 4) ||
      !isContiguousF32(match.output, 5))
    return std::nullopt;
  return match;
}

/// The linalg.fill of zeros that initialises `c` just before `op` (only ops without memory
/// effects in between), if there is one: the kernel can then overwrite C instead.
linalg::FillOp zeroFillBefore(Operation *op, Value c) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (!fill)
      if (isMemoryEffectFree(prev))
        continue;
    if (!fill || fill.getOutputs()[0] != c)
      return nullptr;
    return matchPattern(fill.getInputs()[0], m_PosZeroFloat()) ? fill : nullptr;
  }
  return nullptr;
}

struct KernelCallsPass : kiln::lower::impl::KernelCallsPassBase<KernelCallsPass> {
  using KernelCallsPassBase::KernelCallsPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<std::pair<linalg::GenericOp, MatmulMatch>> matmuls;
    SmallVector<std::pair<linalg::GenericOp, DepthwiseMatch>> depthwise;
    func.walk([&](linalg::GenericOp op) {
      if (auto m = matchMatmul(op); m && m->m * m->n * m->k >= minFlops)
        matmuls.push_back({op, *m});
      else if (auto d = matchDepthwise(op))
        depthwise.push_back({op, *d});
    });
    OpBuilder b(func.getContext());
    Type i64 = b.getI64Type(), i32 = b.getI32Type();
    auto declare = [&](StringRef name, ArrayRef<Type> args) {
      auto module = func->getParentOfType<ModuleOp>();
      if (module.lookupSymbol<func::FuncOp>(name))
        return;
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      func::FuncOp::create(b, func.getLoc(), name, b.getFunctionType(args, {})).setPrivate();
    };
    // Emits the call replacing `op`: buffers by address, then integer arguments.
    auto call = [&](linalg::GenericOp op, StringRef name, ValueRange buffers,
                    ArrayRef<int64_t> sizes, int32_t flags) {
      b.setInsertionPoint(op);
      Location loc = op.getLoc();
      SmallVector<Value> args;
      for (Value v : buffers) {
        Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, v);
        args.push_back(arith::IndexCastOp::create(b, loc, i64, p));
      }
      for (int64_t s : sizes)
        args.push_back(arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, s)));
      args.push_back(arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, flags)));
      func::CallOp::create(b, loc, name, TypeRange{}, args);
      op.erase();
    };
    if (!matmuls.empty())
      declare(KILN_KERNEL_MATMUL_F32, {i64, i64, i64, i64, i64, i64, i32});
    for (auto &[op, m] : matmuls) {
      if (linalg::FillOp fill = zeroFillBefore(op, m.c)) {
        m.flags |= KILN_MATMUL_OVERWRITE;
        fill.erase();
      }
      call(op, KILN_KERNEL_MATMUL_F32, {m.a, m.b, m.c}, {m.m, m.n, m.k}, m.flags);
    }
    if (!depthwise.empty()) {
      SmallVector<Type> args(3 + 15, i64);
      args.push_back(i32);
      declare(KILN_KERNEL_DEPTHWISE_CONV2D_F32, args);
    }
    for (auto &[op, d] : depthwise) {
      int32_t flags = 0;
      if (linalg::FillOp fill = zeroFillBefore(op, d.output)) {
        flags |= KILN_DEPTHWISE_OVERWRITE;
        fill.erase();
      }
      auto in = cast<MemRefType>(d.input.getType()).getShape();
      auto f = cast<MemRefType>(d.filter.getType()).getShape();
      auto out = cast<MemRefType>(d.output.getType()).getShape();
      // n, h, w, c, m, kh, kw, oh, ow, then the window.
      SmallVector<int64_t> sizes = {in[0], in[1], in[2], in[3], f[3], f[0], f[1], out[1], out[2]};
      llvm::append_range(sizes, d.window);
      call(op, KILN_KERNEL_DEPTHWISE_CONV2D_F32, {d.input, d.filter, d.output}, sizes, flags);
    }
  }
};

} // namespace
