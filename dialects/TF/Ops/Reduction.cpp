//===- Reduction.cpp - Sum, Mean, Max, Min, Prod, ArgMax, ArgMin --------------===//
#include "dialects/TF/TFOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::tf {

FailureOr<SmallVector<int64_t>> normalizeAxes(const InferContext &ctx, ArrayRef<int64_t> axes,
                                              int64_t rank) {
  SmallVector<int64_t> result;
  for (auto [i, a] : llvm::enumerate(axes)) {
    int64_t axis = a < 0 ? a + rank : a;
    if (axis < 0 || axis >= rank)
      return ctx.error("axis ", a, " is out of range for rank ", rank);
    // TensorFlow: "Invalid reduction arguments: Axes contains duplicate dimension".
    for (auto [j, b] : llvm::enumerate(axes.take_front(i)))
      if ((b < 0 ? b + rank : b) == axis)
        return ctx.error("axes ", b, " and ", a, " are both dimension ", axis,
                         "; each dimension may be reduced once");
    result.push_back(axis);
  }
  llvm::sort(result);
  return result;
}

LogicalResult inferReduction(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(2);
  if (failed(input))
    return failure();
  TensorType x = *input;
  bool keep = false;
  if (auto k = ctx.attr<BoolAttr>("keep_dims"))
    keep = k.getValue();
  auto axes = ctx.constantInts(1);
  if (!x.hasRank() || !axes) {
    if (x.hasRank() && keep)
      out.push_back(RankedTensorType::get(SmallVector<int64_t>(x.getRank(), ShapedType::kDynamic),
                                          x.getElementType()));
    else
      out.push_back(UnrankedTensorType::get(x.getElementType()));
    return success();
  }
  auto normalized = normalizeAxes(ctx, *axes, x.getRank());
  if (failed(normalized))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i) {
    if (!llvm::is_contained(*normalized, i))
      shape.push_back(x.getDimSize(i));
    else if (keep)
      shape.push_back(1);
  }
  out.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult inferArgReduction(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(2);
  if (failed(input))
    return failure();
  TensorType x = *input;
  Type element = IntegerType::get(ctx.context, 64);
  if (auto t = ctx.attr<TypeAttr>("output_type"))
    element = t.getValue();
  if (!element.isInteger(32) && !element.isInteger(64))
    return ctx.error("output_type must be int32 or int64, got ", element);
  auto axis = ctx.constantInts(1);
  if (!x.hasRank() || !axis) {
    out.push_back(UnrankedTensorType::get(element));
    return success();
  }
  if (axis->size() != 1)
    return ctx.error("dimension must be a scalar");
  auto normalized = normalizeAxes(ctx, *axis, x.getRank());
  if (failed(normalized))
    return failure();
  if (x.getDimSize((*normalized)[0]) == 0) {
    // TensorFlow: "Reduction axis 0 is empty in shape [0,3]".
    return ctx.error("reduction axis ", (*normalized)[0], " is empty in shape ",
                     describeDims(x.getShape()), ": there is no element to take the index of");
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < x.getRank(); ++i)
    if (i != (*normalized)[0])
      shape.push_back(x.getDimSize(i));
  out.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult inferCumulative(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(2);
  if (failed(input))
    return failure();
  auto axisType = cast<TensorType>(ctx.operandType(1));
  if (axisType.hasRank() && axisType.getRank() != 0)
    return ctx.error("axis must be a scalar, got ", axisType);
  if (auto axis = ctx.constantInts(1); axis && input->hasRank()) {
    int64_t rank = input->getRank(), a = axis->front();
    if (a < -rank || a >= rank)
      return ctx.error("axis ", a, " is out of range for an input of rank ", rank);
  }
  out.push_back(*input);
  return success();
}

/// The scanned dimension of a Cumsum or Cumprod, if its axis is a constant in range.
template <typename OpT> static std::optional<int64_t> scannedAxis(OpT op) {
  auto type = dyn_cast<RankedTensorType>(op.getX().getType());
  std::optional<SmallVector<int64_t>> axis = constantIntsOf(op.getAxis());
  if (!type || !axis || axis->size() != 1)
    return std::nullopt;
  int64_t rank = type.getRank(), a = axis->front();
  if (a < -rank || a >= rank)
    return std::nullopt;
  return a < 0 ? a + rank : a;
}

std::optional<int64_t> CumsumOp::getScannedAxis() { return scannedAxis(*this); }
std::optional<int64_t> CumprodOp::getScannedAxis() { return scannedAxis(*this); }
std::optional<int64_t> CumulativeLogsumexpOp::getScannedAxis() { return scannedAxis(*this); }

LogicalResult inferTopKV2(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(2);
  if (failed(input))
    return failure();
  TensorType x = *input;
  Type index = IntegerType::get(ctx.context, 32);
  if (auto t = ctx.attr<TypeAttr>("index_type"))
    index = t.getValue();
  if (!index.isInteger(32) && !index.isInteger(64))
    return ctx.error("index_type must be int32 or int64, got ", index);
  auto k = ctx.constantInts(1);
  if (x.hasRank() && x.getRank() == 0)
    return ctx.error("input must have at least one dimension, got ", x);
  if (k && k->size() != 1)
    return ctx.error("k must be a scalar");
  if (k && (*k)[0] < 0)
    return ctx.error("k = ", (*k)[0], " must not be negative");
  if (!x.hasRank()) {
    out.push_back(UnrankedTensorType::get(x.getElementType()));
    out.push_back(UnrankedTensorType::get(index));
    return success();
  }
  int64_t n = x.getDimSize(x.getRank() - 1);
  if (k && !ShapedType::isDynamic(n) && (*k)[0] > n)
    return ctx.error("k = ", (*k)[0], " is larger than the last dimension of ", x);
  SmallVector<int64_t> shape(x.getShape());
  shape.back() = k ? (*k)[0] : ShapedType::kDynamic;
  out.push_back(RankedTensorType::get(shape, x.getElementType()));
  out.push_back(RankedTensorType::get(shape, index));
  return success();
}

LogicalResult inferSearchSorted(const InferContext &ctx, InferResult &out) {
  auto inputs = ctx.twoInputs("sorted_inputs and values");
  if (failed(inputs))
    return failure();
  auto [sorted, values] = *inputs;
  Type element = IntegerType::get(ctx.context, 32);
  if (auto t = ctx.attr<TypeAttr>("out_type"))
    element = t.getValue();
  if (sorted.hasRank() && values.hasRank()) {
    if (sorted.getRank() < 1 || values.getRank() != sorted.getRank() ||
        failed(verifyCompatibleShape(sorted.getShape().drop_back(), values.getShape().drop_back())))
      return ctx.error("sorted_inputs and values must have the same leading dimensions "
                       "(rows), got ",
                       sorted, " and ", values);
  }
  out.push_back(values.clone(element));
  return success();
}

LogicalResult inferInTopK(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto predictions = cast<TensorType>(ctx.operandType(0));
  auto targets = cast<TensorType>(ctx.operandType(1));
  auto k = cast<TensorType>(ctx.operandType(2));
  if (predictions.hasRank() && predictions.getRank() != 2)
    return ctx.error("predictions must be a matrix [batch, classes], got ", predictions);
  if (targets.hasRank() && targets.getRank() != 1)
    return ctx.error("targets must be a vector, got ", targets);
  if (k.hasRank() && k.getRank() != 0)
    return ctx.error("k must be a scalar, got ", k);
  if (predictions.hasRank() && targets.hasRank() &&
      failed(verifyCompatibleShape(predictions.getShape().take_front(1), targets.getShape())))
    return ctx.error("targets must have one entry per row of predictions, got ", targets, " for ",
                     predictions);
  int64_t rows = predictions.hasRank() ? predictions.getDimSize(0)
                 : targets.hasRank()   ? targets.getDimSize(0)
                                       : ShapedType::kDynamic;
  out.push_back(RankedTensorType::get({rows}, IntegerType::get(ctx.context, 1)));
  return success();
}

namespace {

/// An integer Sum or Prod of a constant over constant axes, in the element type's wrapping
/// arithmetic as TensorFlow's kernels compute it.
OpFoldResult foldIntegerReduction(Operation *op, bool product) {
  auto input = op->getOperand(0).getDefiningOp<ConstOp>();
  auto axes = constantIntsOf(op->getOperand(1));
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!input || !axes || !type || !type.hasStaticShape() || !type.getElementType().isInteger() ||
      type.getNumElements() > kMaxFoldedElements)
    return {};
  auto values = dyn_cast<DenseIntElementsAttr>(input.getValue());
  if (!values || values.getNumElements() > kMaxFoldedElements)
    return {};
  auto inputType = cast<RankedTensorType>(values.getType());
  int64_t rank = inputType.getRank();
  SmallVector<bool> reduced(rank, false);
  for (int64_t a : *axes) {
    int64_t axis = a < 0 ? a + rank : a;
    if (axis < 0 || axis >= rank)
      return {};
    reduced[axis] = true;
  }
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  SmallVector<APInt> out(type.getNumElements(), APInt(width, product ? 1 : 0));
  SmallVector<int64_t> index(rank, 0);
  for (const APInt &v : values.getValues<APInt>()) {
    int64_t at = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        at = at * inputType.getDimSize(d) + index[d];
    out[at] = product ? out[at] * v : out[at] + v;
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == inputType.getDimSize(d); --d)
      index[d] = 0;
  }
  return DenseElementsAttr::get(type, out);
}

} // namespace

OpFoldResult SumOp::fold(FoldAdaptor) { return foldIntegerReduction(*this, false); }
OpFoldResult ProdOp::fold(FoldAdaptor) { return foldIntegerReduction(*this, true); }

} // namespace kiln::tf
