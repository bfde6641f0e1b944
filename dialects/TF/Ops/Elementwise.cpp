//===- Elementwise.cpp - broadcasting arithmetic, activations, Cast -----------===//
#include "dialects/TF/TFOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/TypeUtilities.h"

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

LogicalResult inferBroadcastCompare(const InferContext &ctx, InferResult &out) {
  if (failed(inferBroadcastBinary(ctx, out)))
    return failure();
  out.back() = cast<TensorType>(out.back()).clone(IntegerType::get(ctx.context, 1));
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
    bool sameShape = c.getRank() == t.getRank() && succeeded(verifyCompatibleShape(c.getShape(), t.getShape()));
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
    checks.push_back({getY(), "nonnegative", {},
                      "integers to negative integer powers are not allowed (y{index} = "
                      "{value})"});
}

} // namespace kiln::tf
