//===- Structure.cpp - Placeholder, Const, Identity, NoOp ---------------------===//
#include "dialects/TF/TFOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::tf {

LogicalResult InferContext::requireTensorOperands(unsigned count) const {
  if (operands.size() < count)
    return error("expects ", count, " data inputs, got ", operands.size());
  for (unsigned i = 0; i < count; ++i)
    if (!isa<TensorType>(operands[i].getType()))
      return error("input ", i, " must be a tensor, got ", operands[i].getType());
  return success();
}

FailureOr<TensorType> InferContext::firstInput(unsigned count) const {
  if (failed(requireTensorOperands(count)))
    return failure();
  auto x = cast<TensorType>(operandType(0));
  if (failed(checkTypeAttr("T", x.getElementType())))
    return failure();
  return x;
}

FailureOr<std::pair<TensorType, TensorType>> InferContext::twoInputs(StringRef what) const {
  if (failed(requireTensorOperands(2)))
    return failure();
  auto a = cast<TensorType>(operandType(0)), b = cast<TensorType>(operandType(1));
  if (failed(checkSameElementType(a, b, what)))
    return failure();
  return std::make_pair(a, b);
}

LogicalResult InferContext::checkTypeAttr(StringRef name, Type actual) const {
  Attribute raw = attributes ? attributes.get(name) : Attribute();
  if (!raw)
    return success();
  auto typeAttr = dyn_cast<TypeAttr>(raw);
  if (!typeAttr)
    return error("attribute '", name, "' must be a dtype (type: DT_...), got ", raw);
  if (typeAttr.getValue() != actual)
    return error("attribute ", name, " = ", typeAttr.getValue(),
                 " does not match the input element type ", actual);
  return success();
}

FailureOr<ValueRange> InferContext::listValues() const {
  auto n = attr<IntegerAttr>("N");
  if (!n)
    return error("requires the list length attribute 'N'");
  if (n.getInt() < 1 || n.getInt() > static_cast<int64_t>(operands.size()))
    return error("N = ", n.getInt(), " but the op has ", operands.size(), " operands");
  return operands.take_front(n.getInt());
}

std::optional<SmallVector<int64_t>> constantIntsOf(Value value) {
  auto c = value ? value.getDefiningOp<ConstOp>() : ConstOp();
  auto values = c ? dyn_cast<DenseIntElementsAttr>(c.getValue()) : DenseIntElementsAttr();
  if (!values)
    return std::nullopt;
  SmallVector<int64_t> result;
  for (const APInt &v : values.getValues<APInt>())
    result.push_back(v.getSExtValue());
  return result;
}

std::optional<SmallVector<int64_t>> InferContext::constantInts(unsigned index) const {
  if (index >= operands.size())
    return std::nullopt;
  return constantIntsOf(operands[index]);
}

std::optional<SmallVector<int64_t>> InferContext::intList(StringRef name) const {
  auto list = attr<ArrayAttr>(name);
  if (!list)
    return std::nullopt;
  SmallVector<int64_t> result;
  for (Attribute a : list) {
    auto i = dyn_cast<IntegerAttr>(a);
    if (!i)
      return std::nullopt;
    result.push_back(i.getInt());
  }
  return result;
}

LogicalResult InferContext::checkSameElementType(TensorType a, TensorType b, StringRef what) const {
  if (a.getElementType() != b.getElementType())
    return error(what, " have different element types: ", a.getElementType(), " and ",
                 b.getElementType());
  return checkTypeAttr("T", a.getElementType());
}

std::optional<int64_t> boundedElementCount(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d) || d == 0)
      continue;
    if (d > kMaxTensorElements / count)
      return std::nullopt;
    count *= d;
  }
  return count;
}

LogicalResult checkInferredTypes(const InferContext &ctx, ArrayRef<Type> types) {
  for (auto [index, type] : llvm::enumerate(types)) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      continue;
    ArrayRef<int64_t> shape = tensor.getShape();
    bool negative =
        llvm::any_of(shape, [](int64_t d) { return d < 0 && !ShapedType::isDynamic(d); });
    bool empty = llvm::is_contained(shape, 0);
    if (!negative && (empty || boundedElementCount(shape)))
      continue;
    if (negative)
      return ctx.error("output ", index, " would have the shape ", describeDims(shape),
                       ", with a negative dimension");
    return ctx.error("output ", index, " would have the shape ", describeDims(shape),
                     ", more than 2^48 (", kMaxTensorElements, ") elements");
  }
  return success();
}

std::string InferContext::nodePrefix() const {
  auto name = location ? dyn_cast<NameLoc>(*location) : NameLoc();
  if (!name)
    return "";
  StringRef op = opName;
  op.consume_front("tf.");
  return ("node '" + name.getName().strref() + "' (" + op + "): ").str();
}

std::string describeDims(ArrayRef<int64_t> dims) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleave(
      dims, os, [&](int64_t d) { ShapedType::isDynamic(d) ? os << "?" : os << d; }, ",");
  os << "]";
  return text;
}

std::string describeType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto tensor = dyn_cast<TensorType>(type);
  Type element = tensor ? tensor.getElementType() : type;
  if (element.isF32())
    os << "float32";
  else if (element.isF64())
    os << "float64";
  else if (element.isF16())
    os << "float16";
  else if (element.isBF16())
    os << "bfloat16";
  else if (element.isInteger(1))
    os << "bool";
  else if (auto i = dyn_cast<IntegerType>(element))
    os << (i.isUnsigned() ? "uint" : "int") << i.getWidth();
  else if (isa<ControlType>(element))
    os << "a control edge";
  else
    element.print(os);
  if (!tensor)
    return text;
  os << (tensor.hasRank() ? " " + describeDims(tensor.getShape()) : " (unknown shape)");
  return text;
}

std::string describeAttribute(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!attr || isa<UnitAttr>(attr))
    os << "no value";
  else if (auto b = dyn_cast<BoolAttr>(attr))
    os << "a bool (" << (b.getValue() ? "true" : "false") << ")";
  else if (auto i = dyn_cast<IntegerAttr>(attr))
    os << "an integer (" << i.getValue() << ")";
  else if (auto f = dyn_cast<FloatAttr>(attr))
    os << "a float (" << f.getValueAsDouble() << ")";
  else if (auto s = dyn_cast<StringAttr>(attr))
    os << "a string (\"" << s.getValue() << "\")";
  else if (auto t = dyn_cast<TypeAttr>(attr))
    os << "a dtype (" << describeType(t.getValue()) << ")";
  else if (auto shape = dyn_cast<ShapeAttr>(attr))
    os << "a shape (" << (shape.hasRank() ? describeDims(shape.getDims()) : "unknown rank") << ")";
  else if (auto list = dyn_cast<ArrayAttr>(attr))
    os << "a list of " << list.size() << " value" << (list.size() == 1 ? "" : "s");
  else if (auto values = dyn_cast<DenseElementsAttr>(attr);
           values && values.getNumElements() <= 16 &&
           isa<IntegerType, FloatType>(values.getElementType())) {
    // A few values, as TensorFlow prints them: "[5, 2]", or "7" for a scalar.
    auto type = values.getType();
    if (type.getRank() > 0)
      os << "[";
    if (isa<IntegerType>(values.getElementType()))
      llvm::interleaveComma(values.getValues<APInt>(), os, [&](const APInt &v) {
        v.print(os, !values.getElementType().isUnsignedInteger());
      });
    else
      llvm::interleaveComma(values.getValues<APFloat>(), os,
                            [&](const APFloat &v) { os << v.convertToDouble(); });
    if (type.getRank() > 0)
      os << "]";
  } else if (auto tensor = dyn_cast<ElementsAttr>(attr))
    os << "a tensor (" << describeType(tensor.getType()) << ")";
  else if (auto symbol = dyn_cast<FlatSymbolRefAttr>(attr))
    os << "a function (" << symbol.getValue() << ")";
  else
    attr.print(os);
  return text;
}

bool areCompatibleResultTypes(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [l, r] : llvm::zip(lhs, rhs)) {
    auto lt = dyn_cast<TensorType>(l), rt = dyn_cast<TensorType>(r);
    if (!lt || !rt) {
      if (l != r)
        return false;
      continue;
    }
    if (lt.getElementType() != rt.getElementType() || failed(verifyCompatibleShape(lt, rt)))
      return false;
  }
  return true;
}

/// The default's type, refined by the declared shape, which it must match (TensorFlow's
/// shape function merges the two and fails when they differ).
LogicalResult inferPlaceholderWithDefault(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(1)))
    return failure();
  auto input = cast<TensorType>(ctx.operandType(0));
  if (failed(ctx.checkTypeAttr("dtype", input.getElementType())))
    return failure();
  auto shape = ctx.attr<ShapeAttr>("shape");
  if (!shape || !shape.hasRank()) {
    out.push_back(input);
    return success();
  }
  TensorType declared = shape.toTensorType(input.getElementType());
  if (failed(verifyCompatibleShape(input, declared))) {
    return ctx.error("the default value's shape ",
                     input.hasRank() ? describeDims(input.getShape()) : "(unknown rank)",
                     " does not match the declared shape ", describeDims(declared.getShape()));
  }
  if (!input.hasRank()) {
    out.push_back(declared);
    return success();
  }
  SmallVector<int64_t> dims;
  for (auto [a, b] : llvm::zip(input.getShape(), declared.getShape()))
    dims.push_back(ShapedType::isDynamic(a) ? b : a);
  out.push_back(RankedTensorType::get(dims, input.getElementType()));
  return success();
}

LogicalResult inferPlaceholder(const InferContext &ctx, InferResult &out) {
  auto dtype = ctx.requireAttr<TypeAttr>("dtype", "a dtype (type: DT_...)");
  if (failed(dtype))
    return failure();
  if (auto shape = ctx.attr<ShapeAttr>("shape"))
    out.push_back(shape.toTensorType(dtype->getValue()));
  else
    out.push_back(UnrankedTensorType::get(dtype->getValue()));
  return success();
}

LogicalResult inferConst(const InferContext &ctx, InferResult &out) {
  auto value = ctx.attr<ElementsAttr>("value");
  if (!value)
    return ctx.error("requires a tensor 'value' attribute");
  if (failed(ctx.checkTypeAttr("dtype", value.getElementType())))
    return failure();
  out.push_back(value.getType());
  return success();
}

LogicalResult inferSameAsFirstOperand(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  out.push_back(*input);
  return success();
}

LogicalResult inferIdentityN(const InferContext &ctx, InferResult &out) {
  auto types = ctx.attr<ArrayAttr>("T");
  if (!types)
    return ctx.error("requires the type list attribute 'T'");
  if (types.size() > ctx.operands.size())
    return ctx.error("T lists ", types.size(), " types but the op has ", ctx.operands.size(),
                     " operands");
  for (auto [i, t] : llvm::enumerate(types)) {
    auto tensor = dyn_cast<TensorType>(ctx.operandType(i));
    auto declared = dyn_cast<TypeAttr>(t);
    if (!tensor || !declared)
      return ctx.error("input ", i, " must be a tensor with its type in T");
    if (declared.getValue() != tensor.getElementType())
      return ctx.error("T[", i, "] = ", declared.getValue(), " does not match input ", i,
                       " of type ", tensor);
    out.push_back(tensor);
  }
  return success();
}

LogicalResult inferNoResults(const InferContext &, InferResult &) { return success(); }

LogicalResult inferRecv(const InferContext &ctx, InferResult &out) {
  auto type = ctx.attr<TypeAttr>("tensor_type");
  if (!type)
    return ctx.error("requires the element type attribute 'tensor_type'");
  out.push_back(UnrankedTensorType::get(type.getValue()));
  return success();
}

OpFoldResult IdentityOp::fold(FoldAdaptor) {
  // Control inputs order the op; keep it then.
  if (!getControlInputs().empty() || getInput().getType() != getOutput().getType())
    return {};
  return getInput();
}

LogicalResult IdentityNOp::fold(FoldAdaptor, SmallVectorImpl<OpFoldResult> &results) {
  if (!getControlInputs().empty() || getValues().getTypes() != getResultTypes())
    return failure();
  llvm::append_range(results, getValues());
  return success();
}

OpFoldResult PlaceholderWithDefaultOp::fold(FoldAdaptor) {
  // Not fed (a fed one is an argument by now): it is its default.
  if (!getControlInputs().empty() || getInput().getType() != getOutput().getType())
    return {};
  return getInput();
}

void AssertOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {
  if (getInputsAndControls().empty())
    return;
  Value condition = getInputsAndControls().front();
  auto type = dyn_cast<RankedTensorType>(condition.getType());
  if (type && type.getElementType().isInteger(1))
    checks.push_back({condition, "nonzero", {}, "assertion failed (the condition is false)"});
}

void CheckNumericsOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {
  Value tensor = getTensor();
  std::string prefix = getMessage().str() + " : Tensor had ";
  checks.push_back({tensor, "not_nan", {}, prefix + "NaN values (tensor{index} is NaN)"});
  checks.push_back({tensor, "not_inf", {}, prefix + "Inf values (tensor{index} is infinite)"});
}

} // namespace kiln::tf
