//===- Shape.cpp - Reshape ----------------------------------------------------===//
#include "dialects/TF/TFOps.h"

using namespace mlir;

namespace kiln::tf {

LogicalResult inferReshape(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto input = cast<TensorType>(ctx.operandType(0));
  auto shapeType = cast<TensorType>(ctx.operandType(1));
  Type element = input.getElementType();
  if (failed(ctx.checkTypeAttr("T", element)))
    return failure();
  if (shapeType.hasRank() && shapeType.getRank() != 1)
    return ctx.error("shape must be 1-D, got ", shapeType);

  auto shapeConst = ctx.operands[1].getDefiningOp<ConstOp>();
  auto shapeValue = shapeConst ? dyn_cast<DenseIntElementsAttr>(shapeConst.getValue())
                               : DenseIntElementsAttr();
  if (!shapeValue) {
    if (shapeType.hasStaticShape())
      out.push_back(RankedTensorType::get(
          SmallVector<int64_t>(shapeType.getDimSize(0), ShapedType::kDynamic), element));
    else
      out.push_back(UnrankedTensorType::get(element));
    return success();
  }

  SmallVector<int64_t> dims;
  int inferredIndex = -1;
  int64_t known = 1;
  for (const APInt &v : shapeValue.getValues<APInt>()) {
    int64_t d = v.getSExtValue();
    if (d == -1) {
      if (inferredIndex >= 0)
        return ctx.error("shape has more than one -1: ", shapeValue);
      inferredIndex = dims.size();
      dims.push_back(ShapedType::kDynamic);
      continue;
    }
    if (d < 0)
      return ctx.error("shape has a negative dimension: ", shapeValue);
    known *= d;
    dims.push_back(d);
  }
  if (input.hasStaticShape()) {
    int64_t count = input.getNumElements();
    if (inferredIndex >= 0) {
      if (known == 0 || count % known != 0)
        return ctx.error("cannot reshape ", input, " (", count, " elements) to ", shapeValue);
      dims[inferredIndex] = count / known;
    } else if (known != count) {
      return ctx.error("cannot reshape ", input, " (", count, " elements) to ", shapeValue,
                       " (", known, " elements)");
    }
  }
  out.push_back(RankedTensorType::get(dims, element));
  return success();
}

} // namespace kiln::tf
