//===- Elementwise.cpp - arithmetic, activations, Softmax, Cast ---------------===//
#include "passes/Lower/Patterns/Patterns.h"
#include "dialects/TF/TFOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::lower {
namespace {

/// Computes one result element from the input elements of an elementwise op.
using ScalarFn = Value (*)(OpBuilder &, Location, ElementKind, ValueRange);

template <typename FloatOp, typename IntOp>
Value arithmetic(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  if (kind == ElementKind::Float)
    return FloatOp::create(b, loc, args[0], args[1]);
  return IntOp::create(b, loc, args[0], args[1]);
}

template <typename FloatOp, typename SignedOp, typename UnsignedOp>
Value signedArithmetic(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  if (kind == ElementKind::Float)
    return FloatOp::create(b, loc, args[0], args[1]);
  if (kind == ElementKind::Unsigned)
    return UnsignedOp::create(b, loc, args[0], args[1]);
  return SignedOp::create(b, loc, args[0], args[1]);
}

Value divide(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  if (kind == ElementKind::Float)
    return arith::DivFOp::create(b, loc, args[0], args[1]);
  // Integer division by zero would trap; TensorFlow rejects it at run time. Until the
  // runtime can report errors from inside kernels, a zero divisor gives 0.
  Type t = args[0].getType();
  Value zero = scalarConstant(b, loc, t, 0), one = scalarConstant(b, loc, t, 1);
  Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, args[1], zero);
  Value safe = arith::SelectOp::create(b, loc, isZero, one, args[1]);
  Value q = kind == ElementKind::Unsigned
                ? Value(arith::DivUIOp::create(b, loc, args[0], safe))
                : Value(arith::DivSIOp::create(b, loc, args[0], safe));
  return arith::SelectOp::create(b, loc, isZero, zero, q);
}

Value maximumWith(OpBuilder &b, Location loc, ElementKind kind, Value x, Value bound) {
  return signedArithmetic<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>(b, loc, kind,
                                                                            {x, bound});
}

Value minimumWith(OpBuilder &b, Location loc, ElementKind kind, Value x, Value bound) {
  return signedArithmetic<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>(b, loc, kind,
                                                                            {x, bound});
}

Value relu(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  return maximumWith(b, loc, kind, args[0], scalarConstant(b, loc, args[0].getType(), 0));
}

Value relu6(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  Value r = relu(b, loc, kind, args);
  return minimumWith(b, loc, kind, r, scalarConstant(b, loc, args[0].getType(), 6));
}

Value sigmoid(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Type t = args[0].getType();
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, args[0]));
  Value one = scalarConstant(b, loc, t, 1);
  return arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
}

Value tanh(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  return math::TanhOp::create(b, loc, args[0]);
}

template <typename OpT>
struct ElementwiseLowering : OpConversionPattern<OpT> {
  ElementwiseLowering(const TypeConverter &converter, MLIRContext *ctx, ScalarFn fn)
      : OpConversionPattern<OpT>(converter, ctx), fn(fn) {}

  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Operation *raw = op.getOperation();
    auto resultType = dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(raw->getResult(0).getType()));
    if (!resultType || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static result shape");
    ElementKind kind = kindOf(getElementTypeOrSelf(raw->getOperand(0).getType()));
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) { return fn(b, loc, kind, args); });
    rewriter.replaceOp(op, result);
    return success();
  }

  ScalarFn fn;
};

/// Converts one element from a tf element type to another (TensorFlow's Cast rules).
Value castElement(OpBuilder &b, Location loc, Value x, Type srcTf, Type dstTf, Type dst) {
  ElementKind from = kindOf(srcTf), to = kindOf(dstTf);
  Type src = x.getType();
  if (src == dst)
    return x;
  if (to == ElementKind::Bool) {
    Value zero = scalarConstant(b, loc, src, 0);
    if (from == ElementKind::Float)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (from == ElementKind::Float && to == ElementKind::Float) {
    if (src.getIntOrFloatBitWidth() < dst.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, dst, x);
    if (src.getIntOrFloatBitWidth() > dst.getIntOrFloatBitWidth())
      return arith::TruncFOp::create(b, loc, dst, x);
    // f16 <-> bf16: go through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, dst, wide);
  }
  bool srcUnsigned = from == ElementKind::Unsigned || from == ElementKind::Bool;
  if (from == ElementKind::Float) {
    if (to == ElementKind::Unsigned)
      return arith::FPToUIOp::create(b, loc, dst, x);
    return arith::FPToSIOp::create(b, loc, dst, x);
  }
  if (to == ElementKind::Float) {
    if (srcUnsigned)
      return arith::UIToFPOp::create(b, loc, dst, x);
    return arith::SIToFPOp::create(b, loc, dst, x);
  }
  unsigned sw = src.getIntOrFloatBitWidth(), dw = dst.getIntOrFloatBitWidth();
  if (sw < dw) {
    if (srcUnsigned)
      return arith::ExtUIOp::create(b, loc, dst, x);
    return arith::ExtSIOp::create(b, loc, dst, x);
  }
  if (sw > dw)
    return arith::TruncIOp::create(b, loc, dst, x);
  return x; // same width, different signedness: the bits are the same
}

struct CastLowering : OpConversionPattern<tf::CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::CastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getY().getType()));
    if (!resultType || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static result shape");
    Type srcTf = getElementTypeOrSelf(op.getX().getType());
    Type dstTf = getElementTypeOrSelf(op.getY().getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getX(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return castElement(b, loc, args[0], srcTf, dstTf, resultType.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A linalg.generic reducing the last dimension of `input` into `init` with `combine`.
Value reduceLastDim(OpBuilder &b, Location loc, Value input, Value init,
                    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  AffineMap in = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap out = in.dropResult(rank - 1);
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, input, init, ArrayRef<AffineMap>{in, out},
             iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc, combine(nb, nloc, args[0], args[1]));
             })
      .getResult(0);
}

struct SoftmaxLowering : OpConversionPattern<tf::SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::SoftmaxOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(adaptor.getLogits().getType());
    if (!type || !type.hasStaticShape() || type.getRank() < 1)
      return rewriter.notifyMatchFailure(op, "needs a static shape of rank >= 1");
    Location loc = op.getLoc();
    Type element = type.getElementType();
    int64_t rank = type.getRank();
    auto reducedType = RankedTensorType::get(type.getShape().drop_back(), element);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap dropLast = identity.dropResult(rank - 1);
    Value x = adaptor.getLogits();

    Value negInf = arith::ConstantOp::create(
        rewriter, loc,
        rewriter.getFloatAttr(element, -std::numeric_limits<double>::infinity()));
    Value max = reduceLastDim(rewriter, loc, x, filledTensor(rewriter, loc, reducedType, negInf),
                              [](OpBuilder &b, Location l, Value v, Value acc) -> Value {
                                return arith::MaximumFOp::create(b, l, v, acc);
                              });
    Value exps = buildParallelGeneric(
        rewriter, loc, type, {x, max}, {identity, dropLast},
        [](OpBuilder &b, Location l, ValueRange args) -> Value {
          return math::ExpOp::create(b, l, arith::SubFOp::create(b, l, args[0], args[1]));
        });
    Value zero = scalarConstant(rewriter, loc, element, 0);
    Value sum = reduceLastDim(rewriter, loc, exps, filledTensor(rewriter, loc, reducedType, zero),
                              [](OpBuilder &b, Location l, Value v, Value acc) -> Value {
                                return arith::AddFOp::create(b, l, v, acc);
                              });
    Value result = buildParallelGeneric(
        rewriter, loc, type, {exps, sum}, {identity, dropLast},
        [](OpBuilder &b, Location l, ValueRange args) -> Value {
          return arith::DivFOp::create(b, l, args[0], args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateElementwisePatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  auto addOp = [&]<typename OpT>(ScalarFn fn) {
    patterns.add<ElementwiseLowering<OpT>>(converter, ctx, fn);
  };
  auto add = arithmetic<arith::AddFOp, arith::AddIOp>;
  addOp.template operator()<tf::AddOp>(add);
  addOp.template operator()<tf::AddV2Op>(add);
  addOp.template operator()<tf::SubOp>(arithmetic<arith::SubFOp, arith::SubIOp>);
  addOp.template operator()<tf::MulOp>(arithmetic<arith::MulFOp, arith::MulIOp>);
  addOp.template operator()<tf::RealDivOp>(divide);
  addOp.template operator()<tf::MaximumOp>(
      signedArithmetic<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>);
  addOp.template operator()<tf::MinimumOp>(
      signedArithmetic<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>);
  addOp.template operator()<tf::ReluOp>(relu);
  addOp.template operator()<tf::Relu6Op>(relu6);
  addOp.template operator()<tf::SigmoidOp>(sigmoid);
  addOp.template operator()<tf::TanhOp>(tanh);
  patterns.add<CastLowering, SoftmaxLowering>(converter, ctx);
}

} // namespace kiln::lower
