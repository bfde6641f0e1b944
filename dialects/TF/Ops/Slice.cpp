//===- Slice.cpp - Slice and StridedSlice -------------------------------------===//
#include "dialects/TF/TFOps.h"

using namespace mlir;

namespace kiln::tf {

FailureOr<SliceSpec> computeStridedSlice(const InferContext &ctx, ArrayRef<int64_t> shape,
                                         ArrayRef<int64_t> begin, ArrayRef<int64_t> end,
                                         ArrayRef<int64_t> strides, int64_t beginMask,
                                         int64_t endMask, int64_t ellipsisMask, int64_t newAxisMask,
                                         int64_t shrinkMask) {
  int64_t n = begin.size(), rank = shape.size();
  if (static_cast<int64_t>(end.size()) != n || static_cast<int64_t>(strides.size()) != n)
    return ctx.error("begin, end and strides must have the same length");
  if (llvm::popcount(static_cast<uint64_t>(ellipsisMask)) > 1)
    return ctx.error("at most one ellipsis is allowed");
  auto bit = [](int64_t mask, int64_t i) { return (mask >> i) & 1; };

  // One entry per output position in order: a dense input dimension, or -1 for a new axis.
  struct Dense {
    int64_t begin = 0, end = 0, stride = 1;
    bool beginMasked = true, endMasked = true, shrink = false;
  };
  SmallVector<Dense> dense(rank);
  SmallVector<int64_t> order;
  int64_t full = 0;
  bool sawEllipsis = false;
  for (int64_t i = 0; i < n; ++i) {
    if (bit(ellipsisMask, i)) {
      sawEllipsis = true;
      int64_t newAfter = 0;
      for (int64_t j = i + 1; j < n; ++j)
        newAfter += bit(newAxisMask, j);
      int64_t next = std::min(rank - (n - i) + 1 + newAfter, rank);
      for (; full < next; ++full)
        order.push_back(full);
      continue;
    }
    if (bit(newAxisMask, i)) {
      order.push_back(-1);
      continue;
    }
    if (full >= rank)
      return ctx.error("the slice has more dimensions than the input's ", rank);
    dense[full] = Dense{begin[i],
                        end[i],
                        strides[i],
                        static_cast<bool>(bit(beginMask, i)),
                        static_cast<bool>(bit(endMask, i)),
                        static_cast<bool>(bit(shrinkMask, i))};
    order.push_back(full);
    ++full;
  }
  if (!sawEllipsis)
    for (; full < rank; ++full)
      order.push_back(full);

  SliceSpec spec;
  spec.fixedIndex.assign(rank, -1);
  for (int64_t k : order) {
    if (k < 0) {
      spec.outputShape.push_back(1);
      spec.inputDim.push_back(-1);
      spec.begin.push_back(0);
      spec.stride.push_back(1);
      continue;
    }
    const Dense &d = dense[k];
    int64_t size = shape[k];
    if (d.stride == 0)
      return ctx.error("strides must be non-zero");
    if (d.shrink) {
      int64_t index = d.begin < 0 ? d.begin + size : d.begin;
      if (index < 0 || index >= size)
        return ctx.error("index ", d.begin, " is out of range for dimension ", k, " of size ",
                         size);
      spec.fixedIndex[k] = index;
      continue;
    }
    bool forward = d.stride > 0;
    auto canonical = [&](int64_t x, bool masked, bool isBegin) -> int64_t {
      if (masked)
        return forward ? (isBegin ? 0 : size) : (isBegin ? size - 1 : -1);
      int64_t v = x < 0 ? x + size : x;
      return forward ? std::clamp<int64_t>(v, 0, size) : std::clamp<int64_t>(v, -1, size - 1);
    };
    int64_t b = canonical(d.begin, d.beginMasked, true);
    int64_t e = canonical(d.end, d.endMasked, false);
    int64_t span = forward ? e - b : b - e;
    int64_t step = forward ? d.stride : -d.stride;
    int64_t count = span <= 0 ? 0 : (span + step - 1) / step;
    spec.outputShape.push_back(count);
    spec.inputDim.push_back(k);
    spec.begin.push_back(b);
    spec.stride.push_back(d.stride);
  }
  return spec;
}

FailureOr<SliceSpec> computeSlice(const InferContext &ctx, ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> begin, ArrayRef<int64_t> size) {
  int64_t rank = shape.size();
  if (static_cast<int64_t>(begin.size()) != rank || static_cast<int64_t>(size.size()) != rank)
    return ctx.error("begin and size must have one entry per dimension (", rank, ")");
  SliceSpec spec;
  spec.fixedIndex.assign(rank, -1);
  for (int64_t k = 0; k < rank; ++k) {
    int64_t s = size[k] == -1 ? shape[k] - begin[k] : size[k];
    if (begin[k] < 0 || s < 0 || begin[k] + s > shape[k])
      return ctx.error("slice [", begin[k], ", +", size[k], ") is out of range for dimension ", k,
                       " of size ", shape[k]);
    spec.outputShape.push_back(s);
    spec.inputDim.push_back(k);
    spec.begin.push_back(begin[k]);
    spec.stride.push_back(1);
  }
  return spec;
}

LogicalResult inferSlice(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(3);
  if (failed(input))
    return failure();
  TensorType x = *input;
  auto begin = ctx.constantInts(1), size = ctx.constantInts(2);
  if (!x.hasStaticShape() || !begin || !size) {
    out.push_back(x.hasRank() ? Type(RankedTensorType::get(
                                    SmallVector<int64_t>(x.getRank(), ShapedType::kDynamic),
                                    x.getElementType()))
                              : Type(x));
    return success();
  }
  auto spec = computeSlice(ctx, x.getShape(), *begin, *size);
  if (failed(spec))
    return failure();
  out.push_back(RankedTensorType::get(spec->outputShape, x.getElementType()));
  return success();
}

/// The StridedSlice spec of an op's operands, if they are known well enough.
static FailureOr<SliceSpec> stridedSliceSpec(const InferContext &ctx, TensorType x) {
  auto begin = ctx.constantInts(1), end = ctx.constantInts(2), strides = ctx.constantInts(3);
  auto mask = [&](StringRef name) -> int64_t {
    auto a = ctx.attr<IntegerAttr>(name);
    return a ? a.getInt() : 0;
  };
  if (!x.hasStaticShape() || !begin || !end || !strides)
    return failure();
  return computeStridedSlice(ctx, x.getShape(), *begin, *end, *strides, mask("begin_mask"),
                             mask("end_mask"), mask("ellipsis_mask"), mask("new_axis_mask"),
                             mask("shrink_axis_mask"));
}

LogicalResult inferStridedSlice(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(4);
  if (failed(input))
    return failure();
  TensorType x = *input;
  if (!x.hasStaticShape() || !ctx.constantInts(1) || !ctx.constantInts(2) || !ctx.constantInts(3)) {
    out.push_back(UnrankedTensorType::get(x.getElementType()));
    return success();
  }
  auto spec = stridedSliceSpec(ctx, x);
  if (failed(spec))
    return failure();
  out.push_back(RankedTensorType::get(spec->outputShape, x.getElementType()));
  return success();
}

/// One result per part: `input` with dimension `axis` replaced by each size (removed
/// when `drop` is set).
static void pushParts(TensorType input, int64_t axis, ArrayRef<int64_t> sizes, bool drop,
                      InferResult &out) {
  for (int64_t s : sizes) {
    SmallVector<int64_t> shape(input.getShape());
    if (drop)
      shape.erase(shape.begin() + axis);
    else
      shape[axis] = s;
    out.push_back(RankedTensorType::get(shape, input.getElementType()));
  }
}

/// `count` results of unknown shape (ranked with `rank` unknown dimensions if rank >= 0).
static LogicalResult unknownParts(TensorType input, int64_t count, int64_t rank, InferResult &out) {
  for (int64_t i = 0; i < count; ++i)
    out.push_back(rank < 0
                      ? Type(UnrankedTensorType::get(input.getElementType()))
                      : Type(RankedTensorType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                                                   input.getElementType())));
  return success();
}

static FailureOr<int64_t> normalizedAxis(const InferContext &ctx, int64_t axis, int64_t rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    return ctx.error("axis ", axis, " is out of range for rank ", rank);
  return a;
}

LogicalResult inferSplit(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto x = cast<TensorType>(ctx.operandType(1));
  auto n = ctx.attr<IntegerAttr>("num_split");
  auto dim = ctx.constantInts(0);
  if (!n || n.getInt() < 1)
    return ctx.error("requires num_split >= 1");
  if (!x.hasStaticShape() || !dim || dim->size() != 1)
    return unknownParts(x, n.getInt(), x.hasRank() ? x.getRank() : -1, out);
  auto axis = normalizedAxis(ctx, (*dim)[0], x.getRank());
  if (failed(axis))
    return failure();
  if (x.getDimSize(*axis) % n.getInt() != 0)
    return ctx.error("dimension ", *axis, " of size ", x.getDimSize(*axis), " does not split into ",
                     n.getInt(), " equal parts");
  pushParts(x, *axis, SmallVector<int64_t>(n.getInt(), x.getDimSize(*axis) / n.getInt()), false,
            out);
  return success();
}

FailureOr<SmallVector<int64_t>> splitSizes(const InferContext &ctx, ArrayRef<int64_t> sizes,
                                           int64_t total) {
  SmallVector<int64_t> result(sizes);
  int64_t known = 0, unknown = -1;
  for (auto [i, s] : llvm::enumerate(result)) {
    if (s == -1) {
      if (unknown >= 0)
        return ctx.error("size_splits has more than one -1");
      unknown = i;
    } else if (s < 0) {
      return ctx.error("size_splits must not be negative");
    } else {
      known += s;
    }
  }
  if (unknown >= 0) {
    if (known > total)
      return ctx.error("size_splits add up to more than the ", total, " elements");
    result[unknown] = total - known;
  } else if (known != total) {
    return ctx.error("size_splits add up to ", known, ", not the ", total, " elements");
  }
  return result;
}

LogicalResult inferSplitV(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto x = cast<TensorType>(ctx.operandType(0));
  auto sizes = ctx.constantInts(1), dim = ctx.constantInts(2);
  auto n = ctx.attr<IntegerAttr>("num_split");
  if (!n || n.getInt() < 1)
    return ctx.error("requires num_split >= 1");
  if (!x.hasStaticShape() || !sizes || !dim || dim->size() != 1)
    return unknownParts(x, n.getInt(), x.hasRank() ? x.getRank() : -1, out);
  if (static_cast<int64_t>(sizes->size()) != n.getInt())
    return ctx.error("size_splits has ", sizes->size(), " entries for num_split ", n.getInt());
  auto axis = normalizedAxis(ctx, (*dim)[0], x.getRank());
  if (failed(axis))
    return failure();
  auto parts = splitSizes(ctx, *sizes, x.getDimSize(*axis));
  if (failed(parts))
    return failure();
  pushParts(x, *axis, *parts, false, out);
  return success();
}

LogicalResult inferUnpack(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(1)))
    return failure();
  auto x = cast<TensorType>(ctx.operandType(0));
  auto n = ctx.attr<IntegerAttr>("num");
  if (!n || n.getInt() < 1)
    return ctx.error("requires num >= 1");
  if (!x.hasStaticShape())
    return unknownParts(x, n.getInt(), x.hasRank() ? x.getRank() - 1 : -1, out);
  int64_t axisValue = 0;
  if (auto a = ctx.attr<IntegerAttr>("axis"))
    axisValue = a.getInt();
  auto axis = normalizedAxis(ctx, axisValue, x.getRank());
  if (failed(axis))
    return failure();
  if (x.getDimSize(*axis) != n.getInt())
    return ctx.error("num = ", n.getInt(), " but dimension ", *axis, " has size ",
                     x.getDimSize(*axis));
  pushParts(x, *axis, SmallVector<int64_t>(n.getInt(), 1), true, out);
  return success();
}

OpFoldResult StridedSliceOp::fold(FoldAdaptor adaptor) {
  // Slices of constants (shape arithmetic: Shape -> StridedSlice -> Pack -> Reshape).
  auto input = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  auto type = dyn_cast<RankedTensorType>(getOutput().getType());
  if (!input || !type || !type.hasStaticShape())
    return {};
  InferContext ctx = InferContext::of(getOperation(), /*report=*/false);
  auto spec = stridedSliceSpec(ctx, cast<TensorType>(input.getType()));
  if (failed(spec))
    return {};
  auto inShape = input.getType().getShape();
  SmallVector<Attribute> values(input.getValues<Attribute>());
  SmallVector<Attribute> result;
  SmallVector<int64_t> index(type.getRank(), 0);
  for (int64_t linear = 0; linear < type.getNumElements(); ++linear) {
    int64_t rem = linear;
    for (int64_t j = type.getRank() - 1; j >= 0; --j) {
      index[j] = rem % type.getDimSize(j);
      rem /= type.getDimSize(j);
    }
    SmallVector<int64_t> source(spec->fixedIndex);
    for (int64_t j = 0; j < type.getRank(); ++j)
      if (spec->inputDim[j] >= 0)
        source[spec->inputDim[j]] = spec->begin[j] + spec->stride[j] * index[j];
    int64_t flat = 0;
    for (size_t k = 0; k < inShape.size(); ++k)
      flat = flat * inShape[k] + source[k];
    result.push_back(values[flat]);
  }
  return DenseElementsAttr::get(type, result);
}

} // namespace kiln::tf
