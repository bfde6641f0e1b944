//===- DataDependent.cpp - Where, Unique, the non-max suppressions -------------===//
//
// Ops whose result size depends on the values they read: a result dimension of that size
// is dynamic here, and `kiln-graph-bound-sizes` gives it its bound.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"

using namespace mlir;

namespace kiln::tf {
namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;

/// Fails unless `type` is unranked or has rank `rank`.
LogicalResult checkRank(const InferContext &ctx, Type type, int64_t rank, StringRef what) {
  auto tensor = cast<TensorType>(type);
  if (tensor.hasRank() && tensor.getRank() != rank)
    return ctx.error(what, " must have rank ", rank, ", got ", tensor);
  return success();
}

/// Dimension `dim` of `type`, or kDynamic when it is unranked.
int64_t dimOf(Type type, int64_t dim) {
  auto tensor = cast<TensorType>(type);
  return tensor.hasRank() ? tensor.getDimSize(dim) : kDynamic;
}

/// Fails unless the known sizes `a` and `b` agree.
LogicalResult checkSameSize(const InferContext &ctx, int64_t a, int64_t b, StringRef what) {
  if (a != kDynamic && b != kDynamic && a != b)
    return ctx.error(what, " must agree, got ", a, " and ", b);
  return success();
}

} // namespace

LogicalResult inferWhere(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  if (failed(ctx.checkTypeAttr("T", input->getElementType())))
    return failure();
  int64_t rank = input->hasRank() ? input->getRank() : kDynamic;
  out.push_back(RankedTensorType::get({kDynamic, rank}, IntegerType::get(ctx.context, 64)));
  return success();
}

LogicalResult inferUnique(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  if (failed(ctx.checkTypeAttr("T", input->getElementType())) ||
      failed(checkRank(ctx, *input, 1, "x")))
    return failure();
  Type index = IntegerType::get(ctx.context, 32);
  if (auto t = ctx.attr<TypeAttr>("out_idx"))
    index = t.getValue();
  if (!index.isInteger(32) && !index.isInteger(64))
    return ctx.error("out_idx must be int32 or int64, got ", index);
  int64_t n = dimOf(*input, 0);
  // No element: no distinct value either.
  out.push_back(RankedTensorType::get({n == 0 ? 0 : kDynamic}, input->getElementType()));
  out.push_back(RankedTensorType::get({n}, index));
  return success();
}

LogicalResult inferNonMaxSuppression(const InferContext &ctx, InferResult &out) {
  bool v5 = ctx.opName.ends_with("V5"), v4 = ctx.opName.ends_with("V4");
  unsigned inputs = v5 ? 6 : 5;
  if (failed(ctx.requireTensorOperands(inputs)))
    return failure();
  Type boxes = ctx.operandType(0), scores = ctx.operandType(1);
  if (failed(checkRank(ctx, boxes, 2, "boxes")) || failed(checkRank(ctx, scores, 1, "scores")))
    return failure();
  if (dimOf(boxes, 1) != kDynamic && dimOf(boxes, 1) != 4)
    return ctx.error("boxes must be [num_boxes, 4], got ", boxes);
  if (failed(
          checkSameSize(ctx, dimOf(boxes, 0), dimOf(scores, 0), "the numbers of boxes and scores")))
    return failure();
  static constexpr StringLiteral scalars[] = {"max_output_size", "iou_threshold", "score_threshold",
                                              "soft_nms_sigma"};
  for (unsigned i = 2; i < inputs; ++i)
    if (failed(checkRank(ctx, ctx.operandType(i), 0, scalars[i - 2])))
      return failure();
  auto pad = ctx.attr<BoolAttr>("pad_to_max_output_size");
  int64_t size = kDynamic;
  auto max = ctx.constantInts(2);
  if (max && (*max)[0] < 0)
    return ctx.error("max_output_size = ", (*max)[0], " must not be negative");
  if (pad && pad.getValue() && max)
    size = (*max)[0];
  else if (dimOf(boxes, 0) == 0 || (max && (*max)[0] == 0))
    size = 0; // nothing to select
  Type i32 = IntegerType::get(ctx.context, 32), f32 = Float32Type::get(ctx.context);
  out.push_back(RankedTensorType::get({size}, i32));
  if (v5)
    out.push_back(RankedTensorType::get({size}, f32));
  if (v4 || v5)
    out.push_back(RankedTensorType::get({}, i32));
  return success();
}

LogicalResult inferCombinedNonMaxSuppression(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(6)))
    return failure();
  Type boxes = ctx.operandType(0), scores = ctx.operandType(1);
  if (failed(checkRank(ctx, boxes, 4, "boxes")) || failed(checkRank(ctx, scores, 3, "scores")))
    return failure();
  for (unsigned i = 2; i < 6; ++i)
    if (failed(checkRank(ctx, ctx.operandType(i), 0, "the sizes and thresholds")))
      return failure();
  int64_t batch = dimOf(boxes, 0), classes = dimOf(scores, 2), q = dimOf(boxes, 2);
  if (dimOf(boxes, 3) != kDynamic && dimOf(boxes, 3) != 4)
    return ctx.error("boxes must be [batch, num_boxes, q, 4], got ", boxes);
  if (failed(checkSameSize(ctx, batch, dimOf(scores, 0), "the batches of boxes and scores")) ||
      failed(
          checkSameSize(ctx, dimOf(boxes, 1), dimOf(scores, 1), "the numbers of boxes and scores")))
    return failure();
  if (q != kDynamic && classes != kDynamic && q != 1 && q != classes)
    return ctx.error("boxes must have 1 or num_classes (", classes, ") boxes per anchor, got ", q);
  auto perClass = ctx.constantInts(2), total = ctx.constantInts(3);
  if (perClass && (*perClass)[0] <= 0)
    return ctx.error("max_output_size_per_class = ", (*perClass)[0], " must be positive");
  if (total && (*total)[0] <= 0)
    return ctx.error("max_total_size = ", (*total)[0], " must be positive");
  int64_t size = total ? (*total)[0] : kDynamic;
  auto padPerClass = ctx.attr<BoolAttr>("pad_per_class");
  if (padPerClass && padPerClass.getValue())
    size = total && perClass && classes != kDynamic
               ? std::min(size, std::min<int64_t>((*perClass)[0] * classes, INT32_MAX))
               : kDynamic;
  Type i32 = IntegerType::get(ctx.context, 32), f32 = Float32Type::get(ctx.context);
  out.push_back(RankedTensorType::get({batch, size, 4}, f32));
  out.push_back(RankedTensorType::get({batch, size}, f32));
  out.push_back(RankedTensorType::get({batch, size}, f32));
  out.push_back(RankedTensorType::get({batch}, i32));
  return success();
}

} // namespace kiln::tf
