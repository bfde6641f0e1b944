//===- Lists.cpp - TensorList ops as dense tensors -----------------------------===//
//
// A TensorList of N elements of shape S is the tensor [N, S...]. Its type is known when
// both are; until then it is unranked, or ranked with unknown dimensions, and
// kiln-graph-resolve-lists finds them from everything the list meets.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"

using namespace mlir;

namespace kiln::tf {
namespace {

/// [n, element...], or unranked when the element's rank is unknown.
Type listType(int64_t n, std::optional<SmallVector<int64_t>> element, Type elementType) {
  if (!element)
    return UnrankedTensorType::get(elementType);
  SmallVector<int64_t> dims{n};
  dims.append(element->begin(), element->end());
  return RankedTensorType::get(dims, elementType);
}

/// The list type `list`, refined by the element shape `element` where it says more.
Type refineList(Type list, std::optional<SmallVector<int64_t>> element, int64_t n = -1) {
  auto tensor = cast<TensorType>(list);
  int64_t length = n >= 0 ? n : ShapedType::kDynamic;
  if (!tensor.hasRank())
    return element ? listType(length, element, tensor.getElementType()) : list;
  SmallVector<int64_t> dims(tensor.getShape());
  if (ShapedType::isDynamic(dims[0]))
    dims[0] = length;
  if (element && int64_t(element->size()) + 1 == tensor.getRank())
    for (auto [i, d] : llvm::enumerate(*element))
      if (ShapedType::isDynamic(dims[i + 1]))
        dims[i + 1] = d;
  return RankedTensorType::get(dims, tensor.getElementType());
}

} // namespace

std::optional<SmallVector<int64_t>> listElementShape(Value operand) {
  std::optional<SmallVector<int64_t>> dims = constantIntsOf(operand);
  auto type = dyn_cast<RankedTensorType>(operand.getType());
  if (!dims || !type || type.getRank() != 1)
    return std::nullopt; // a scalar -1: unknown rank
  for (int64_t &d : *dims)
    if (d < 0)
      d = ShapedType::kDynamic;
  return dims;
}

LogicalResult inferTensorListReserve(const InferContext &ctx, InferResult &out) {
  auto dtype = ctx.attr<TypeAttr>("element_dtype");
  if (!dtype)
    return ctx.error("requires the element type attribute 'element_dtype'");
  std::optional<SmallVector<int64_t>> n = ctx.constantInts(1);
  int64_t length = n && n->size() == 1 ? (*n)[0] : ShapedType::kDynamic;
  if (n && n->size() == 1 && length < 0)
    return ctx.error("num_elements is ", length, "; a list has a length of 0 or more");
  out.push_back(listType(length, listElementShape(ctx.operands[0]), dtype.getValue()));
  return success();
}

/// The list GetItem or Gather reads (operand 0; operand 1 is `what`), refined by the
/// element shape of operand 2, once its `element_dtype` is checked; failure (after an
/// error) where they do not fit.
static FailureOr<Type> readList(const InferContext &ctx, StringRef what) {
  auto dtype = ctx.attr<TypeAttr>("element_dtype");
  if (!dtype || failed(ctx.requireTensorOperands(3)))
    return ctx.error("takes a list, ", what, " and an element shape, with 'element_dtype'");
  auto list = cast<TensorType>(ctx.operandType(0));
  if (list.getElementType() != dtype.getValue())
    return ctx.error("element_dtype ", dtype.getValue(), " does not match the list's ",
                     list.getElementType());
  Type refined = refineList(list, listElementShape(ctx.operands[2]));
  if (auto ranked = dyn_cast<RankedTensorType>(refined); ranked && ranked.getRank() == 0)
    return ctx.error("the list must have a dimension for its elements");
  return refined;
}

LogicalResult inferTensorListGetItem(const InferContext &ctx, InferResult &out) {
  FailureOr<Type> list = readList(ctx, "an index");
  if (failed(list))
    return failure();
  auto ranked = dyn_cast<RankedTensorType>(*list);
  Type element = cast<TensorType>(*list).getElementType();
  out.push_back(ranked ? Type(RankedTensorType::get(ranked.getShape().drop_front(), element))
                       : Type(UnrankedTensorType::get(element)));
  return success();
}

LogicalResult inferTensorListSetItem(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto list = cast<TensorType>(ctx.operandType(0));
  auto item = cast<TensorType>(ctx.operandType(2));
  if (list.getElementType() != item.getElementType())
    return ctx.error("the item is ", item, " but the list holds ", list.getElementType());
  if (auto resize = ctx.attr<BoolAttr>("resize_if_index_out_of_bounds");
      resize && resize.getValue())
    return ctx.error("resize_if_index_out_of_bounds is not supported: lists keep their length");
  std::optional<SmallVector<int64_t>> element;
  if (auto ranked = dyn_cast<RankedTensorType>(item))
    element = SmallVector<int64_t>(ranked.getShape());
  if (auto ranked = dyn_cast<RankedTensorType>(list);
      ranked && element && ranked.getRank() != int64_t(element->size()) + 1)
    return ctx.error("the item is ", item, " but the list's elements have rank ",
                     ranked.getRank() - 1);
  out.push_back(refineList(list, element));
  return success();
}

LogicalResult inferTensorListGather(const InferContext &ctx, InferResult &out) {
  FailureOr<Type> list = readList(ctx, "indices");
  if (failed(list))
    return failure();
  auto refined = dyn_cast<RankedTensorType>(*list);
  auto indices = dyn_cast<RankedTensorType>(ctx.operandType(1));
  Type element = cast<TensorType>(*list).getElementType();
  if (!refined || !indices) {
    out.push_back(UnrankedTensorType::get(element));
    return success();
  }
  SmallVector<int64_t> dims(indices.getShape());
  llvm::append_range(dims, refined.getShape().drop_front());
  out.push_back(RankedTensorType::get(dims, element));
  return success();
}

LogicalResult inferTensorListScatterIntoExistingList(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto list = cast<TensorType>(ctx.operandType(0));
  auto tensor = cast<TensorType>(ctx.operandType(1));
  if (list.getElementType() != tensor.getElementType())
    return ctx.error("the tensor is ", tensor, " but the list holds ", list.getElementType());
  auto indices = dyn_cast<RankedTensorType>(ctx.operandType(2));
  if (indices && indices.getRank() != 1)
    return ctx.error("indices must be a vector, not ", indices);
  std::optional<SmallVector<int64_t>> element;
  if (auto ranked = dyn_cast<RankedTensorType>(tensor)) {
    if (ranked.getRank() == 0)
      return ctx.error("the tensor must have a dimension for the indices");
    if (indices && !indices.isDynamicDim(0) && !ranked.isDynamicDim(0) &&
        indices.getDimSize(0) != ranked.getDimSize(0))
      return ctx.error("the tensor has ", ranked.getDimSize(0), " rows for ", indices.getDimSize(0),
                       " indices");
    element = SmallVector<int64_t>(ranked.getShape().drop_front());
  }
  out.push_back(refineList(list, element));
  return success();
}

LogicalResult inferTensorListStack(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto n = ctx.attr<IntegerAttr>("num_elements");
  out.push_back(
      refineList(ctx.operandType(0), listElementShape(ctx.operands[1]), n ? n.getInt() : -1));
  return success();
}

LogicalResult inferTensorListLength(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(1)))
    return failure();
  out.push_back(RankedTensorType::get({}, IntegerType::get(ctx.context, 32)));
  return success();
}

LogicalResult inferTensorListElementShape(const InferContext &ctx, InferResult &out) {
  auto type = ctx.attr<TypeAttr>("shape_type");
  if (!type || failed(ctx.requireTensorOperands(1)))
    return ctx.error("takes a list, with the integer type attribute 'shape_type'");
  auto list = dyn_cast<RankedTensorType>(ctx.operandType(0));
  int64_t rank = list ? list.getRank() - 1 : ShapedType::kDynamic;
  out.push_back(RankedTensorType::get({rank}, type.getValue()));
  return success();
}

OpFoldResult TensorListLengthOp::fold(FoldAdaptor) {
  auto list = dyn_cast<RankedTensorType>(getInputHandle().getType());
  if (!list || list.getRank() == 0 || list.isDynamicDim(0) ||
      !cast<RankedTensorType>(getLength().getType()).hasStaticShape())
    return {};
  return intConstant(getLength().getType(), {list.getDimSize(0)});
}

OpFoldResult TensorListElementShapeOp::fold(FoldAdaptor) {
  auto list = dyn_cast<RankedTensorType>(getInputHandle().getType());
  auto type = dyn_cast<RankedTensorType>(getElementShape().getType());
  if (!list || !type || !type.hasStaticShape() || list.getRank() == 0 || !list.hasStaticShape())
    return {};
  return intConstant(type, list.getShape().drop_front());
}

/// The index of a list op must name one of the list's elements.
static void checkIndex(Value list, Value index, SmallVectorImpl<RuntimeCheck> &checks) {
  auto type = dyn_cast<RankedTensorType>(list.getType());
  if (!type || type.getRank() == 0 || type.isDynamicDim(0))
    return;
  int64_t n = type.getDimSize(0);
  checks.push_back({index,
                    "in_range",
                    {n},
                    "index {value} is not in [0, " + std::to_string(n) + "): the list has " +
                        std::to_string(n) + " elements"});
}

void TensorListGetItemOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {
  checkIndex(getInputHandle(), getIndex(), checks);
}

void TensorListSetItemOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {
  checkIndex(getInputHandle(), getIndex(), checks);
}

void TensorListScatterIntoExistingListOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {
  checkIndex(getInputHandle(), getIndices(), checks);
}

} // namespace kiln::tf
