//===- FuseElementwise.cpp - one loop nest per elementwise chain --------------===//
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln::lower {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

bool allParallel(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && generic.getNumLoops() == generic.getNumParallelLoops();
}

/// Whether fusing the producer of `operand` would compute its transcendental functions
/// (exp, tanh, log, erf ...: polynomials of tens of instructions) again for each element its
/// one value is broadcast to: a squeeze-and-excitation block's sigmoid of one value per
/// channel, fused into its product with the whole image, computed an exp per pixel and
/// channel. (A layer normalisation's reciprocal square root of each row's variance stays
/// fused: one instruction more per element, and the normalisation stays one chain for
/// kiln-lower-parallel-loops.)
bool repeatsCostlyWork(OpOperand *operand) {
  auto consumer = cast<linalg::GenericOp>(operand->getOwner());
  if (consumer.getMatchingIndexingMap(operand).isPermutation())
    return false;
  auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
  return llvm::any_of(producer.getRegion().front(), [](Operation &op) {
    return isa<math::MathDialect>(op.getDialect()) &&
           !isa<math::SqrtOp, math::RsqrtOp, math::AbsFOp, math::FmaOp, math::FloorOp, math::CeilOp,
                math::RoundOp, math::RoundEvenOp, math::TruncOp, math::CopySignOp>(op);
  });
}

struct FuseElementwisePass : kiln::lower::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      Operation *consumer = operand->getOwner();
      return allParallel(producer) && allParallel(consumer) && operand->get().hasOneUse() &&
             !repeatsCostlyWork(operand);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
