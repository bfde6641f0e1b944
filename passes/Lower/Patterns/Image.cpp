//===- Image.cpp - ResizeNearestNeighbor, ResizeBilinear, ResizeBicubic, ResizeArea -===//
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
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

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
          auto read = [&](Value y, Value x) -> Value {
            Value v = tensor::ExtractOp::create(b, l, images, ValueRange{n, y, x, c});
            Type f32 = b.getF32Type();
            if (v.getType() == f32)
              return v;
            if (kind == ElementKind::Float)
              return arith::ExtFOp::create(b, l, f32, v);
            if (kind == ElementKind::Unsigned)
              return arith::UIToFPOp::create(b, l, f32, v);
            return arith::SIToFPOp::create(b, l, f32, v);
          };
          Value ly = tensor::ExtractOp::create(b, l, hLerp, oy);
          Value lx = tensor::ExtractOp::create(b, l, wLerp, ox);
          auto lerp = [&](Value a, Value bv, Value t) -> Value {
            return arith::AddFOp::create(
                b, l, a, arith::MulFOp::create(b, l, arith::SubFOp::create(b, l, bv, a), t));
          };
          Value top = lerp(read(y0, x0), read(y0, x1), lx);
          Value bottom = lerp(read(y1, x0), read(y1, x1), lx);
          return lerp(top, bottom, ly);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

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
          auto clamp = [&](Value v, int64_t size) -> Value {
            Value zero = indexConstant(b, l, 0);
            Value low = arith::MaxSIOp::create(b, l, v, zero);
            Value last = indexConstant(b, l, size - 1);
            return arith::MinSIOp::create(b, l, low, last);
          };
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

} // namespace

void populateImagePatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns
      .add<ResizeLowering<tf::ResizeNearestNeighborOp, false>,
           ResizeLowering<tf::ResizeBilinearOp, true>, ResizeBicubicLowering, ResizeAreaLowering>(
          converter, patterns.getContext());
}

} // namespace kiln::lower
