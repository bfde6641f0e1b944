//===- Elementwise.cpp - arithmetic, activations, Softmax, Cast ---------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace kiln::lower {
namespace {

/// Computes one result element from the input elements of an elementwise op.
using ScalarFn = Value (*)(OpBuilder &, Location, ElementKind, ValueRange);

/// Integer division and remainder that never trap. TensorFlow reports a zero divisor (a
/// kiln.check does here); the code computes 0 for it rather than fault. INT_MIN / -1, which
/// traps on x86, wraps to INT_MIN with remainder 0, as TensorFlow computes it.
struct IntegerDivision {
  Value y, zero, isZero, isMinusOne, safe; // isMinusOne: null for unsigned

  IntegerDivision(OpBuilder &b, Location loc, ElementKind kind, Value y) : y(y) {
    Type t = y.getType();
    zero = scalarConstant(b, loc, t, 0);
    Value one = scalarConstant(b, loc, t, 1);
    isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
    Value bad = isZero;
    if (kind != ElementKind::Unsigned) {
      isMinusOne =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, scalarConstant(b, loc, t, -1));
      bad = arith::OrIOp::create(b, loc, isZero, isMinusOne);
    }
    safe = arith::SelectOp::create(b, loc, bad, one, y);
  }

  /// `result` of x and the safe divisor, corrected for the divisors it was not given:
  /// `minusOne` for -1 (signed only), 0 for 0.
  Value finish(OpBuilder &b, Location loc, Value result, Value minusOne) const {
    if (isMinusOne)
      result = arith::SelectOp::create(b, loc, isMinusOne, minusOne, result);
    return arith::SelectOp::create(b, loc, isZero, zero, result);
  }
  /// -x, wrapping (INT_MIN stays INT_MIN): the quotient for a divisor of -1.
  Value negated(OpBuilder &b, Location loc, Value x) const {
    return arith::SubIOp::create(b, loc, zero, x);
  }
};

/// The integer quotient x / y, rounded by SignedDivOp (toward zero or down) for signed
/// integers, through IntegerDivision's safe divisor.
template <typename SignedDivOp>
Value integerQuotient(OpBuilder &b, Location loc, ElementKind kind, Value x, Value y) {
  IntegerDivision d(b, loc, kind, y);
  Value q = kind == ElementKind::Unsigned ? Value(arith::DivUIOp::create(b, loc, x, d.safe))
                                          : Value(SignedDivOp::create(b, loc, x, d.safe));
  return d.finish(b, loc, q, d.isMinusOne ? d.negated(b, loc, x) : Value());
}

/// x / y; integers truncate toward zero (RealDiv, Div, TruncateDiv).
Value divide(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  if (kind == ElementKind::Float)
    return arith::DivFOp::create(b, loc, args[0], args[1]);
  return integerQuotient<arith::DivSIOp>(b, loc, kind, args[0], args[1]);
}

/// x / y rounded toward zero for floats too (TruncateDiv).
Value truncatedDivide(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  if (kind == ElementKind::Float)
    return math::TruncOp::create(b, loc, arith::DivFOp::create(b, loc, args[0], args[1]));
  return divide(b, loc, kind, args);
}

/// The remainder of division rounded toward zero, with the sign of x (Mod, TruncateMod:
/// C's % and fmod).
Value truncatedModulo(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  if (kind == ElementKind::Float)
    return arith::RemFOp::create(b, loc, args[0], args[1]);
  IntegerDivision d(b, loc, kind, args[1]);
  Value r = kind == ElementKind::Unsigned ? Value(arith::RemUIOp::create(b, loc, args[0], d.safe))
                                          : Value(arith::RemSIOp::create(b, loc, args[0], d.safe));
  return d.finish(b, loc, r, d.zero);
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

Value square(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  return arithmetic<arith::MulFOp, arith::MulIOp>(b, loc, kind, {args[0], args[0]});
}

Value squaredDifference(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  Value d = arithmetic<arith::SubFOp, arith::SubIOp>(b, loc, kind, args);
  return square(b, loc, kind, d);
}

Value negate(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  if (kind == ElementKind::Float)
    return arith::NegFOp::create(b, loc, args[0]);
  return arith::SubIOp::create(b, loc, scalarConstant(b, loc, args[0].getType(), 0), args[0]);
}

Value absolute(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  if (kind == ElementKind::Float)
    return math::AbsFOp::create(b, loc, args[0]);
  if (kind == ElementKind::Unsigned)
    return args[0];
  Value zero = scalarConstant(b, loc, args[0].getType(), 0);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, args[0], zero);
  return arith::SelectOp::create(b, loc, negative, arith::SubIOp::create(b, loc, zero, args[0]),
                                 args[0]);
}

/// TensorFlow's Sign: x > 0 ? 1 : x < 0 ? -1 : x (so 0 for 0 and NaN for NaN).
Value sign(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  Value x = args[0];
  Type type = x.getType();
  Value zero = scalarConstant(b, loc, type, 0), one = scalarConstant(b, loc, type, 1);
  if (kind == ElementKind::Float) {
    Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
    Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
    Value minusOne = scalarConstant(b, loc, type, -1);
    return arith::SelectOp::create(b, loc, positive, one,
                                   arith::SelectOp::create(b, loc, negative, minusOne, x));
  }
  bool isUnsigned = kind == ElementKind::Unsigned;
  Value positive = arith::CmpIOp::create(
      b, loc, isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt, x, zero);
  if (isUnsigned)
    return arith::SelectOp::create(b, loc, positive, one, zero);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  Value minusOne = scalarConstant(b, loc, type, -1);
  return arith::SelectOp::create(b, loc, positive, one,
                                 arith::SelectOp::create(b, loc, negative, minusOne, zero));
}

template <typename MathOp>
Value unaryMath(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  return MathOp::create(b, loc, args[0]);
}

template <typename MathOp>
Value binaryMath(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  return MathOp::create(b, loc, args[0], args[1]);
}

/// Round and Rint: halves to even, as TensorFlow rounds; integers are already whole.
Value roundHalfToEven(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  if (kind != ElementKind::Float)
    return args[0];
  return math::RoundEvenOp::create(b, loc, args[0]);
}

Value reciprocal(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  return arith::DivFOp::create(b, loc, scalarConstant(b, loc, args[0].getType(), 1), args[0]);
}

Value softsign(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value one = scalarConstant(b, loc, args[0].getType(), 1);
  Value denominator = arith::AddFOp::create(b, loc, one, math::AbsFOp::create(b, loc, args[0]));
  return arith::DivFOp::create(b, loc, args[0], denominator);
}

/// TensorFlow's Selu: x < 0 ? scale * alpha * expm1(x) : scale * x.
Value selu(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value x = args[0];
  Type t = x.getType();
  constexpr double scale = 1.0507009873554804934193349852946;
  constexpr double alpha = 1.6732632423543772848170429916717;
  Value zero = scalarConstant(b, loc, t, 0);
  Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  Value scaledAlpha = scalarConstant(b, loc, t, scale * alpha);
  Value below = arith::MulFOp::create(b, loc, scaledAlpha, math::ExpM1Op::create(b, loc, x));
  Value above = arith::MulFOp::create(b, loc, scalarConstant(b, loc, t, scale), x);
  return arith::SelectOp::create(b, loc, negative, below, above);
}

Value isNaN(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, args[0], args[0]);
}

/// |x| compared with infinity: equal for IsInf, ordered-less for IsFinite (NaN is neither).
template <arith::CmpFPredicate P>
Value comparedWithInfinity(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value inf = scalarConstant(b, loc, args[0].getType(), std::numeric_limits<double>::infinity());
  return arith::CmpFOp::create(b, loc, P, math::AbsFOp::create(b, loc, args[0]), inf);
}

Value invert(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  return arith::XOrIOp::create(b, loc, args[0], scalarConstant(b, loc, args[0].getType(), -1));
}

/// The bits set, as PopulationCount's uint8.
Value populationCount(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value count = math::CtPopOp::create(b, loc, args[0]);
  if (count.getType().getIntOrFloatBitWidth() == 8)
    return count;
  return arith::TruncIOp::create(b, loc, b.getI8Type(), count);
}

/// x << y or x >> y with y clamped to [0, bits - 1], as TensorFlow's CPU kernels clamp it
/// (a shift by the width or more is poison in LLVM).
template <bool Left> Value shift(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  Type t = args[0].getType();
  Value amount = args[1];
  if (kind == ElementKind::Signed)
    amount = arith::MaxSIOp::create(b, loc, amount, scalarConstant(b, loc, t, 0));
  amount = arith::MinUIOp::create(b, loc, amount,
                                  scalarConstant(b, loc, t, t.getIntOrFloatBitWidth() - 1));
  if (Left)
    return arith::ShLIOp::create(b, loc, args[0], amount);
  if (kind == ElementKind::Signed)
    return arith::ShRSIOp::create(b, loc, args[0], amount);
  return arith::ShRUIOp::create(b, loc, args[0], amount);
}

/// `value` where `test` (x or y, by `Operand`) is 0, and 0 elsewhere: Xlogy, Xlog1py and
/// Xdivy are 0 where x is 0; DivNoNan and MulNoNan where y is.
template <int Operand>
Value zeroWhereZero(OpBuilder &b, Location loc, ValueRange args, Value value) {
  Value zero = scalarConstant(b, loc, value.getType(), 0);
  Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, args[Operand], zero);
  return arith::SelectOp::create(b, loc, isZero, zero, value);
}

Value xlogy(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value log = math::LogOp::create(b, loc, args[1]);
  return zeroWhereZero<0>(b, loc, args, arith::MulFOp::create(b, loc, args[0], log));
}

Value xlog1py(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value log = math::Log1pOp::create(b, loc, args[1]);
  return zeroWhereZero<0>(b, loc, args, arith::MulFOp::create(b, loc, args[0], log));
}

Value xdivy(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  return zeroWhereZero<0>(b, loc, args, arith::DivFOp::create(b, loc, args[0], args[1]));
}

Value divNoNan(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  return zeroWhereZero<1>(b, loc, args, arith::DivFOp::create(b, loc, args[0], args[1]));
}

Value mulNoNan(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  return zeroWhereZero<1>(b, loc, args, arith::MulFOp::create(b, loc, args[0], args[1]));
}

/// 1 where `test`, else 0, in `type` (float or integer): the factor TensorFlow's CPU kernels
/// multiply gradients by (so a NaN gradient stays NaN where the factor is 0).
Value indicator(OpBuilder &b, Location loc, Type type, Value test) {
  return arith::SelectOp::create(b, loc, test, scalarConstant(b, loc, type, 1),
                                 scalarConstant(b, loc, type, 0));
}

/// x compared with the constant `c` by `P` (floats) or its signed or unsigned form.
Value compareWith(OpBuilder &b, Location loc, ElementKind kind, Value x, double c,
                  arith::CmpFPredicate p, arith::CmpIPredicate s, arith::CmpIPredicate u) {
  Value constant = scalarConstant(b, loc, x.getType(), c);
  if (kind == ElementKind::Float)
    return arith::CmpFOp::create(b, loc, p, x, constant);
  return arith::CmpIOp::create(b, loc, kind == ElementKind::Unsigned ? u : s, x, constant);
}

/// ReluGrad: gradients * (features > 0).
Value reluGrad(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  using P = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  Value positive = compareWith(b, loc, kind, args[1], 0, P::OGT, I::sgt, I::ugt);
  Value factor = indicator(b, loc, args[0].getType(), positive);
  return arithmetic<arith::MulFOp, arith::MulIOp>(b, loc, kind, {args[0], factor});
}

/// Relu6Grad: gradients * (features > 0 && features < 6).
Value relu6Grad(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  using P = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  Value positive = compareWith(b, loc, kind, args[1], 0, P::OGT, I::sgt, I::ugt);
  Value belowSix = compareWith(b, loc, kind, args[1], 6, P::OLT, I::slt, I::ult);
  Value inside = arith::AndIOp::create(b, loc, positive, belowSix);
  Value factor = indicator(b, loc, args[0].getType(), inside);
  return arithmetic<arith::MulFOp, arith::MulIOp>(b, loc, kind, {args[0], factor});
}

/// EluGrad and SeluGrad: outputs < 0 ? gradients * (outputs + below) : gradients * above
/// (1 and 1 for Elu; scale * alpha and scale for Selu).
template <bool Selu> Value eluGrad(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  constexpr double scale = 1.0507009873554804934193349852946;
  constexpr double alpha = 1.6732632423543772848170429916717;
  Value g = args[0], y = args[1];
  Type t = g.getType();
  Value negative =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, y, scalarConstant(b, loc, t, 0));
  Value shifted =
      arith::AddFOp::create(b, loc, y, scalarConstant(b, loc, t, Selu ? scale * alpha : 1));
  Value below = arith::MulFOp::create(b, loc, g, shifted);
  Value above =
      Selu ? Value(arith::MulFOp::create(b, loc, g, scalarConstant(b, loc, t, scale))) : g;
  return arith::SelectOp::create(b, loc, negative, below, above);
}

/// SoftplusGrad: gradients / (exp(-features) + 1).
Value softplusGrad(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Type t = args[0].getType();
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, args[1]));
  Value denominator = arith::AddFOp::create(b, loc, e, scalarConstant(b, loc, t, 1));
  return arith::DivFOp::create(b, loc, args[0], denominator);
}

/// SoftsignGrad: gradients / (1 + |features|)^2.
Value softsignGrad(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Type t = args[0].getType();
  Value a = arith::AddFOp::create(b, loc, math::AbsFOp::create(b, loc, args[1]),
                                  scalarConstant(b, loc, t, 1));
  return arith::DivFOp::create(b, loc, args[0], arith::MulFOp::create(b, loc, a, a));
}

/// SigmoidGrad: dy * y * (1 - y), in Eigen's order.
Value sigmoidGrad(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value y = args[0], dy = args[1];
  Value oneMinus = arith::SubFOp::create(b, loc, scalarConstant(b, loc, y.getType(), 1), y);
  return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, dy, y), oneMinus);
}

/// TanhGrad: dy * (1 - y * y).
Value tanhGrad(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value y = args[0], dy = args[1];
  Value square = arith::MulFOp::create(b, loc, y, y);
  Value oneMinus = arith::SubFOp::create(b, loc, scalarConstant(b, loc, y.getType(), 1), square);
  return arith::MulFOp::create(b, loc, dy, oneMinus);
}

/// SqrtGrad: 0.5 * dy / y.
Value sqrtGrad(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value y = args[0], dy = args[1];
  Value half = arith::MulFOp::create(b, loc, scalarConstant(b, loc, y.getType(), 0.5), dy);
  return arith::DivFOp::create(b, loc, half, y);
}

/// RsqrtGrad: -0.5 * (dy * y) * (y * y).
Value rsqrtGrad(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value y = args[0], dy = args[1];
  Value dyY = arith::MulFOp::create(b, loc, dy, y);
  Value scaled = arith::MulFOp::create(b, loc, scalarConstant(b, loc, y.getType(), -0.5), dyY);
  return arith::MulFOp::create(b, loc, scaled, arith::MulFOp::create(b, loc, y, y));
}

/// ReciprocalGrad: -y * y * dy.
Value reciprocalGrad(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value y = args[0], dy = args[1];
  Value negY = arith::NegFOp::create(b, loc, y);
  return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, negY, y), dy);
}

/// C's nextafter on the bits: one step of the integer that holds a float's magnitude, away
/// from zero when y lies that way; from 0 the smallest subnormal of y's sign.
Value nextAfter(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value x = args[0], y = args[1];
  Type t = x.getType();
  Type bitsType = b.getIntegerType(t.getIntOrFloatBitWidth());
  using P = arith::CmpFPredicate;
  Value zero = scalarConstant(b, loc, t, 0);
  Value bits = arith::BitcastOp::create(b, loc, bitsType, x);
  Value one = scalarConstant(b, loc, bitsType, 1);
  Value towardY = arith::CmpFOp::create(b, loc, P::OLT, x, y);
  Value negative = arith::CmpFOp::create(b, loc, P::OLT, x, zero);
  Value away = arith::XOrIOp::create(b, loc, towardY, negative);
  Value up = arith::AddIOp::create(b, loc, bits, one);
  Value down = arith::SubIOp::create(b, loc, bits, one);
  Value stepped = arith::SelectOp::create(b, loc, away, up, down);
  Value signMask = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(bitsType, APInt::getSignMask(t.getIntOrFloatBitWidth())));
  Value signOfY =
      arith::AndIOp::create(b, loc, arith::BitcastOp::create(b, loc, bitsType, y), signMask);
  Value fromZero = arith::OrIOp::create(b, loc, signOfY, one);
  Value result = arith::SelectOp::create(b, loc, arith::CmpFOp::create(b, loc, P::OEQ, x, zero),
                                         fromZero, stepped);
  result = arith::BitcastOp::create(b, loc, t, result);
  result = arith::SelectOp::create(b, loc, arith::CmpFOp::create(b, loc, P::OEQ, x, y), y, result);
  Value eitherNaN = arith::CmpFOp::create(b, loc, P::UNO, x, y);
  return arith::SelectOp::create(b, loc, eitherNaN, arith::AddFOp::create(b, loc, x, y), result);
}

/// ClipByValue: min(t, max) first, then max with min, as TensorFlow's kernel (a minimum
/// above the maximum gives the minimum).
Value clip(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  return maximumWith(b, loc, kind, minimumWith(b, loc, kind, args[0], args[2]), args[1]);
}

/// 1 / sqrt(x): libm has no rsqrt, so math.rsqrt would become a call to nothing.
Value reciprocalSqrt(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value one = scalarConstant(b, loc, args[0].getType(), 1);
  return arith::DivFOp::create(b, loc, one, math::SqrtOp::create(b, loc, args[0]));
}

Value elu(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value x = args[0];
  Value zero = scalarConstant(b, loc, x.getType(), 0);
  Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  return arith::SelectOp::create(b, loc, negative, math::ExpM1Op::create(b, loc, x), x);
}

/// TensorFlow's softplus: x for large x, exp(x) for very negative x, log1p(exp(x)) between,
/// with the threshold log(epsilon) + 2 of the element type.
Value softplus(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  Value x = args[0];
  Type t = x.getType();
  double epsilon = t.isF64()    ? 2.220446049250313e-16
                   : t.isF16()  ? 9.765625e-4
                   : t.isBF16() ? 7.8125e-3
                                : 1.1920928955078125e-7;
  double threshold = std::log(epsilon) + 2.0;
  Value large = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                      scalarConstant(b, loc, t, -threshold));
  Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                      scalarConstant(b, loc, t, threshold));
  Value e = math::ExpOp::create(b, loc, x);
  Value middle = math::Log1pOp::create(b, loc, e);
  Value r = arith::SelectOp::create(b, loc, small, e, middle);
  return arith::SelectOp::create(b, loc, large, x, r);
}

Value power(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  if (kind == ElementKind::Float)
    return math::PowFOp::create(b, loc, args[0], args[1]);
  return math::IPowIOp::create(b, loc, args[0], args[1]);
}

/// floor(x / y); integer division rounds toward negative infinity.
Value floorDivide(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  if (kind == ElementKind::Float)
    return math::FloorOp::create(b, loc, arith::DivFOp::create(b, loc, args[0], args[1]));
  return integerQuotient<arith::FloorDivSIOp>(b, loc, kind, args[0], args[1]);
}

/// The remainder of floor division: it has the sign of y (TensorFlow's FloorMod).
Value floorModulo(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  Value x = args[0], y = args[1];
  Type t = x.getType();
  Value zero = scalarConstant(b, loc, t, 0);
  if (kind == ElementKind::Float) {
    Value r = arith::RemFOp::create(b, loc, x, y);
    Value rNonZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, r, zero);
    Value rNeg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, zero);
    Value yNeg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, y, zero);
    Value fix = arith::AndIOp::create(b, loc, rNonZero, arith::XOrIOp::create(b, loc, rNeg, yNeg));
    return arith::SelectOp::create(b, loc, fix, arith::AddFOp::create(b, loc, r, y), r);
  }
  IntegerDivision d(b, loc, kind, y);
  if (kind == ElementKind::Unsigned)
    return d.finish(b, loc, arith::RemUIOp::create(b, loc, x, d.safe), Value());
  Value r = arith::RemSIOp::create(b, loc, x, d.safe);
  Value rNonZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
  Value rNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero);
  Value yNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, d.safe, zero);
  Value fix = arith::AndIOp::create(b, loc, rNonZero, arith::XOrIOp::create(b, loc, rNeg, yNeg));
  Value m = arith::SelectOp::create(b, loc, fix, arith::AddIOp::create(b, loc, r, d.safe), r);
  return d.finish(b, loc, m, zero);
}

/// A comparison: ordered float predicates except NotEqual (true for NaN), signed or
/// unsigned integer predicates.
template <arith::CmpFPredicate F, arith::CmpIPredicate S, arith::CmpIPredicate U>
Value compare(OpBuilder &b, Location loc, ElementKind kind, ValueRange args) {
  if (kind == ElementKind::Float)
    return arith::CmpFOp::create(b, loc, F, args[0], args[1]);
  return arith::CmpIOp::create(b, loc, kind == ElementKind::Signed ? S : U, args[0], args[1]);
}

template <typename IntOp> Value logical(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  return IntOp::create(b, loc, args[0], args[1]);
}

Value logicalNot(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  return arith::XOrIOp::create(b, loc, args[0], scalarConstant(b, loc, args[0].getType(), 1));
}

Value select(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
}

template <int V> Value fill(OpBuilder &b, Location loc, ElementKind, ValueRange args) {
  return scalarConstant(b, loc, args[0].getType(), V);
}

Value identity(OpBuilder &, Location, ElementKind, ValueRange args) { return args[0]; }

template <typename OpT> struct ElementwiseLowering : OpConversionPattern<OpT> {
  ElementwiseLowering(const TypeConverter &converter, MLIRContext *ctx, ScalarFn fn)
      : OpConversionPattern<OpT>(converter, ctx), fn(fn) {}

  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Operation *raw = op.getOperation();
    auto resultType = staticTensorType(this->getTypeConverter(), raw->getResult(0).getType());
    if (!resultType)
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

/// LeakyRelu (x > 0 ? x : alpha * x) and LeakyReluGrad (features > 0 ? gradients :
/// gradients * alpha): the last operand is compared, the first scaled.
template <typename OpT> struct LeakyReluLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(adaptor.getOperands().front().getType());
    if (!type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    double alpha = op.getAlpha().convertToDouble();
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value x = args.front(), test = args.back();
          Value zero = scalarConstant(b, loc, x.getType(), 0);
          Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, test, zero);
          Value scaled =
              arith::MulFOp::create(b, loc, x, scalarConstant(b, loc, x.getType(), alpha));
          return arith::SelectOp::create(b, loc, positive, x, scaled);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// |x - y| < tolerance.
struct ApproximateEqualLowering : OpConversionPattern<tf::ApproximateEqualOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::ApproximateEqualOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getZ().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getX().getType()));
    double tolerance = op.getTolerance().convertToDouble();
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, {adaptor.getX(), adaptor.getY()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value d = arithmetic<arith::SubFOp, arith::SubIOp>(b, loc, kind, args);
          Value distance = absolute(b, loc, kind, d);
          Value bound = scalarConstant(b, loc, d.getType(), tolerance);
          return compare<arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt,
                         arith::CmpIPredicate::ult>(b, loc, kind, {distance, bound});
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Bucketize: the count of boundaries b with !(x < b) (so NaN counts them all), one
/// compare and add per boundary, in the input's type (an integer x compares with ceil(b),
/// which is x < b on the real numbers, as TensorFlow compares them).
struct BucketizeLowering : OpConversionPattern<tf::BucketizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::BucketizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getOutput().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getInput().getType()));
    SmallVector<double> boundaries;
    for (Attribute a : op.getBoundaries())
      boundaries.push_back(cast<FloatAttr>(a).getValueAsDouble());
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getInput(),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value x = args[0];
          Value count = scalarConstant(b, l, b.getI32Type(), 0);
          for (double boundary : boundaries) {
            // For integers, x < b exactly when x < ceil(b) (b clamped to the type's range).
            if (kind != ElementKind::Float) {
              unsigned width = x.getType().getIntOrFloatBitWidth();
              bool isUnsigned = kind == ElementKind::Unsigned;
              double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
              double hi = isUnsigned ? std::ldexp(1.0, width) - 1 : std::ldexp(1.0, width - 1) - 1;
              boundary = std::clamp(std::ceil(boundary), lo, hi);
            }
            Value bound = scalarConstant(b, l, x.getType(), boundary);
            Value below = compare<arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt,
                                  arith::CmpIPredicate::ult>(b, l, kind, {x, bound});
            Value notBelow = logicalNot(b, l, kind, below);
            count = arith::AddIOp::create(b, l, count,
                                          arith::ExtUIOp::create(b, l, b.getI32Type(), notBelow));
          }
          return count;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Select with a vector condition picks whole slices along dimension 0.
struct SelectLowering : OpConversionPattern<tf::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::SelectOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto condType = dyn_cast<RankedTensorType>(adaptor.getCondition().getType());
    if (!type || !condType)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    MLIRContext *ctx = rewriter.getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(type.getRank(), ctx);
    AffineMap condMap = condType.getRank() == type.getRank()
                            ? identity
                            : AffineMap::get(type.getRank(), 0, getAffineDimExpr(0, ctx));
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), type,
        {adaptor.getCondition(), adaptor.getThenValue(), adaptor.getElseValue()},
        {condMap, identity, identity}, [](OpBuilder &b, Location loc, ValueRange args) {
          return select(b, loc, ElementKind::Bool, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

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

namespace {

struct CastLowering : OpConversionPattern<tf::CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::CastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getY().getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a static result shape");
    Type srcTf = getElementTypeOrSelf(op.getX().getType());
    Type dstTf = getElementTypeOrSelf(op.getY().getType());
    Value result = buildElementwise(rewriter, op.getLoc(), resultType, adaptor.getX(),
                                    [&](OpBuilder &b, Location loc, ValueRange args) {
                                      return castElement(b, loc, args[0], srcTf, dstTf,
                                                         resultType.getElementType());
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
  return linalg::GenericOp::create(b, loc, TypeRange{init.getType()}, input, init,
                                   ArrayRef<AffineMap>{in, out}, iterators,
                                   [&](OpBuilder &nb, Location nloc, ValueRange args) {
                                     linalg::YieldOp::create(nb, nloc,
                                                             combine(nb, nloc, args[0], args[1]));
                                   })
      .getResult(0);
}

/// Softmax and LogSoftmax over the last dimension, both stable: m = max(x);
/// e = exp(x - m); s = sum(e); softmax = e / s, log-softmax = (x - m) - log(s).
template <typename OpT, bool Log> struct SoftmaxLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getLogits();
    auto type = dyn_cast<RankedTensorType>(x.getType());
    if (!type || !type.hasStaticShape() || type.getRank() < 1)
      return rewriter.notifyMatchFailure(op, "needs a static shape of rank >= 1");
    Location loc = op.getLoc();
    Type element = type.getElementType();
    int64_t rank = type.getRank();
    auto reducedType = RankedTensorType::get(type.getShape().drop_back(), element);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap dropLast = identity.dropResult(rank - 1);

    Value negInf = arith::ConstantOp::create(
        rewriter, loc, rewriter.getFloatAttr(element, -std::numeric_limits<double>::infinity()));
    Value max = reduceLastDim(rewriter, loc, x, filledTensor(rewriter, loc, reducedType, negInf),
                              [](OpBuilder &b, Location l, Value v, Value acc) -> Value {
                                return arith::MaximumFOp::create(b, l, v, acc);
                              });
    Value exps = buildParallelGeneric(rewriter, loc, type, {x, max}, {identity, dropLast},
                                      [](OpBuilder &b, Location l, ValueRange args) -> Value {
                                        return math::ExpOp::create(
                                            b, l, arith::SubFOp::create(b, l, args[0], args[1]));
                                      });
    Value zero = scalarConstant(rewriter, loc, element, 0);
    Value sum = reduceLastDim(rewriter, loc, exps, filledTensor(rewriter, loc, reducedType, zero),
                              [](OpBuilder &b, Location l, Value v, Value acc) -> Value {
                                return arith::AddFOp::create(b, l, v, acc);
                              });
    Value result;
    if (Log)
      result = buildParallelGeneric(
          rewriter, loc, type, {x, max, sum}, {identity, dropLast, dropLast},
          [](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value shifted = arith::SubFOp::create(b, l, args[0], args[1]);
            return arith::SubFOp::create(b, l, shifted, math::LogOp::create(b, l, args[2]));
          });
    else
      result = buildParallelGeneric(rewriter, loc, type, {exps, sum}, {identity, dropLast},
                                    [](OpBuilder &b, Location l, ValueRange args) -> Value {
                                      return arith::DivFOp::create(b, l, args[0], args[1]);
                                    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

namespace {
template <typename T> struct Tag {
  using type = T;
};
} // namespace

void populateElementwisePatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  // One pattern per op, each with its scalar function (a generic lambda over a tag: a
  // template parameter list on a lambda is C++20).
  auto addOp = [&](auto tag, ScalarFn fn) {
    patterns.add<ElementwiseLowering<typename decltype(tag)::type>>(converter, ctx, fn);
  };
  auto add = arithmetic<arith::AddFOp, arith::AddIOp>;
  addOp(Tag<tf::AddOp>{}, add);
  addOp(Tag<tf::AddV2Op>{}, add);
  addOp(Tag<tf::SubOp>{}, arithmetic<arith::SubFOp, arith::SubIOp>);
  addOp(Tag<tf::MulOp>{}, arithmetic<arith::MulFOp, arith::MulIOp>);
  addOp(Tag<tf::RealDivOp>{}, divide);
  addOp(Tag<tf::DivOp>{}, divide);
  addOp(Tag<tf::TruncateDivOp>{}, truncatedDivide);
  addOp(Tag<tf::TruncateModOp>{}, truncatedModulo);
  addOp(Tag<tf::ModOp>{}, truncatedModulo);
  addOp(Tag<tf::MaximumOp>{}, signedArithmetic<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>);
  addOp(Tag<tf::MinimumOp>{}, signedArithmetic<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>);
  addOp(Tag<tf::ReluOp>{}, relu);
  addOp(Tag<tf::Relu6Op>{}, relu6);
  addOp(Tag<tf::SigmoidOp>{}, sigmoid);
  addOp(Tag<tf::TanhOp>{}, tanh);
  addOp(Tag<tf::SquaredDifferenceOp>{}, squaredDifference);
  addOp(Tag<tf::PowOp>{}, power);
  addOp(Tag<tf::FloorDivOp>{}, floorDivide);
  addOp(Tag<tf::FloorModOp>{}, floorModulo);
  using P = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  addOp(Tag<tf::EqualOp>{}, compare<P::OEQ, I::eq, I::eq>);
  addOp(Tag<tf::NotEqualOp>{}, compare<P::UNE, I::ne, I::ne>);
  addOp(Tag<tf::LessOp>{}, compare<P::OLT, I::slt, I::ult>);
  addOp(Tag<tf::LessEqualOp>{}, compare<P::OLE, I::sle, I::ule>);
  addOp(Tag<tf::GreaterOp>{}, compare<P::OGT, I::sgt, I::ugt>);
  addOp(Tag<tf::GreaterEqualOp>{}, compare<P::OGE, I::sge, I::uge>);
  addOp(Tag<tf::LogicalAndOp>{}, logical<arith::AndIOp>);
  addOp(Tag<tf::LogicalOrOp>{}, logical<arith::OrIOp>);
  addOp(Tag<tf::LogicalNotOp>{}, logicalNot);
  addOp(Tag<tf::SelectV2Op>{}, select);
  addOp(Tag<tf::SquareOp>{}, square);
  addOp(Tag<tf::SqrtOp>{}, unaryMath<math::SqrtOp>);
  addOp(Tag<tf::RsqrtOp>{}, reciprocalSqrt);
  addOp(Tag<tf::ExpOp>{}, unaryMath<math::ExpOp>);
  addOp(Tag<tf::LogOp>{}, unaryMath<math::LogOp>);
  addOp(Tag<tf::FloorOp>{}, unaryMath<math::FloorOp>);
  addOp(Tag<tf::ErfOp>{}, unaryMath<math::ErfOp>);
  addOp(Tag<tf::ErfcOp>{}, unaryMath<math::ErfcOp>);
  addOp(Tag<tf::SinOp>{}, unaryMath<math::SinOp>);
  addOp(Tag<tf::CosOp>{}, unaryMath<math::CosOp>);
  addOp(Tag<tf::SignOp>{}, sign);
  addOp(Tag<tf::NegOp>{}, negate);
  addOp(Tag<tf::AbsOp>{}, absolute);
  addOp(Tag<tf::EluOp>{}, elu);
  addOp(Tag<tf::SoftplusOp>{}, softplus);
  addOp(Tag<tf::StopGradientOp>{}, identity);
  addOp(Tag<tf::SnapshotOp>{}, identity);
  addOp(Tag<tf::PreventGradientOp>{}, identity);
  addOp(Tag<tf::EnsureShapeOp>{}, identity);
  addOp(Tag<tf::CheckNumericsOp>{}, identity); // its checks are kiln.checks
  addOp(Tag<tf::ZerosLikeOp>{}, fill<0>);
  addOp(Tag<tf::OnesLikeOp>{}, fill<1>);
  addOp(Tag<tf::TanOp>{}, unaryMath<math::TanOp>);
  addOp(Tag<tf::AsinOp>{}, unaryMath<math::AsinOp>);
  addOp(Tag<tf::AcosOp>{}, unaryMath<math::AcosOp>);
  addOp(Tag<tf::AtanOp>{}, unaryMath<math::AtanOp>);
  addOp(Tag<tf::SinhOp>{}, unaryMath<math::SinhOp>);
  addOp(Tag<tf::CoshOp>{}, unaryMath<math::CoshOp>);
  addOp(Tag<tf::AsinhOp>{}, unaryMath<math::AsinhOp>);
  addOp(Tag<tf::AcoshOp>{}, unaryMath<math::AcoshOp>);
  addOp(Tag<tf::AtanhOp>{}, unaryMath<math::AtanhOp>);
  addOp(Tag<tf::Expm1Op>{}, unaryMath<math::ExpM1Op>);
  addOp(Tag<tf::Log1pOp>{}, unaryMath<math::Log1pOp>);
  addOp(Tag<tf::CeilOp>{}, unaryMath<math::CeilOp>);
  addOp(Tag<tf::RintOp>{}, roundHalfToEven);
  addOp(Tag<tf::RoundOp>{}, roundHalfToEven);
  addOp(Tag<tf::ReciprocalOp>{}, reciprocal);
  addOp(Tag<tf::InvOp>{}, reciprocal);
  addOp(Tag<tf::SoftsignOp>{}, softsign);
  addOp(Tag<tf::SeluOp>{}, selu);
  addOp(Tag<tf::IsNanOp>{}, isNaN);
  addOp(Tag<tf::IsInfOp>{}, comparedWithInfinity<P::OEQ>);
  addOp(Tag<tf::IsFiniteOp>{}, comparedWithInfinity<P::OLT>);
  addOp(Tag<tf::InvertOp>{}, invert);
  addOp(Tag<tf::PopulationCountOp>{}, populationCount);
  addOp(Tag<tf::Atan2Op>{}, binaryMath<math::Atan2Op>);
  addOp(Tag<tf::XlogyOp>{}, xlogy);
  addOp(Tag<tf::Xlog1pyOp>{}, xlog1py);
  addOp(Tag<tf::XdivyOp>{}, xdivy);
  addOp(Tag<tf::DivNoNanOp>{}, divNoNan);
  addOp(Tag<tf::MulNoNanOp>{}, mulNoNan);
  addOp(Tag<tf::NextAfterOp>{}, nextAfter);
  addOp(Tag<tf::BitwiseAndOp>{}, logical<arith::AndIOp>);
  addOp(Tag<tf::BitwiseOrOp>{}, logical<arith::OrIOp>);
  addOp(Tag<tf::BitwiseXorOp>{}, logical<arith::XOrIOp>);
  addOp(Tag<tf::LeftShiftOp>{}, shift<true>);
  addOp(Tag<tf::RightShiftOp>{}, shift<false>);
  addOp(Tag<tf::ClipByValueOp>{}, clip);
  addOp(Tag<tf::ReluGradOp>{}, reluGrad);
  addOp(Tag<tf::Relu6GradOp>{}, relu6Grad);
  addOp(Tag<tf::EluGradOp>{}, eluGrad<false>);
  addOp(Tag<tf::SeluGradOp>{}, eluGrad<true>);
  addOp(Tag<tf::SoftplusGradOp>{}, softplusGrad);
  addOp(Tag<tf::SoftsignGradOp>{}, softsignGrad);
  addOp(Tag<tf::SigmoidGradOp>{}, sigmoidGrad);
  addOp(Tag<tf::TanhGradOp>{}, tanhGrad);
  addOp(Tag<tf::SqrtGradOp>{}, sqrtGrad);
  addOp(Tag<tf::RsqrtGradOp>{}, rsqrtGrad);
  addOp(Tag<tf::ReciprocalGradOp>{}, reciprocalGrad);
  addOp(Tag<tf::InvGradOp>{}, reciprocalGrad);
  patterns.add<ApproximateEqualLowering, BucketizeLowering, CastLowering,
               LeakyReluLowering<tf::LeakyReluOp>, LeakyReluLowering<tf::LeakyReluGradOp>,
               SelectLowering, SoftmaxLowering<tf::SoftmaxOp, false>,
               SoftmaxLowering<tf::LogSoftmaxOp, true>>(converter, ctx);
}

} // namespace kiln::lower
