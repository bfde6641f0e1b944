//===- Elementwise.cpp - elementwise ops as vectors of 4 elements a thread ----===//
#include "codegen/GPU/Strategies/Builders.h"
#include "codegen/GPU/Strategies/Matchers.h"
#include "codegen/GPU/Strategies/Strategies.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln::codegen::gpu {

/// Elements a thread of a vectorised elementwise kernel takes (buildVectorisedElementwise).
static constexpr int64_t kVector = 4;

/// For each operand of `op` (an elementwise generic with static sizes), whether it varies
/// along the innermost loop; nothing if one that does reads it other than as its last,
/// contiguous dimension of a buffer whose rows start aligned (vectorRows), or if an
/// output does not.
static std::optional<SmallVector<bool>> varyingOperands(linalg::GenericOp op) {
  unsigned last = op.getNumLoops() - 1;
  // Each operand: true when it varies along the innermost loop (then as its last dimension).
  SmallVector<bool> varies;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool uses =
        llvm::any_of(map.getResults(), [&](AffineExpr e) { return e.isFunctionOfDim(last); });
    bool contiguous =
        map.getNumResults() && map.getResults().back() == getAffineDimExpr(last, op.getContext()) &&
        llvm::count_if(map.getResults(), [&](AffineExpr e) { return e.isFunctionOfDim(last); }) ==
            1;
    if (uses && (!contiguous || !vectorRows(operand.get().getType(), kVector)))
      return std::nullopt;
    if (!uses && op.isDpsInit(&operand))
      return std::nullopt; // an output written at one element by kVector threads
    varies.push_back(uses);
  }
  return varies;
}

bool fitsVectorisedElementwise(linalg::GenericOp op) {
  if (op.getNumReductionLoops() != 0 || !op.hasPureBufferSemantics() || op.getNumLoops() == 0)
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) || ranges.back() % kVector != 0)
    return false;
  if (!varyingOperands(op))
    return false;
  Block &body = op.getRegion().front();
  for (Operation &inner : body.without_terminator()) {
    if (isa<arith::ConstantOp>(inner))
      continue;
    if (!OpTrait::hasElementwiseMappableTraits(&inner) || inner.getNumRegions() != 0 ||
        llvm::any_of(inner.getResultTypes(),
                     [](Type t) { return !t.isIntOrIndexOrFloat() || t.isIndex(); }) ||
        llvm::any_of(inner.getOperandTypes(), [](Type t) { return t.isIndex(); }))
      return false;
  }
  return true;
}

/// Replaces `op`, an elementwise generic (every loop parallel, static sizes, the innermost
/// a multiple of kVector, a body of elementwise-mappable scalar ops), with a kernel of one
/// thread per kVector consecutive elements of the innermost loop: operands that vary along
/// it are read with one vector load (`ld.global.v4` for f32), those that do not (a bias
/// along the channels read at a pixel, a scalar) once and broadcast, the body applied to
/// vectors, the outputs written with one vector store. Each operand that varies along
/// the innermost loop must read it as its last, contiguous dimension from a buffer whose
/// rows start aligned (vectorRows). Returns the scf.parallel in `op`'s place, which
/// mapParallel makes the kernel. `op` must be one fitsVectorisedElementwise takes.
scf::ParallelOp buildVectorisedElementwise(IRRewriter &rewriter, linalg::GenericOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  std::optional<SmallVector<bool>> varies = varyingOperands(op);
  assert(varies && "not a vectorised elementwise op (fitsVectorisedElementwise)");
  Block &body = op.getRegion().front();

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<int64_t> counts(ranges);
  counts.back() /= kVector;
  auto loop =
      parallelLoop(rewriter, loc, counts, [&](OpBuilder &b, Location, ValueRange parallelIvs) {
        SmallVector<Value> ivs(parallelIvs);
        ivs.back() = arith::MulIOp::create(b, loc, ivs.back(), indexConstant(b, loc, kVector));
        IRMapping map; // body values to their vectors
        auto vectorOf = [&](Value v) -> Value {
          if (Value mapped = map.lookupOrNull(v); mapped && isa<VectorType>(mapped.getType()))
            return mapped;
          Value scalar = map.lookupOrDefault(v);
          return vector::BroadcastOp::create(b, loc, VectorType::get({kVector}, v.getType()),
                                             scalar);
        };
        // The operands the body reads (an output too: an addition written over its own
        // operand), a vector each where they vary along the row, else one element.
        for (OpOperand &operand : op->getOpOperands()) {
          BlockArgument arg = body.getArgument(operand.getOperandNumber());
          if (arg.use_empty())
            continue;
          SmallVector<Value> at = applyMap(b, loc, op.getMatchingIndexingMap(&operand), ivs);
          map.map(arg, (*varies)[operand.getOperandNumber()]
                           ? alignedVectorLoad(b, loc, operand.get(), at, kVector)
                           : memref::LoadOp::create(b, loc, operand.get(), at).getResult());
        }
        for (Operation &inner : body.without_terminator()) {
          if (isa<arith::ConstantOp>(inner)) {
            b.clone(inner, map); // a scalar, broadcast where used
            continue;
          }
          OperationState state(loc, inner.getName());
          for (Value operand : inner.getOperands())
            state.addOperands(vectorOf(operand));
          for (Type t : inner.getResultTypes())
            state.addTypes(VectorType::get({kVector}, t));
          state.addAttributes(inner.getAttrs());
          Operation *vectorised = b.create(state);
          map.map(inner.getResults(), vectorised->getResults());
        }
        auto yield = cast<linalg::YieldOp>(body.getTerminator());
        for (auto [value, init] : llvm::zip(yield.getValues(), op.getDpsInitsMutable()))
          alignedVectorStore(b, loc, vectorOf(value), init.get(),
                             applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs));
        scf::ReduceOp::create(b, loc);
      });
  rewriter.eraseOp(op);
  return loop;
}

} // namespace kiln::codegen::gpu
