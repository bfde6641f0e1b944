//===- Random.cpp - stateless random numbers -----------------------------------===//
//
// TensorFlow's stateless random ops: their inference, and the rewrite
// (decomposeRandom) of the first forms, which take a [2] seed, into
// StatelessRandomGetKeyCounter and the V2 op that takes a key and a counter. The V2 ops
// and StatelessRandomGetKeyCounter are lowered in passes/Lower/Patterns/Random.cpp.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/Ops/GraphBuilder.h"
#include "dialects/TF/TFOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::tf {

namespace {

/// Checks that operand `index` is a vector of `size` entries when its shape is known.
LogicalResult checkVector(const InferContext &ctx, unsigned index, int64_t size, StringRef name) {
  auto t = dyn_cast<RankedTensorType>(ctx.operandType(index));
  if (t && (t.getRank() != 1 || (!t.isDynamicDim(0) && t.getDimSize(0) != size)))
    return ctx.error(name, " must have shape [", size, "], got ", t);
  return success();
}

bool isRandomInt(Type t) { return t.isInteger(32) || t.isInteger(64); }

} // namespace

/// StatelessRandomGetKeyCounter, StatelessRandomGetKeyCounterAlg, StatelessRandomGetAlg,
/// and DeviceIndex (an i32 scalar, like an alg).
LogicalResult inferRandomKeyCounter(const InferContext &ctx, InferResult &out) {
  Type u64 = IntegerType::get(ctx.context, 64, IntegerType::Unsigned);
  Type i32 = IntegerType::get(ctx.context, 32);
  if (ctx.opName != "tf.StatelessRandomGetAlg" && ctx.opName != "tf.DeviceIndex") {
    if (failed(ctx.requireTensorOperands(1)) || failed(checkVector(ctx, 0, 2, "seed")))
      return failure();
    out.push_back(RankedTensorType::get({1}, u64));
    out.push_back(RankedTensorType::get({2}, u64));
  }
  if (ctx.opName != "tf.StatelessRandomGetKeyCounter")
    out.push_back(RankedTensorType::get({}, i32));
  return success();
}

LogicalResult inferStatelessRandom(const InferContext &ctx, InferResult &out) {
  StringRef name = ctx.opName;
  bool v2 = name.ends_with("V2");
  bool bounded = name.contains("UniformInt"), fullInt = name.contains("FullInt");
  unsigned count = (v2 ? 4 : 2) + (bounded ? 2 : 0);
  if (failed(ctx.requireTensorOperands(count)))
    return failure();
  auto shapeType = dyn_cast<RankedTensorType>(ctx.operandType(0));
  if (shapeType && shapeType.getRank() != 1)
    return ctx.error("shape must be a vector, got ", shapeType);
  if (v2) {
    if (failed(checkVector(ctx, 1, 1, "key")) || failed(checkVector(ctx, 2, 2, "counter")))
      return failure();
    if (auto alg = ctx.constantInts(3); alg && (*alg)[0] != 1 && (*alg)[0] != 3)
      return ctx.error("alg must be Philox (1) or auto-select (3), TensorFlow's CPU "
                       "algorithm, got ",
                       (*alg)[0]);
  } else if (failed(checkVector(ctx, 1, 2, "seed"))) {
    return failure();
  }
  // The element type: dtype, else minval's (the first forms' UniformInt), else float32.
  Type element = Float32Type::get(ctx.context);
  if (bounded)
    element = cast<TensorType>(ctx.operandType(count - 2)).getElementType();
  if (auto dtype = ctx.attr<TypeAttr>("dtype"))
    element = dtype.getValue();
  if ((bounded || fullInt) ? !isRandomInt(element) : !isa<FloatType>(element))
    return ctx.error("dtype must be ",
                     (bounded || fullInt) ? "int32, int64, uint32 or uint64" : "a float type",
                     ", got ", element);
  if (bounded) {
    auto lo = ctx.constantInts(count - 2), hi = ctx.constantInts(count - 1);
    if (!lo || !hi || lo->size() != 1 || hi->size() != 1)
      return ctx.error("minval and maxval must be scalar constants");
    for (unsigned i = count - 2; i < count; ++i)
      if (cast<TensorType>(ctx.operandType(i)).getElementType() != element)
        return ctx.error("minval and maxval must be ", element, ", got ", ctx.operandType(i));
    bool less =
        element.isUnsignedInteger() ? uint64_t((*lo)[0]) < uint64_t((*hi)[0]) : (*lo)[0] < (*hi)[0];
    if (!less)
      return ctx.error("Need minval < maxval, got ", (*lo)[0], " >= ", (*hi)[0]);
  }
  auto shape = ctx.constantInts(0);
  if (!shape) {
    int64_t rank = shapeType && !shapeType.isDynamicDim(0) ? shapeType.getDimSize(0) : -1;
    out.push_back(rank < 0 ? Type(UnrankedTensorType::get(element))
                           : Type(RankedTensorType::get(
                                 SmallVector<int64_t>(rank, ShapedType::kDynamic), element)));
    return success();
  }
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return ctx.error("shape must not be negative, got ", describeDims(*shape));
  out.push_back(RankedTensorType::get(*shape, element));
  return success();
}

FailureOr<bool> decomposeRandom(RewriterBase &rewriter, Operation *op) {
  bool v1 = isa<StatelessRandomUniformOp, StatelessRandomNormalOp, StatelessRandomUniformIntOp,
                StatelessRandomUniformFullIntOp, StatelessTruncatedNormalOp>(op);
  if (!v1 && !isa<StatelessRandomGetKeyCounterAlgOp, StatelessRandomGetAlgOp, DeviceIndexOp>(op))
    return false;
  rewriter.setInsertionPoint(op);
  GraphBuilder b{rewriter, op};
  if (auto device = dyn_cast<DeviceIndexOp>(op)) {
    // The op runs on the CPU: the position of "CPU" among the names, else their number.
    ArrayAttr names = device.getDeviceNames();
    int64_t index =
        llvm::find_if(names, [](Attribute a) { return cast<StringAttr>(a).getValue() == "CPU"; }) -
        names.begin();
    return replaceDecomposed(rewriter, op,
                             SmallVector<Value>{b.scalar(rewriter.getI32Type(), index)});
  }
  ValueRange data = dataOf(op);
  Value philox = b.scalar(rewriter.getI32Type(), 1);
  SmallVector<Value> replacement;
  if (isa<StatelessRandomGetAlgOp>(op)) {
    replacement.push_back(philox);
  } else {
    Operation *keyCounter = b.createOp("StatelessRandomGetKeyCounter", {v1 ? data[1] : data[0]});
    if (!keyCounter)
      return failure();
    if (v1) {
      SmallVector<Value> operands = {data[0], keyCounter->getResult(0), keyCounter->getResult(1),
                                     philox};
      operands.append(data.begin() + 2, data.end());
      StringRef name = op->getName().getStringRef().drop_front(3);
      SmallVector<NamedAttribute> attrs = {
          b.attr("dtype", TypeAttr::get(getElementTypeOrSelf(op->getResult(0).getType())))};
      replacement.push_back(b.create((name + "V2").str(), operands, attrs));
    } else {
      replacement = {keyCounter->getResult(0), keyCounter->getResult(1), philox};
    }
  }
  return replaceDecomposed(rewriter, op, replacement);
}

} // namespace kiln::tf
