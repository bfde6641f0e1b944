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
    SmallVector<std::pair<linalg::GenericOp, MatmulMatch>> matches;
    func.walk([&](linalg::GenericOp op) {
      if (auto m = matchMatmul(op); m && m->m * m->n * m->k >= minFlops)
        matches.push_back({op, *m});
    });
    if (matches.empty())
      return;
    auto module = func->getParentOfType<ModuleOp>();
    OpBuilder b(func.getContext());
    Type i64 = b.getI64Type(), i32 = b.getI32Type();
    auto kernelType = b.getFunctionType({i64, i64, i64, i64, i64, i64, i32}, {});
    if (!module.lookupSymbol<func::FuncOp>(KILN_KERNEL_MATMUL_F32)) {
      b.setInsertionPointToStart(module.getBody());
      auto decl = func::FuncOp::create(b, func.getLoc(), KILN_KERNEL_MATMUL_F32, kernelType);
      decl.setPrivate();
    }
    for (auto &[op, m] : matches) {
      if (linalg::FillOp fill = zeroFillBefore(op, m.c)) {
        m.flags |= KILN_MATMUL_OVERWRITE;
        fill.erase();
      }
      b.setInsertionPoint(op);
      Location loc = op.getLoc();
      auto address = [&](Value v) -> Value {
        Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, v);
        return arith::IndexCastOp::create(b, loc, i64, p);
      };
      auto constant = [&](Type t, int64_t v) -> Value {
        return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
      };
      func::CallOp::create(b, loc, KILN_KERNEL_MATMUL_F32, TypeRange{},
                           ValueRange{address(m.a), address(m.b), address(m.c),
                                      constant(i64, m.m), constant(i64, m.n), constant(i64, m.k),
                                      constant(i32, m.flags)});
      op.erase();
    }
  }
};

} // namespace
