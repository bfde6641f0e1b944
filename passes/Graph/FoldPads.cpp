//===- FoldPads.cpp - zero padding becomes the convolution's own --------------===//
//
// The convolutions' canonicalization patterns (dialects/TF/Ops/Convolution.cpp), applied
// in one walk.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Graph/Passes.h"

#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace kiln::graph {
#define GEN_PASS_DEF_FOLDPADSPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace {

/// Counts the convolutions the patterns change (each fold modifies one in place).
struct FoldCounter : RewriterBase::Listener {
  void notifyOperationModified(Operation *) override { ++folds; }
  int64_t folds = 0;
};

struct FoldPadsPass : kiln::graph::impl::FoldPadsPassBase<FoldPadsPass> {
  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    kiln::tf::Conv2DOp::getCanonicalizationPatterns(set, context);
    kiln::tf::DepthwiseConv2dNativeOp::getCanonicalizationPatterns(set, context);
    kiln::tf::FusedConv2DOp::getCanonicalizationPatterns(set, context);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    // One walk: no folding and no dead-code removal beyond the Pads the patterns erase
    // (pruning is kiln-graph-prune's).
    FoldCounter counter;
    walkAndApplyPatterns(getOperation(), patterns, &counter);
    numFolded += counter.folds;
  }

  FrozenRewritePatternSet patterns;
};

} // namespace
