//===- Scatter.cpp - segment reductions, bin counts, ScatterNd, TensorScatter* -===//
#include "dialects/TF/TFOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::tf {

/// Operand `index` as a non-negative constant scalar, if it is one.
static std::optional<int64_t> constantCount(const InferContext &ctx, unsigned index) {
  auto values = ctx.constantInts(index);
  if (!values || values->size() != 1)
    return std::nullopt;
  return values->front();
}

LogicalResult inferSegment(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(3);
  if (failed(input))
    return failure();
  auto data = *input;
  auto ids = cast<TensorType>(ctx.operandType(1));
  if (!ids.getElementType().isSignlessInteger())
    return ctx.error("segment_ids must be int32 or int64, got ", ids);
  bool sorted = !ctx.opName.starts_with("tf.Unsorted");
  if (sorted && ids.hasRank() && ids.getRank() != 1)
    return ctx.error("segment_ids must be a vector, got ", ids);
  std::optional<int64_t> segments = constantCount(ctx, 2);
  if (segments && *segments < 0)
    return ctx.error("num_segments must not be negative, got ", *segments);
  if (!data.hasRank() || !ids.hasRank()) {
    out.push_back(UnrankedTensorType::get(data.getElementType()));
    return success();
  }
  if (ids.getRank() > data.getRank() ||
      failed(verifyCompatibleShape(ids.getShape(), data.getShape().take_front(ids.getRank()))))
    return ctx.error("segment_ids' shape ", describeDims(ids.getShape()),
                     " must be a prefix of data's ", describeDims(data.getShape()));
  SmallVector<int64_t> shape{segments ? *segments : ShapedType::kDynamic};
  llvm::append_range(shape, data.getShape().drop_front(ids.getRank()));
  out.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

/// The checks of ids that may be negative (dropped) but not `bound` or more.
static void checkBelow(Value ids, std::optional<SmallVector<int64_t>> bound, StringRef name,
                       SmallVectorImpl<RuntimeCheck> &checks) {
  if (!bound || bound->size() != 1)
    return;
  int64_t n = bound->front();
  checks.push_back({ids,
                    "below",
                    {n},
                    (name + "{index} = {value} is out of range [0, " + Twine(n) + ")").str()});
}

#define KILN_SEGMENT_CHECKS(Op)                                                                    \
  void Op::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {                               \
    checkBelow(getSegmentIds(), constantIntsOf(getNumSegments()), "segment_ids", checks);          \
  }
KILN_SEGMENT_CHECKS(UnsortedSegmentSumOp)
KILN_SEGMENT_CHECKS(UnsortedSegmentProdOp)
KILN_SEGMENT_CHECKS(UnsortedSegmentMaxOp)
KILN_SEGMENT_CHECKS(UnsortedSegmentMinOp)
KILN_SEGMENT_CHECKS(SegmentSumV2Op)
KILN_SEGMENT_CHECKS(SegmentProdV2Op)
KILN_SEGMENT_CHECKS(SegmentMaxV2Op)
KILN_SEGMENT_CHECKS(SegmentMinV2Op)
#undef KILN_SEGMENT_CHECKS

LogicalResult inferBincount(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto input = cast<TensorType>(ctx.operandType(0));
  auto weights = cast<TensorType>(ctx.operandType(2));
  bool dense = ctx.opName == "tf.DenseBincount";
  if (!input.getElementType().isSignlessInteger())
    return ctx.error("the values must be int32 or int64, got ", input);
  if (dense && input.hasRank() && input.getRank() != 1 && input.getRank() != 2)
    return ctx.error("input must be a vector or a matrix, got ", input);
  if (failed(ctx.checkTypeAttr("T", weights.getElementType())))
    return failure();
  bool noWeights = weights.hasStaticShape() && weights.getNumElements() == 0;
  if (!noWeights && input.hasRank() && weights.hasRank() &&
      failed(verifyCompatibleShape(input, weights)))
    return ctx.error("weights must be empty or have the values' shape ", input, ", got ", weights);
  std::optional<int64_t> size = constantCount(ctx, 1);
  if (size && *size < 0)
    return ctx.error("size must not be negative, got ", *size);
  SmallVector<int64_t> shape;
  if (dense && input.hasRank() && input.getRank() == 2)
    shape.push_back(input.getDimSize(0));
  shape.push_back(size ? *size : ShapedType::kDynamic);
  out.push_back(RankedTensorType::get(shape, weights.getElementType()));
  return success();
}

static void checkNonnegativeValues(Value values, SmallVectorImpl<RuntimeCheck> &checks) {
  checks.push_back({values,
                    "nonnegative",
                    {},
                    "input{index} = {value}: the values must not be "
                    "negative (TensorFlow: Input arr must be "
                    "non-negative!)"});
}

void BincountOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &c) {
  checkNonnegativeValues(getArr(), c);
}
void DenseBincountOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &c) {
  checkNonnegativeValues(getInput(), c);
}

/// Checks that `indices` ([..., K]) and `updates` fit a scatter into `shape`: updates'
/// shape is indices' without its last dimension, then shape's after the first K.
static LogicalResult checkScatter(const InferContext &ctx, TensorType indices, TensorType updates,
                                  ArrayRef<int64_t> shape) {
  if (!indices.getElementType().isSignlessInteger())
    return ctx.error("indices must be int32 or int64, got ", indices);
  if (!indices.hasRank() || !updates.hasRank())
    return success();
  if (indices.getRank() == 0)
    return ctx.error("indices must have rank 1 or more, got ", indices);
  int64_t k = indices.getShape().back();
  if (ShapedType::isDynamic(k))
    return success();
  if (k < 1 || k > static_cast<int64_t>(shape.size()))
    return ctx.error("the last dimension of indices (", k, ") must be from 1 to the rank of ",
                     describeDims(shape));
  SmallVector<int64_t> expected(indices.getShape().drop_back());
  llvm::append_range(expected, shape.drop_front(k));
  if (failed(verifyCompatibleShape(expected, updates.getShape())))
    return ctx.error("updates must have the shape ", describeDims(expected), ", got ", updates);
  return success();
}

LogicalResult inferScatterNd(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto indices = cast<TensorType>(ctx.operandType(0));
  auto updates = cast<TensorType>(ctx.operandType(1));
  if (failed(ctx.checkTypeAttr("T", updates.getElementType())))
    return failure();
  auto shape = ctx.constantInts(2);
  if (!shape) {
    out.push_back(UnrankedTensorType::get(updates.getElementType()));
    return success();
  }
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return ctx.error("shape ", describeDims(*shape), " must not be negative");
  if (failed(checkScatter(ctx, indices, updates, *shape)))
    return failure();
  out.push_back(RankedTensorType::get(*shape, updates.getElementType()));
  return success();
}

LogicalResult inferTensorScatter(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(3);
  if (failed(input))
    return failure();
  auto indices = cast<TensorType>(ctx.operandType(1));
  auto updates = cast<TensorType>(ctx.operandType(2));
  if (updates.getElementType() != input->getElementType())
    return ctx.error("updates must have tensor's dtype ", input->getElementType(), ", got ",
                     updates);
  if (input->hasRank() && failed(checkScatter(ctx, indices, updates, input->getShape())))
    return failure();
  out.push_back(*input);
  return success();
}

/// Each index tuple ([..., K]) must index into the first K dimensions of `shape`, unless
/// the op's bad_indices_policy is "IGNORE" (then those tuples write nothing).
static void checkTuples(Operation *op, Value indices, ArrayRef<int64_t> shape,
                        SmallVectorImpl<RuntimeCheck> &checks) {
  auto policy = op->getAttrOfType<StringAttr>("bad_indices_policy");
  if (policy && policy.getValue() == "IGNORE")
    return;
  auto type = dyn_cast<RankedTensorType>(indices.getType());
  if (!type || type.getRank() == 0 || type.isDynamicDim(type.getRank() - 1))
    return;
  int64_t k = type.getShape().back();
  if (k < 1 || k > static_cast<int64_t>(shape.size()) ||
      llvm::any_of(shape.take_front(k), ShapedType::isDynamic))
    return;
  checks.push_back({indices, "in_range", SmallVector<int64_t>(shape.take_front(k)),
                    "indices{index} = {value} does not index into shape " + describeDims(shape)});
}

void ScatterNdOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {
  if (auto shape = constantIntsOf(getShape()))
    checkTuples(*this, getIndices(), *shape, checks);
}

#define KILN_TENSOR_SCATTER_CHECKS(Op)                                                             \
  void Op::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {                               \
    if (auto t = dyn_cast<RankedTensorType>(getTensor().getType()))                                \
      checkTuples(*this, getIndices(), t.getShape(), checks);                                      \
  }
KILN_TENSOR_SCATTER_CHECKS(TensorScatterUpdateOp)
KILN_TENSOR_SCATTER_CHECKS(TensorScatterAddOp)
KILN_TENSOR_SCATTER_CHECKS(TensorScatterSubOp)
KILN_TENSOR_SCATTER_CHECKS(TensorScatterMaxOp)
KILN_TENSOR_SCATTER_CHECKS(TensorScatterMinOp)
#undef KILN_TENSOR_SCATTER_CHECKS

LogicalResult inferSparseToDense(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(4)))
    return failure();
  auto indices = cast<TensorType>(ctx.operandType(0));
  auto values = cast<TensorType>(ctx.operandType(2));
  auto fallback = cast<TensorType>(ctx.operandType(3));
  if (failed(ctx.checkTypeAttr("T", values.getElementType())))
    return failure();
  if (fallback.getElementType() != values.getElementType() ||
      (fallback.hasRank() && fallback.getRank() != 0))
    return ctx.error("default_value must be a scalar of sparse_values' dtype, got ", fallback);
  if (indices.hasRank() && indices.getRank() > 2)
    return ctx.error("sparse_indices must be a scalar, a vector or a matrix, got ", indices);
  if (values.hasRank() && values.getRank() > 1)
    return ctx.error("sparse_values must be a scalar or a vector, got ", values);
  auto shape = ctx.constantInts(1);
  if (!shape) {
    out.push_back(UnrankedTensorType::get(values.getElementType()));
    return success();
  }
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return ctx.error("output_shape ", describeDims(*shape), " must not be negative");
  if (indices.hasRank()) {
    int64_t rank = indices.getRank() == 2 ? indices.getDimSize(1) : 1;
    if (!ShapedType::isDynamic(rank) && rank != static_cast<int64_t>(shape->size()))
      return ctx.error("sparse_indices hold indices of rank ", rank, " for output_shape ",
                       describeDims(*shape));
    int64_t n = indices.getRank() == 0 ? 1 : indices.getDimSize(0);
    if (values.hasRank() && values.getRank() == 1 && !ShapedType::isDynamic(n) &&
        !values.isDynamicDim(0) && values.getDimSize(0) != n)
      return ctx.error("sparse_values has ", values.getDimSize(0), " values for ", n, " indices");
  }
  out.push_back(RankedTensorType::get(*shape, values.getElementType()));
  return success();
}

void SparseToDenseOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {
  auto shape = constantIntsOf(getOutputShape());
  auto indices = dyn_cast<RankedTensorType>(getSparseIndices().getType());
  if (!shape || !indices || llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return;
  if (indices.getRank() == 2) {
    checkTuples(*this, getSparseIndices(), *shape, checks);
  } else if (shape->size() == 1) {
    int64_t n = shape->front();
    checks.push_back(
        {getSparseIndices(),
         "in_range",
         {n},
         "sparse_indices{index} = {value} does not index into shape " + describeDims(*shape)});
  }
}

} // namespace kiln::tf
