//===- Shape.cpp - Reshape ----------------------------------------------------===//
#include "passes/Lower/Patterns/Patterns.h"
#include "dialects/TF/TFOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::lower {
namespace {

/// Reshape between static shapes: collapse to 1-D, then expand to the result shape. Both
/// steps are views after bufferization, so no data moves.
struct ReshapeLowering : OpConversionPattern<tf::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getOutput().getType()));
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getTensor().getType());
    if (!resultType || !resultType.hasStaticShape() || !inputType ||
        !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    Value value = adaptor.getTensor();
    if (inputType == resultType) {
      rewriter.replaceOp(op, value);
      return success();
    }
    // Scalars: every dimension on the other side is 1 and the reassociation is empty.
    if (inputType.getRank() == 0) {
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, resultType, value,
                                                         ArrayRef<ReassociationIndices>{});
      return success();
    }
    if (resultType.getRank() == 0) {
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, resultType, value,
                                                           ArrayRef<ReassociationIndices>{});
      return success();
    }
    auto allDims = [](int64_t rank) {
      ReassociationIndices group;
      for (int64_t i = 0; i < rank; ++i)
        group.push_back(i);
      return SmallVector<ReassociationIndices>{group};
    };
    auto flatType = RankedTensorType::get({inputType.getNumElements()},
                                          inputType.getElementType());
    if (inputType.getRank() != 1)
      value = tensor::CollapseShapeOp::create(rewriter, loc, flatType, value,
                                              allDims(inputType.getRank()));
    if (resultType.getRank() != 1)
      value = tensor::ExpandShapeOp::create(rewriter, loc, resultType, value,
                                            allDims(resultType.getRank()));
    rewriter.replaceOp(op, value);
    return success();
  }
};

} // namespace

void populateShapePatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReshapeLowering>(converter, patterns.getContext());
}

} // namespace kiln::lower
