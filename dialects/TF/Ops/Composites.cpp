//===- Composites.cpp - ops written as others: stitches, partitions, slices -===//
//
// Ops kiln-graph-decompose writes as ops Kiln has kernels for (decomposeComposite), with
// their inference: SparseMatMul and Conv (a MatMul, a Conv2D or Conv3D), UniqueV2 and
// ApproxTopK (Unique, TopKV2), grappler's _UnaryOpsComposition (its chain), ListDiff and
// DynamicPartition (Wheres, whose sizes kiln-graph-bound-sizes then bounds),
// DynamicStitch (a gather of the data's rows by a constant map), MirrorPadGrad (slices
// added back), StridedSliceGrad and TensorStridedSliceUpdate (a gather per dimension
// putting the slice's rows in place, selected into the input).
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/Ops/GraphBuilder.h"
#include "dialects/TF/TFOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::tf {

namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;

Type indexTypeOf(const InferContext &ctx, StringRef attr) {
  if (auto t = ctx.attr<TypeAttr>(attr))
    return t.getValue();
  return IntegerType::get(ctx.context, 32);
}

/// The unary ops _UnaryOpsComposition may chain (TensorFlow's list).
bool isComposableUnary(StringRef name) {
  static const char *const kNames[] = {
      "Abs",  "Acos",       "Acosh", "Asin",  "Asinh", "Atan",    "Atanh", "Ceil",
      "Cos",  "Cosh",       "Expm1", "Exp",   "Floor", "Inv",     "Log",   "Log1p",
      "Neg",  "Reciprocal", "Rint",  "Round", "Rsqrt", "Sigmoid", "Sin",   "Sinh",
      "Sqrt", "Square",     "Tan",   "Tanh",  "Elu",   "Relu",    "Relu6", "Selu"};
  return llvm::is_contained(kNames, name);
}

/// The slice a StridedSliceGrad or TensorStridedSliceUpdate writes into a tensor of
/// `shape`, from its constant begin, end and strides (operands 1 to 3) and masks.
FailureOr<SliceSpec> writtenSlice(const InferContext &ctx, ArrayRef<int64_t> shape) {
  auto begin = ctx.constantInts(1), end = ctx.constantInts(2), strides = ctx.constantInts(3);
  if (!begin || !end || !strides)
    return ctx.error("begin, end and strides must be constants");
  auto mask = [&](StringRef name) -> int64_t {
    auto a = ctx.attr<IntegerAttr>(name);
    return a ? a.getInt() : 0;
  };
  return computeStridedSlice(ctx, shape, *begin, *end, *strides, mask("begin_mask"),
                             mask("end_mask"), mask("ellipsis_mask"), mask("new_axis_mask"),
                             mask("shrink_axis_mask"));
}

} // namespace

//===----------------------------------------------------------------------===//
// Inference.
//===----------------------------------------------------------------------===//

LogicalResult inferSparseMatMul(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto a = cast<TensorType>(ctx.operandType(0)), b = cast<TensorType>(ctx.operandType(1));
  for (TensorType t : {a, b})
    if (!t.getElementType().isF32() && !t.getElementType().isBF16())
      return ctx.error("operands must be float32 or bfloat16, got ", t);
  if (!a.hasRank() || !b.hasRank() || a.getRank() != 2 || b.getRank() != 2)
    return ctx.error("operands must be 2-D, got ", a, " and ", b);
  auto flag = [&](StringRef name) {
    auto attr = ctx.attr<BoolAttr>(name);
    return attr && attr.getValue();
  };
  bool ta = flag("transpose_a"), tb = flag("transpose_b");
  int64_t ka = a.getDimSize(ta ? 0 : 1), kb = b.getDimSize(tb ? 1 : 0);
  if (ka != kDynamic && kb != kDynamic && ka != kb)
    return ctx.error("inner dimensions differ: ", a, (ta ? " (transposed)" : ""), " times ", b,
                     (tb ? " (transposed)" : ""));
  out.push_back(RankedTensorType::get({a.getDimSize(ta ? 1 : 0), b.getDimSize(tb ? 0 : 1)},
                                      Float32Type::get(ctx.context)));
  return success();
}

/// Conv's attributes as the Conv2D's or Conv3D's it stands for.
static FailureOr<DictionaryAttr> convAttrs(const InferContext &ctx, int64_t rank) {
  auto batchDims = ctx.attr<IntegerAttr>("batch_dims");
  if (batchDims && batchDims.getInt() != 1)
    return ctx.error("batch_dims must be 1, got ", batchDims.getInt());
  auto f = ctx.attr<StringAttr>("data_format");
  StringRef format = f ? f.getValue() : "CHANNELS_LAST";
  if (format != "CHANNELS_LAST" && format != "CHANNELS_FIRST")
    return ctx.error("data_format must be \"CHANNELS_LAST\" or \"CHANNELS_FIRST\", got \"", format,
                     "\"");
  if (rank == 5 && format == "CHANNELS_FIRST")
    return ctx.error("a 3-D convolution must be CHANNELS_LAST (TensorFlow's CPU kernels have "
                     "no other)");
  NamedAttrList attrs(ctx.attributes);
  attrs.erase("batch_dims");
  attrs.erase("groups");
  // An empty list is TensorFlow's default: no dilation.
  if (auto dilations = ctx.attr<ArrayAttr>("dilations"); dilations && dilations.empty())
    attrs.erase("dilations");
  Builder b(ctx.context);
  attrs.set("data_format", b.getStringAttr(rank == 5                   ? "NDHWC"
                                           : format == "CHANNELS_LAST" ? "NHWC"
                                                                       : "NCHW"));
  return attrs.getDictionary(ctx.context);
}

LogicalResult inferGenericConv(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto input = cast<TensorType>(ctx.operandType(0));
  if (!input.hasRank() || (input.getRank() != 4 && input.getRank() != 5))
    return ctx.error("input must be 4-D or 5-D (Kiln compiles 2-D and 3-D convolutions), got ",
                     input);
  auto attrs = convAttrs(ctx, input.getRank());
  if (failed(attrs))
    return failure();
  InferContext conv = ctx;
  conv.attributes = *attrs;
  return input.getRank() == 4 ? inferConv2D(conv, out) : inferConv3D(conv, out);
}

LogicalResult inferUniqueV2(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto axis = ctx.constantInts(1);
  if (!axis || axis->size() > 1 || (axis->size() == 1 && (*axis)[0] != 0 && (*axis)[0] != -1))
    return ctx.error("axis must be a constant [] or [0]: Kiln's Unique takes a vector");
  InferContext unique = ctx;
  unique.operands = ctx.operands.take_front(1);
  return inferUnique(unique, out);
}

LogicalResult inferApproxTopK(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  if (!input->hasRank() || input->getRank() < 1)
    return ctx.error("input must have a rank of 1 or more, got ", *input);
  int64_t rank = input->getRank();
  auto dim = ctx.attr<IntegerAttr>("reduction_dimension");
  int64_t d = dim ? dim.getInt() : -1;
  if (d != -1 && d != rank - 1)
    return ctx.error("reduction_dimension must be the last, got ", d);
  auto k = ctx.attr<IntegerAttr>("k");
  int64_t n = input->getDimSize(rank - 1);
  if (!k || k.getInt() < 0 || (n != kDynamic && k.getInt() > n))
    return ctx.error("k must be in [0, ", n, "]");
  SmallVector<int64_t> shape(input->getShape());
  shape.back() = k.getInt();
  out.push_back(RankedTensorType::get(shape, input->getElementType()));
  out.push_back(RankedTensorType::get(shape, IntegerType::get(ctx.context, 32)));
  return success();
}

LogicalResult inferUnaryOpsComposition(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  auto names = ctx.attr<ArrayAttr>("op_names");
  if (!names)
    return ctx.error("requires the attribute 'op_names', a list of strings");
  for (Attribute a : names) {
    auto name = dyn_cast<StringAttr>(a);
    if (!name || !isComposableUnary(name.getValue()))
      return ctx.error("op_names holds ", a, ", not a unary op _UnaryOpsComposition may chain");
  }
  out.push_back(*input);
  return success();
}

LogicalResult inferListDiff(const InferContext &ctx, InferResult &out) {
  auto inputs = ctx.twoInputs("x and y");
  if (failed(inputs))
    return failure();
  auto [x, y] = *inputs;
  if ((x.hasRank() && x.getRank() != 1) || (y.hasRank() && y.getRank() != 1))
    return ctx.error("x and y must be vectors, got ", x, " and ", y);
  Type index = indexTypeOf(ctx, "out_idx");
  if (!index.isInteger(32) && !index.isInteger(64))
    return ctx.error("out_idx must be int32 or int64, got ", index);
  out.push_back(RankedTensorType::get({kDynamic}, x.getElementType()));
  out.push_back(RankedTensorType::get({kDynamic}, index));
  return success();
}

LogicalResult inferDynamicPartition(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto data = cast<TensorType>(ctx.operandType(0));
  auto partitions = cast<TensorType>(ctx.operandType(1));
  auto count = ctx.attr<IntegerAttr>("num_partitions");
  if (!count || count.getInt() < 1)
    return ctx.error("num_partitions must be 1 or more");
  if (!data.hasRank() || !partitions.hasRank())
    return ctx.error("needs the ranks of data and partitions");
  int64_t p = partitions.getRank();
  if (p > data.getRank() ||
      failed(verifyCompatibleShape(data.getShape().take_front(p), partitions.getShape())))
    return ctx.error("partitions ", partitions,
                     " must have the shape of data's leading "
                     "dimensions, data ",
                     data);
  SmallVector<int64_t> shape = {kDynamic};
  shape.append(data.getShape().begin() + p, data.getShape().end());
  for (int64_t i = 0; i < count.getInt(); ++i)
    out.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

LogicalResult inferDynamicStitch(const InferContext &ctx, InferResult &out) {
  auto n = ctx.attr<IntegerAttr>("N");
  if (!n || n.getInt() < 1)
    return ctx.error("N must be 1 or more");
  unsigned count = n.getInt();
  if (failed(ctx.requireTensorOperands(2 * count)))
    return failure();
  int64_t largest = -1;
  SmallVector<int64_t> rest;
  Type element;
  for (unsigned i = 0; i < count; ++i) {
    auto indices = ctx.constantInts(i);
    auto data = cast<TensorType>(ctx.operandType(count + i));
    auto indexType = cast<TensorType>(ctx.operandType(i));
    if (!indices || !indexType.hasRank())
      return ctx.error("indices must be constants (the result's size is their largest + 1)");
    if (!data.hasRank())
      return ctx.error("needs the ranks of data");
    int64_t rank = indexType.getRank();
    if (rank > data.getRank() ||
        failed(verifyCompatibleShape(data.getShape().take_front(rank), indexType.getShape())))
      return ctx.error("data[", i, "] ", data, " must begin with the shape of indices[", i, "] ",
                       indexType);
    SmallVector<int64_t> tail(data.getShape().drop_front(rank));
    if (i == 0) {
      rest = tail;
      element = data.getElementType();
    } else if (data.getElementType() != element || failed(verifyCompatibleShape(tail, rest))) {
      return ctx.error("data[", i, "] ", data,
                       " does not have the element type and row shape "
                       "of data[0]");
    }
    for (int64_t v : *indices) {
      if (v < 0)
        return ctx.error("indices[", i, "] holds ", v, ": indices must not be negative");
      largest = std::max(largest, v);
    }
  }
  SmallVector<int64_t> shape = {largest + 1};
  shape.append(rest);
  out.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult inferMirrorPadGrad(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(2);
  if (failed(input))
    return failure();
  auto mode = ctx.attr<StringAttr>("mode");
  if (!mode || (mode.getValue() != "REFLECT" && mode.getValue() != "SYMMETRIC"))
    return ctx.error("mode must be \"REFLECT\" or \"SYMMETRIC\"");
  auto pads = ctx.constantInts(1);
  if (!pads)
    return ctx.error("paddings must be a constant");
  if (!input->hasStaticShape())
    return ctx.error("needs the input's shape");
  int64_t rank = input->getRank();
  if (static_cast<int64_t>(pads->size()) != 2 * rank)
    return ctx.error("paddings must be [", rank, ", 2], got ", pads->size(), " values");
  int64_t limit = mode.getValue() == "REFLECT" ? 1 : 0;
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t before = (*pads)[2 * d], after = (*pads)[2 * d + 1];
    int64_t size = input->getDimSize(d) - before - after;
    if (before < 0 || after < 0 || size < 0 || before > size - limit || after > size - limit)
      return ctx.error("paddings of dimension ", d, " (", before, ", ", after, ") do not fit ",
                       mode.getValue(), " mode and the gradient's size ", input->getDimSize(d));
    shape.push_back(size);
  }
  out.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult inferStridedSliceWrite(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(5)))
    return failure();
  bool grad = ctx.opName == "tf.StridedSliceGrad";
  auto values = cast<TensorType>(ctx.operandType(4));
  if (failed(ctx.checkTypeAttr("T", values.getElementType())))
    return failure();
  RankedTensorType target;
  if (grad) {
    auto shape = ctx.constantInts(0);
    if (!shape || llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
      return ctx.error("shape must be a constant of sizes");
    target = RankedTensorType::get(*shape, values.getElementType());
  } else {
    auto input = dyn_cast<RankedTensorType>(ctx.operandType(0));
    if (!input || !input.hasStaticShape())
      return ctx.error("needs the input's shape");
    if (input.getElementType() != values.getElementType())
      return ctx.error("input and value must have one element type, got ", input, " and ", values);
    target = input;
  }
  auto spec = writtenSlice(ctx, target.getShape());
  if (failed(spec))
    return failure();
  if (failed(verifyCompatibleShape(values.getShape(), spec->outputShape)))
    return ctx.error(grad ? "dy " : "value ", values, " must have the slice's shape ",
                     describeDims(spec->outputShape));
  out.push_back(target);
  return success();
}

namespace {

/// QuantizeAndDequantize's attributes: the defaults differ between its forms.
struct QuantizeSpec {
  bool isSigned, rangeGiven, narrow, halfUp;
  int64_t bits, axis;
};

FailureOr<QuantizeSpec> quantizeSpecOf(const InferContext &ctx) {
  auto flag = [&](StringRef name, bool fallback) {
    auto a = ctx.attr<BoolAttr>(name);
    return a ? a.getValue() : fallback;
  };
  QuantizeSpec q;
  bool v3 = ctx.opName == "tf.QuantizeAndDequantizeV3";
  q.isSigned = flag("signed_input", true);
  q.rangeGiven = flag("range_given", v3);
  q.narrow = flag("narrow_range", false);
  auto mode = ctx.attr<StringAttr>("round_mode");
  if (mode && mode.getValue() != "HALF_TO_EVEN" && mode.getValue() != "HALF_UP")
    return ctx.error("round_mode must be \"HALF_TO_EVEN\" or \"HALF_UP\", got \"", mode.getValue(),
                     "\"");
  q.halfUp = mode && mode.getValue() == "HALF_UP";
  auto axis = ctx.attr<IntegerAttr>("axis");
  q.axis = axis ? axis.getInt() : -1;
  if (v3) {
    auto bits = ctx.constantInts(3);
    if (!bits || bits->size() != 1)
      return ctx.error("num_bits must be a scalar constant");
    q.bits = (*bits)[0];
  } else {
    auto bits = ctx.attr<IntegerAttr>("num_bits");
    q.bits = bits ? bits.getInt() : 8;
  }
  if (q.bits < 1 || q.bits > (q.isSigned ? 63 : 62))
    return ctx.error("num_bits is out of range: ", q.bits, " with signed_input ",
                     q.isSigned ? "true" : "false");
  return q;
}

} // namespace

LogicalResult inferQuantizeAndDequantize(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(3);
  if (failed(input))
    return failure();
  auto q = quantizeSpecOf(ctx);
  if (failed(q))
    return failure();
  if (!input->hasRank())
    return ctx.error("needs the input's rank");
  int64_t rank = input->getRank();
  if (q->axis < -1 || q->axis >= rank)
    return ctx.error("axis should be -1 or in [0, ", rank, "), got ", q->axis);
  int64_t channels = q->axis < 0 ? 1 : input->getDimSize(q->axis);
  for (unsigned i = 1; i < 3; ++i) {
    auto t = dyn_cast<RankedTensorType>(ctx.operandType(i));
    if (!t || t.getElementType() != input->getElementType())
      return ctx.error("input_min and input_max must be ranked tensors of the input's type");
    bool ok = q->axis < 0
                  ? t.getRank() == 0
                  : t.getRank() == 1 && (t.isDynamicDim(0) || ShapedType::isDynamic(channels) ||
                                         t.getDimSize(0) == channels);
    if (!ok)
      return ctx.error(i == 1 ? "input_min" : "input_max", " must be ",
                       q->axis < 0 ? "a scalar" : "a vector of the axis' size", ", got ", t);
  }
  out.push_back(*input);
  return success();
}

LogicalResult inferTridiagonalMatMul(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(4)))
    return failure();
  auto rhs = dyn_cast<RankedTensorType>(ctx.operandType(3));
  if (!rhs || rhs.getRank() < 2)
    return ctx.error("rhs must have a rank of 2 or more, got ", ctx.operandType(3));
  int64_t m = rhs.getDimSize(rhs.getRank() - 2);
  for (unsigned i = 0; i < 3; ++i) {
    auto d = dyn_cast<RankedTensorType>(ctx.operandType(i));
    if (!d || d.getElementType() != rhs.getElementType() || d.getRank() != rhs.getRank() ||
        d.getDimSize(d.getRank() - 2) != 1 ||
        (!d.isDynamicDim(d.getRank() - 1) && !ShapedType::isDynamic(m) &&
         d.getDimSize(d.getRank() - 1) != m) ||
        failed(verifyCompatibleShape(d.getShape().drop_back(2), rhs.getShape().drop_back(2))))
      return ctx.error("the diagonals must be [..., 1, ", m, "] of rhs's type and batch, got ",
                       ctx.operandType(i), " for rhs ", rhs);
  }
  out.push_back(rhs);
  return success();
}

//===----------------------------------------------------------------------===//
// Decomposition.
//===----------------------------------------------------------------------===//

namespace {

/// ResizeBilinearGrad, separable: the forward resize reads rows by a matrix ry [h, H] and
/// columns by rx [w, W] (each output's two weights, 1 - lerp and lerp, TensorFlow's
/// resizeAxis), so the gradient is ry^T grads rx, two batched products with constant
/// matrices, cast to the image's type.
Value resizeBilinearGrad(GraphBuilder &b, ResizeBilinearGradOp op, Value grads,
                         RankedTensorType image) {
  auto shape = rankedOf(grads).getShape();
  int64_t n = shape[0], h = shape[1], w = shape[2], c = shape[3];
  int64_t height = image.getDimSize(1), width = image.getDimSize(2);
  bool align = op.getAlignCorners(), half = op.getHalfPixelCenters();
  Type f32 = b.rewriter.getF32Type();
  // The weights of output coordinate o along an axis, as a matrix [rows, cols]: `out`
  // outputs by `in` inputs, transposed when `inputsFirst`.
  auto weights = [&](int64_t in, int64_t out, bool inputsFirst) {
    ResizeAxis axis = resizeAxis(in, out, align, half);
    SmallVector<float> m(in * out, 0.0f);
    for (int64_t o = 0; o < out; ++o) {
      auto at = [&](int64_t i) -> float & { return inputsFirst ? m[i * out + o] : m[o * in + i]; };
      at(axis.lower[o]) += 1.0f - axis.lerp[o];
      at(axis.upper[o]) += axis.lerp[o];
    }
    SmallVector<Attribute> attrs;
    for (float v : m)
      attrs.push_back(b.rewriter.getF32FloatAttr(v));
    return b.constant(f32, inputsFirst ? ArrayRef<int64_t>{in, out} : ArrayRef<int64_t>{out, in},
                      attrs);
  };
  // Rows: [H, h] x [N, h, w * C] -> [N, H, w * C].
  Value rows =
      b.create("BatchMatMulV2", {weights(height, h, true), b.reshape(grads, {n, h, w * c})});
  // Columns: [N * H, C, w] x [w, W] -> [N * H, C, W].
  Value channelsFirst = b.transpose(b.reshape(rows, {n * height, w, c}), {0, 2, 1});
  Value cols = b.create("BatchMatMulV2", {channelsFirst, weights(width, w, false)});
  Value out = b.reshape(b.transpose(cols, {0, 2, 1}), {n, height, width, c});
  if (image.getElementType() != f32)
    out = b.create("Cast", {out}, {b.attr("DstT", TypeAttr::get(image.getElementType()))});
  return out;
}

/// LRNGrad: with norm = bias + alpha * (the sum of squares over the depth window) and
/// p = norm^-beta, the input's gradient is dy * p - 2 alpha beta x * (the window sum of
/// dy * y / norm), y the output image (LRN's result, which TensorFlow's LaunchLRNGrad
/// reads rather than recomputing), regrouped; the window sums are sums of the
/// 2 * depth_radius + 1 shifted slices of the depth-padded tensor.
Value lrnGrad(GraphBuilder &b, LRNGradOp op, Value dy, Value x, Value y) {
  auto type = rankedOf(x);
  Type element = type.getElementType();
  int64_t depth = type.getDimSize(3);
  int64_t radius = std::min<int64_t>(op.getDepthRadius(), depth);
  auto windowSum = [&](Value v) {
    Value padded = b.pad(v, {0, 0, 0, 0, 0, 0, radius, radius}, b.scalar(element, 0));
    auto shape = type.getShape();
    Value total;
    for (int64_t k = 0; k <= 2 * radius; ++k) {
      Value slice = b.stridedSlice(padded, {0, 0, 0, k}, {shape[0], shape[1], shape[2], k + depth},
                                   {1, 1, 1, 1});
      total = total ? b.create("AddV2", {total, slice}) : slice;
    }
    return total;
  };
  double alpha = op.getAlpha().convertToDouble(), beta = op.getBeta().convertToDouble();
  Value squares = windowSum(b.create("Square", {x}));
  Value norm = b.create("AddV2", {b.create("Mul", {squares, b.scalar(element, alpha)}),
                                  b.scalar(element, op.getBias().convertToDouble())});
  Value power = b.create("Pow", {norm, b.scalar(element, -beta)});
  Value scaled = b.create("RealDiv", {b.create("Mul", {dy, y}), norm});
  Value spread = b.create(
      "Mul", {b.create("Mul", {x, windowSum(scaled)}), b.scalar(element, -2 * alpha * beta)});
  return b.create("AddV2", {b.create("Mul", {dy, power}), spread});
}

/// x with the positions of dimension `axis` given by `rows` (an index of x's dimension,
/// or -1 for zeros): a PadV2 of one zero row and a GatherV2 of the map.
Value placeRows(GraphBuilder &b, Value x, int64_t axis, ArrayRef<int64_t> rows) {
  auto t = rankedOf(x);
  int64_t size = t.getDimSize(axis);
  SmallVector<int64_t> map(rows);
  if (llvm::is_contained(rows, -1)) {
    SmallVector<int64_t> amounts(2 * t.getRank(), 0);
    amounts[2 * axis + 1] = 1;
    x = b.pad(x, amounts, b.scalar(t.getElementType(), 0));
    for (int64_t &r : map)
      if (r < 0)
        r = size;
  }
  return b.create("GatherV2", {x, b.ints(map), b.scalar(b.rewriter.getI32Type(), axis)});
}

/// The slice of `values` (the slice's shape) put in place in a tensor of `shape`, zeros
/// elsewhere; `written` says which positions it wrote.
Value placeSlice(GraphBuilder &b, const SliceSpec &spec, ArrayRef<int64_t> shape, Value values,
                 Value *written) {
  int64_t rank = shape.size();
  // Per input dimension: the indices the slice reads, in its order.
  SmallVector<SmallVector<int64_t>> read(rank);
  for (int64_t d = 0; d < rank; ++d)
    if (spec.fixedIndex[d] >= 0)
      read[d] = {spec.fixedIndex[d]};
  for (size_t j = 0; j < spec.inputDim.size(); ++j) {
    int64_t d = spec.inputDim[j];
    if (d < 0)
      continue;
    for (int64_t k = 0; k < spec.outputShape[j]; ++k)
      read[d].push_back(spec.begin[j] + spec.stride[j] * k);
  }
  SmallVector<int64_t> lengths;
  for (const auto &r : read)
    lengths.push_back(r.size());
  Value x = b.reshape(values, lengths);
  Value mask;
  Type i1 = b.rewriter.getI1Type();
  for (int64_t d = 0; d < rank; ++d) {
    SmallVector<int64_t> rows(shape[d], -1);
    for (auto [k, at] : llvm::enumerate(read[d]))
      rows[at] = k;
    bool identity = static_cast<int64_t>(read[d].size()) == shape[d] &&
                    llvm::all_of(llvm::enumerate(rows), [](auto p) {
                      return p.value() == static_cast<int64_t>(p.index());
                    });
    if (identity)
      continue;
    x = placeRows(b, x, d, rows);
    if (written) {
      SmallVector<int64_t> maskShape(rank, 1);
      maskShape[d] = shape[d];
      SmallVector<Attribute> flags;
      for (int64_t r : rows)
        flags.push_back(b.rewriter.getBoolAttr(r >= 0));
      Value m = b.constant(i1, maskShape, flags);
      mask = mask ? b.create("LogicalAnd", {mask, m}) : m;
    }
  }
  if (written)
    *written = mask;
  return x;
}

/// QuantizeAndDequantize as TensorFlow's kernel: the scale that maps the range onto the
/// integers without exceeding them on either side, keeping 0 fixed; the side that sets it
/// keeps its bound and the other's is moved; a given range clamps the input first.
Value quantizeAndDequantize(GraphBuilder &b, Operation *op) {
  ValueRange data = dataOf(op);
  QuantizeSpec q = *quantizeSpecOf(InferContext::of(op));
  auto type = rankedOf(data[0]);
  Type element = type.getElementType();
  int64_t rank = type.getRank();
  Value lo = data[1], hi = data[2];
  if (!q.rangeGiven) {
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < rank; ++d)
      if (d != q.axis)
        axes.push_back(d);
    auto keep = b.attr("keep_dims", b.rewriter.getBoolAttr(false));
    lo = b.create("Min", {data[0], b.ints(axes)}, {keep});
    hi = b.create("Max", {data[0], b.ints(axes)}, {keep});
  }
  if (q.axis >= 0) {
    // Per channel: [C, 1, ...] against the dimensions after the axis.
    SmallVector<int64_t> shape = {type.getDimSize(q.axis)};
    shape.append(rank - q.axis - 1, 1);
    lo = b.reshape(lo, shape);
    hi = b.reshape(hi, shape);
  }
  int64_t minQ =
      q.isSigned ? (q.narrow ? -(int64_t(1) << (q.bits - 1)) + 1 : -(int64_t(1) << (q.bits - 1)))
                 : 0;
  int64_t maxQ = q.isSigned ? (int64_t(1) << (q.bits - 1)) - 1 : (int64_t(1) << q.bits) - 1;
  Value minQv = b.scalar(element, static_cast<double>(minQ));
  Value maxQv = b.scalar(element, static_cast<double>(maxQ));
  Value zero = b.scalar(element, 0);
  double largest =
      APFloat::getLargest(cast<FloatType>(element).getFloatSemantics()).convertToDouble();
  Value top = b.scalar(element, largest);
  auto sideScale = [&](Value quantized, Value bound) {
    Value positive = b.create("Greater", {b.create("Mul", {quantized, bound}), zero});
    return b.create("SelectV2", {positive, b.create("RealDiv", {quantized, bound}), top});
  };
  Value fromMin = sideScale(minQv, lo);
  Value fromMax = sideScale(maxQv, hi);
  Value minSide = b.create("Less", {fromMin, fromMax});
  Value scale = b.create("SelectV2", {minSide, fromMin, fromMax});
  Value inverse = b.create(
      "SelectV2", {minSide, b.create("RealDiv", {lo, minQv}), b.create("RealDiv", {hi, maxQv})});
  Value x = data[0];
  if (q.rangeGiven) {
    Value upper = b.create("SelectV2", {minSide, b.create("Mul", {maxQv, inverse}), hi});
    Value lower = b.create("SelectV2", {minSide, lo, b.create("Mul", {minQv, inverse})});
    x = b.create("Maximum", {b.create("Minimum", {x, upper}), lower});
  }
  Value scaled = b.create("Mul", {x, scale});
  Value rounded = q.halfUp
                      ? b.create("Floor", {b.create("AddV2", {scaled, b.scalar(element, 0.5)})})
                      : b.create("Round", {scaled});
  return b.create("Mul", {rounded, inverse});
}

FailureOr<SmallVector<Value>> decompose(RewriterBase &rewriter, Operation *op) {
  ValueRange data = dataOf(op);
  GraphBuilder b{rewriter, op};
  auto i32 = rewriter.getI32Type();
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<Value> results;
  if (auto product = dyn_cast<SparseMatMulOp>(op)) {
    SmallVector<Value> operands;
    for (Value v : data)
      operands.push_back(
          getElementTypeOrSelf(v.getType()).isF32()
              ? v
              : b.create("Cast", {v}, {b.attr("DstT", TypeAttr::get(rewriter.getF32Type()))}));
    results.push_back(b.create("MatMul", operands, b.copied({"transpose_a", "transpose_b"})));
  } else if (isa<GenericConvOp>(op)) {
    int64_t rank = rankedOf(data[0]).getRank();
    auto attrs = convAttrs(InferContext::of(op), rank);
    if (failed(attrs))
      return failure();
    SmallVector<NamedAttribute> list(attrs->getValue());
    results.push_back(b.create(rank == 4 ? "Conv2D" : "Conv3D", {data[0], data[1]}, list));
  } else if (isa<UniqueV2Op>(op)) {
    Operation *unique = b.createOp("Unique", {data[0]}, b.copied({"T", "out_idx"}));
    if (!unique)
      return failure();
    results.append(unique->result_begin(), unique->result_end());
  } else if (auto top = dyn_cast<ApproxTopKOp>(op)) {
    bool largest = top.getIsMaxK();
    Value x = largest ? data[0] : b.create("Neg", {data[0]});
    Operation *topk = b.createOp("TopKV2", {x, b.scalar(i32, top.getK())},
                                 {b.attr("index_type", TypeAttr::get(i32))});
    if (!topk)
      return failure();
    results.push_back(largest ? topk->getResult(0) : b.create("Neg", {topk->getResult(0)}));
    results.push_back(topk->getResult(1));
  } else if (auto chain = dyn_cast<UnaryOpsCompositionOp>(op)) {
    Value x = data[0];
    for (Attribute name : chain.getOpNames())
      x = b.create(cast<StringAttr>(name).getValue(), {x});
    results.push_back(x);
  } else if (isa<ListDiffOp>(op)) {
    // Where(!any(x[i] == y)) and x at those positions.
    Value column = b.reshape(data[0], {-1, 1}), row = b.reshape(data[1], {1, -1});
    Value found = b.create("Any", {b.create("Equal", {column, row}), b.ints({1})},
                           {b.attr("keep_dims", rewriter.getBoolAttr(false))});
    Value kept = b.create("Where", {b.create("LogicalNot", {found})});
    Value positions = b.reshape(kept, {-1});
    Type index = getElementTypeOrSelf(op->getResult(1).getType());
    results.push_back(b.create("GatherV2", {data[0], positions, b.scalar(i32, 0)}));
    results.push_back(b.create("Cast", {positions}, {b.attr("DstT", TypeAttr::get(index))}));
  } else if (auto partition = dyn_cast<DynamicPartitionOp>(op)) {
    // The partition numbers checked by a gather from [0, num_partitions), then the rows
    // of each.
    int64_t count = partition.getNumPartitions();
    auto dataType = rankedOf(data[0]);
    int64_t p = rankedOf(data[1]).getRank();
    SmallVector<int64_t> rows = {-1};
    rows.append(dataType.getShape().begin() + p, dataType.getShape().end());
    Value flat = b.reshape(data[0], rows);
    Value numbers = b.create("GatherV2", {b.ints(llvm::to_vector(llvm::seq<int64_t>(0, count))),
                                          b.reshape(data[1], {-1}), b.scalar(i32, 0)});
    for (int64_t i = 0; i < count; ++i) {
      Value at = b.create("Where", {b.create("Equal", {numbers, b.scalar(i32, i)})});
      results.push_back(b.create("GatherV2", {flat, b.reshape(at, {-1}), b.scalar(i32, 0)}));
    }
  } else if (isa<DynamicStitchOp, ParallelDynamicStitchOp>(op)) {
    // merged = concat(rows of every data, a zero row)[map], map[r] the last row written
    // to r (the zero row for none).
    unsigned n = data.size() / 2;
    ArrayRef<int64_t> rest = resultType.getShape().drop_front();
    SmallVector<int64_t> map(resultType.getDimSize(0), -1);
    SmallVector<Value> parts;
    int64_t offset = 0;
    for (unsigned i = 0; i < n; ++i) {
      auto indices = constantIntsOf(data[i]);
      for (auto [k, at] : llvm::enumerate(*indices))
        map[at] = offset + static_cast<int64_t>(k);
      SmallVector<int64_t> shape = {static_cast<int64_t>(indices->size())};
      shape.append(rest.begin(), rest.end());
      parts.push_back(b.reshape(data[n + i], shape));
      offset += indices->size();
    }
    Value all = parts.front();
    if (parts.size() > 1) {
      SmallVector<Value> operands(parts);
      operands.push_back(b.scalar(i32, 0));
      all = b.create("ConcatV2", operands, {b.attr("N", rewriter.getI64IntegerAttr(n))});
    }
    results.push_back(placeRows(b, all, 0, map));
  } else if (isa<MirrorPadGradOp>(op)) {
    auto pads = constantIntsOf(data[1]);
    int64_t limit = op->getAttrOfType<StringAttr>("mode").getValue() == "REFLECT" ? 1 : 0;
    Value x = data[0];
    int64_t rank = resultType.getRank();
    for (int64_t d = 0; d < rank; ++d) {
      int64_t before = (*pads)[2 * d], after = (*pads)[2 * d + 1];
      if (before == 0 && after == 0)
        continue;
      auto shape = rankedOf(x).getShape();
      int64_t size = resultType.getDimSize(d);
      auto part = [&](int64_t from, int64_t to) {
        SmallVector<int64_t> begin(rank, 0), end(shape), ones(rank, 1);
        begin[d] = from;
        end[d] = to;
        return b.stridedSlice(x, begin, end, ones);
      };
      // A pad's gradient, reversed, added at the positions it mirrors.
      auto addAt = [&](Value total, Value pad, int64_t at, int64_t length) {
        SmallVector<int64_t> amounts(2 * rank, 0);
        amounts[2 * d] = at;
        amounts[2 * d + 1] = size - at - length;
        Value flipped = b.create("ReverseV2", {pad, b.ints({d})});
        return b.create("AddV2",
                        {total, b.pad(flipped, amounts, b.scalar(resultType.getElementType(), 0))});
      };
      Value total = part(before, before + size);
      if (before > 0)
        total = addAt(total, part(0, before), limit, before);
      if (after > 0)
        total = addAt(total, part(before + size, shape[d]), size - limit - after, after);
      x = total;
    }
    results.push_back(x);
  } else if (isa<StridedSliceGradOp, TensorStridedSliceUpdateOp>(op)) {
    auto spec = writtenSlice(InferContext::of(op), resultType.getShape());
    if (failed(spec))
      return failure();
    bool update = isa<TensorStridedSliceUpdateOp>(op);
    Value written;
    Value placed =
        placeSlice(b, *spec, resultType.getShape(), data[4], update ? &written : nullptr);
    results.push_back(update && written ? b.create("SelectV2", {written, placed, data[0]})
                                        : placed);
  } else if (isa<QuantizeAndDequantizeV2Op, QuantizeAndDequantizeV3Op, QuantizeAndDequantizeV4Op>(
                 op)) {
    results.push_back(quantizeAndDequantize(b, op));
  } else if (isa<TridiagonalMatMulOp>(op)) {
    // main * rhs, plus sub[i] * rhs[i - 1] from the second row, plus super[i] * rhs[i + 1]
    // up to the last (TensorFlow's order of the additions).
    int64_t rank = resultType.getRank();
    int64_t m = resultType.getDimSize(rank - 2);
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[rank - 2], perm[rank - 1]);
    auto column = [&](Value diag) { return b.transpose(diag, perm); };
    auto rows = [&](Value x, int64_t from, int64_t to) {
      auto shape = rankedOf(x).getShape();
      SmallVector<int64_t> begin(rank, 0), end(shape), ones(rank, 1);
      begin[rank - 2] = from;
      end[rank - 2] = to;
      return b.stridedSlice(x, begin, end, ones);
    };
    auto padRows = [&](Value x, int64_t before, int64_t after) {
      SmallVector<int64_t> amounts(2 * rank, 0);
      amounts[2 * (rank - 2)] = before;
      amounts[2 * (rank - 2) + 1] = after;
      return b.pad(x, amounts, b.scalar(resultType.getElementType(), 0));
    };
    Value rhs = data[3];
    Value total = b.create("Mul", {column(data[1]), rhs});
    if (m > 1) {
      Value below = b.create("Mul", {rows(column(data[2]), 1, m), rows(rhs, 0, m - 1)});
      total = b.create("AddV2", {total, padRows(below, 1, 0)});
      Value above = b.create("Mul", {rows(column(data[0]), 0, m - 1), rows(rhs, 1, m)});
      total = b.create("AddV2", {total, padRows(above, 0, 1)});
    }
    results.push_back(total);
  } else if (auto ex = dyn_cast<FusedBatchNormExOp>(op)) {
    // FusedBatchNormV3, the side input added, the activation.
    Operation *v3 = b.createOp("FusedBatchNormV3", ValueRange(data).take_front(5),
                               b.copied({"epsilon", "data_format", "is_training", "T", "U"}));
    if (!v3)
      return failure();
    Value y = v3->getResult(0);
    if (ex.getNumSideInputs() == 1)
      y = b.create("AddV2", {y, data[5]});
    StringRef activation = ex.getActivationMode();
    if (activation == "LeakyRelu")
      y = b.create("LeakyRelu", {y}, {b.attr("alpha", ex.getLeakyreluAlphaAttr())});
    else if (activation != "Identity")
      y = b.create(activation, {y});
    results.push_back(y);
    for (Value r : v3->getResults().drop_front())
      results.push_back(r);
  } else if (isa<ResizeBilinearGradOp>(op)) {
    results.push_back(resizeBilinearGrad(b, cast<ResizeBilinearGradOp>(op), data[0], resultType));
  } else if (isa<LRNGradOp>(op)) {
    results.push_back(lrnGrad(b, cast<LRNGradOp>(op), data[0], data[1], data[2]));
  } else {
    return SmallVector<Value>{};
  }
  if (b.failed)
    return failure();
  return results;
}

} // namespace

FailureOr<bool> decomposeComposite(RewriterBase &rewriter, Operation *op) {
  if (!isa<SparseMatMulOp, GenericConvOp, UniqueV2Op, ApproxTopKOp, UnaryOpsCompositionOp,
           ListDiffOp, DynamicPartitionOp, DynamicStitchOp, ParallelDynamicStitchOp,
           MirrorPadGradOp, StridedSliceGradOp, TensorStridedSliceUpdateOp,
           QuantizeAndDequantizeV2Op, QuantizeAndDequantizeV3Op, QuantizeAndDequantizeV4Op,
           TridiagonalMatMulOp, ResizeBilinearGradOp, LRNGradOp, FusedBatchNormExOp>(op))
    return false;
  if (!isa<UnaryOpsCompositionOp, ListDiffOp>(op))
    for (Value v : dataOf(op))
      if (!rankedOf(v) || (!isa<DynamicPartitionOp>(op) && !rankedOf(v).hasStaticShape()))
        return op->emitError() << "needs static shapes";
  rewriter.setInsertionPoint(op);
  auto replacement = decompose(rewriter, op);
  return replaceDecomposed(rewriter, op, replacement);
}

} // namespace kiln::tf
