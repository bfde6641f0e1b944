//===- Elementwise.cpp - broadcasting arithmetic, activations, Cast -----------===//
#include "dialects/TF/TFOps.h"

#include "mlir/Dialect/Traits.h"

using namespace mlir;

namespace kiln::tf {

LogicalResult inferBroadcastBinary(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto x = cast<TensorType>(ctx.operandType(0));
  auto y = cast<TensorType>(ctx.operandType(1));
  if (failed(ctx.checkSameElementType(x, y, "inputs")))
    return failure();
  if (!x.hasRank() || !y.hasRank()) {
    out.push_back(UnrankedTensorType::get(x.getElementType()));
    return success();
  }
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(x.getShape(), y.getShape(), shape))
    return ctx.error("shapes ", x, " and ", y, " are not broadcast-compatible");
  out.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult inferCast(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(1)))
    return failure();
  auto x = cast<TensorType>(ctx.operandType(0));
  auto dst = ctx.attr<TypeAttr>("DstT");
  if (!dst)
    return ctx.error("requires a 'DstT' type attribute");
  if (failed(ctx.checkTypeAttr("SrcT", x.getElementType())))
    return failure();
  out.push_back(x.clone(dst.getValue()));
  return success();
}

} // namespace kiln::tf
