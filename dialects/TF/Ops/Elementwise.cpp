//===- Elementwise.cpp - broadcasting arithmetic, activations, Cast -----------===//
#include "dialects/TF/TFOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APSInt.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace kiln::tf {

LogicalResult inferBroadcastBinary(const InferContext &ctx, InferResult &out) {
  auto inputs = ctx.twoInputs("inputs");
  if (failed(inputs))
    return failure();
  auto [x, y] = *inputs;
  if (!x.hasRank() || !y.hasRank()) {
    out.push_back(UnrankedTensorType::get(x.getElementType()));
    return success();
  }
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(x.getShape(), y.getShape(), shape))
    return ctx.error("shapes ", x, " and ", y, " are not broadcast-compatible");
  out.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult inferBetainc(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto a = cast<TensorType>(ctx.operandType(0));
  Type element = a.getElementType();
  if (failed(ctx.checkTypeAttr("T", element)))
    return failure();
  // TensorFlow's rule: the operands that are not scalars have one shape, the result's.
  TensorType merged = a;
  for (unsigned i = 0; i < 3; ++i) {
    auto t = cast<TensorType>(ctx.operandType(i));
    if (t.getElementType() != element)
      return ctx.error("a, b and x must have one element type, got ", a, " and ", t);
    if (!t.hasRank())
      return ctx.error("needs the ranks of a, b and x");
    if (t.getRank() == 0)
      continue;
    if (merged.getRank() > 0 && failed(verifyCompatibleShape(merged, t)))
      return ctx.error("a, b and x must be scalars or of one shape, got ", merged, " and ", t);
    merged = t;
  }
  out.push_back(merged);
  return success();
}

LogicalResult inferBroadcastCompare(const InferContext &ctx, InferResult &out) {
  if (failed(inferBroadcastBinary(ctx, out)))
    return failure();
  out.back() = cast<TensorType>(out.back()).clone(IntegerType::get(ctx.context, 1));
  return success();
}

/// The first operand's shape with element type `element`.
static LogicalResult sameShapeAs(const InferContext &ctx, InferResult &out, Type element) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  out.push_back(input->clone(element));
  return success();
}

LogicalResult inferSameShapeBool(const InferContext &ctx, InferResult &out) {
  return sameShapeAs(ctx, out, IntegerType::get(ctx.context, 1));
}

LogicalResult inferPopulationCount(const InferContext &ctx, InferResult &out) {
  return sameShapeAs(ctx, out, IntegerType::get(ctx.context, 8, IntegerType::Unsigned));
}

LogicalResult inferBucketize(const InferContext &ctx, InferResult &out) {
  auto boundaries = ctx.attr<ArrayAttr>("boundaries");
  if (!boundaries)
    return ctx.error("requires the float list attribute 'boundaries'");
  double previous = -std::numeric_limits<double>::infinity();
  for (Attribute a : boundaries) {
    double b = cast<FloatAttr>(a).getValueAsDouble();
    if (!(b >= previous))
      return ctx.error("boundaries must be sorted, got ", b, " after ", previous);
    previous = b;
  }
  return sameShapeAs(ctx, out, IntegerType::get(ctx.context, 32));
}

LogicalResult inferApproximateEqual(const InferContext &ctx, InferResult &out) {
  auto inputs = ctx.twoInputs("x and y");
  if (failed(inputs))
    return failure();
  auto [x, y] = *inputs;
  if (x.hasRank() && y.hasRank() && failed(verifyCompatibleShape(x, y)))
    return ctx.error("x and y must have the same shape, got ", x, " and ", y);
  return sameShapeAs(ctx, out, IntegerType::get(ctx.context, 1));
}

LogicalResult inferSameShapeBinary(const InferContext &ctx, InferResult &out) {
  auto inputs = ctx.twoInputs("the operands");
  if (failed(inputs))
    return failure();
  auto [x, y] = *inputs;
  if (x.hasRank() && y.hasRank() && failed(verifyCompatibleShape(x, y)))
    return ctx.error("the operands must have the same shape, got ", x, " and ", y);
  // The more refined of the two shapes.
  out.push_back(x.hasRank() ? x : y);
  if (x.hasRank() && y.hasRank()) {
    SmallVector<int64_t> shape(x.getShape());
    for (auto [d, size] : llvm::enumerate(y.getShape()))
      if (ShapedType::isDynamic(shape[d]))
        shape[d] = size;
    out.back() = x.clone(shape);
  }
  return success();
}

LogicalResult inferClipByValue(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto t = cast<TensorType>(ctx.operandType(0));
  for (unsigned i : {1u, 2u}) {
    auto bound = cast<TensorType>(ctx.operandType(i));
    StringRef name = i == 1 ? "clip_value_min" : "clip_value_max";
    if (failed(ctx.checkSameElementType(t, bound, ("t and " + name).str())))
      return failure();
    bool scalar = bound.hasRank() && bound.getRank() == 0;
    if (!scalar && t.hasRank() && bound.hasRank() && failed(verifyCompatibleShape(t, bound)))
      return ctx.error(name, " must be a scalar or have the shape of t ", t, ", got ", bound);
  }
  out.push_back(t);
  return success();
}

/// The NumPy broadcast of `a` and `b`, or null (with an error) if they do not broadcast.
static Type broadcast(const InferContext &ctx, TensorType a, TensorType b, Type element) {
  if (!a.hasRank() || !b.hasRank())
    return UnrankedTensorType::get(element);
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(a.getShape(), b.getShape(), shape)) {
    (void)ctx.error("shapes ", a, " and ", b, " are not broadcast-compatible");
    return {};
  }
  return RankedTensorType::get(shape, element);
}

LogicalResult inferSelectV2(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto c = cast<TensorType>(ctx.operandType(0));
  auto t = cast<TensorType>(ctx.operandType(1));
  auto e = cast<TensorType>(ctx.operandType(2));
  if (failed(ctx.checkSameElementType(t, e, "t and e")))
    return failure();
  Type te = broadcast(ctx, t, e, t.getElementType());
  if (!te)
    return failure();
  Type all = broadcast(ctx, c, cast<TensorType>(te), t.getElementType());
  if (!all)
    return failure();
  out.push_back(all);
  return success();
}

LogicalResult inferSelect(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto c = cast<TensorType>(ctx.operandType(0));
  auto t = cast<TensorType>(ctx.operandType(1));
  auto e = cast<TensorType>(ctx.operandType(2));
  if (failed(ctx.checkSameElementType(t, e, "t and e")))
    return failure();
  if (t.hasRank() && e.hasRank() && failed(verifyCompatibleShape(t, e)))
    return ctx.error("t and e must have the same shape, got ", t, " and ", e);
  if (c.hasRank() && t.hasRank()) {
    bool sameShape =
        c.getRank() == t.getRank() && succeeded(verifyCompatibleShape(c.getShape(), t.getShape()));
    bool rowVector = c.getRank() == 1 && t.getRank() >= 1 &&
                     succeeded(verifyCompatibleShape(c.getShape(), t.getShape().take_front()));
    if (!sameShape && !rowVector)
      return ctx.error("condition ", c, " must have the shape of t ", t,
                       " or be a vector along its first dimension");
  }
  out.push_back(t.hasRank() ? t : e);
  return success();
}

LogicalResult inferCast(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(1)))
    return failure();
  auto x = cast<TensorType>(ctx.operandType(0));
  auto dst = ctx.requireAttr<TypeAttr>("DstT", "a dtype (type: DT_...)");
  if (failed(dst) || failed(ctx.checkTypeAttr("SrcT", x.getElementType())))
    return failure();
  out.push_back(x.clone(dst->getValue()));
  return success();
}

/// TensorFlow's integer division and remainder kernels report a zero divisor.
static void checkDivisor(Value y, SmallVectorImpl<RuntimeCheck> &checks) {
  if (isa<IntegerType>(cast<TensorType>(y.getType()).getElementType()))
    checks.push_back({y, "nonzero", {}, "integer division by zero (y{index} is 0)"});
}

void RealDivOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &c) { checkDivisor(getY(), c); }
void DivOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &c) { checkDivisor(getY(), c); }
void TruncateDivOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &c) { checkDivisor(getY(), c); }
void TruncateModOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &c) { checkDivisor(getY(), c); }
void ModOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &c) { checkDivisor(getY(), c); }
void FloorDivOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &c) { checkDivisor(getY(), c); }
void FloorModOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &c) { checkDivisor(getY(), c); }

void PowOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {
  auto element = cast<TensorType>(getY().getType()).getElementType();
  if (isa<IntegerType>(element) && !element.isUnsignedInteger())
    checks.push_back({getY(),
                      "nonnegative",
                      {},
                      "integers to negative integer powers are not allowed (y{index} = "
                      "{value})"});
}

//===----------------------------------------------------------------------===//
// Folding on constants.
//===----------------------------------------------------------------------===//

/// The constant data inputs of `op` (`arity` of them, of one element type, with no more
/// dimensions than its result), and its result type, if `op` can be folded: no control
/// inputs, a static result within the folding budget.
static bool foldableInputs(Operation *op, ArrayRef<Attribute> operands, size_t arity,
                           RankedTensorType &type, SmallVectorImpl<DenseElementsAttr> &inputs) {
  auto graphOp = cast<GraphOpInterface>(op);
  if (!graphOp.getControlInputs().empty() || graphOp.getDataInputs().size() != arity)
    return false;
  type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() > kMaxFoldedElements)
    return false;
  for (size_t i = 0; i < arity; ++i) {
    auto attr = dyn_cast_or_null<DenseElementsAttr>(operands[i]);
    if (!attr || attr.getType().getRank() > type.getRank() ||
        attr.getElementType() != cast<DenseElementsAttr>(operands[0]).getElementType())
      return false;
    inputs.push_back(attr);
  }
  return true;
}

/// Calls `fn` with the flat index into each of `inputs` that each element of `type`
/// (row-major) reads under NumPy broadcasting.
static void forEachElement(RankedTensorType type, ArrayRef<DenseElementsAttr> inputs,
                           llvm::function_ref<void(ArrayRef<int64_t>)> fn) {
  int64_t rank = type.getRank();
  SmallVector<int64_t> index(rank, 0), offsets(inputs.size());
  for (int64_t flat = 0; flat < type.getNumElements(); ++flat) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      ArrayRef<int64_t> shape = inputs[i].getType().getShape();
      int64_t offset = 0, lead = rank - static_cast<int64_t>(shape.size());
      for (size_t d = 0; d < shape.size(); ++d)
        offset = offset * shape[d] + (shape[d] == 1 ? 0 : index[lead + d]);
      offsets[i] = offset;
    }
    fn(offsets);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == type.getDimSize(d); --d)
      index[d] = 0;
  }
}

/// The value of `op`, elementwise with NumPy broadcasting on its `arity` constant data
/// inputs: floats computed by `fn` in double and rounded once to the result's type,
/// integers by `intFn` (if given) with TensorFlow's wrapping arithmetic. Null when an input
/// is not constant, the op has control inputs or the result is over the folding budget.
/// Frozen graphs compute a batch normalisation's statistics so, with Rsqrt, Mul and Sub on
/// constants, and loops their counters with Add on integers.
static OpFoldResult
foldElementwise(Operation *op, ArrayRef<Attribute> operands, size_t arity,
                llvm::function_ref<double(double, double)> fn,
                llvm::function_ref<APInt(const APInt &, const APInt &, bool)> intFn = nullptr) {
  RankedTensorType type;
  SmallVector<DenseElementsAttr, 2> inputs;
  if (!foldableInputs(op, operands, arity, type, inputs) ||
      inputs[0].getElementType() != type.getElementType())
    return {};
  if (auto intType = dyn_cast<IntegerType>(type.getElementType())) {
    if (!intFn)
      return {};
    SmallVector<SmallVector<APInt>, 2> values;
    for (DenseElementsAttr input : inputs)
      values.push_back(llvm::to_vector(input.getValues<APInt>()));
    bool isUnsigned = intType.isUnsignedInteger();
    SmallVector<APInt> result;
    forEachElement(type, inputs, [&](ArrayRef<int64_t> at) {
      const APInt &x = values[0][at[0]];
      result.push_back(intFn(x, arity > 1 ? values[1][at[1]] : x, isUnsigned));
    });
    return DenseElementsAttr::get(type, result);
  }
  if (!isa<FloatType>(type.getElementType()))
    return {};
  SmallVector<SmallVector<double>, 2> values;
  for (DenseElementsAttr input : inputs) {
    SmallVector<double> v;
    for (const APFloat &f : input.getValues<APFloat>())
      v.push_back(f.convertToDouble());
    values.push_back(std::move(v));
  }
  auto semantics = &cast<FloatType>(type.getElementType()).getFloatSemantics();
  SmallVector<APFloat> result;
  forEachElement(type, inputs, [&](ArrayRef<int64_t> at) {
    APFloat r(fn(values[0][at[0]], arity > 1 ? values[1][at[1]] : 0.0));
    bool lost;
    r.convert(*semantics, APFloat::rmNearestTiesToEven, &lost);
    result.push_back(r);
  });
  return DenseElementsAttr::get(type, result);
}

/// A comparison of constants: `holds` of each pair's order (unordered where a float is
/// NaN), as booleans.
static OpFoldResult foldCompare(Operation *op, ArrayRef<Attribute> operands,
                                llvm::function_ref<bool(APFloat::cmpResult)> holds) {
  RankedTensorType type;
  SmallVector<DenseElementsAttr, 2> inputs;
  if (!foldableInputs(op, operands, 2, type, inputs) || !type.getElementType().isInteger(1))
    return {};
  Type element = inputs[0].getElementType();
  SmallVector<bool> result;
  if (isa<FloatType>(element)) {
    auto x = llvm::to_vector(inputs[0].getValues<APFloat>());
    auto y = llvm::to_vector(inputs[1].getValues<APFloat>());
    forEachElement(type, inputs, [&](ArrayRef<int64_t> at) {
      result.push_back(holds(x[at[0]].compare(y[at[1]])));
    });
  } else if (auto intType = dyn_cast<IntegerType>(element)) {
    auto x = llvm::to_vector(inputs[0].getValues<APInt>());
    auto y = llvm::to_vector(inputs[1].getValues<APInt>());
    bool isUnsigned = intType.isUnsignedInteger() || intType.getWidth() == 1;
    forEachElement(type, inputs, [&](ArrayRef<int64_t> at) {
      const APInt &a = x[at[0]], &b = y[at[1]];
      bool less = isUnsigned ? a.ult(b) : a.slt(b);
      result.push_back(holds(a == b ? APFloat::cmpEqual
                             : less ? APFloat::cmpLessThan
                                    : APFloat::cmpGreaterThan));
    });
  } else {
    return {};
  }
  return DenseElementsAttr::get(type, ArrayRef<bool>(result));
}

/// One constant element converted as Cast converts it, or none where the conversion is not
/// exact enough to fold (a float that is NaN or outside the integer's range: TensorFlow's
/// result there is the CPU's, not a rule).
static std::optional<Attribute> castElement(Attribute value, Type to) {
  auto toInt = dyn_cast<IntegerType>(to);
  if (auto f = dyn_cast<FloatAttr>(value)) {
    APFloat v = f.getValue();
    if (toInt && toInt.getWidth() == 1)
      return IntegerAttr::get(to, APInt(1, !v.isZero()));
    if (toInt) {
      APSInt result(toInt.getWidth(), toInt.isUnsignedInteger());
      bool exact;
      if (v.convertToInteger(result, APFloat::rmTowardZero, &exact) & APFloat::opInvalidOp)
        return std::nullopt;
      return IntegerAttr::get(to, result);
    }
    bool lost;
    v.convert(cast<FloatType>(to).getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return FloatAttr::get(to, v);
  }
  auto i = dyn_cast<IntegerAttr>(value);
  if (!i)
    return std::nullopt;
  auto fromInt = cast<IntegerType>(i.getType());
  bool isSigned = fromInt.getWidth() > 1 && !fromInt.isUnsignedInteger();
  APInt v = i.getValue();
  if (toInt && toInt.getWidth() == 1)
    return IntegerAttr::get(to, APInt(1, !v.isZero()));
  if (toInt)
    return IntegerAttr::get(to, isSigned ? v.sextOrTrunc(toInt.getWidth())
                                         : v.zextOrTrunc(toInt.getWidth()));
  APFloat f(cast<FloatType>(to).getFloatSemantics());
  f.convertFromAPInt(v, isSigned, APFloat::rmNearestTiesToEven);
  return FloatAttr::get(to, f);
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  auto input = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX());
  auto type = dyn_cast<RankedTensorType>(getY().getType());
  if (!input || !type || !type.hasStaticShape() || !getControlInputs().empty() ||
      type.getNumElements() > kMaxFoldedElements)
    return {};
  if (input.getType() == type)
    return input;
  SmallVector<Attribute> result;
  for (Attribute element : input.getValues<Attribute>()) {
    std::optional<Attribute> converted = castElement(element, type.getElementType());
    if (!converted)
      return {};
    result.push_back(*converted);
  }
  return DenseElementsAttr::get(type, result);
}

OpFoldResult EqualOp::fold(FoldAdaptor a) {
  return foldCompare(*this, a.getOperands(),
                     [](APFloat::cmpResult r) { return r == APFloat::cmpEqual; });
}
OpFoldResult NotEqualOp::fold(FoldAdaptor a) {
  return foldCompare(*this, a.getOperands(),
                     [](APFloat::cmpResult r) { return r != APFloat::cmpEqual; });
}
OpFoldResult LessOp::fold(FoldAdaptor a) {
  return foldCompare(*this, a.getOperands(),
                     [](APFloat::cmpResult r) { return r == APFloat::cmpLessThan; });
}
OpFoldResult LessEqualOp::fold(FoldAdaptor a) {
  return foldCompare(*this, a.getOperands(), [](APFloat::cmpResult r) {
    return r == APFloat::cmpLessThan || r == APFloat::cmpEqual;
  });
}
OpFoldResult GreaterOp::fold(FoldAdaptor a) {
  return foldCompare(*this, a.getOperands(),
                     [](APFloat::cmpResult r) { return r == APFloat::cmpGreaterThan; });
}
OpFoldResult GreaterEqualOp::fold(FoldAdaptor a) {
  return foldCompare(*this, a.getOperands(), [](APFloat::cmpResult r) {
    return r == APFloat::cmpGreaterThan || r == APFloat::cmpEqual;
  });
}
OpFoldResult LogicalAndOp::fold(FoldAdaptor a) {
  return foldElementwise(*this, a.getOperands(), 2, nullptr,
                         [](const APInt &x, const APInt &y, bool) { return x & y; });
}
OpFoldResult LogicalOrOp::fold(FoldAdaptor a) {
  return foldElementwise(*this, a.getOperands(), 2, nullptr,
                         [](const APInt &x, const APInt &y, bool) { return x | y; });
}
OpFoldResult LogicalNotOp::fold(FoldAdaptor a) {
  return foldElementwise(*this, a.getOperands(), 1, nullptr,
                         [](const APInt &x, const APInt &, bool) { return ~x; });
}

static OpFoldResult unary(Operation *op, ArrayRef<Attribute> operands, double (*fn)(double)) {
  return foldElementwise(op, operands, 1, [fn](double a, double) { return fn(a); });
}
static OpFoldResult binary(Operation *op, ArrayRef<Attribute> operands,
                           double (*fn)(double, double)) {
  return foldElementwise(op, operands, 2, fn);
}

OpFoldResult NegOp::fold(FoldAdaptor a) {
  return unary(*this, a.getOperands(), [](double x) { return -x; });
}
OpFoldResult AbsOp::fold(FoldAdaptor a) {
  return unary(*this, a.getOperands(), [](double x) { return std::fabs(x); });
}
OpFoldResult SquareOp::fold(FoldAdaptor a) {
  return unary(*this, a.getOperands(), [](double x) { return x * x; });
}
OpFoldResult SqrtOp::fold(FoldAdaptor a) {
  return unary(*this, a.getOperands(), [](double x) { return std::sqrt(x); });
}
OpFoldResult RsqrtOp::fold(FoldAdaptor a) {
  return unary(*this, a.getOperands(), [](double x) { return 1.0 / std::sqrt(x); });
}
OpFoldResult ExpOp::fold(FoldAdaptor a) {
  return unary(*this, a.getOperands(), [](double x) { return std::exp(x); });
}
OpFoldResult LogOp::fold(FoldAdaptor a) {
  return unary(*this, a.getOperands(), [](double x) { return std::log(x); });
}
OpFoldResult ReluOp::fold(FoldAdaptor a) {
  return unary(*this, a.getOperands(), [](double x) { return x < 0 ? 0.0 : x; });
}
OpFoldResult Relu6Op::fold(FoldAdaptor a) {
  return unary(*this, a.getOperands(), [](double x) { return x < 0 ? 0.0 : x > 6 ? 6.0 : x; });
}
OpFoldResult AddOp::fold(FoldAdaptor a) {
  return foldElementwise(
      *this, a.getOperands(), 2, [](double x, double y) { return x + y; },
      [](const APInt &x, const APInt &y, bool) { return x + y; });
}
OpFoldResult AddV2Op::fold(FoldAdaptor a) {
  return foldElementwise(
      *this, a.getOperands(), 2, [](double x, double y) { return x + y; },
      [](const APInt &x, const APInt &y, bool) { return x + y; });
}
OpFoldResult SubOp::fold(FoldAdaptor a) {
  return foldElementwise(
      *this, a.getOperands(), 2, [](double x, double y) { return x - y; },
      [](const APInt &x, const APInt &y, bool) { return x - y; });
}
OpFoldResult MulOp::fold(FoldAdaptor a) {
  return foldElementwise(
      *this, a.getOperands(), 2, [](double x, double y) { return x * y; },
      [](const APInt &x, const APInt &y, bool) { return x * y; });
}
OpFoldResult RealDivOp::fold(FoldAdaptor a) {
  return binary(*this, a.getOperands(), [](double x, double y) { return x / y; });
}
// NaN if either is, as TensorFlow's Maximum and Minimum (std::max returns the other).
/// An integer clamp that is a constant whatever x is: Minimum(a, Maximum(b, x)) with
/// a <= b is a, and Maximum(a, Minimum(b, x)) with a >= b is a (Keras's CategoryEncoding
/// computes its depth so, from the data's maximum). Integer scalars only: a float NaN x
/// would propagate.
template <typename Inner>
static OpFoldResult foldClamp(Operation *op, ArrayRef<Attribute> operands, bool outerIsMin) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || type.getRank() != 0 || !type.getElementType().isSignlessInteger() ||
      op->getNumOperands() != 2)
    return {};
  for (unsigned side : {0u, 1u}) {
    auto a = dyn_cast_or_null<DenseIntElementsAttr>(operands[side]);
    auto inner = op->getOperand(1 - side).getDefiningOp<Inner>();
    if (!a || a.getType() != type || !inner || inner->getNumOperands() != 2)
      continue;
    for (Value v : inner->getOperands()) {
      auto b = constantIntsOf(v);
      if (!b || b->size() != 1)
        continue;
      int64_t outer = (*a.value_begin<APInt>()).getSExtValue();
      if (outerIsMin ? outer <= b->front() : outer >= b->front())
        return a;
    }
  }
  return {};
}

OpFoldResult MaximumOp::fold(FoldAdaptor a) {
  if (OpFoldResult clamp = foldClamp<MinimumOp>(*this, a.getOperands(), false))
    return clamp;
  return foldElementwise(
      *this, a.getOperands(), 2,
      [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y); },
      [](const APInt &x, const APInt &y, bool isUnsigned) {
        return isUnsigned ? llvm::APIntOps::umax(x, y) : llvm::APIntOps::smax(x, y);
      });
}
OpFoldResult MinimumOp::fold(FoldAdaptor a) {
  if (OpFoldResult clamp = foldClamp<MaximumOp>(*this, a.getOperands(), true))
    return clamp;
  return foldElementwise(
      *this, a.getOperands(), 2,
      [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y); },
      [](const APInt &x, const APInt &y, bool isUnsigned) {
        return isUnsigned ? llvm::APIntOps::umin(x, y) : llvm::APIntOps::smin(x, y);
      });
}
OpFoldResult SquaredDifferenceOp::fold(FoldAdaptor a) {
  return binary(*this, a.getOperands(), [](double x, double y) { return (x - y) * (x - y); });
}
OpFoldResult PowOp::fold(FoldAdaptor a) {
  return binary(*this, a.getOperands(), [](double x, double y) { return std::pow(x, y); });
}

} // namespace kiln::tf
