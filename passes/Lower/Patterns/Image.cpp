//===- Image.cpp - resizes, patches, LRN, colour spaces, FakeQuant* -----------===//
//
// The source coordinates of a resize depend only on static sizes, so they are computed at
// compile time (kiln::tf::resizeAxis, TensorFlow's rules) into small constant tables that
// the generated gather reads.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mlir/IR/TypeUtilities.h"
#include <array>

using namespace mlir;

namespace kiln::lower {
namespace {

Value indexTable(OpBuilder &b, Location loc, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())}, b.getI64Type());
  return arith::ConstantOp::create(b, loc, DenseIntElementsAttr::get(type, values));
}

Value floatTable(OpBuilder &b, Location loc, ArrayRef<float> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())}, b.getF32Type());
  return arith::ConstantOp::create(b, loc, DenseFPElementsAttr::get(type, values));
}

/// table[i] as an index.
Value lookup(OpBuilder &b, Location loc, Value table, Value i) {
  Value v = tensor::ExtractOp::create(b, loc, table, i);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// An image element as f32 (the resizes compute in float, as TensorFlow's kernels do).
Value readAsFloat(OpBuilder &b, Location l, Value images, ValueRange at, ElementKind kind) {
  Value v = tensor::ExtractOp::create(b, l, images, at);
  Type f32 = b.getF32Type();
  if (v.getType() == f32)
    return v;
  if (kind == ElementKind::Float)
    return arith::ExtFOp::create(b, l, f32, v);
  if (kind == ElementKind::Unsigned)
    return arith::UIToFPOp::create(b, l, f32, v);
  return arith::SIToFPOp::create(b, l, f32, v);
}

/// a + (c - a) * t, the linear blend TensorFlow's bilinear kernels compute.
Value blend(OpBuilder &b, Location l, Value a, Value c, Value t) {
  Value difference = arith::SubFOp::create(b, l, c, a);
  Value scaled = arith::MulFOp::create(b, l, difference, t);
  return arith::AddFOp::create(b, l, a, scaled);
}

template <typename OpT, bool Bilinear> struct ResizeLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(this->getTypeConverter(), op.getResizedImages().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getImages().getType());
    if (!resultType || !inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    tf::ResizeAxis h = tf::resizeAxis(inputType.getDimSize(1), resultType.getDimSize(1),
                                      op.getAlignCorners(), op.getHalfPixelCenters());
    tf::ResizeAxis w = tf::resizeAxis(inputType.getDimSize(2), resultType.getDimSize(2),
                                      op.getAlignCorners(), op.getHalfPixelCenters());
    Value images = adaptor.getImages();
    if (!Bilinear) {
      Value th = indexTable(rewriter, loc, h.nearest), tw = indexTable(rewriter, loc, w.nearest);
      rewriter.replaceOp(op, buildGather(rewriter, loc, resultType, images,
                                         [&](OpBuilder &b, Location l, ArrayRef<Value> i) {
                                           return SmallVector<Value>{i[0], lookup(b, l, th, i[1]),
                                                                     lookup(b, l, tw, i[2]), i[3]};
                                         }));
      return success();
    }
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getImages().getType()));
    Value hLo = indexTable(rewriter, loc, h.lower), hHi = indexTable(rewriter, loc, h.upper);
    Value wLo = indexTable(rewriter, loc, w.lower), wHi = indexTable(rewriter, loc, w.upper);
    Value hLerp = floatTable(rewriter, loc, h.lerp), wLerp = floatTable(rewriter, loc, w.lerp);
    Value result = buildParallelGeneric(
        rewriter, loc, resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Value n = linalg::IndexOp::create(b, l, 0), oy = linalg::IndexOp::create(b, l, 1),
                ox = linalg::IndexOp::create(b, l, 2), c = linalg::IndexOp::create(b, l, 3);
          Value y0 = lookup(b, l, hLo, oy), y1 = lookup(b, l, hHi, oy);
          Value x0 = lookup(b, l, wLo, ox), x1 = lookup(b, l, wHi, ox);
          auto read = [&](Value y, Value x) {
            return readAsFloat(b, l, images, ValueRange{n, y, x, c}, kind);
          };
          Value ly = tensor::ExtractOp::create(b, l, hLerp, oy);
          Value lx = tensor::ExtractOp::create(b, l, wLerp, ox);
          auto lerp = [&](Value a, Value bv, Value t) { return blend(b, l, a, bv, t); };
          Value top = lerp(read(y0, x0), read(y0, x1), lx);
          Value bottom = lerp(read(y1, x0), read(y1, x1), lx);
          return lerp(top, bottom, ly);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ((v0 * w0 + v1 * w1) + v2 * w2) + v3 * w3, TensorFlow's Interpolate1D.
Value interpolate4(OpBuilder &b, Location l, ArrayRef<Value> v, ArrayRef<Value> w) {
  Value sum = arith::MulFOp::create(b, l, v[0], w[0]);
  for (int t = 1; t < 4; ++t) {
    Value term = arith::MulFOp::create(b, l, v[t], w[t]);
    sum = arith::AddFOp::create(b, l, sum, term);
  }
  return sum;
}

/// ResizeBicubic: 4x4 taps per output from compile-time tables of indices and weights
/// (kiln::tf::cubicAxis), each of the four columns interpolated along y first, then the
/// four results along x, in TensorFlow's order of operations.
struct ResizeBicubicLowering : OpConversionPattern<tf::ResizeBicubicOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::ResizeBicubicOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getResizedImages().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getImages().getType());
    if (!resultType || !inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getImages().getType()));
    tf::CubicAxis h = tf::cubicAxis(inputType.getDimSize(1), resultType.getDimSize(1),
                                    op.getAlignCorners(), op.getHalfPixelCenters());
    tf::CubicAxis w = tf::cubicAxis(inputType.getDimSize(2), resultType.getDimSize(2),
                                    op.getAlignCorners(), op.getHalfPixelCenters());
    SmallVector<Value> hIndex, hWeight, wIndex, wWeight;
    for (int t = 0; t < 4; ++t) {
      hIndex.push_back(indexTable(rewriter, loc, h.index[t]));
      hWeight.push_back(floatTable(rewriter, loc, h.weight[t]));
      wIndex.push_back(indexTable(rewriter, loc, w.index[t]));
      wWeight.push_back(floatTable(rewriter, loc, w.weight[t]));
    }
    Value images = adaptor.getImages();
    Value result = buildParallelGeneric(
        rewriter, loc, resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Value n = linalg::IndexOp::create(b, l, 0);
          Value oy = linalg::IndexOp::create(b, l, 1);
          Value ox = linalg::IndexOp::create(b, l, 2);
          Value c = linalg::IndexOp::create(b, l, 3);
          SmallVector<Value> ys, wy, xs, wx;
          for (int t = 0; t < 4; ++t) {
            ys.push_back(lookup(b, l, hIndex[t], oy));
            wy.push_back(tensor::ExtractOp::create(b, l, hWeight[t], oy));
            xs.push_back(lookup(b, l, wIndex[t], ox));
            wx.push_back(tensor::ExtractOp::create(b, l, wWeight[t], ox));
          }
          SmallVector<Value> columns;
          for (int tx = 0; tx < 4; ++tx) {
            SmallVector<Value> column;
            for (int ty = 0; ty < 4; ++ty)
              column.push_back(readAsFloat(b, l, images, {n, ys[ty], xs[tx], c}, kind));
            columns.push_back(interpolate4(b, l, column, wy));
          }
          return interpolate4(b, l, columns, wx);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ResizeArea: each output sums the input cells it covers (compile-time tables of the
/// cells and the weights of the first and last, kiln::tf::areaAxis) in loops inside the
/// generic's body, in resize_area_op.cc's order: along x for each row, the row's sum times
/// its weight added to the total, the total times 1 / (height scale * width scale).
struct ResizeAreaLowering : OpConversionPattern<tf::ResizeAreaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::ResizeAreaOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getResizedImages().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getImages().getType());
    if (!resultType || !inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getImages().getType()));
    int64_t inH = inputType.getDimSize(1), inW = inputType.getDimSize(2);
    tf::AreaAxis h = tf::areaAxis(inH, resultType.getDimSize(1), op.getAlignCorners());
    tf::AreaAxis w = tf::areaAxis(inW, resultType.getDimSize(2), op.getAlignCorners());
    float scale = 1.0 / (h.scale * w.scale);
    Value hStart = indexTable(rewriter, loc, h.start), hEnd = indexTable(rewriter, loc, h.end);
    Value wStart = indexTable(rewriter, loc, w.start), wEnd = indexTable(rewriter, loc, w.end);
    Value hFirst = floatTable(rewriter, loc, h.startScale);
    Value hLast = floatTable(rewriter, loc, h.endScale);
    Value wFirst = floatTable(rewriter, loc, w.startScale);
    Value wLast = floatTable(rewriter, loc, w.endScale);
    Value images = adaptor.getImages();
    Value result = buildParallelGeneric(
        rewriter, loc, resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Value n = linalg::IndexOp::create(b, l, 0);
          Value oy = linalg::IndexOp::create(b, l, 1);
          Value ox = linalg::IndexOp::create(b, l, 2);
          Value c = linalg::IndexOp::create(b, l, 3);
          Value y0 = lookup(b, l, hStart, oy), y1 = lookup(b, l, hEnd, oy);
          Value x0 = lookup(b, l, wStart, ox), x1 = lookup(b, l, wEnd, ox);
          Value yFirst = tensor::ExtractOp::create(b, l, hFirst, oy);
          Value yLast = tensor::ExtractOp::create(b, l, hLast, oy);
          Value xFirst = tensor::ExtractOp::create(b, l, wFirst, ox);
          Value xLast = tensor::ExtractOp::create(b, l, wLast, ox);
          Value one = indexConstant(b, l, 1);
          Value zeroF = scalarConstant(b, l, b.getF32Type(), 0);
          Value oneF = scalarConstant(b, l, b.getF32Type(), 1);
          auto clamp = [&](Value v, int64_t size) { return clampIndex(b, l, v, size); };
          Value yLastIndex = arith::SubIOp::create(b, l, y1, one);
          Value x0Next = arith::AddIOp::create(b, l, x0, one);
          Value xLastIndex = arith::SubIOp::create(b, l, x1, one);
          Value xBoundedFirst = clamp(x0, inW), xBoundedLast = clamp(xLastIndex, inW);
          Value moreThanOne = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, x0Next, x1);
          auto rows = scf::ForOp::create(
              b, l, y0, y1, one, ValueRange{zeroF},
              [&](OpBuilder &rb, Location rl, Value i, ValueRange total) {
                Value yi = clamp(i, inH);
                Value isFirst = arith::CmpIOp::create(rb, rl, arith::CmpIPredicate::eq, i, y0);
                Value isLast =
                    arith::CmpIOp::create(rb, rl, arith::CmpIPredicate::eq, i, yLastIndex);
                Value middleOrLast = arith::SelectOp::create(rb, rl, isLast, yLast, oneF);
                Value yScale = arith::SelectOp::create(rb, rl, isFirst, yFirst, middleOrLast);
                Value first = readAsFloat(rb, rl, images, {n, yi, xBoundedFirst, c}, kind);
                Value start = arith::MulFOp::create(rb, rl, first, xFirst);
                auto middle = scf::ForOp::create(
                    rb, rl, x0Next, xLastIndex, one, ValueRange{start},
                    [&](OpBuilder &mb, Location ml, Value x, ValueRange sum) {
                      Value v = readAsFloat(mb, ml, images, {n, yi, clamp(x, inW), c}, kind);
                      scf::YieldOp::create(mb, ml,
                                           ValueRange{arith::AddFOp::create(mb, ml, sum[0], v)});
                    });
                Value last = readAsFloat(rb, rl, images, {n, yi, xBoundedLast, c}, kind);
                Value lastTerm = arith::MulFOp::create(rb, rl, last, xLast);
                Value withLast = arith::AddFOp::create(rb, rl, middle.getResult(0), lastTerm);
                Value rowSum = arith::SelectOp::create(rb, rl, moreThanOne, withLast, start);
                Value weighted = arith::MulFOp::create(rb, rl, rowSum, yScale);
                scf::YieldOp::create(rb, rl,
                                     ValueRange{arith::AddFOp::create(rb, rl, total[0], weighted)});
              });
          Value factor = scalarConstant(b, l, b.getF32Type(), scale);
          return arith::MulFOp::create(b, l, rows.getResult(0), factor);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ExtractImagePatches: output depth d of position (oy, ox) is channel d % C of window
/// tap (d / C) / kw, (d / C) % kw, read at the dilated tap's input position, 0 outside.
struct ExtractImagePatchesLowering : OpConversionPattern<tf::ExtractImagePatchesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::ExtractImagePatchesOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getPatches().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getImages().getType());
    if (!resultType || !inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    auto ints = [](ArrayAttr a) {
      SmallVector<int64_t> v;
      for (Attribute x : a)
        v.push_back(cast<IntegerAttr>(x).getInt());
      return v;
    };
    SmallVector<int64_t> k = ints(op.getKsizes()), st = ints(op.getStrides()),
                         rate = ints(op.getRates());
    tf::InferContext ctx = tf::InferContext::of(op, false);
    int64_t pad[3] = {0, 0, 0};
    for (int d : {1, 2}) {
      auto window = tf::computeWindow(ctx, inputType.getDimSize(d), k[d], st[d], rate[d],
                                      op.getPadding(), 0, 0);
      if (failed(window))
        return rewriter.notifyMatchFailure(op, "bad window");
      pad[d] = window->padBefore;
    }
    int64_t h = inputType.getDimSize(1), w = inputType.getDimSize(2), c = inputType.getDimSize(3);
    Location loc = op.getLoc();
    Value images = adaptor.getImages();
    Type element = resultType.getElementType();
    Value result = buildParallelGeneric(
        rewriter, loc, resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          auto index = [&](int64_t v) { return indexConstant(b, l, v); };
          auto mul = [&](Value x, int64_t v) -> Value {
            Value factor = index(v);
            return arith::MulIOp::create(b, l, x, factor);
          };
          Value n = linalg::IndexOp::create(b, l, 0);
          Value oy = linalg::IndexOp::create(b, l, 1);
          Value ox = linalg::IndexOp::create(b, l, 2);
          Value d = linalg::IndexOp::create(b, l, 3);
          Value depth = index(c);
          Value channel = arith::RemUIOp::create(b, l, d, depth);
          Value tap = arith::DivUIOp::create(b, l, d, depth);
          Value cols = index(k[2]);
          Value i = arith::DivUIOp::create(b, l, tap, cols);
          Value j = arith::RemUIOp::create(b, l, tap, cols);
          auto position = [&](Value o, Value t, int dim) -> Value {
            Value base = mul(o, st[dim]);
            Value offset = mul(t, rate[dim]);
            Value at = arith::AddIOp::create(b, l, base, offset);
            Value before = index(pad[dim]);
            return arith::SubIOp::create(b, l, at, before);
          };
          Value y = position(oy, i, 1), x = position(ox, j, 2);
          auto inside = [&](Value v, int64_t size) -> Value {
            Value zero = index(0);
            Value from = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, v, zero);
            Value limit = index(size);
            Value below = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, v, limit);
            return arith::AndIOp::create(b, l, from, below);
          };
          auto clamp = [&](Value v, int64_t size) { return clampIndex(b, l, v, size); };
          Value insideY = inside(y, h), insideX = inside(x, w);
          Value valid = arith::AndIOp::create(b, l, insideY, insideX);
          Value yc = clamp(y, h), xc = clamp(x, w);
          Value v = tensor::ExtractOp::create(b, l, images, ValueRange{n, yc, xc, channel});
          Value zero = isa<FloatType>(element)
                           ? scalarConstant(b, l, element, 0)
                           : Value(arith::ConstantOp::create(b, l, b.getIntegerAttr(element, 0)));
          return arith::SelectOp::create(b, l, valid, v, zero);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// CropAndResize: per output element, its box read inside the loop, the source position
/// in_y = y1 * (H - 1) + y * scale (the box's centre for a size of 1, in double as
/// TensorFlow computes it), extrapolation_value outside the image, else the bilinear blend
/// of the four neighbours (or the nearest, rounded half away from zero).
struct CropAndResizeLowering : OpConversionPattern<tf::CropAndResizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::CropAndResizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getCrops().getType());
    auto imageType = dyn_cast<RankedTensorType>(adaptor.getImage().getType());
    if (!resultType || !imageType || !imageType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getImage().getType()));
    bool bilinear = op.getMethod() == "bilinear";
    int64_t batch = imageType.getDimSize(0);
    int64_t size[2] = {imageType.getDimSize(1), imageType.getDimSize(2)};
    int64_t crop[2] = {resultType.getDimSize(1), resultType.getDimSize(2)};
    float extrapolation = op.getExtrapolationValue().convertToFloat();
    Value image = adaptor.getImage(), boxes = adaptor.getBoxes(), ind = adaptor.getBoxInd();
    Value result = buildParallelGeneric(
        rewriter, loc, resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Type f32 = b.getF32Type(), f64 = b.getF64Type();
          auto index = [&](int64_t v) { return indexConstant(b, l, v); };
          Value box = linalg::IndexOp::create(b, l, 0);
          Value at[2] = {linalg::IndexOp::create(b, l, 1), linalg::IndexOp::create(b, l, 2)};
          Value channel = linalg::IndexOp::create(b, l, 3);
          Value image32 = tensor::ExtractOp::create(b, l, ind, ValueRange{box});
          Value n = arith::IndexCastOp::create(b, l, b.getIndexType(), image32);
          n = clampIndex(b, l, n, batch);
          Value source[2];
          Value inside;
          for (int d = 0; d < 2; ++d) {
            Value first = tensor::ExtractOp::create(b, l, boxes, ValueRange{box, index(d)});
            Value second = tensor::ExtractOp::create(b, l, boxes, ValueRange{box, index(d + 2)});
            Value extent = scalarConstant(b, l, f32, size[d] - 1);
            if (crop[d] > 1) {
              Value span = arith::SubFOp::create(b, l, second, first);
              Value stretched = arith::MulFOp::create(b, l, span, extent);
              Value scale =
                  arith::DivFOp::create(b, l, stretched, scalarConstant(b, l, f32, crop[d] - 1));
              Value start = arith::MulFOp::create(b, l, first, extent);
              Value step = arith::IndexCastOp::create(b, l, b.getI64Type(), at[d]);
              Value stepF = arith::SIToFPOp::create(b, l, f32, step);
              Value offset = arith::MulFOp::create(b, l, stepF, scale);
              source[d] = arith::AddFOp::create(b, l, start, offset);
            } else {
              Value first64 = arith::ExtFOp::create(b, l, f64, first);
              Value second64 = arith::ExtFOp::create(b, l, f64, second);
              Value sum = arith::AddFOp::create(b, l, first64, second64);
              Value half = arith::MulFOp::create(b, l, scalarConstant(b, l, f64, 0.5), sum);
              Value centre =
                  arith::MulFOp::create(b, l, half, scalarConstant(b, l, f64, size[d] - 1));
              source[d] = arith::TruncFOp::create(b, l, f32, centre);
            }
            Value notBelow = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, source[d],
                                                   scalarConstant(b, l, f32, 0));
            Value notAbove =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, source[d], extent);
            Value here = arith::AndIOp::create(b, l, notBelow, notAbove);
            inside = inside ? Value(arith::AndIOp::create(b, l, inside, here)) : here;
          }
          // An index from a float coordinate, clamped so that reads stay inside.
          auto toIndex = [&](Value v, int d) -> Value {
            Value i = arith::FPToSIOp::create(b, l, b.getI64Type(), v);
            i = arith::IndexCastOp::create(b, l, b.getIndexType(), i);
            return clampIndex(b, l, i, size[d]);
          };
          auto read = [&](Value y, Value x) {
            return readAsFloat(b, l, image, ValueRange{n, y, x, channel}, kind);
          };
          Value value;
          if (bilinear) {
            Value lower[2], upper[2], lerp[2];
            for (int d = 0; d < 2; ++d) {
              Value floor = math::FloorOp::create(b, l, source[d]);
              Value ceil = math::CeilOp::create(b, l, source[d]);
              lerp[d] = arith::SubFOp::create(b, l, source[d], floor);
              lower[d] = toIndex(floor, d);
              upper[d] = toIndex(ceil, d);
            }
            Value topLeft = read(lower[0], lower[1]);
            Value topRight = read(lower[0], upper[1]);
            Value bottomLeft = read(upper[0], lower[1]);
            Value bottomRight = read(upper[0], upper[1]);
            Value top = blend(b, l, topLeft, topRight, lerp[1]);
            Value bottom = blend(b, l, bottomLeft, bottomRight, lerp[1]);
            value = blend(b, l, top, bottom, lerp[0]);
          } else {
            Value y = toIndex(math::RoundOp::create(b, l, source[0]), 0);
            Value x = toIndex(math::RoundOp::create(b, l, source[1]), 1);
            value = read(y, x);
          }
          return arith::SelectOp::create(b, l, inside, value,
                                         scalarConstant(b, l, f32, extrapolation));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Bitcast: each element's bits as an integer of its width, then, to a narrower type, the
/// slice j of them (j = the new last index, least significant first), to a wider type the
/// pieces of the input's last dimension joined; finally the bits as the result type.
struct BitcastLowering : OpConversionPattern<tf::BitcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::BitcastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!type || !inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    Type from = inputType.getElementType(), to = type.getElementType();
    unsigned a = from.getIntOrFloatBitWidth(), bits = to.getIntOrFloatBitWidth();
    Value input = adaptor.getInput();
    int64_t rank = type.getRank();
    Value result = buildParallelGeneric(
        rewriter, loc, type, ValueRange{}, {}, [&](OpBuilder &b, Location l, ValueRange) -> Value {
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d));
          auto asInt = [&](Value v, unsigned width) -> Value {
            Type i = b.getIntegerType(width);
            return v.getType() == i ? v : Value(arith::BitcastOp::create(b, l, i, v));
          };
          auto asResult = [&](Value v) -> Value {
            return v.getType() == to ? v : Value(arith::BitcastOp::create(b, l, to, v));
          };
          if (a == bits)
            return asResult(asInt(tensor::ExtractOp::create(b, l, input, at), a));
          if (a > bits) {
            Value piece = at.back();
            at.pop_back();
            Value whole = asInt(tensor::ExtractOp::create(b, l, input, at), a);
            Type wide = whole.getType();
            Value index = arith::IndexCastOp::create(b, l, wide, piece);
            Value width = arith::ConstantOp::create(b, l, b.getIntegerAttr(wide, bits));
            Value amount = arith::MulIOp::create(b, l, index, width);
            Value shifted = arith::ShRUIOp::create(b, l, whole, amount);
            Value narrow = arith::TruncIOp::create(b, l, b.getIntegerType(bits), shifted);
            return asResult(narrow);
          }
          Type wide = b.getIntegerType(bits);
          Value joined = arith::ConstantOp::create(b, l, b.getIntegerAttr(wide, 0));
          for (unsigned j = 0; j < bits / a; ++j) {
            SmallVector<Value> there(at);
            there.push_back(indexConstant(b, l, j));
            Value part = asInt(tensor::ExtractOp::create(b, l, input, there), a);
            Value extended = arith::ExtUIOp::create(b, l, wide, part);
            Value amount = arith::ConstantOp::create(b, l, b.getIntegerAttr(wide, j * a));
            Value placed = arith::ShLIOp::create(b, l, extended, amount);
            joined = arith::OrIOp::create(b, l, joined, placed);
          }
          return asResult(joined);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// LRN: per element, the squares of the depth window summed in order (a loop in the
/// generic's body), then x / (bias + alpha * sum)^beta with TensorFlow's special cases of
/// beta 1 (a reciprocal) and 0.5 (1 / sqrt).
struct LRNLowering : OpConversionPattern<tf::LRNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::LRNOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getOutput().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Location loc = op.getLoc();
    int64_t depth = type.getDimSize(3), radius = op.getDepthRadius();
    double alpha = op.getAlpha().convertToDouble(), bias = op.getBias().convertToDouble(),
           beta = op.getBeta().convertToDouble();
    Value input = adaptor.getInput();
    Type element = type.getElementType();
    Value result = buildElementwise(
        rewriter, loc, type, input, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          SmallVector<Value> at;
          for (int64_t d = 0; d < 4; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d));
          Value r = indexConstant(b, l, radius);
          Value zero = indexConstant(b, l, 0);
          Value below = arith::SubIOp::create(b, l, at[3], r);
          Value begin = arith::MaxSIOp::create(b, l, below, zero);
          Value above = arith::AddIOp::create(b, l, at[3], r);
          Value one = indexConstant(b, l, 1);
          Value afterAbove = arith::AddIOp::create(b, l, above, one);
          Value limit = indexConstant(b, l, depth);
          Value end = arith::MinSIOp::create(b, l, afterAbove, limit);
          Value start = scalarConstant(b, l, element, 0);
          auto loop = scf::ForOp::create(
              b, l, begin, end, one, ValueRange{start},
              [&](OpBuilder &lb, Location ll, Value k, ValueRange sum) {
                SmallVector<Value> there(at.begin(), at.end() - 1);
                there.push_back(k);
                Value v = tensor::ExtractOp::create(lb, ll, input, there);
                Value square = arith::MulFOp::create(lb, ll, v, v);
                scf::YieldOp::create(lb, ll,
                                     ValueRange{arith::AddFOp::create(lb, ll, sum[0], square)});
              });
          Value scaled =
              arith::MulFOp::create(b, l, loop.getResult(0), scalarConstant(b, l, element, alpha));
          Value tmp = arith::AddFOp::create(b, l, scaled, scalarConstant(b, l, element, bias));
          Value factor;
          if (beta == 1.0) {
            factor = arith::DivFOp::create(b, l, scalarConstant(b, l, element, 1), tmp);
          } else if (beta == 0.5) {
            Value root = math::SqrtOp::create(b, l, tmp);
            factor = arith::DivFOp::create(b, l, scalarConstant(b, l, element, 1), root);
          } else {
            Value log = math::LogOp::create(b, l, tmp);
            Value power = arith::MulFOp::create(b, l, log, scalarConstant(b, l, element, -beta));
            factor = math::ExpOp::create(b, l, power);
          }
          return arith::MulFOp::create(b, l, args[0], factor);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

using PixelFn = function_ref<std::array<Value, 3>(OpBuilder &, Location, ArrayRef<Value> pixel)>;

/// A generic over `type` (NHWC-like, 3 channels last) whose element at channel c is output c
/// of `pixel` applied to the three channels of its pixel in `images` (read in the body).
Value buildPixelMap(OpBuilder &b, Location loc, RankedTensorType type, Value images,
                    PixelFn pixel) {
  int64_t rank = type.getRank();
  return buildParallelGeneric(
      b, loc, type, ValueRange{}, {}, [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d)
          at.push_back(linalg::IndexOp::create(nb, l, d));
        Value channel = at.back();
        SmallVector<Value> px;
        for (int64_t c = 0; c < 3; ++c) {
          at.back() = indexConstant(nb, l, c);
          px.push_back(tensor::ExtractOp::create(nb, l, images, at));
        }
        std::array<Value, 3> out = pixel(nb, l, px);
        Value isZero = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, channel,
                                             indexConstant(nb, l, 0));
        Value isOne = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, channel,
                                            indexConstant(nb, l, 1));
        Value rest = arith::SelectOp::create(nb, l, isOne, out[1], out[2]);
        return arith::SelectOp::create(nb, l, isZero, out[0], rest);
      });
}

/// RGBToHSV and HSVToRGB: each output channel computed from its pixel's three (read
/// inside the generic), with the formulas of TensorFlow's colorspace_op.h.
template <typename OpT, bool ToHSV> struct ColorSpaceLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Location loc = op.getLoc();
    Value images = adaptor.getImages();
    Type t = type.getElementType();
    Value result = buildPixelMap(
        rewriter, loc, type, images,
        [&](OpBuilder &b, Location l, ArrayRef<Value> px) -> std::array<Value, 3> {
          auto k = [&](double v) { return scalarConstant(b, l, t, v); };
          auto add = [&](Value x, Value y) -> Value { return arith::AddFOp::create(b, l, x, y); };
          auto sub = [&](Value x, Value y) -> Value { return arith::SubFOp::create(b, l, x, y); };
          auto mul = [&](Value x, Value y) -> Value { return arith::MulFOp::create(b, l, x, y); };
          auto sel = [&](Value c, Value x, Value y) -> Value {
            return arith::SelectOp::create(b, l, c, x, y);
          };
          auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) -> Value {
            return arith::CmpFOp::create(b, l, p, x, y);
          };
          Value out0, out1, out2;
          if (ToHSV) {
            Value r = px[0], g = px[1], bl = px[2];
            Value gb = arith::MaximumFOp::create(b, l, g, bl);
            Value v = arith::MaximumFOp::create(b, l, r, gb);
            Value gbMin = arith::MinimumFOp::create(b, l, g, bl);
            Value lowest = arith::MinimumFOp::create(b, l, r, gbMin);
            Value range = sub(v, lowest);
            Value zero = k(0);
            Value positive = cmp(arith::CmpFPredicate::OGT, v, zero);
            Value s = sel(positive, arith::DivFOp::create(b, l, range, v), zero);
            Value inverse = arith::DivFOp::create(b, l, k(1), range);
            Value norm = mul(inverse, k(1.0 / 6.0));
            Value fromR = mul(norm, sub(g, bl));
            Value fromG = add(mul(norm, sub(bl, r)), k(2.0 / 6.0));
            Value fromB = add(mul(norm, sub(r, g)), k(4.0 / 6.0));
            Value isG = cmp(arith::CmpFPredicate::OEQ, g, v);
            Value isR = cmp(arith::CmpFPredicate::OEQ, r, v);
            Value hue = sel(isR, fromR, sel(isG, fromG, fromB));
            Value someRange = cmp(arith::CmpFPredicate::OGT, range, zero);
            hue = sel(someRange, hue, zero);
            Value negative = cmp(arith::CmpFPredicate::OLT, hue, zero);
            hue = sel(negative, add(hue, k(1)), hue);
            out0 = hue, out1 = s, out2 = v;
          } else {
            Value hue = px[0], s = px[1], v = px[2];
            Value dh = mul(hue, k(6));
            auto clamp01 = [&](Value x) -> Value {
              Value low = arith::MaximumFOp::create(b, l, x, k(0));
              return arith::MinimumFOp::create(b, l, low, k(1));
            };
            Value dr = clamp01(sub(math::AbsFOp::create(b, l, sub(dh, k(3))), k(1)));
            Value dg = clamp01(
                add(arith::NegFOp::create(b, l, math::AbsFOp::create(b, l, sub(dh, k(2)))), k(2)));
            Value db = clamp01(
                add(arith::NegFOp::create(b, l, math::AbsFOp::create(b, l, sub(dh, k(4)))), k(2)));
            Value oneS = add(arith::NegFOp::create(b, l, s), k(1));
            out0 = mul(add(oneS, mul(s, dr)), v);
            out1 = mul(add(oneS, mul(s, dg)), v);
            out2 = mul(add(oneS, mul(s, db)), v);
          }
          return {out0, out1, out2};
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Scalar f32 arithmetic for the colour adjustments, written as TensorFlow's C++ is: std::max
/// and std::min (NaN-sensitive as theirs), and selects for its branches.
struct PixelMath {
  OpBuilder &b;
  Location l;
  Value k(double v) const { return scalarConstant(b, l, b.getF32Type(), v); }
  Value add(Value x, Value y) const { return arith::AddFOp::create(b, l, x, y); }
  Value sub(Value x, Value y) const { return arith::SubFOp::create(b, l, x, y); }
  Value mul(Value x, Value y) const { return arith::MulFOp::create(b, l, x, y); }
  Value div(Value x, Value y) const { return arith::DivFOp::create(b, l, x, y); }
  Value lt(Value x, Value y) const {
    return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, y);
  }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) const {
    return arith::CmpFOp::create(b, l, p, x, y);
  }
  Value sel(Value c, Value x, Value y) const { return arith::SelectOp::create(b, l, c, x, y); }
  Value max(Value x, Value y) const { return sel(lt(x, y), y, x); } // std::max(x, y)
  Value min(Value x, Value y) const { return sel(lt(y, x), y, x); } // std::min(x, y)
  /// float x + the double constant c, rounded to float (C++'s `float + 2.0 / 6.0`).
  Value addDouble(Value x, double c) const {
    Value wide = arith::ExtFOp::create(b, l, b.getF64Type(), x);
    Value sum = arith::AddFOp::create(b, l, wide, scalarConstant(b, l, b.getF64Type(), c));
    return arith::TruncFOp::create(b, l, b.getF32Type(), sum);
  }
  /// (int) x as an i32 (toward zero).
  Value truncate(Value x) const { return arith::FPToSIOp::create(b, l, b.getI32Type(), x); }
  /// Whether the i32 `v` is even.
  Value even(Value v) const {
    Value one = scalarConstant(b, l, b.getI32Type(), 1);
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                 arith::AndIOp::create(b, l, v, one),
                                 scalarConstant(b, l, b.getI32Type(), 0));
  }
  /// A switch on the i32 `category`: cases[c] for c in [0, cases.size()), else `otherwise`.
  std::array<Value, 3> choose(Value category, ArrayRef<std::array<Value, 3>> cases,
                              std::array<Value, 3> otherwise) const {
    std::array<Value, 3> out = otherwise;
    for (int64_t c = static_cast<int64_t>(cases.size()) - 1; c >= 0; --c) {
      Value is = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, category,
                                       scalarConstant(b, l, b.getI32Type(), c));
      for (int i = 0; i < 3; ++i)
        out[i] = sel(is, cases[c][i], out[i]);
    }
    return out;
  }
};

/// AdjustSaturation and AdjustHue: each output channel from its pixel's three, with the
/// scalar functions of TensorFlow's adjust_saturation_op.cc (rgb_to_hsv, hsv_to_rgb) and
/// adjust_hue_op.cc (rgb_to_hv_range, hv_range_to_rgb), their while loops that bring a
/// value into range unrolled (colours are within a few turns of the range).
template <typename OpT, bool Hue> struct AdjustColorLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Location loc = op.getLoc();
    Value images = adaptor.getImages(), factorTensor = adaptor.getOperands()[1];
    Value result =
        buildPixelMap(rewriter, loc, type, images,
                      [&](OpBuilder &b, Location l, ArrayRef<Value> px) -> std::array<Value, 3> {
                        PixelMath m{b, l};
                        Value factor = tensor::ExtractOp::create(b, l, factorTensor, ValueRange{});
                        return Hue ? hue(m, px[0], px[1], px[2], factor)
                                   : saturation(m, px[0], px[1], px[2], factor);
                      });
    rewriter.replaceOp(op, result);
    return success();
  }

  static std::array<Value, 3> saturation(const PixelMath &m, Value r, Value g, Value bl,
                                         Value scale) {
    using P = arith::CmpFPredicate;
    // rgb_to_hsv
    Value vv = m.max(r, m.max(g, bl));
    Value range = m.sub(vv, m.min(r, m.min(g, bl)));
    Value s = m.sel(m.cmp(P::OGT, vv, m.k(0)), m.div(range, vv), m.k(0));
    Value norm = m.div(m.k(1), m.mul(m.k(6), range));
    Value fromR = m.mul(norm, m.sub(g, bl));
    Value fromG = m.addDouble(m.mul(norm, m.sub(bl, r)), 2.0 / 6.0);
    Value fromB = m.addDouble(m.mul(norm, m.sub(r, g)), 4.0 / 6.0);
    Value h = m.sel(m.cmp(P::OEQ, r, vv), fromR, m.sel(m.cmp(P::OEQ, g, vv), fromG, fromB));
    h = m.sel(m.cmp(P::OLE, range, m.k(0)), m.k(0), h);
    h = m.sel(m.lt(h, m.k(0)), m.add(h, m.k(1)), h);
    // s = min(1, max(0, s * scale))
    s = m.min(m.k(1), m.max(m.k(0), m.mul(s, scale)));
    // hsv_to_rgb
    Value c = m.mul(s, vv);
    Value low = m.sub(vv, c);
    Value dh = m.mul(h, m.k(6));
    Value category = m.truncate(dh);
    Value f = m.sel(m.cmp(P::OLE, dh, m.k(0)), m.add(dh, m.k(2)), dh);
    for (int i = 0; i < 4; ++i)
      f = m.sel(m.cmp(P::OGE, f, m.k(2)), m.sub(f, m.k(2)), f);
    Value x = m.mul(c, m.sub(m.k(1), math::AbsFOp::create(m.b, m.l, m.sub(f, m.k(1)))));
    Value zero = m.k(0);
    std::array<Value, 3> out = m.choose(
        category,
        {{c, x, zero}, {x, c, zero}, {zero, c, x}, {zero, x, c}, {x, zero, c}, {c, zero, x}},
        {zero, zero, zero});
    for (Value &o : out)
      o = m.add(o, low);
    return out;
  }

  static std::array<Value, 3> hue(const PixelMath &m, Value r, Value g, Value bl, Value delta) {
    // rgb_to_hv_range: the order of r, g and b names the hue's sextant.
    auto pick = [&](Value cond, std::array<Value, 4> a, std::array<Value, 4> otherwise) {
      std::array<Value, 4> out;
      for (int i = 0; i < 4; ++i)
        out[i] = m.sel(cond, a[i], otherwise[i]);
      return out;
    };
    // {v_max, v_mid, v_min, category}
    std::array<Value, 4> rBelowG = pick(m.lt(bl, r), {g, r, bl, m.k(1)},
                                        pick(m.lt(g, bl), {bl, g, r, m.k(3)}, {g, bl, r, m.k(2)}));
    std::array<Value, 4> gBelowR = pick(m.lt(bl, g), {r, g, bl, m.k(0)},
                                        pick(m.lt(r, bl), {bl, r, g, m.k(4)}, {r, bl, g, m.k(5)}));
    std::array<Value, 4> ordered = pick(m.lt(r, g), rBelowG, gBelowR);
    Value vMax = ordered[0], vMid = ordered[1], vMin = ordered[2], sextant = ordered[3];
    Value ratio = m.div(m.sub(vMid, vMin), m.sub(vMax, vMin));
    Value h = m.add(sextant, m.sel(m.even(m.truncate(sextant)), ratio, m.sub(m.k(1), ratio)));
    h = m.sel(m.cmp(arith::CmpFPredicate::OEQ, vMax, vMin), m.k(0), h);
    // h += delta * 6, back into [0, 6).
    h = m.add(h, m.mul(delta, m.k(6)));
    for (int i = 0; i < 3; ++i)
      h = m.sel(m.lt(h, m.k(0)), m.add(h, m.k(6)), h);
    for (int i = 0; i < 3; ++i)
      h = m.sel(m.cmp(arith::CmpFPredicate::OGE, h, m.k(6)), m.sub(h, m.k(6)), h);
    // hv_range_to_rgb
    Value category = m.truncate(h);
    Value frac = m.sub(h, arith::SIToFPOp::create(m.b, m.l, m.b.getF32Type(), category));
    frac = m.sel(m.even(category), frac, m.sub(m.k(1), frac));
    Value mid = m.add(vMin, m.mul(frac, m.sub(vMax, vMin)));
    return m.choose(category,
                    {{vMax, mid, vMin},
                     {mid, vMax, vMin},
                     {vMin, vMax, mid},
                     {vMin, mid, vMax},
                     {mid, vMin, vMax}},
                    {vMax, vMin, mid});
  }
};

/// FakeQuant's bounds nudged so that zero is a quantization level, and its step, as
/// TensorFlow's fake_quant_ops_functor.h computes them (scalars, in a generic's body, so
/// that fed bounds work).
struct Nudged {
  Value min, max, scale;
};
template <typename OpT> Nudged nudge(OpBuilder &b, Location l, OpT op, Value min, Value max) {
  Type f32 = b.getF32Type();
  int64_t bits = op.getNumBits();
  Value qmin = scalarConstant(b, l, f32, op.getNarrowRange() ? 1 : 0),
        qmax = scalarConstant(b, l, f32, double((1 << bits) - 1));
  Value span = arith::SubFOp::create(b, l, max, min);
  Value levels = arith::SubFOp::create(b, l, qmax, qmin);
  Value scale = arith::DivFOp::create(b, l, span, levels);
  Value minOverScale = arith::DivFOp::create(b, l, min, scale);
  Value zeroFromMin = arith::SubFOp::create(b, l, qmin, minOverScale);
  Value rounded = math::RoundOp::create(b, l, zeroFromMin);
  Value under = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, zeroFromMin, qmin);
  Value over = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, zeroFromMin, qmax);
  Value capped = arith::SelectOp::create(b, l, over, qmax, rounded);
  Value zeroPoint = arith::SelectOp::create(b, l, under, qmin, capped);
  Value lowLevels = arith::SubFOp::create(b, l, qmin, zeroPoint);
  Value nudgedMin = arith::MulFOp::create(b, l, lowLevels, scale);
  Value highLevels = arith::SubFOp::create(b, l, qmax, zeroPoint);
  Value nudgedMax = arith::MulFOp::create(b, l, highLevels, scale);
  return {nudgedMin, nudgedMax, scale};
}

/// The bounds of a FakeQuant op or its gradient as tensors: its attributes as f32
/// constants (the Args forms), else its min and max operands.
template <typename OpT, typename AdaptorT>
std::pair<Value, Value> fakeQuantBounds(OpBuilder &b, Location loc, OpT op, AdaptorT adaptor) {
  if constexpr (std::is_same_v<OpT, tf::FakeQuantWithMinMaxArgsOp> ||
                std::is_same_v<OpT, tf::FakeQuantWithMinMaxArgsGradientOp>) {
    auto scalar = RankedTensorType::get({}, b.getF32Type());
    auto constant = [&](float v) -> Value {
      return arith::ConstantOp::create(b, loc,
                                       DenseElementsAttr::get(scalar, b.getF32FloatAttr(v)));
    };
    return {constant(op.getMin().convertToFloat()), constant(op.getMax().convertToFloat())};
  } else {
    return {adaptor.getMin(), adaptor.getMax()};
  }
}

/// FakeQuant*: clamp to the nudged bounds, round half up to a level and back.
template <typename OpT> struct FakeQuantLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(this->getTypeConverter(), op.getOutputs().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    auto [min, max] = fakeQuantBounds(rewriter, loc, op, adaptor);
    Value result = buildElementwise(
        rewriter, loc, type, ValueRange{adaptor.getInputs(), min, max},
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Nudged n = nudge(b, l, op, args[1], args[2]);
          Value x = args[0];
          Value inverse = arith::DivFOp::create(b, l, scalarConstant(b, l, f32, 1), n.scale);
          Value belowMax = arith::MinimumFOp::create(b, l, x, n.max);
          Value clamped = arith::MaximumFOp::create(b, l, belowMax, n.min);
          Value shifted = arith::SubFOp::create(b, l, clamped, n.min);
          Value steps = arith::MulFOp::create(b, l, shifted, inverse);
          Value half = arith::AddFOp::create(b, l, steps, scalarConstant(b, l, f32, 0.5));
          Value level = math::FloorOp::create(b, l, half);
          Value back = arith::MulFOp::create(b, l, level, n.scale);
          return arith::AddFOp::create(b, l, back, n.min);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The FakeQuant gradients, as TensorFlow's functors compute them: the gradients times
/// whether the input is within the nudged bounds; for the Vars forms also the sums of the
/// gradients times whether it is below the lower bound, and above the upper one (over all
/// elements, or per position of the last dimension for PerChannel).
template <typename OpT> struct FakeQuantGradLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    SmallVector<RankedTensorType> types;
    for (Type t : op->getResultTypes()) {
      types.push_back(staticTensorType(this->getTypeConverter(), t));
      if (!types.back())
        return rewriter.notifyMatchFailure(op, "needs static shapes");
    }
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    auto [min, max] = fakeQuantBounds(rewriter, loc, op, adaptor);
    SmallVector<Value> operands{adaptor.getGradients(), adaptor.getInputs(), min, max};
    // gradients * (x satisfies `which`(x, nudged bounds)), elementwise.
    auto masked = [&](auto which) {
      return buildElementwise(
          rewriter, loc, types[0], operands, [&](OpBuilder &b, Location l, ValueRange args) {
            Nudged n = nudge(b, l, op, args[2], args[3]);
            Value mask = arith::UIToFPOp::create(b, l, f32, which(b, l, args[1], n));
            return arith::MulFOp::create(b, l, args[0], mask).getResult();
          });
    };
    auto cmp = [](OpBuilder &b, Location l, arith::CmpFPredicate p, Value x, Value y) -> Value {
      return arith::CmpFOp::create(b, l, p, x, y);
    };
    SmallVector<Value> results{masked([&](OpBuilder &b, Location l, Value x, Nudged n) -> Value {
      Value aboveMin = cmp(b, l, arith::CmpFPredicate::OGE, x, n.min);
      Value belowMax = cmp(b, l, arith::CmpFPredicate::OLE, x, n.max);
      return arith::AndIOp::create(b, l, aboveMin, belowMax);
    })};
    if (types.size() == 3) {
      Value below = masked([&](OpBuilder &b, Location l, Value x, Nudged n) {
        return cmp(b, l, arith::CmpFPredicate::OLT, x, n.min);
      });
      Value above = masked([&](OpBuilder &b, Location l, Value x, Nudged n) {
        return cmp(b, l, arith::CmpFPredicate::OGT, x, n.max);
      });
      Value outside[] = {below, above};
      for (auto [value, type] : llvm::zip(outside, ArrayRef(types).drop_front()))
        results.push_back(sumToBound(rewriter, loc, value, type));
    }
    rewriter.replaceOp(op, results);
    return success();
  }

  /// `value` summed over every dimension (a scalar `type`) or all but the last.
  static Value sumToBound(OpBuilder &b, Location loc, Value value, RankedTensorType type) {
    int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
    MLIRContext *ctx = b.getContext();
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::reduction);
    SmallVector<AffineExpr> kept;
    if (type.getRank() == 1 && rank > 0) {
      iterators.back() = utils::IteratorType::parallel;
      kept.push_back(getAffineDimExpr(rank - 1, ctx));
    }
    Value init = filledTensor(b, loc, type, scalarConstant(b, loc, b.getF32Type(), 0));
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{type}, ValueRange{value}, ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx),
                            AffineMap::get(rank, 0, kept, ctx)},
        iterators, [](OpBuilder &nb, Location l, ValueRange args) {
          linalg::YieldOp::create(nb, l,
                                  arith::AddFOp::create(nb, l, args[1], args[0]).getResult());
        });
    return generic.getResult(0);
  }
};

} // namespace

/// The float values of a tf.Const operand, if it is one.
std::optional<SmallVector<float>> constantFloats(Value value) {
  auto c = value.getDefiningOp<tf::ConstOp>();
  auto values = c ? dyn_cast<DenseFPElementsAttr>(c.getValue()) : DenseFPElementsAttr();
  if (!values)
    return std::nullopt;
  SmallVector<float> out;
  for (const APFloat &v : values.getValues<APFloat>())
    out.push_back(v.convertToFloat());
  return out;
}

/// Each output element of `resultType` (NHWC) sums the span of `input` along dimension
/// `dim` that `axis` gives its coordinate there, in order: a generic over the output and
/// the span (a reduction), the weights and starts read from constant tables. Terms past
/// the span's count are left out, as TensorFlow's loops leave them.
Value sumSpans(OpBuilder &b, Location loc, Value input, ElementKind kind, int64_t dim,
               const tf::SpanAxis &axis, RankedTensorType resultType) {
  int64_t in = cast<RankedTensorType>(input.getType()).getDimSize(dim);
  Value starts = indexTable(b, loc, axis.start), counts = indexTable(b, loc, axis.count);
  int64_t out = static_cast<int64_t>(axis.start.size());
  // The weights as [output, span]: the generic's one input, which gives the span its extent.
  auto weightType = RankedTensorType::get({out, axis.span}, b.getF32Type());
  Value weights =
      arith::ConstantOp::create(b, loc, DenseFPElementsAttr::get(weightType, axis.weight));
  Value zero = scalarConstant(b, loc, b.getF32Type(), 0);
  Value init = filledTensor(b, loc, resultType, zero);
  MLIRContext *ctx = b.getContext();
  AffineMap map = AffineMap::getMultiDimIdentityMap(5, ctx).getMajorSubMap(4);
  AffineMap weightMap =
      AffineMap::get(5, 0, {getAffineDimExpr(dim, ctx), getAffineDimExpr(4, ctx)}, ctx);
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{weights}, ValueRange{init},
      ArrayRef<AffineMap>{weightMap, map}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> at;
        for (int64_t d = 0; d < 4; ++d)
          at.push_back(linalg::IndexOp::create(nb, l, d));
        Value j = linalg::IndexOp::create(nb, l, 4);
        Value o = at[dim];
        Value start = lookup(nb, l, starts, o);
        Value inside =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, j, lookup(nb, l, counts, o));
        Value source = arith::AddIOp::create(nb, l, start, j);
        at[dim] = clampIndex(nb, l, source, in);
        Value v = readAsFloat(nb, l, input, at, kind);
        Value term = arith::MulFOp::create(nb, l, args[0], v);
        Value sum = arith::AddFOp::create(nb, l, args[1], term);
        linalg::YieldOp::create(nb, l,
                                arith::SelectOp::create(nb, l, inside, sum, args[1]).getResult());
      });
  return generic.getResult(0);
}

/// ScaleAndTranslate: the rows' spans summed into an intermediate [N, OH, W, C], then the
/// columns' into the result, as TensorFlow's GatherRows and GatherColumns do.
struct ScaleAndTranslateLowering : OpConversionPattern<tf::ScaleAndTranslateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::ScaleAndTranslateOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getResizedImages().getType());
    auto imagesType = dyn_cast<RankedTensorType>(adaptor.getImages().getType());
    auto scale = constantFloats(op.getScale());
    auto translation = constantFloats(op.getTranslation());
    if (!resultType || !imagesType || !imagesType.hasStaticShape() || !scale || !translation ||
        scale->size() != 2 || translation->size() != 2)
      return rewriter.notifyMatchFailure(op, "needs static shapes, constant scale and translation");
    if ((*scale)[0] <= 0 || (*scale)[1] <= 0)
      return op.emitError() << "scale must be greater than zero";
    auto rows = tf::spanAxis(op.getKernelType(), imagesType.getDimSize(1), resultType.getDimSize(1),
                             (*scale)[0], (*translation)[0], op.getAntialias());
    auto cols = tf::spanAxis(op.getKernelType(), imagesType.getDimSize(2), resultType.getDimSize(2),
                             (*scale)[1], (*translation)[1], op.getAntialias());
    if (!rows || !cols)
      return rewriter.notifyMatchFailure(op, "unknown kernel type");
    Location loc = op.getLoc();
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getImages().getType()));
    auto middleType = RankedTensorType::get({imagesType.getDimSize(0), resultType.getDimSize(1),
                                             imagesType.getDimSize(2), imagesType.getDimSize(3)},
                                            rewriter.getF32Type());
    Value middle = sumSpans(rewriter, loc, adaptor.getImages(), kind, 1, *rows, middleType);
    Value result = sumSpans(rewriter, loc, middle, ElementKind::Float, 2, *cols, resultType);
    rewriter.replaceOp(op, result);
    return success();
  }
};

void populateImagePatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<
      ResizeLowering<tf::ResizeNearestNeighborOp, false>,
      ResizeLowering<tf::ResizeBilinearOp, true>, ResizeBicubicLowering, ResizeAreaLowering,
      ExtractImagePatchesLowering, LRNLowering, CropAndResizeLowering, BitcastLowering,
      ScaleAndTranslateLowering, AdjustColorLowering<tf::AdjustSaturationOp, false>,
      AdjustColorLowering<tf::AdjustHueOp, true>, ColorSpaceLowering<tf::RGBToHSVOp, true>,
      ColorSpaceLowering<tf::HSVToRGBOp, false>, FakeQuantLowering<tf::FakeQuantWithMinMaxArgsOp>,
      FakeQuantGradLowering<tf::FakeQuantWithMinMaxArgsGradientOp>,
      FakeQuantGradLowering<tf::FakeQuantWithMinMaxVarsGradientOp>,
      FakeQuantGradLowering<tf::FakeQuantWithMinMaxVarsPerChannelGradientOp>,
      FakeQuantLowering<tf::FakeQuantWithMinMaxVarsOp>,
      FakeQuantLowering<tf::FakeQuantWithMinMaxVarsPerChannelOp>>(converter, patterns.getContext());
}

} // namespace kiln::lower
