//===- Generate.cpp - Range, OneHot, DepthToSpace, SpaceToDepth, MirrorPad ----===//
#include "dialects/TF/TFOps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

using namespace mlir;

namespace kiln::tf {

/// The scalar value of a constant operand, as a double.
static std::optional<double> constantScalar(Value v) {
  auto c = v.getDefiningOp<ConstOp>();
  auto values = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : DenseElementsAttr();
  if (!values || values.getNumElements() != 1)
    return std::nullopt;
  if (auto f = dyn_cast<FloatType>(values.getElementType()))
    return (*values.getValues<APFloat>().begin()).convertToDouble();
  return static_cast<double>((*values.getValues<APInt>().begin()).getSExtValue());
}

/// A number as a person writes it (5, 0.5, 1e+20).
static std::string shortNumber(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

/// The number of elements of Range(start, limit, delta), as TensorFlow computes it.
static FailureOr<int64_t> rangeSize(const InferContext &ctx, double start, double limit,
                                    double delta, bool integer) {
  if (delta == 0)
    return ctx.error("delta must not be 0");
  if ((delta > 0 && start > limit) || (delta < 0 && start < limit))
    return ctx.error("start ", shortNumber(start), " cannot reach limit ", shortNumber(limit),
                     " with delta ", shortNumber(delta));
  double n = integer ? std::ceil(std::abs(limit - start) / std::abs(delta))
                     : std::ceil(std::abs((limit - start) / delta));
  // NaN fails this too; the cast below is then exact.
  if (!(n <= double(kMaxTensorElements)))
    return ctx.error("start ", shortNumber(start), ", limit ", shortNumber(limit), " and delta ",
                     shortNumber(delta), " make ", shortNumber(n), " elements, more than 2^48");
  return static_cast<int64_t>(n);
}

LogicalResult inferRange(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  Type element = cast<TensorType>(ctx.operandType(0)).getElementType();
  auto start = constantScalar(ctx.operands[0]), limit = constantScalar(ctx.operands[1]),
       delta = constantScalar(ctx.operands[2]);
  if (!start || !limit || !delta) {
    out.push_back(RankedTensorType::get({ShapedType::kDynamic}, element));
    return success();
  }
  auto n = rangeSize(ctx, *start, *limit, *delta, isa<IntegerType>(element));
  if (failed(n))
    return failure();
  out.push_back(RankedTensorType::get({*n}, element));
  return success();
}

OpFoldResult RangeOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getOutput().getType());
  auto start = constantScalar(getStart()), delta = constantScalar(getDelta());
  if (!type || !type.hasStaticShape() || !start || !delta ||
      type.getNumElements() > kMaxFoldedElements)
    return {};
  // As TensorFlow's kernel: element i is start + T(i) * delta, each operation rounded
  // to the element type T.
  Type element = type.getElementType();
  if (auto f = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &semantics = f.getFloatSemantics();
    bool lost;
    APFloat first(*start), step(*delta);
    first.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    step.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < type.getDimSize(0); ++i) {
      APFloat value(semantics);
      value.convertFromAPInt(APInt(64, i), /*IsSigned=*/true, APFloat::rmNearestTiesToEven);
      value.multiply(step, APFloat::rmNearestTiesToEven);
      value.add(first, APFloat::rmNearestTiesToEven);
      values.push_back(value);
    }
    return DenseElementsAttr::get(type, values);
  }
  unsigned width = element.getIntOrFloatBitWidth();
  APInt first(width, static_cast<int64_t>(*start), /*isSigned=*/true),
      step(width, static_cast<int64_t>(*delta), /*isSigned=*/true);
  SmallVector<APInt> values;
  for (int64_t i = 0; i < type.getDimSize(0); ++i)
    values.push_back(first + step * APInt(width, i, /*isSigned=*/true));
  return DenseElementsAttr::get(type, values);
}

LogicalResult inferOneHot(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(4)))
    return failure();
  auto indices = cast<TensorType>(ctx.operandType(0));
  auto on = cast<TensorType>(ctx.operandType(2));
  auto off = cast<TensorType>(ctx.operandType(3));
  if (failed(ctx.checkSameElementType(on, off, "on_value and off_value")))
    return failure();
  if (auto axis = ctx.attr<IntegerAttr>("axis"); axis && axis.getInt() != -1)
    return ctx.error("only axis = -1 is supported, got ", axis.getInt());
  auto depth = ctx.constantInts(1);
  if (!indices.hasRank()) {
    out.push_back(UnrankedTensorType::get(on.getElementType()));
    return success();
  }
  SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(depth && depth->size() == 1 ? (*depth)[0] : ShapedType::kDynamic);
  if (depth && depth->size() == 1 && (*depth)[0] < 0)
    return ctx.error("depth must not be negative");
  out.push_back(RankedTensorType::get(shape, on.getElementType()));
  return success();
}

static LogicalResult inferSpaceDepth(const InferContext &ctx, InferResult &out, bool toSpace) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  TensorType x = *input;
  if (auto f = ctx.attr<StringAttr>("data_format"); f && f.getValue() != "NHWC")
    return ctx.error("only data_format NHWC is supported, got \"", f.getValue(), "\"");
  auto block = ctx.attr<IntegerAttr>("block_size");
  if (!block || block.getInt() < 2)
    return ctx.error("block_size must be at least 2");
  int64_t b = block.getInt();
  if (!x.hasRank()) {
    out.push_back(x);
    return success();
  }
  if (x.getRank() != 4)
    return ctx.error("input must be 4-D, got ", x);
  SmallVector<int64_t> shape(x.getShape());
  auto scale = [&](int64_t d, bool up) -> FailureOr<int64_t> {
    if (ShapedType::isDynamic(d))
      return d;
    if (up)
      return d * b;
    if (d % b != 0)
      return ctx.error("dimension of size ", d, " is not divisible by block_size ", b);
    return d / b;
  };
  auto h = scale(shape[1], toSpace), w = scale(shape[2], toSpace);
  auto c = toSpace ? scale(shape[3], false) : FailureOr<int64_t>(shape[3] * b * b);
  if (!toSpace && ShapedType::isDynamic(shape[3]))
    c = ShapedType::kDynamic;
  if (failed(h) || failed(w) || failed(c))
    return failure();
  if (toSpace && !ShapedType::isDynamic(shape[3]) && shape[3] % (b * b) != 0)
    return ctx.error("channels ", shape[3], " are not divisible by block_size squared ", b * b);
  if (toSpace && !ShapedType::isDynamic(shape[3]))
    c = shape[3] / (b * b);
  out.push_back(RankedTensorType::get({shape[0], *h, *w, *c}, x.getElementType()));
  return success();
}

LogicalResult inferDepthToSpace(const InferContext &ctx, InferResult &out) {
  return inferSpaceDepth(ctx, out, /*toSpace=*/true);
}

LogicalResult inferSpaceToDepth(const InferContext &ctx, InferResult &out) {
  return inferSpaceDepth(ctx, out, /*toSpace=*/false);
}

LogicalResult inferMirrorPad(const InferContext &ctx, InferResult &out) {
  auto mode = ctx.attr<StringAttr>("mode");
  if (!mode || (mode.getValue() != "REFLECT" && mode.getValue() != "SYMMETRIC"))
    return ctx.error("mode must be \"REFLECT\" or \"SYMMETRIC\"");
  if (failed(inferPad(ctx, out)))
    return failure();
  auto x = cast<TensorType>(ctx.operandType(0));
  auto pads = ctx.constantInts(1);
  if (x.hasStaticShape() && pads) {
    int64_t limit = mode.getValue() == "REFLECT" ? 1 : 0;
    for (int64_t i = 0; i < x.getRank(); ++i)
      if ((*pads)[2 * i] > x.getDimSize(i) - limit || (*pads)[2 * i + 1] > x.getDimSize(i) - limit)
        return ctx.error("paddings of dimension ", i, " are too large for ", mode.getValue(),
                         " mode and size ", x.getDimSize(i));
  }
  return success();
}

static LogicalResult inferResize(const InferContext &ctx, InferResult &out, bool toF32) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto images = cast<TensorType>(ctx.operandType(0));
  if (failed(ctx.checkTypeAttr("T", images.getElementType())))
    return failure();
  auto align = ctx.attr<BoolAttr>("align_corners"), half = ctx.attr<BoolAttr>("half_pixel_centers");
  if (align && half && align.getValue() && half.getValue())
    return ctx.error("align_corners and half_pixel_centers cannot both be true");
  auto size = ctx.constantInts(1);
  if (images.hasRank() && images.getRank() != 4)
    return ctx.error("images must be 4-D (NHWC), got ", images);
  if (size && (size->size() != 2 || (*size)[0] <= 0 || (*size)[1] <= 0))
    return ctx.error("size must hold two positive values");
  int64_t n = images.hasRank() ? images.getDimSize(0) : ShapedType::kDynamic;
  int64_t c = images.hasRank() ? images.getDimSize(3) : ShapedType::kDynamic;
  int64_t h = size ? (*size)[0] : ShapedType::kDynamic;
  int64_t w = size ? (*size)[1] : ShapedType::kDynamic;
  Type element = toF32 ? Type(Float32Type::get(ctx.context)) : images.getElementType();
  out.push_back(RankedTensorType::get({n, h, w, c}, element));
  return success();
}

LogicalResult inferResizeNearest(const InferContext &ctx, InferResult &out) {
  return inferResize(ctx, out, /*toF32=*/false);
}

LogicalResult inferResizeBilinear(const InferContext &ctx, InferResult &out) {
  return inferResize(ctx, out, /*toF32=*/true);
}

ResizeAxis resizeAxis(int64_t in, int64_t out, bool alignCorners, bool halfPixelCenters) {
  float scale = (alignCorners && out > 1) ? static_cast<float>(in - 1) / (out - 1)
                                          : static_cast<float>(in) / out;
  ResizeAxis axis;
  for (int64_t o = 0; o < out; ++o) {
    float x = halfPixelCenters ? (o + 0.5f) * scale - 0.5f : o * scale;
    float floorX = std::floor(x);
    axis.lower.push_back(std::max<int64_t>(static_cast<int64_t>(floorX), 0));
    axis.upper.push_back(std::min<int64_t>(static_cast<int64_t>(std::ceil(x)), in - 1));
    axis.lerp.push_back(x - floorX);
    int64_t nearest = alignCorners       ? static_cast<int64_t>(std::round(o * scale))
                      : halfPixelCenters ? static_cast<int64_t>(std::floor((o + 0.5f) * scale))
                                         : static_cast<int64_t>(std::floor(o * scale));
    axis.nearest.push_back(std::clamp<int64_t>(nearest, 0, in - 1));
  }
  return axis;
}

/// TensorFlow's resize scale: in / out, or (in - 1) / (out - 1) aligning corners.
static float resizeScale(int64_t in, int64_t out, bool alignCorners) {
  return (alignCorners && out > 1) ? static_cast<float>(in - 1) / (out - 1)
                                   : static_cast<float>(in) / out;
}

CubicAxis cubicAxis(int64_t in, int64_t out, bool alignCorners, bool halfPixelCenters) {
  // The coefficients table of resize_bicubic_op.cc: 1024 steps of the Keys kernel.
  constexpr int64_t kTableSize = 1024;
  const double a = halfPixelCenters ? -0.5 : -0.75;
  std::vector<float> table((kTableSize + 1) * 2);
  for (int64_t i = 0; i <= kTableSize; ++i) {
    float x = i * 1.0 / kTableSize;
    table[i * 2] = ((a + 2) * x - (a + 3)) * x * x + 1;
    x += 1.0;
    table[i * 2 + 1] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  }
  float scale = resizeScale(in, out, alignCorners);
  auto bound = [&](int64_t v) { return std::min(in - 1, std::max<int64_t>(0, v)); };
  CubicAxis axis;
  for (int64_t o = 0; o < out; ++o) {
    float at = halfPixelCenters ? (static_cast<float>(o) + 0.5f) * scale - 0.5f
                                : static_cast<float>(o) * scale;
    int64_t loc = static_cast<int64_t>(std::floor(at));
    float delta = at - loc;
    int64_t offset = lrintf(delta * kTableSize);
    float w[4] = {table[offset * 2 + 1], table[offset * 2], table[(kTableSize - offset) * 2],
                  table[(kTableSize - offset) * 2 + 1]};
    int64_t idx[4];
    for (int t = 0; t < 4; ++t) {
      idx[t] = bound(loc - 1 + t);
      if (halfPixelCenters && idx[t] != loc - 1 + t)
        w[t] = 0.0f;
    }
    if (halfPixelCenters) {
      float sum = w[0] + w[1] + w[2] + w[3];
      if (std::abs(sum) >= 1000.0f * std::numeric_limits<float>::min()) {
        float inverse = 1.0f / sum;
        for (float &v : w)
          v *= inverse;
      }
    }
    for (int t = 0; t < 4; ++t) {
      axis.index[t].push_back(idx[t]);
      axis.weight[t].push_back(w[t]);
    }
  }
  return axis;
}

AreaAxis areaAxis(int64_t in, int64_t out, bool alignCorners) {
  AreaAxis axis;
  axis.scale = resizeScale(in, out, alignCorners);
  float scale = axis.scale;
  // resize_area_op.cc's rule for the weight of input cell v of output [inStart, inEnd).
  auto weight = [&](int64_t v, float inStart, float inEnd) -> float {
    return v < inStart ? (v + 1 > inEnd ? scale : v + 1 - inStart)
                       : (v + 1 > inEnd ? inEnd - v : 1.0f);
  };
  for (int64_t o = 0; o < out; ++o) {
    float inStart = o * scale, inEnd = (o + 1) * scale;
    int64_t start = static_cast<int64_t>(std::floor(inStart));
    int64_t end = static_cast<int64_t>(std::ceil(inEnd));
    axis.start.push_back(start);
    axis.end.push_back(end);
    axis.startScale.push_back(weight(start, inStart, inEnd));
    axis.endScale.push_back(weight(end - 1, inStart, inEnd));
  }
  return axis;
}

} // namespace kiln::tf
