//===- BoundSizes.cpp - static bounds for sizes that depend on values ----------===//
//
// XLA's dynamic padder for the tf dialect. An op whose result size depends on the values
// it reads (Where, Unique, a non-max suppression, TopKV2 with a fed k) gets the static
// type of a bound on that size, and the size itself becomes a value of the graph (an i32
// scalar) carried beside the tensor: the op writes its first `size` rows and zeros after
// them. Every op the padded tensor reaches is rewritten to give the same results on the
// valid part: elementwise ops carry the padding along, reductions and TopKV2 mask it with
// their identity, Reshape moves the size, ConcatV2 along the padded dimension gathers
// the valid rows together, Shape and Size read the sizes. A fetch keeps its bound's buffer,
// written densely at its actual shape, and the entry point gains an output with that shape
// (`kiln.tensor`'s `shape` names it), which callers read.
//
//===----------------------------------------------------------------------------===//
#include "dialects/Kiln/KilnDialect.h"
#include "dialects/Kiln/Model.h"
#include "dialects/TF/TFOps.h"
#include "passes/Graph/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

namespace kiln::graph {
#define GEN_PASS_DEF_BOUNDSIZESPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln;

namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;

/// The run-time size of each dimension of a padded tensor: null where the dimension is
/// static (its size is its bound), else an i32 scalar tensor of the graph.
using Sizes = SmallVector<Value>;

std::string nodeLabel(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "node '";
  llvm::printEscapedString(graph::nodeName(op), os);
  os << "' (" << op->getName().getStringRef().drop_front(3) << ")";
  return text;
}

class Padder {
public:
  Padder(func::FuncOp func, const llvm::StringMap<int64_t> &bounds, llvm::StringSet<> &used,
         bool checks)
      : func(func), bounds(bounds), used(used), checks(checks), b(func.getContext()) {}

  /// Pads every data-dependent size of the function; the results that are padded get
  /// their shapes as extra results, recorded in `shapeOutputs` (result -> its shape's).
  LogicalResult run(SmallVectorImpl<std::pair<unsigned, unsigned>> &shapeOutputs);

private:
  func::FuncOp func;
  const llvm::StringMap<int64_t> &bounds;
  llvm::StringSet<> &used; // the nodes whose bounds were applied
  bool checks;             // add run-time checks (kiln.check)
  OpBuilder b;
  DenseMap<Value, Sizes> sizes;
  /// The op that made each padded value's size (for errors).
  DenseMap<Value, Operation *> origins;
  Operation *origin = nullptr; // of the padded operand of the op being rewritten
  /// Shape vectors built from sizes (Shape of a padded tensor): per element, a size
  /// (i32 scalar) or null with the constant in `constants`.
  struct ShapeParts {
    SmallVector<Value> parts;
    SmallVector<int64_t> constants;
  };
  DenseMap<Value, ShapeParts> shapes;
  /// Scalars that equal a size (Shape(x)[i] of a padded x): the size.
  DenseMap<Value, Value> scalars;

  // Building blocks (tf ops at the current insertion point, located at `loc`).
  Location loc = UnknownLoc::get(func.getContext());
  Value tf(StringRef name, ValueRange operands, ArrayRef<NamedAttribute> attrs = {}) {
    Value v = tf::createTF(b, loc, name, operands, attrs);
    assert(v && "Kiln builds valid ops");
    return v;
  }
  Value constant(ArrayRef<int64_t> values, ArrayRef<int64_t> shape, Type element) {
    auto type = RankedTensorType::get(shape, element);
    return tf("Const", {}, {b.getNamedAttr("value", tf::intConstant(type, values))});
  }
  Value scalar(int64_t v) { return constant({v}, {}, b.getI32Type()); }
  Value typedScalar(Type element, double v) {
    auto type = RankedTensorType::get({}, element);
    Attribute attr;
    if (auto f = dyn_cast<FloatType>(element))
      attr = DenseElementsAttr::get(type, FloatAttr::get(f, v));
    else if (element.isInteger(1))
      attr = DenseElementsAttr::get(type, v != 0);
    else
      attr = DenseElementsAttr::get(type, IntegerAttr::get(element, static_cast<int64_t>(v)));
    return tf("Const", {}, {b.getNamedAttr("value", attr)});
  }
  Value castTo(Value v, Type element) {
    if (getElementTypeOrSelf(v.getType()) == element)
      return v;
    return tf("Cast", {v}, {b.getNamedAttr("DstT", TypeAttr::get(element))});
  }
  Value binary(StringRef name, Value x, Value y) { return tf(name, {x, y}); }

  /// The lowest or highest value of `element` (infinities for floats).
  Value extreme(Type element, bool highest) {
    auto type = RankedTensorType::get({}, element);
    if (auto f = dyn_cast<FloatType>(element))
      return tf("Const", {},
                {b.getNamedAttr("value",
                                DenseElementsAttr::get(
                                    type, FloatAttr::get(f, APFloat::getInf(f.getFloatSemantics(),
                                                                            !highest))))});
    unsigned width = element.getIntOrFloatBitWidth();
    APInt v = element.isUnsignedInteger()
                  ? (highest ? APInt::getMaxValue(width) : APInt::getZero(width))
                  : (highest ? APInt::getSignedMaxValue(width) : APInt::getSignedMinValue(width));
    return tf("Const", {}, {b.getNamedAttr("value", DenseElementsAttr::get(type, v))});
  }

  /// True where every padded dimension's coordinate is below its size: a bool tensor of
  /// `type`'s shape.
  Value validMask(RankedTensorType type, const Sizes &s);
  /// `v` with its padding replaced by `fill` (a scalar).
  Value masked(Value v, const Sizes &s, Value fill) {
    auto type = cast<RankedTensorType>(v.getType());
    return tf("SelectV2", {validMask(type, s), v, fill});
  }

  /// Records `v` as padded with `s` (nothing when every entry is null).
  void setSizes(Value v, Sizes s) {
    if (llvm::any_of(s, [](Value x) { return x; })) {
      sizes[v] = std::move(s);
      origins[v] = origin;
    }
  }
  /// Gives `v` a static type of `shape` (its bound).
  static void setShape(Value v, ArrayRef<int64_t> shape) {
    v.setType(RankedTensorType::get(shape, getElementTypeOrSelf(v.getType())));
  }
  /// Re-infers `op`'s result types from its operands (now static).
  LogicalResult reinfer(Operation *op);

  int64_t boundFor(Operation *op, int64_t natural) {
    auto it = bounds.find(graph::nodeName(op));
    if (it == bounds.end())
      return natural;
    used.insert(it->first());
    return std::min(natural, it->second);
  }

  /// A kiln.check that every value of `subject` is below `bound`, failing with `message`.
  void checkBelow(Value subject, int64_t bound, const std::string &message) {
    dialect::CheckOp::create(b, loc, b.getStringAttr("below"), subject,
                             b.getDenseI64ArrayAttr({bound}), b.getStringAttr(message), UnitAttr());
  }
  /// A check that `count` (an i32 scalar) is at most `bound`, as --bound promised; `what`
  /// says what is counted, with {value} for the count.
  void checkBound(Operation *op, Value count, int64_t bound, StringRef what);
  /// An upper bound of an integer scalar's value, if one is known.
  std::optional<int64_t> upperBound(Value v);

  LogicalResult visit(Operation *op);
  LogicalResult source(Operation *op, bool &handled);
  LogicalResult consumer(Operation *op);
  /// Follows sizes through shape arithmetic: Shape(x)[i], Pack of sizes, and pads Fill of
  /// such a shape and Range(0, size).
  LogicalResult shapeArithmetic(Operation *op);
  /// The padded tensor and the dimension whose size `size` is, if this pass made it.
  std::optional<std::pair<Value, int64_t>> owner(Value size);
  /// The bound of `size`: its tensor's dimension.
  int64_t boundOf(Value size) {
    auto [tensor, dim] = *owner(size);
    return cast<RankedTensorType>(tensor.getType()).getDimSize(dim);
  }
  /// The op that made the first size among `parts`.
  Operation *originOf(ArrayRef<Value> parts);
  LogicalResult unsupported(Operation *op, Value padded);
  LogicalResult fetches(SmallVectorImpl<std::pair<unsigned, unsigned>> &shapeOutputs);

  LogicalResult elementwise(Operation *op);
  LogicalResult reduction(Operation *op, Value input, Value axesValue, bool keepDims,
                          Value identity, bool mean);
  LogicalResult reshape(tf::ReshapeOp op);
  LogicalResult gather(tf::GatherV2Op op);
  LogicalResult concat(tf::ConcatV2Op op);
  LogicalResult topK(tf::TopKV2Op op);
  Value compact(Value v, const Sizes &s);
};

Value Padder::validMask(RankedTensorType type, const Sizes &s) {
  Value mask;
  int64_t rank = type.getRank();
  for (int64_t d = 0; d < rank; ++d) {
    if (!s[d])
      continue;
    int64_t bound = type.getDimSize(d);
    SmallVector<int64_t> iota;
    for (int64_t i = 0; i < bound; ++i)
      iota.push_back(i);
    SmallVector<int64_t> shape(rank, 1);
    shape[d] = bound;
    Value coordinates = constant(iota, shape, b.getI32Type());
    Value here = binary("Less", coordinates, s[d]);
    mask = mask ? binary("LogicalAnd", mask, here) : here;
  }
  // Broadcast to the full shape so that SelectV2's condition has it.
  if (cast<RankedTensorType>(mask.getType()).getShape() != type.getShape()) {
    SmallVector<int64_t> dims(type.getShape());
    mask = tf("BroadcastTo", {mask, constant(dims, {rank}, b.getI32Type())});
  }
  return mask;
}

LogicalResult Padder::reinfer(Operation *op) {
  auto iface = cast<InferTypeOpInterface>(op);
  SmallVector<Type> types;
  if (failed(iface.inferReturnTypes(op->getContext(), op->getLoc(), op->getOperands(),
                                    op->getAttrDictionary(), op->getPropertiesStorage(),
                                    op->getRegions(), types)))
    return failure();
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    result.setType(type);
  return success();
}

void Padder::checkBound(Operation *op, Value count, int64_t bound, StringRef what) {
  if (checks)
    checkBelow(count, bound + 1,
               nodeLabel(op) + ": " + what.str() + ", more than the bound " +
                   std::to_string(bound) + " that --bound gives it");
}

std::optional<int64_t> Padder::upperBound(Value v) {
  if (auto values = tf::constantIntsOf(v); values && values->size() == 1)
    return (*values)[0];
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (isa<tf::CastOp, tf::IdentityOp>(def))
    return upperBound(def->getOperand(0));
  if (isa<tf::MinimumOp>(def)) {
    auto x = upperBound(def->getOperand(0)), y = upperBound(def->getOperand(1));
    if (x && y)
      return std::min(*x, *y);
    return x ? x : y;
  }
  if (Value size = scalars.lookup(v))
    return upperBound(size);
  // A size this pass made: its tensor's bound.
  if (owner(v))
    return boundOf(v);
  return std::nullopt;
}

LogicalResult Padder::unsupported(Operation *op, Value padded) {
  std::string what = "a value-dependent size";
  if (Operation *def = origins.lookup(padded))
    what = "a size that depends on the values at " + nodeLabel(def);
  return op->emitError() << "takes a tensor of " << what
                         << ", which Kiln bounds through elementwise ops, reductions, Reshape, "
                            "Squeeze, ExpandDims, Transpose, GatherV2, GatherNd, ConcatV2, "
                            "Pack, Shape, Size, TopKV2, Cumsum, Cumprod and the fetches, not "
                            "through this op (see docs/ops.md, data-dependent sizes)";
}

LogicalResult Padder::source(Operation *op, bool &handled) {
  handled = true;
  b.setInsertionPointAfter(op);
  loc = op->getLoc();
  origin = op;
  if (auto where = dyn_cast<tf::WhereOp>(op)) {
    auto input = dyn_cast<RankedTensorType>(where.getInput().getType());
    if (!input || !input.hasStaticShape())
      return success(); // the lowering reports the unknown shape
    auto it = sizes.find(where.getInput());
    if (it != sizes.end()) {
      b.setInsertionPoint(op);
      Type element = input.getElementType();
      where->setOperand(0, masked(where.getInput(), it->second, typedScalar(element, 0)));
      b.setInsertionPointAfter(op);
    }
    int64_t natural = input.getNumElements(), bound = boundFor(op, natural);
    setShape(where.getIndex(), {bound, input.getRank()});
    Value x = where.getInput();
    Value nonzero = getElementTypeOrSelf(x.getType()).isInteger(1)
                        ? x
                        : binary("NotEqual", x, typedScalar(getElementTypeOrSelf(x.getType()), 0));
    SmallVector<int64_t> all;
    for (int64_t d = 0; d < input.getRank(); ++d)
      all.push_back(d);
    Value count = tf(
        "Sum", {castTo(nonzero, b.getI32Type()), constant(all, {input.getRank()}, b.getI32Type())});
    if (bound < natural) {
      checkBound(op, count, bound, "the input has {value} true elements");
      count = binary("Minimum", count, scalar(bound));
    }
    setSizes(where.getIndex(), {count, Value()});
    return success();
  }
  if (auto unique = dyn_cast<tf::UniqueOp>(op)) {
    if (sizes.count(unique.getX()))
      return unsupported(op, unique.getX());
    auto y = cast<RankedTensorType>(unique.getY().getType());
    auto idx = dyn_cast<RankedTensorType>(unique.getIdx().getType());
    if (!idx || !idx.hasStaticShape() || y.hasStaticShape())
      return success();
    int64_t natural = idx.getDimSize(0), bound = boundFor(op, natural);
    setShape(unique.getY(), {bound});
    Value last = tf("Max", {castTo(unique.getIdx(), b.getI32Type()), scalar(0)});
    Value count = binary("AddV2", last, scalar(1));
    if (bound < natural) {
      checkBound(op, count, bound, "the input has {value} distinct values");
      count = binary("Minimum", count, scalar(bound));
    }
    setSizes(unique.getY(), {count});
    return success();
  }
  if (isa<tf::NonMaxSuppressionV3Op, tf::NonMaxSuppressionV4Op, tf::NonMaxSuppressionV5Op>(op)) {
    auto selected = cast<RankedTensorType>(op->getResult(0).getType());
    auto boxes = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!boxes || !boxes.hasStaticShape())
      return success();
    if (auto it = sizes.find(op->getOperand(1)); it != sizes.end()) {
      // Padded scores: the padding is never a candidate.
      b.setInsertionPoint(op);
      op->setOperand(1, masked(op->getOperand(1), it->second, extreme(b.getF32Type(), false)));
      b.setInsertionPointAfter(op);
    }
    if (selected.hasStaticShape())
      return success(); // padded to a constant max_output_size, as TensorFlow pads
    if (auto pad = op->getAttrOfType<BoolAttr>("pad_to_max_output_size"); pad && pad.getValue())
      return op->emitError() << "max_output_size must be a constant when "
                                "pad_to_max_output_size is true";
    int64_t natural = boxes.getDimSize(0);
    if (auto max = tf::constantIntsOf(op->getOperand(2)))
      natural = std::min(natural, (*max)[0]);
    int64_t bound = boundFor(op, natural);
    // Below the natural bound, one more row tells that --bound was too small.
    int64_t rows = bound < natural ? bound + 1 : bound;
    if (bound < natural) {
      b.setInsertionPoint(op);
      op->setOperand(2, binary("Minimum", op->getOperand(2), scalar(rows)));
      b.setInsertionPointAfter(op);
    }
    Value count;
    if (auto v3 = dyn_cast<tf::NonMaxSuppressionV3Op>(op)) {
      // V3 is V4 without its count.
      OperationState state(op->getLoc(), "tf.NonMaxSuppressionV4");
      state.addOperands(op->getOperands());
      state.addTypes({RankedTensorType::get({rows}, b.getI32Type()),
                      RankedTensorType::get({}, b.getI32Type())});
      b.setInsertionPoint(op);
      Operation *v4 = b.create(state);
      op->getResult(0).replaceAllUsesWith(v4->getResult(0));
      op->erase();
      op = v4;
      origin = op;
      b.setInsertionPointAfter(op);
      count = v4->getResult(1);
    } else {
      setShape(op->getResult(0), {rows});
      if (isa<tf::NonMaxSuppressionV5Op>(op))
        setShape(op->getResult(1), {rows});
      count = op->getResults().back();
    }
    if (bound < natural)
      checkBound(op, count, bound, "it selects at least {value} boxes");
    setSizes(op->getResult(0), {count});
    if (isa<tf::NonMaxSuppressionV5Op>(op))
      setSizes(op->getResult(1), {count});
    return success();
  }
  if (auto topk = dyn_cast<tf::TopKV2Op>(op)) {
    if (sizes.count(topk.getInput()) || tf::constantIntsOf(topk.getK()))
      return handled = false, success();
    auto input = dyn_cast<RankedTensorType>(topk.getInput().getType());
    if (!input || !input.hasStaticShape())
      return success();
    return topK(topk);
  }
  handled = false;
  return success();
}

LogicalResult Padder::elementwise(Operation *op) {
  if (auto checks = dyn_cast<tf::RuntimeChecksInterface>(op)) {
    SmallVector<tf::RuntimeCheck> list;
    checks.getRuntimeChecks(list);
    if (!list.empty())
      for (Value operand : op->getOperands())
        if (sizes.count(operand))
          return unsupported(op, operand); // its padding would fail the check
  }
  if (failed(reinfer(op)))
    return failure();
  for (Value result : op->getResults()) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type)
      continue;
    int64_t rank = type.getRank();
    Sizes s(rank);
    for (Value operand : cast<tf::GraphOpInterface>(op).getDataInputs()) {
      auto it = sizes.find(operand);
      if (it == sizes.end())
        continue;
      auto operandType = cast<RankedTensorType>(operand.getType());
      int64_t offset = rank - operandType.getRank();
      for (int64_t d = 0; d < operandType.getRank(); ++d)
        if (it->second[d] && operandType.getDimSize(d) == type.getDimSize(offset + d) &&
            !s[offset + d])
          s[offset + d] = it->second[d];
    }
    // A static operand as large as a padded dimension's bound (not broadcast) would need
    // the size to be that bound.
    for (Value operand : cast<tf::GraphOpInterface>(op).getDataInputs()) {
      if (sizes.count(operand))
        continue;
      auto operandType = dyn_cast<RankedTensorType>(operand.getType());
      if (!operandType)
        continue;
      int64_t offset = rank - operandType.getRank();
      for (int64_t d = 0; d < operandType.getRank(); ++d)
        if (s[offset + d] && operandType.getDimSize(d) != 1)
          return op->emitError() << "combines a tensor of value-dependent size with one of static "
                                    "size "
                                 << operandType.getDimSize(d) << " in dimension " << offset + d
                                 << "; Kiln cannot check at compile time that they agree";
    }
    setSizes(result, s);
  }
  return success();
}

LogicalResult Padder::reduction(Operation *op, Value input, Value axesValue, bool keepDims,
                                Value identity, bool mean) {
  auto type = cast<RankedTensorType>(input.getType());
  const Sizes &s = sizes[input];
  auto axesList = tf::constantIntsOf(axesValue);
  if (!axesList)
    return unsupported(op, input);
  int64_t rank = type.getRank();
  SmallVector<bool> reduced(rank, false);
  for (int64_t a : *axesList)
    reduced[(a % rank + rank) % rank] = true;
  Sizes kept = s;
  bool masking = false;
  for (int64_t d = 0; d < rank; ++d)
    if (reduced[d] && s[d]) {
      masking = true;
      kept[d] = Value();
    }
  b.setInsertionPoint(op);
  loc = op->getLoc();
  if (masking) {
    Sizes only(rank);
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d])
        only[d] = s[d];
    op->setOperand(0, masked(input, only, identity));
  }
  if (mean && masking) {
    // Sum over the valid elements, divided by their number.
    Value count = scalar(1);
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d])
        count = binary("Mul", count, s[d] ? s[d] : scalar(type.getDimSize(d)));
    OperationState state(op->getLoc(), "tf.Sum");
    state.addOperands(op->getOperands());
    state.addAttributes(op->getAttrs());
    Operation *sum = tf::createInferred(b, state);
    Type element = getElementTypeOrSelf(type);
    Value quotient = binary("RealDiv", sum->getResult(0), castTo(count, element));
    op->getResult(0).replaceAllUsesWith(quotient);
    op->erase();
    op = quotient.getDefiningOp();
  } else if (failed(reinfer(op))) {
    return failure();
  }
  Sizes out;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d] || keepDims)
      out.push_back(reduced[d] ? Value() : kept[d]);
  setSizes(op->getResult(0), out);
  return success();
}

LogicalResult Padder::reshape(tf::ReshapeOp op) {
  Value input = op.getTensor();
  auto type = cast<RankedTensorType>(input.getType());
  const Sizes &s = sizes[input];
  int64_t inRest = 1; // the elements of one row along the padded dimension
  for (int64_t d = 1; d < type.getRank(); ++d) {
    if (s[d])
      return unsupported(op, input); // only a leading padded dimension keeps its layout
    inRest *= type.getDimSize(d);
  }
  // The target shape: constants and at most one unknown (-1 or a size), which must lead.
  SmallVector<int64_t> target;
  if (auto c = tf::constantIntsOf(op.getShape())) {
    target = *c;
  } else if (auto it = shapes.find(op.getShape()); it != shapes.end()) {
    const ShapeParts &parts = it->second;
    for (auto [i, part] : llvm::enumerate(parts.parts))
      target.push_back(part ? -1 : parts.constants[i]);
    // [size of x's first dimension, ..., -1, ...], as Flatten writes it: the -1 is what the
    // static dimensions leave.
    if (parts.parts[0] == s[0] && llvm::count(target, -1) == 2) {
      int64_t known = 1;
      for (int64_t v : ArrayRef(target).drop_front())
        known *= v == -1 ? 1 : v;
      auto rest = llvm::find(ArrayRef(target).drop_front(), -1);
      if (known == 0 || inRest % known != 0)
        return unsupported(op, input);
      target[rest - target.begin()] = inRest / known;
    }
  } else {
    return unsupported(op, input);
  }
  if (target.empty() || llvm::count(target, -1) > 1 ||
      llvm::any_of(ArrayRef(target).drop_front(), [](int64_t v) { return v < 0; }))
    return unsupported(op, input);
  int64_t outRest = 1;
  for (int64_t v : ArrayRef(target).drop_front())
    outRest *= v;
  if (outRest == 0 || (type.getDimSize(0) * inRest) % outRest != 0)
    return unsupported(op, input);
  int64_t bound = type.getDimSize(0) * inRest / outRest;
  b.setInsertionPoint(op);
  loc = op.getLoc();
  target[0] = bound;
  op->setOperand(1, constant(target, {int64_t(target.size())}, b.getI32Type()));
  setShape(op.getOutput(), target);
  Value size = binary("Mul", s[0], scalar(inRest));
  if (outRest != 1)
    size = binary("FloorDiv", size, scalar(outRest));
  Sizes out(target.size());
  out[0] = size;
  setSizes(op.getOutput(), out);
  return success();
}

LogicalResult Padder::gather(tf::GatherV2Op op) {
  Value params = op.getParams(), indices = op.getIndices();
  auto axisList = tf::constantIntsOf(op.getAxis());
  if (!axisList || op.getBatchDims() != 0)
    return unsupported(op, sizes.count(params) ? params : indices);
  auto paramsType = cast<RankedTensorType>(params.getType());
  int64_t rank = paramsType.getRank();
  int64_t axis = ((*axisList)[0] % rank + rank) % rank;
  Sizes paramSizes = sizes.count(params) ? sizes[params] : Sizes(rank);
  auto indicesType = cast<RankedTensorType>(indices.getType());
  Sizes indexSizes = sizes.count(indices) ? sizes[indices] : Sizes(indicesType.getRank());
  b.setInsertionPoint(op);
  loc = op.getLoc();
  Value safe = indices;
  if (sizes.count(indices))
    safe = masked(indices, indexSizes, typedScalar(indicesType.getElementType(), 0));
  if (paramSizes[axis] && checks) {
    // Indices past the valid rows are TensorFlow's error too.
    Value past = binary("Sub", castTo(safe, b.getI32Type()), paramSizes[axis]);
    std::string message = nodeLabel(op) + ": indices{index} is past the " +
                          "value-dependent size of params' dimension " + std::to_string(axis) +
                          " (by {value} + 1)";
    checkBelow(past, 0, message);
  }
  op->setOperand(1, safe);
  if (failed(reinfer(op)))
    return failure();
  Sizes out;
  for (int64_t d = 0; d < axis; ++d)
    out.push_back(paramSizes[d]);
  out.append(indexSizes.begin(), indexSizes.end());
  for (int64_t d = axis + 1; d < rank; ++d)
    out.push_back(paramSizes[d]);
  setSizes(op.getOutput(), out);
  return success();
}

LogicalResult Padder::concat(tf::ConcatV2Op op) {
  auto axisList = tf::constantIntsOf(op.getInputsAndControls()[op.getN()]);
  auto outType = dyn_cast<RankedTensorType>(op.getOutput().getType());
  Value first;
  for (Value v : op.getValues())
    if (sizes.count(v))
      first = v;
  if (!axisList || !outType)
    return unsupported(op, first);
  int64_t rank = cast<RankedTensorType>(first.getType()).getRank();
  int64_t axis = ((*axisList)[0] % rank + rank) % rank;
  if (failed(reinfer(op)))
    return failure();
  outType = cast<RankedTensorType>(op.getOutput().getType());
  Sizes out(rank);
  bool alongAxis = false;
  for (Value v : op.getValues()) {
    if (!sizes.count(v))
      continue;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis && sizes[v][d])
        alongAxis = true;
      else if (sizes[v][d] && !out[d])
        out[d] = sizes[v][d];
    }
  }
  if (!alongAxis) {
    setSizes(op.getOutput(), out);
    return success();
  }
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && out[d])
      return unsupported(op, first);
  // Output row i comes from padded row j(i) = i + sum over inputs t before i's of
  // (bound_t - size_t).
  b.setInsertionPointAfter(op);
  loc = op.getLoc();
  int64_t total = outType.getDimSize(axis);
  SmallVector<int64_t> iota;
  for (int64_t i = 0; i < total; ++i)
    iota.push_back(i);
  Value rows = constant(iota, {total}, b.getI32Type());
  Value source = rows;
  Value size;
  auto values = op.getValues();
  for (auto [t, v] : llvm::enumerate(values)) {
    int64_t bound = cast<RankedTensorType>(v.getType()).getDimSize(axis);
    Value n = sizes.count(v) && sizes[v][axis] ? sizes[v][axis] : scalar(bound);
    size = size ? binary("AddV2", size, n) : n;
    if (t + 1 == values.size() || !(sizes.count(v) && sizes[v][axis]))
      continue;
    Value after = castTo(binary("GreaterEqual", rows, size), b.getI32Type());
    source = binary("AddV2", source, binary("Mul", after, binary("Sub", scalar(bound), n)));
  }
  source = binary("Minimum", source, scalar(total - 1));
  Value gathered = tf("GatherV2", {op.getOutput(), source, scalar(axis)});
  op.getOutput().replaceAllUsesExcept(gathered, gathered.getDefiningOp());
  out[axis] = size;
  setSizes(gathered, out);
  return success();
}

LogicalResult Padder::topK(tf::TopKV2Op op) {
  Value input = op.getInput();
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank(), bound = type.getDimSize(rank - 1);
  Sizes s = sizes.count(input) ? sizes[input] : Sizes(rank);
  b.setInsertionPoint(op);
  loc = op.getLoc();
  Value n = s[rank - 1] ? s[rank - 1] : scalar(bound);
  if (s[rank - 1]) {
    Sizes last(rank);
    last[rank - 1] = s[rank - 1];
    op->setOperand(0, masked(input, last, extreme(type.getElementType(), false)));
  }
  Value k = op.getK();
  int64_t kBound = std::min(bound, upperBound(k).value_or(bound));
  if (kBound < 0)
    return op.emitError() << "k must not be negative";
  // k at most the valid size, as TensorFlow requires.
  if (checks) {
    Value excess = binary("Sub", castTo(k, b.getI32Type()), n);
    std::string message =
        nodeLabel(op) + ": k is larger than the last dimension's value-dependent size (by {value})";
    checkBelow(excess, 1, message);
  }
  bool constantK = tf::constantIntsOf(k).has_value();
  Value kSize = castTo(k, b.getI32Type());
  if (!constantK)
    op->setOperand(1, constant({kBound}, {}, getElementTypeOrSelf(k.getType())));
  if (failed(reinfer(op)))
    return failure();
  Sizes out = s;
  out[rank - 1] = constantK ? Value() : kSize;
  setSizes(op.getValues(), out);
  setSizes(op.getIndices(), out);
  return success();
}

LogicalResult Padder::shapeArithmetic(Operation *op) {
  // An element of a shape vector: Shape(x)[i], as tf.shape(x)[0] writes it.
  if (auto slice = dyn_cast<tf::StridedSliceOp>(op)) {
    auto it = shapes.find(slice.getInput());
    auto begin = tf::constantIntsOf(slice.getBegin()),
         strides = tf::constantIntsOf(slice.getStrides());
    if (it == shapes.end() || !begin || !strides || begin->size() != 1 || (*strides)[0] != 1 ||
        slice.getShrinkAxisMask() != 1 || slice.getEllipsisMask() || slice.getNewAxisMask())
      return success();
    int64_t rank = it->second.parts.size(), i = (*begin)[0] < 0 ? (*begin)[0] + rank : (*begin)[0];
    if (i >= 0 && i < rank && it->second.parts[i])
      scalars[slice.getOutput()] = it->second.parts[i];
    return success();
  }
  // A shape vector packed from sizes and constants.
  if (auto pack = dyn_cast<tf::PackOp>(op)) {
    ShapeParts parts;
    bool any = false;
    for (Value v : pack.getValues()) {
      auto c = tf::constantIntsOf(v);
      Value size = scalars.lookup(v);
      if (!size && (!c || c->size() != 1))
        return success();
      any |= bool(size);
      parts.parts.push_back(size);
      parts.constants.push_back(size ? 0 : (*c)[0]);
    }
    if (any)
      shapes[pack.getOutput()] = std::move(parts);
    return success();
  }
  // Fill of such a shape: padded at its bounds.
  if (auto fill = dyn_cast<tf::FillOp>(op)) {
    auto it = shapes.find(fill.getDims());
    if (it == shapes.end())
      return success();
    SmallVector<int64_t> bounds;
    for (auto [part, value] : llvm::zip(it->second.parts, it->second.constants))
      bounds.push_back(part ? boundOf(part) : value);
    b.setInsertionPoint(op);
    loc = op->getLoc();
    Type index = getElementTypeOrSelf(fill.getDims().getType());
    fill->setOperand(0, constant(bounds, {int64_t(bounds.size())}, index));
    setShape(fill.getOutput(), bounds);
    origin = originOf(it->second.parts);
    setSizes(fill.getOutput(), Sizes(it->second.parts.begin(), it->second.parts.end()));
    return success();
  }
  // Range(0, size, 1): the bound's iota, padded.
  if (auto range = dyn_cast<tf::RangeOp>(op)) {
    Value size = scalars.lookup(range.getLimit());
    auto start = tf::constantIntsOf(range.getStart()), delta = tf::constantIntsOf(range.getDelta());
    if (!size || !start || !delta || (*start)[0] != 0 || (*delta)[0] != 1)
      return success();
    int64_t bound = boundOf(size);
    SmallVector<int64_t> iota;
    for (int64_t i = 0; i < bound; ++i)
      iota.push_back(i);
    b.setInsertionPoint(op);
    loc = op->getLoc();
    Value values = constant(iota, {bound}, getElementTypeOrSelf(range.getOutput().getType()));
    range.getOutput().replaceAllUsesWith(values);
    range->erase();
    origin = originOf({size});
    setSizes(values, {size});
    return success();
  }
  return success();
}

std::optional<std::pair<Value, int64_t>> Padder::owner(Value size) {
  for (auto &[value, s] : sizes)
    for (auto [d, v] : llvm::enumerate(s))
      if (v && v == size)
        return std::pair<Value, int64_t>(value, d);
  return std::nullopt;
}

Operation *Padder::originOf(ArrayRef<Value> parts) {
  for (Value size : parts)
    if (auto found = size ? owner(size) : std::nullopt)
      return origins.lookup(found->first);
  return nullptr;
}

LogicalResult Padder::consumer(Operation *op) {
  Value padded;
  for (Value operand : op->getOperands())
    if (sizes.count(operand))
      padded = operand;
  if (!padded)
    return shapeArithmetic(op);
  loc = op->getLoc();
  b.setInsertionPoint(op);
  origin = origins.lookup(padded);
  if (op->hasTrait<tf::traits::Elementwise>())
    return elementwise(op);
  if (auto sum = dyn_cast<tf::SumOp>(op))
    return reduction(op, sum.getInput(), sum.getReductionIndices(), sum.getKeepDims(),
                     typedScalar(getElementTypeOrSelf(sum.getInput().getType()), 0), false);
  if (auto mean = dyn_cast<tf::MeanOp>(op)) {
    Type element = getElementTypeOrSelf(mean.getInput().getType());
    if (!isa<FloatType>(element))
      return unsupported(op, padded);
    return reduction(op, mean.getInput(), mean.getReductionIndices(), mean.getKeepDims(),
                     typedScalar(element, 0), true);
  }
  if (auto prod = dyn_cast<tf::ProdOp>(op))
    return reduction(op, prod.getInput(), prod.getReductionIndices(), prod.getKeepDims(),
                     typedScalar(getElementTypeOrSelf(prod.getInput().getType()), 1), false);
  if (auto max = dyn_cast<tf::MaxOp>(op))
    return reduction(op, max.getInput(), max.getReductionIndices(), max.getKeepDims(),
                     extreme(getElementTypeOrSelf(max.getInput().getType()), false), false);
  if (auto min = dyn_cast<tf::MinOp>(op))
    return reduction(op, min.getInput(), min.getReductionIndices(), min.getKeepDims(),
                     extreme(getElementTypeOrSelf(min.getInput().getType()), true), false);
  if (auto any = dyn_cast<tf::AnyOp>(op))
    return reduction(op, any.getInput(), any.getReductionIndices(), any.getKeepDims(),
                     typedScalar(b.getI1Type(), 0), false);
  if (auto all = dyn_cast<tf::AllOp>(op))
    return reduction(op, all.getInput(), all.getReductionIndices(), all.getKeepDims(),
                     typedScalar(b.getI1Type(), 1), false);
  if (isa<tf::ArgMaxOp, tf::ArgMinOp>(op)) {
    bool isMax = isa<tf::ArgMaxOp>(op);
    Value input = op->getOperand(0);
    return reduction(op, input, op->getOperand(1), false,
                     extreme(getElementTypeOrSelf(input.getType()), !isMax), false);
  }
  if (auto reshape = dyn_cast<tf::ReshapeOp>(op); reshape && padded == reshape.getTensor())
    return this->reshape(reshape);
  if (auto gather = dyn_cast<tf::GatherV2Op>(op); gather && padded != gather.getAxis())
    return this->gather(gather);
  if (auto concat = dyn_cast<tf::ConcatV2Op>(op))
    return this->concat(concat);
  if (auto topk = dyn_cast<tf::TopKV2Op>(op); topk && padded == topk.getInput())
    return topK(topk);
  if (auto squeeze = dyn_cast<tf::SqueezeOp>(op)) {
    const Sizes &s = sizes[squeeze.getInput()];
    auto type = cast<RankedTensorType>(squeeze.getInput().getType());
    SmallVector<int64_t> dims;
    if (auto list = squeeze.getSqueezeDims())
      for (Attribute a : *list)
        dims.push_back((cast<IntegerAttr>(a).getInt() % type.getRank() + type.getRank()) %
                       type.getRank());
    Sizes out;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      bool gone = dims.empty() ? type.getDimSize(d) == 1 : llvm::is_contained(dims, d);
      if (gone && s[d])
        return unsupported(op, padded);
      if (!gone)
        out.push_back(s[d]);
    }
    if (failed(reinfer(op)))
      return failure();
    setSizes(squeeze.getOutput(), out);
    return success();
  }
  if (auto expand = dyn_cast<tf::ExpandDimsOp>(op); expand && padded == expand.getInput()) {
    auto dim = tf::constantIntsOf(expand.getDim());
    if (!dim)
      return unsupported(op, padded);
    Sizes out = sizes[padded];
    int64_t rank = out.size() + 1, at = ((*dim)[0] % rank + rank) % rank;
    out.insert(out.begin() + at, Value());
    if (failed(reinfer(op)))
      return failure();
    setSizes(expand.getOutput(), out);
    return success();
  }
  if (auto transpose = dyn_cast<tf::TransposeOp>(op); transpose && padded == transpose.getX()) {
    auto perm = tf::constantIntsOf(transpose.getPerm());
    if (!perm)
      return unsupported(op, padded);
    Sizes out;
    for (int64_t p : *perm)
      out.push_back(sizes[padded][p]);
    if (failed(reinfer(op)))
      return failure();
    setSizes(transpose.getY(), out);
    return success();
  }
  if (auto pack = dyn_cast<tf::PackOp>(op)) {
    Sizes s = sizes[padded];
    for (Value v : pack.getValues())
      if (!sizes.count(v))
        return op->emitError() << "packs tensors of value-dependent size with static ones";
    int64_t rank = s.size() + 1, at = (pack.getAxis() % rank + rank) % rank;
    s.insert(s.begin() + at, Value());
    if (failed(reinfer(op)))
      return failure();
    setSizes(pack.getOutput(), s);
    return success();
  }
  if (isa<tf::CumsumOp, tf::CumprodOp>(op) && padded == op->getOperand(0)) {
    auto axis = tf::constantIntsOf(op->getOperand(1));
    int64_t rank = sizes[padded].size();
    if (!axis || (op->getAttrOfType<BoolAttr>("reverse").getValue() &&
                  sizes[padded][((*axis)[0] % rank + rank) % rank]))
      return unsupported(op, padded); // a reverse scan would start in the padding
    if (failed(reinfer(op)))
      return failure();
    setSizes(op->getResult(0), sizes[padded]);
    return success();
  }
  if (auto shape = dyn_cast<tf::ShapeOp>(op)) {
    b.setInsertionPoint(op);
    auto type = cast<RankedTensorType>(padded.getType());
    Type element = getElementTypeOrSelf(shape.getOutput().getType());
    ShapeParts parts;
    SmallVector<Value> scalars;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value size = sizes[padded][d];
      parts.parts.push_back(size);
      parts.constants.push_back(size ? 0 : type.getDimSize(d));
      scalars.push_back(size ? castTo(size, element) : typedScalar(element, type.getDimSize(d)));
    }
    Value packed = tf("Pack", scalars,
                      {b.getNamedAttr("N", b.getI64IntegerAttr(scalars.size())),
                       b.getNamedAttr("axis", b.getI64IntegerAttr(0))});
    shape.getOutput().replaceAllUsesWith(packed);
    shape->erase();
    shapes[packed] = std::move(parts);
    return success();
  }
  if (auto size = dyn_cast<tf::SizeOp>(op)) {
    b.setInsertionPoint(op);
    auto type = cast<RankedTensorType>(padded.getType());
    Value product = scalar(1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      product =
          binary("Mul", product, sizes[padded][d] ? sizes[padded][d] : scalar(type.getDimSize(d)));
    Value result = castTo(product, getElementTypeOrSelf(size.getOutput().getType()));
    size.getOutput().replaceAllUsesWith(result);
    size->erase();
    return success();
  }
  if (auto gatherNd = dyn_cast<tf::GatherNdOp>(op);
      gatherNd && padded == gatherNd.getIndices() && !sizes.count(gatherNd.getParams())) {
    const Sizes &s = sizes[padded];
    if (s.back())
      return unsupported(op, padded);
    b.setInsertionPoint(op);
    auto type = cast<RankedTensorType>(padded.getType());
    op->setOperand(1, masked(padded, s, typedScalar(type.getElementType(), 0)));
    if (failed(reinfer(op)))
      return failure();
    auto outType = cast<RankedTensorType>(op->getResult(0).getType());
    Sizes out(s.begin(), s.end() - 1);
    out.resize(outType.getRank());
    setSizes(op->getResult(0), out);
    return success();
  }
  if (isa<func::ReturnOp>(op))
    return success(); // fetches() handles them
  return unsupported(op, padded);
}

LogicalResult Padder::visit(Operation *op) {
  bool handled = false;
  if (failed(source(op, handled)))
    return failure();
  if (handled)
    return success();
  // A padded value used inside a region (a loop or conditional body) is not rewritten.
  for (Region &region : op->getRegions()) {
    WalkResult walk = region.walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (sizes.count(operand)) {
          (void)unsupported(op, operand);
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return consumer(op);
}

/// `v` (padded by `s`) with its valid elements moved to the front in row-major order of
/// its actual shape: a gather of the flattened tensor at each element's padded position.
Value Padder::compact(Value v, const Sizes &s) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t total = type.getNumElements(), rank = type.getRank();
  SmallVector<int64_t> iota;
  for (int64_t i = 0; i < total; ++i)
    iota.push_back(i);
  Value rest = constant(iota, {total}, b.getI32Type());
  Value position = scalar(0);
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    Value size = s[d] ? binary("Maximum", s[d], scalar(1)) : scalar(type.getDimSize(d));
    Value coordinate = binary("FloorMod", rest, size);
    rest = binary("FloorDiv", rest, size);
    position = binary("AddV2", position, binary("Mul", coordinate, scalar(stride)));
    stride *= type.getDimSize(d);
  }
  position = binary("Minimum", position, scalar(total - 1));
  Value flat = tf("Reshape", {v, constant({total}, {1}, b.getI32Type())});
  Value gathered = tf("GatherV2", {flat, position, scalar(0)});
  SmallVector<int64_t> dims(type.getShape());
  return tf("Reshape", {gathered, constant(dims, {rank}, b.getI32Type())});
}

LogicalResult Padder::fetches(SmallVectorImpl<std::pair<unsigned, unsigned>> &shapeOutputs) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  b.setInsertionPoint(ret);
  loc = ret.getLoc();
  SmallVector<Value> results(ret.getOperands());
  unsigned count = results.size();
  for (unsigned i = 0; i < count; ++i) {
    auto it = sizes.find(results[i]);
    if (it == sizes.end())
      continue;
    Sizes s = it->second;
    bool leading = llvm::all_of(ArrayRef(s).drop_front(), [](Value v) { return !v; });
    if (!leading)
      results[i] = compact(results[i], s);
    auto type = cast<RankedTensorType>(results[i].getType());
    SmallVector<Value> dims;
    for (int64_t d = 0; d < type.getRank(); ++d)
      dims.push_back(castTo(s[d] ? s[d] : scalar(type.getDimSize(d)), b.getI64Type()));
    Value shape = tf("Pack", dims,
                     {b.getNamedAttr("N", b.getI64IntegerAttr(dims.size())),
                      b.getNamedAttr("axis", b.getI64IntegerAttr(0))});
    shapeOutputs.push_back({i, unsigned(results.size())});
    results.push_back(shape);
  }
  if (shapeOutputs.empty())
    return success();
  ret->setOperands(results);
  func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                 ValueRange(results).getTypes()));
  return success();
}

LogicalResult Padder::run(SmallVectorImpl<std::pair<unsigned, unsigned>> &shapeOutputs) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return success();
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front())
    ops.push_back(&op);
  for (Operation *op : ops)
    if (failed(visit(op)))
      return failure();
  return fetches(shapeOutputs);
}

struct BoundSizesPass : graph::impl::BoundSizesPassBase<BoundSizesPass> {
  using BoundSizesPassBase::BoundSizesPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringMap<int64_t> given;
    for (const std::string &entry : bounds) {
      StringRef text(entry);
      auto [node, value] = text.rsplit('=');
      int64_t n;
      if (node.empty() || value.getAsInteger(10, n) || n < 0) {
        module.emitError() << "--bound '" << entry << "' must be NODE=N with N >= 0";
        return signalPassFailure();
      }
      given[node] = n;
    }
    llvm::StringSet<> used;
    auto model = dialect::getModel(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      SmallVector<std::pair<unsigned, unsigned>> shapeOutputs;
      Padder padder(func, given, used, runtimeChecks);
      if (failed(padder.run(shapeOutputs)))
        return signalPassFailure();
      if (shapeOutputs.empty() || !model)
        continue;
      for (auto entry : model.getBody().getOps<dialect::EntryOp>()) {
        if (entry.getFunction() != func.getSymName())
          continue;
        SmallVector<Attribute> fetches(entry.getFetches().begin(), entry.getFetches().end());
        for (auto [output, shape] : shapeOutputs) {
          auto fetch = cast<dialect::TensorAttr>(fetches[output]);
          fetches[output] = dialect::TensorAttr::get(fetch.getContext(), fetch.getName(),
                                                     fetch.getAlias(), fetch.getType(), shape);
          fetches.push_back(dialect::TensorAttr::get(fetch.getContext(),
                                                     (fetch.getName() + "/shape").str(),
                                                     StringAttr(), RankedTensorType(), -1));
        }
        entry.setFetchesAttr(ArrayAttr::get(module.getContext(), fetches));
      }
    }
    for (const auto &bound : given)
      if (!used.contains(bound.first())) {
        module.emitError() << "--bound " << bound.first() << "=" << bound.second
                           << ": the graph has no node '" << bound.first()
                           << "' whose result size depends on values (Where, Unique, a "
                              "non-max suppression, TopKV2 with a fed k)";
        return signalPassFailure();
      }
  }
};

} // namespace
