//===- Decompose.cpp - composite ops as the ops Kiln has kernels for ----------===//
#include "dialects/TF/TFOps.h"
#include "passes/Graph/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln::graph {
#define GEN_PASS_DEF_DECOMPOSEPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace {

struct DecomposePass : kiln::graph::impl::DecomposePassBase<DecomposePass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Older names and composites first: SpaceToBatch becomes the SpaceToBatchND a dilated
    // convolution's fusion looks for.
    bool failed = false;
    SmallVector<Operation *> aliases;
    getOperation().walk([&](Operation *op) {
      if (isa<kiln::tf::TFDialect>(op->getDialect()))
        aliases.push_back(op);
    });
    // Each rewrite takes the ops it knows (true), leaves the rest (false) or fails.
    using Rewrite = FailureOr<bool> (*)(RewriterBase &, Operation *);
    const Rewrite rewrites[] = {kiln::tf::decomposeAlias, kiln::tf::decomposeGradient,
                                kiln::tf::decomposeComposite, kiln::tf::decomposeRandom};
    for (Operation *op : aliases) {
      for (Rewrite rewrite : rewrites) {
        FailureOr<bool> done = rewrite(rewriter, op);
        if (mlir::failed(done)) {
          failed = true; // the rewrite reported why at the op
          break;
        }
        if (!*done)
          continue;
        ++(rewrite == kiln::tf::decomposeGradient ? numGradients : numAliases);
        break;
      }
    }
    // Dilated convolutions first: they take the SpaceToBatchND and BatchToSpaceND they fuse.
    SmallVector<kiln::tf::BatchToSpaceNDOp> crops;
    getOperation().walk([&](kiln::tf::BatchToSpaceNDOp op) { crops.push_back(op); });
    for (kiln::tf::BatchToSpaceNDOp op : crops)
      if (succeeded(kiln::tf::fuseDilatedConvolution(rewriter, op)))
        ++numDilatedConvolutions;
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<kiln::tf::EinsumOp, kiln::tf::BatchMatMulOp, kiln::tf::BatchMatMulV2Op,
              kiln::tf::Conv2DOp, kiln::tf::Conv3DOp, kiln::tf::TensorListGatherOp,
              kiln::tf::SpaceToBatchNDOp, kiln::tf::BatchToSpaceNDOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto einsum = dyn_cast<kiln::tf::EinsumOp>(op)) {
        if (mlir::failed(kiln::tf::decomposeEinsum(rewriter, einsum))) {
          failed = true; // every Einsum reports its own error
          continue;
        }
        ++numDecomposed;
      } else if (auto gather = dyn_cast<kiln::tf::TensorListGatherOp>(op)) {
        // A list is the tensor of its elements: gathering from it is GatherV2 on axis 0.
        rewriter.setInsertionPoint(gather);
        auto i32 = RankedTensorType::get({}, rewriter.getI32Type());
        Value axis = kiln::tf::ConstOp::create(rewriter, gather.getLoc(), i32,
                                               DenseIntElementsAttr::get(i32, {int32_t(0)}),
                                               TypeAttr::get(rewriter.getI32Type()), ValueRange{});
        Value replacement =
            kiln::tf::createTF(rewriter, gather.getLoc(), "GatherV2",
                               {gather.getInputHandle(), gather.getIndices(), axis});
        if (!replacement) {
          failed = true;
          continue;
        }
        rewriter.replaceOp(gather, replacement);
        ++numDecomposed;
      } else if (isa<kiln::tf::SpaceToBatchNDOp, kiln::tf::BatchToSpaceNDOp>(op)) {
        if (mlir::failed(kiln::tf::decomposeSpaceBatch(rewriter, op))) {
          op->emitError() << "needs static shapes and a constant block shape, paddings and "
                             "crops";
          failed = true;
          continue;
        }
        ++numSpaceBatch;
      } else if (auto conv = dyn_cast<kiln::tf::Conv2DOp>(op)) {
        if (succeeded(kiln::tf::decomposeGroupedConv2D(rewriter, conv)))
          ++numGroupedConvolutions;
      } else if (auto conv3d = dyn_cast<kiln::tf::Conv3DOp>(op)) {
        if (succeeded(kiln::tf::decomposeGroupedConv3D(rewriter, conv3d)))
          ++numGroupedConvolutions;
      } else if (succeeded(kiln::tf::flattenBatchMatMul(rewriter, op))) {
        ++numFlattened;
      }
    }
    if (failed)
      signalPassFailure();
  }
};

} // namespace
