//===- FuseElementwise.cpp - one loop nest per elementwise chain --------------===//
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
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

struct FuseElementwisePass : kiln::lower::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      Operation *consumer = operand->getOwner();
      return allParallel(producer) && allParallel(consumer) && operand->get().hasOneUse();
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
