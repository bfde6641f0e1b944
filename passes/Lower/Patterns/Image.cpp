//===- Image.cpp - ResizeNearestNeighbor, ResizeBilinear ----------------------===//
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

} // namespace

void populateImagePatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ResizeLowering<tf::ResizeNearestNeighborOp, false>,
               ResizeLowering<tf::ResizeBilinearOp, true>>(converter, patterns.getContext());
}

} // namespace kiln::lower
