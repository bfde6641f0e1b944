//===- Shape.cpp - Reshape ----------------------------------------------------===//
#include "dialects/TF/TFOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

using namespace mlir;

namespace kiln::tf {

LogicalResult inferReshape(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto input = cast<TensorType>(ctx.operandType(0));
  auto shapeType = cast<TensorType>(ctx.operandType(1));
  Type element = input.getElementType();
  if (failed(ctx.checkTypeAttr("T", element)))
    return failure();
  if (shapeType.hasRank() && shapeType.getRank() != 1)
    return ctx.error("shape must be 1-D, got ", shapeType);

  auto shapeConst = ctx.operands[1].getDefiningOp<ConstOp>();
  auto shapeValue =
      shapeConst ? dyn_cast<DenseIntElementsAttr>(shapeConst.getValue()) : DenseIntElementsAttr();
  if (!shapeValue) {
    if (shapeType.hasStaticShape())
      out.push_back(RankedTensorType::get(
          SmallVector<int64_t>(shapeType.getDimSize(0), ShapedType::kDynamic), element));
    else
      out.push_back(UnrankedTensorType::get(element));
    return success();
  }

  SmallVector<int64_t> dims;
  int inferredIndex = -1;
  int64_t known = 1;
  for (const APInt &v : shapeValue.getValues<APInt>()) {
    int64_t d = v.getSExtValue();
    if (d == -1) {
      if (inferredIndex >= 0)
        return ctx.error("shape has more than one -1: ", shapeValue);
      inferredIndex = dims.size();
      dims.push_back(ShapedType::kDynamic);
      continue;
    }
    if (d < 0)
      return ctx.error("shape has a negative dimension: ", shapeValue);
    known *= d;
    dims.push_back(d);
  }
  if (input.hasStaticShape()) {
    int64_t count = input.getNumElements();
    if (inferredIndex >= 0) {
      if (known == 0 || count % known != 0)
        return ctx.error("cannot reshape ", input, " (", count, " elements) to ", shapeValue);
      dims[inferredIndex] = count / known;
    } else if (known != count) {
      return ctx.error("cannot reshape ", input, " (", count, " elements) to ", shapeValue, " (",
                       known, " elements)");
    }
  }
  out.push_back(RankedTensorType::get(dims, element));
  return success();
}

LogicalResult inferTranspose(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(2);
  if (failed(input))
    return failure();
  TensorType x = *input;
  auto perm = ctx.constantInts(1);
  if (!x.hasRank()) {
    out.push_back(x);
    return success();
  }
  int64_t rank = x.getRank();
  if (!perm) {
    out.push_back(RankedTensorType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                                        x.getElementType()));
    return success();
  }
  if (static_cast<int64_t>(perm->size()) != rank)
    return ctx.error("perm has ", perm->size(), " entries for an input of rank ", rank);
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t p : *perm) {
    if (p < 0 || p >= rank || seen[p])
      return ctx.error("perm is not a permutation of 0..", rank - 1);
    seen[p] = true;
    shape.push_back(x.getDimSize(p));
  }
  out.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult inferSqueeze(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  TensorType x = *input;
  if (!x.hasRank()) {
    out.push_back(x);
    return success();
  }
  int64_t rank = x.getRank();
  SmallVector<int64_t> dims = ctx.intList("squeeze_dims").value_or(SmallVector<int64_t>{});
  SmallVector<bool> drop(rank, false);
  if (dims.empty()) {
    for (int64_t i = 0; i < rank; ++i) {
      if (ShapedType::isDynamic(x.getDimSize(i))) {
        out.push_back(UnrankedTensorType::get(x.getElementType()));
        return success();
      }
      drop[i] = x.getDimSize(i) == 1;
    }
  }
  for (int64_t d : dims) {
    int64_t axis = d < 0 ? d + rank : d;
    if (axis < 0 || axis >= rank)
      return ctx.error("squeeze dimension ", d, " is out of range for rank ", rank);
    if (!ShapedType::isDynamic(x.getDimSize(axis)) && x.getDimSize(axis) != 1)
      return ctx.error("cannot squeeze dimension ", d, " of size ", x.getDimSize(axis));
    drop[axis] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[i])
      shape.push_back(x.getDimSize(i));
  out.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult inferExpandDims(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(2);
  if (failed(input))
    return failure();
  TensorType x = *input;
  auto dim = ctx.constantInts(1);
  if (!x.hasRank() || !dim) {
    out.push_back(x.hasRank() ? Type(RankedTensorType::get(
                                    SmallVector<int64_t>(x.getRank() + 1, ShapedType::kDynamic),
                                    x.getElementType()))
                              : Type(x));
    return success();
  }
  if (dim->size() != 1)
    return ctx.error("dim must hold one value, got ", dim->size());
  int64_t rank = x.getRank();
  int64_t axis = (*dim)[0] < 0 ? (*dim)[0] + rank + 1 : (*dim)[0];
  if (axis < 0 || axis > rank)
    return ctx.error("dim ", (*dim)[0], " is out of range for rank ", rank);
  SmallVector<int64_t> shape(x.getShape());
  shape.insert(shape.begin() + axis, 1);
  out.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult inferPad(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(2);
  if (failed(input))
    return failure();
  TensorType x = *input;
  if (!x.hasRank()) {
    out.push_back(x);
    return success();
  }
  int64_t rank = x.getRank();
  auto pads = ctx.constantInts(1);
  if (!pads) {
    out.push_back(RankedTensorType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                                        x.getElementType()));
    return success();
  }
  if (static_cast<int64_t>(pads->size()) != 2 * rank)
    return ctx.error("paddings must be [", rank, ", 2], got ", pads->size(), " values");
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t before = (*pads)[2 * i], after = (*pads)[2 * i + 1];
    if (before < 0 || after < 0)
      return ctx.error("paddings must not be negative");
    int64_t d = x.getDimSize(i);
    shape.push_back(ShapedType::isDynamic(d) ? d : d + before + after);
  }
  out.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult inferPadV2(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto x = cast<TensorType>(ctx.operandType(0));
  auto value = cast<TensorType>(ctx.operandType(2));
  if (value.getElementType() != x.getElementType())
    return ctx.error("constant_values has element type ", value.getElementType(),
                     "; the input has ", x.getElementType());
  if (value.hasRank() && value.getNumElements() != 1)
    return ctx.error("constant_values must be a scalar, got ", value);
  return inferPad(ctx, out);
}

/// Checks that `values` are tensors of one element type and rank; returns the first.
static FailureOr<TensorType> commonInput(const InferContext &ctx, ValueRange values,
                                         StringRef what) {
  if (values.empty())
    return ctx.error(what, " needs at least one input");
  TensorType first;
  for (Value v : values) {
    auto t = dyn_cast<TensorType>(v.getType());
    if (!t)
      return ctx.error(what, " inputs must be tensors, got ", v.getType());
    if (!first) {
      first = t;
      continue;
    }
    if (t.getElementType() != first.getElementType())
      return ctx.error(what, " inputs have different element types: ", first.getElementType(),
                       " and ", t.getElementType());
    if (t.hasRank() && first.hasRank() && t.getRank() != first.getRank())
      return ctx.error(what, " inputs have different ranks: ", first, " and ", t);
  }
  if (failed(ctx.checkTypeAttr("T", first.getElementType())))
    return failure();
  return first;
}

LogicalResult inferConcat(const InferContext &ctx, InferResult &out) {
  auto list = ctx.listValues();
  if (failed(list))
    return failure();
  ValueRange values = *list;
  if (ctx.operands.size() <= values.size() || !isa<TensorType>(ctx.operandType(values.size())))
    return ctx.error("ConcatV2 needs an axis after its ", values.size(), " values");
  auto first = commonInput(ctx, values, "ConcatV2");
  if (failed(first))
    return failure();
  auto axis = constantIntsOf(ctx.operands[values.size()]);
  if (!first->hasRank() || !axis) {
    out.push_back(first->hasRank()
                      ? Type(RankedTensorType::get(
                            SmallVector<int64_t>(first->getRank(), ShapedType::kDynamic),
                            first->getElementType()))
                      : Type(*first));
    return success();
  }
  int64_t rank = first->getRank();
  if (axis->size() != 1)
    return ctx.error("axis must be a scalar");
  int64_t a = (*axis)[0] < 0 ? (*axis)[0] + rank : (*axis)[0];
  if (a < 0 || a >= rank)
    return ctx.error("axis ", (*axis)[0], " is out of range for rank ", rank);
  SmallVector<int64_t> shape(first->getShape());
  shape[a] = 0;
  for (Value v : values) {
    auto t = cast<TensorType>(v.getType());
    if (!t.hasRank()) {
      shape[a] = ShapedType::kDynamic;
      continue;
    }
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = t.getDimSize(i);
      if (i == a) {
        shape[a] = ShapedType::isDynamic(d) || ShapedType::isDynamic(shape[a])
                       ? ShapedType::kDynamic
                       : shape[a] + d;
      } else if (ShapedType::isDynamic(shape[i])) {
        shape[i] = d;
      } else if (!ShapedType::isDynamic(d) && d != shape[i]) {
        return ctx.error("inputs differ in dimension ", i, " (", shape[i], " and ", d,
                         "), which is not the concatenation axis");
      }
    }
  }
  out.push_back(RankedTensorType::get(shape, first->getElementType()));
  return success();
}

LogicalResult inferPack(const InferContext &ctx, InferResult &out) {
  auto list = ctx.listValues();
  if (failed(list))
    return failure();
  ValueRange values = *list;
  auto first = commonInput(ctx, values, "Pack");
  if (failed(first))
    return failure();
  for (Value v : values)
    if (failed(verifyCompatibleShape(v.getType(), *first)))
      return ctx.error("Pack inputs must have one shape, got ", *first, " and ", v.getType());
  if (!first->hasRank()) {
    out.push_back(*first);
    return success();
  }
  int64_t rank = first->getRank();
  int64_t axis = 0;
  if (auto a = ctx.attr<IntegerAttr>("axis"))
    axis = a.getInt();
  if (axis < 0)
    axis += rank + 1;
  if (axis < 0 || axis > rank)
    return ctx.error("axis is out of range for ", values.size(), " inputs of rank ", rank);
  SmallVector<int64_t> shape(first->getShape());
  shape.insert(shape.begin() + axis, static_cast<int64_t>(values.size()));
  out.push_back(RankedTensorType::get(shape, first->getElementType()));
  return success();
}

OpFoldResult PackOp::fold(FoldAdaptor adaptor) {
  // Packing constants along the first axis (shape arithmetic) is their concatenation.
  auto type = dyn_cast<RankedTensorType>(getOutput().getType());
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 && type)
    axis += type.getRank();
  if (!type || !type.hasStaticShape() || axis != 0)
    return {};
  SmallVector<Attribute> elements;
  for (Attribute a : adaptor.getInputsAndControls().take_front(getNumDataInputs())) {
    auto values = dyn_cast_or_null<DenseElementsAttr>(a);
    if (!values)
      return {};
    llvm::append_range(elements, values.getValues<Attribute>());
  }
  if (static_cast<int64_t>(elements.size()) != type.getNumElements())
    return {};
  return DenseElementsAttr::get(type, elements);
}

OpFoldResult ConcatV2Op::fold(FoldAdaptor adaptor) {
  // Constants joined (shapes, permutations): each row of the result, taken from the inputs
  // in turn, is a contiguous run of every input's elements.
  auto type = dyn_cast<RankedTensorType>(getOutput().getType());
  if (!type || !type.hasStaticShape() || !getControlInputs().empty() ||
      type.getNumElements() > kMaxFoldedElements)
    return {};
  ArrayRef<Attribute> operands = adaptor.getInputsAndControls();
  auto axisAttr = dyn_cast_or_null<DenseIntElementsAttr>(operands[getN()]);
  if (!axisAttr || axisAttr.getNumElements() != 1)
    return {};
  int64_t axis = (*axisAttr.value_begin<APInt>()).getSExtValue();
  int64_t rank = type.getRank();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return {};
  int64_t rows = 1;
  for (int64_t d = 0; d < axis; ++d)
    rows *= type.getDimSize(d);
  SmallVector<SmallVector<Attribute>> inputs;
  SmallVector<int64_t> runs;
  for (Attribute a : operands.take_front(getN())) {
    auto values = dyn_cast_or_null<DenseElementsAttr>(a);
    if (!values || values.getType().getRank() != rank)
      return {};
    inputs.push_back(llvm::to_vector(values.getValues<Attribute>()));
    runs.push_back(rows == 0 ? 0 : values.getNumElements() / rows);
  }
  SmallVector<Attribute> elements;
  for (int64_t row = 0; row < rows; ++row)
    for (size_t i = 0; i < inputs.size(); ++i)
      llvm::append_range(elements, ArrayRef(inputs[i]).slice(row * runs[i], runs[i]));
  if (static_cast<int64_t>(elements.size()) != type.getNumElements())
    return {};
  return DenseElementsAttr::get(type, elements);
}

LogicalResult inferAddN(const InferContext &ctx, InferResult &out) {
  auto list = ctx.listValues();
  if (failed(list))
    return failure();
  ValueRange values = *list;
  auto first = commonInput(ctx, values, "AddN");
  if (failed(first))
    return failure();
  for (Value v : values)
    if (failed(verifyCompatibleShape(v.getType(), *first)))
      return ctx.error("AddN inputs must have one shape, got ", *first, " and ", v.getType());
  out.push_back(*first);
  return success();
}

LogicalResult inferGatherV2(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto params = cast<TensorType>(ctx.operandType(0));
  auto indices = cast<TensorType>(ctx.operandType(1));
  int64_t batchDims = 0;
  if (auto b = ctx.attr<IntegerAttr>("batch_dims"))
    batchDims = b.getInt();
  auto axis = ctx.constantInts(2);
  if (!params.hasRank() || !indices.hasRank() || !axis) {
    out.push_back(UnrankedTensorType::get(params.getElementType()));
    return success();
  }
  if (axis->size() != 1)
    return ctx.error("axis must be a scalar");
  int64_t rank = params.getRank(), indexRank = indices.getRank();
  int64_t a = (*axis)[0] < 0 ? (*axis)[0] + rank : (*axis)[0];
  if (a < 0 || a >= rank)
    return ctx.error("axis ", (*axis)[0], " is out of range for rank ", rank);
  // TensorFlow: batch_dims counts from the end of indices' dimensions when negative, and the
  // first batch_dims dimensions of params and indices are the same batch.
  int64_t b = batchDims < 0 ? batchDims + indexRank : batchDims;
  if (b < 0 || b > indexRank)
    return ctx.error("batch_dims = ", batchDims, " is out of range for indices of rank ",
                     indexRank);
  if (b > a)
    return ctx.error("batch_dims = ", batchDims, " must not exceed axis = ", a);
  for (int64_t d = 0; d < b; ++d)
    if (!params.isDynamicDim(d) && !indices.isDynamicDim(d) &&
        params.getDimSize(d) != indices.getDimSize(d))
      return ctx.error("params ", params, " and indices ", indices,
                       " must agree in their first batch_dims = ", b, " dimensions");
  SmallVector<int64_t> shape(params.getShape().take_front(a));
  llvm::append_range(shape, indices.getShape().drop_front(b));
  llvm::append_range(shape, params.getShape().drop_front(a + 1));
  out.push_back(RankedTensorType::get(shape, params.getElementType()));
  return success();
}

LogicalResult inferGatherNd(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto params = cast<TensorType>(ctx.operandType(0));
  auto indices = cast<TensorType>(ctx.operandType(1));
  if (failed(ctx.checkTypeAttr("Tparams", params.getElementType())) ||
      failed(ctx.checkTypeAttr("Tindices", indices.getElementType())))
    return failure();
  if (!params.hasRank() || !indices.hasRank() ||
      (indices.getRank() > 0 && indices.isDynamicDim(indices.getRank() - 1))) {
    out.push_back(UnrankedTensorType::get(params.getElementType()));
    return success();
  }
  if (indices.getRank() == 0)
    return ctx.error("indices must have at least one dimension");
  int64_t depth = indices.getDimSize(indices.getRank() - 1);
  if (depth > params.getRank())
    return ctx.error("index tuples have ", depth, " entries but params ", params, " has rank ",
                     params.getRank());
  SmallVector<int64_t> shape(indices.getShape().drop_back());
  llvm::append_range(shape, params.getShape().drop_front(depth));
  out.push_back(RankedTensorType::get(shape, params.getElementType()));
  return success();
}

/// Each index must be in [0, size of params along the axis), as TensorFlow's kernel
/// reports otherwise ("indices[1] = 7 is not in [0, 5)").
void GatherV2Op::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {
  auto params = dyn_cast<RankedTensorType>(getParams().getType());
  auto axis = constantIntsOf(getAxis());
  if (!params || !axis || axis->size() != 1)
    return;
  int64_t a = (*axis)[0] < 0 ? (*axis)[0] + params.getRank() : (*axis)[0];
  if (a < 0 || a >= params.getRank() || params.isDynamicDim(a))
    return;
  int64_t size = params.getDimSize(a);
  checks.push_back({getIndices(),
                    "in_range",
                    {size},
                    "indices{index} = {value} is not in [0, " + std::to_string(size) + ")"});
}

/// Each entry of an index tuple must be in [0, size of the params dimension it indexes).
void GatherNdOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {
  auto params = dyn_cast<RankedTensorType>(getParams().getType());
  auto indices = dyn_cast<RankedTensorType>(getIndices().getType());
  if (!params || !indices || indices.getRank() == 0 || indices.isDynamicDim(indices.getRank() - 1))
    return;
  int64_t depth = indices.getDimSize(indices.getRank() - 1);
  if (depth == 0 || depth > params.getRank())
    return;
  ArrayRef<int64_t> bounds = params.getShape().take_front(depth);
  if (llvm::any_of(bounds, ShapedType::isDynamic))
    return;
  checks.push_back({getIndices(), "in_range", SmallVector<int64_t>(bounds),
                    "indices{index} = {value} does not index into params of shape " +
                        describeDims(params.getShape())});
}

LogicalResult inferFill(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto value = cast<TensorType>(ctx.operandType(1));
  if (value.hasRank() && value.getRank() != 0)
    return ctx.error("value must be a scalar, got ", value);
  if (failed(ctx.checkTypeAttr("T", value.getElementType())))
    return failure();
  auto dims = ctx.constantInts(0);
  if (!dims) {
    out.push_back(UnrankedTensorType::get(value.getElementType()));
    return success();
  }
  for (int64_t d : *dims)
    if (d < 0)
      return ctx.error("dims must not be negative");
  out.push_back(RankedTensorType::get(*dims, value.getElementType()));
  return success();
}

/// The axes `axis` names for a tensor of rank `rank`, normalized; an error for an axis out
/// of range or named twice.
static FailureOr<SmallVector<int64_t>> reverseAxes(const InferContext *ctx, ArrayRef<int64_t> axis,
                                                   int64_t rank) {
  SmallVector<int64_t> axes;
  for (int64_t a : axis) {
    int64_t normalized = a < 0 ? a + rank : a;
    if (normalized < 0 || normalized >= rank) {
      if (ctx)
        (void)ctx->error("axis ", a, " is out of range for a tensor of rank ", rank);
      return failure();
    }
    if (llvm::is_contained(axes, normalized)) {
      if (ctx)
        (void)ctx->error("axis ", a, " is given twice");
      return failure();
    }
    axes.push_back(normalized);
  }
  return axes;
}

LogicalResult inferReverseV2(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(2);
  if (failed(input))
    return failure();
  auto axis = ctx.constantInts(1);
  if (axis && input->hasRank() && failed(reverseAxes(&ctx, *axis, input->getRank())))
    return failure();
  out.push_back(*input);
  return success();
}

std::optional<SmallVector<int64_t>> ReverseV2Op::getReversedAxes() {
  auto type = dyn_cast<RankedTensorType>(getTensor().getType());
  auto axis = constantIntsOf(getAxis());
  if (!type || !axis)
    return std::nullopt;
  FailureOr<SmallVector<int64_t>> axes = reverseAxes(nullptr, *axis, type.getRank());
  return succeeded(axes) ? std::optional<SmallVector<int64_t>>(*axes) : std::nullopt;
}

LogicalResult inferTile(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(2);
  if (failed(input))
    return failure();
  TensorType x = *input;
  auto multiples = ctx.constantInts(1);
  if (!x.hasRank() || !multiples) {
    out.push_back(x.hasRank() ? Type(RankedTensorType::get(
                                    SmallVector<int64_t>(x.getRank(), ShapedType::kDynamic),
                                    x.getElementType()))
                              : Type(x));
    return success();
  }
  if (static_cast<int64_t>(multiples->size()) != x.getRank())
    return ctx.error("multiples has ", multiples->size(), " entries for an input of rank ",
                     x.getRank());
  SmallVector<int64_t> shape;
  for (auto [d, m] : llvm::zip(x.getShape(), *multiples)) {
    if (m < 0)
      return ctx.error("multiples must not be negative");
    shape.push_back(ShapedType::isDynamic(d) ? d : d * m);
  }
  out.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult inferBroadcastTo(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(2);
  if (failed(input))
    return failure();
  TensorType x = *input;
  auto shape = ctx.constantInts(1);
  if (!shape) {
    auto s = dyn_cast<RankedTensorType>(ctx.operandType(1));
    if (s && s.getRank() == 1 && !s.isDynamicDim(0))
      out.push_back(RankedTensorType::get(
          SmallVector<int64_t>(s.getDimSize(0), ShapedType::kDynamic), x.getElementType()));
    else
      out.push_back(UnrankedTensorType::get(x.getElementType()));
    return success();
  }
  // A negative dimension is reported by checkInferredTypes, as for every op.
  bool negative = llvm::any_of(*shape, [](int64_t d) { return d < 0; });
  if (x.hasRank() && !negative) {
    SmallVector<int64_t> broadcast;
    if (x.getRank() > static_cast<int64_t>(shape->size()) ||
        !OpTrait::util::getBroadcastedShape(x.getShape(), *shape, broadcast) ||
        llvm::any_of(llvm::zip(broadcast, *shape), [](auto p) {
          return !ShapedType::isDynamic(std::get<0>(p)) && std::get<0>(p) != std::get<1>(p);
        }))
      return ctx.error("the input ", x, " does not broadcast to the shape ", describeDims(*shape));
  }
  out.push_back(RankedTensorType::get(*shape, x.getElementType()));
  return success();
}

LogicalResult inferEnsureShape(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  auto shape = ctx.attr<ShapeAttr>("shape");
  if (!shape || !shape.hasRank()) {
    out.push_back(*input);
    return success();
  }
  TensorType declared = shape.toTensorType(input->getElementType());
  if (failed(verifyCompatibleShape(*input, declared)))
    return ctx.error("the input ", *input, " does not have the shape ",
                     describeDims(declared.getShape()));
  if (!input->hasRank()) {
    out.push_back(declared);
    return success();
  }
  SmallVector<int64_t> dims;
  for (auto [a, b] : llvm::zip(input->getShape(), declared.getShape()))
    dims.push_back(ShapedType::isDynamic(a) ? b : a);
  out.push_back(RankedTensorType::get(dims, input->getElementType()));
  return success();
}

LogicalResult inferInvertPermutation(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  if (input->hasRank() && input->getRank() != 1)
    return ctx.error("x must be a vector, got ", *input);
  out.push_back(*input);
  return success();
}

void InvertPermutationOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {
  auto x = dyn_cast<RankedTensorType>(getX().getType());
  if (!x || x.getRank() != 1 || x.isDynamicDim(0))
    return;
  int64_t size = x.getDimSize(0);
  checks.push_back({getX(),
                    "in_range",
                    {size},
                    "x{index} = {value} is not in [0, " + std::to_string(size) + ")"});
}

LogicalResult inferLinSpace(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto start = cast<TensorType>(ctx.operandType(0));
  auto stop = cast<TensorType>(ctx.operandType(1));
  if (failed(ctx.checkSameElementType(start, stop, "start and stop")))
    return failure();
  for (TensorType t : {start, stop, cast<TensorType>(ctx.operandType(2))})
    if (t.hasRank() && t.getRank() != 0)
      return ctx.error("start, stop and num must be scalars, got ", t);
  auto num = ctx.constantInts(2);
  if (!num) {
    out.push_back(RankedTensorType::get({ShapedType::kDynamic}, start.getElementType()));
    return success();
  }
  if ((*num)[0] < 1)
    return ctx.error("num must be positive, got ", (*num)[0]);
  out.push_back(RankedTensorType::get({(*num)[0]}, start.getElementType()));
  return success();
}

LogicalResult inferRoll(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(3);
  if (failed(input))
    return failure();
  auto shift = cast<TensorType>(ctx.operandType(1));
  auto axisType = cast<TensorType>(ctx.operandType(2));
  for (TensorType t : {shift, axisType})
    if (t.hasRank() && t.getRank() > 1)
      return ctx.error("shift and axis must be scalars or vectors, got ", t);
  if (shift.hasStaticShape() && axisType.hasStaticShape() &&
      shift.getNumElements() != axisType.getNumElements())
    return ctx.error("shift has ", shift.getNumElements(), " entries but axis has ",
                     axisType.getNumElements());
  if (auto axes = ctx.constantInts(2); axes && input->hasRank())
    for (int64_t a : *axes)
      if (a < -input->getRank() || a >= input->getRank())
        return ctx.error("axis ", a, " is out of range for an input of rank ", input->getRank());
  out.push_back(*input);
  return success();
}

/// seq_dim and batch_dim of a ReverseSequence on an input of `rank`, from the front.
static std::optional<std::pair<int64_t, int64_t>> sequenceDims(int64_t seqDim, int64_t batchDim,
                                                               int64_t rank) {
  if (seqDim < 0)
    seqDim += rank;
  if (batchDim < 0)
    batchDim += rank;
  if (seqDim < 0 || seqDim >= rank || batchDim < 0 || batchDim >= rank || seqDim == batchDim)
    return std::nullopt;
  return std::make_pair(seqDim, batchDim);
}

LogicalResult inferReverseSequence(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(2);
  if (failed(input))
    return failure();
  auto seqDim = ctx.attr<IntegerAttr>("seq_dim");
  auto batchDim = ctx.attr<IntegerAttr>("batch_dim");
  if (!seqDim)
    return ctx.error("requires the integer attribute 'seq_dim'");
  auto lengths = cast<TensorType>(ctx.operandType(1));
  if (lengths.hasRank() && lengths.getRank() != 1)
    return ctx.error("seq_lengths must be a vector, got ", lengths);
  if (input->hasRank()) {
    auto dims = sequenceDims(seqDim.getInt(), batchDim ? batchDim.getInt() : 0, input->getRank());
    if (!dims)
      return ctx.error("seq_dim ", seqDim.getInt(), " and batch_dim ",
                       batchDim ? batchDim.getInt() : 0,
                       " must be two different dimensions of an input of rank ", input->getRank());
    int64_t batch = input->getDimSize(dims->second);
    if (lengths.hasRank() && !lengths.isDynamicDim(0) && !ShapedType::isDynamic(batch) &&
        lengths.getDimSize(0) != batch)
      return ctx.error("seq_lengths has ", lengths.getDimSize(0), " entries for a batch of ",
                       batch);
  }
  out.push_back(*input);
  return success();
}

std::optional<std::pair<int64_t, int64_t>> ReverseSequenceOp::getDims() {
  auto type = dyn_cast<RankedTensorType>(getInput().getType());
  if (!type)
    return std::nullopt;
  return sequenceDims(getSeqDim(), getBatchDim(), type.getRank());
}

void ReverseSequenceOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {
  auto type = dyn_cast<RankedTensorType>(getInput().getType());
  auto dims = getDims();
  if (!type || !dims || type.isDynamicDim(dims->first))
    return;
  int64_t size = type.getDimSize(dims->first);
  checks.push_back({getSeqLengths(),
                    "in_range",
                    {size + 1},
                    "seq_lengths{index} = {value} is not in [0, " + std::to_string(size) + "]"});
}

LogicalResult inferMatrixBandPart(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(3);
  if (failed(input))
    return failure();
  if (input->hasRank() && input->getRank() < 2)
    return ctx.error("the input must have rank 2 or more, got ", *input);
  for (unsigned i : {1u, 2u}) {
    auto bound = cast<TensorType>(ctx.operandType(i));
    if (bound.hasRank() && bound.getRank() != 0)
      return ctx.error(i == 1 ? "num_lower" : "num_upper", " must be a scalar, got ", bound);
  }
  out.push_back(*input);
  return success();
}

/// SpaceToBatchND (`toBatch`), [B, S..., R...] to [B * prod(block), (S + pads) / block...,
/// R...], and BatchToSpaceND, the other way with crops.
/// `block` and `amounts` are the block shape and the paddings or crops when constant.
static LogicalResult inferSpaceBatch(const InferContext &ctx, InferResult &out, bool toBatch,
                                     unsigned numInputs,
                                     const std::optional<SmallVector<int64_t>> &block,
                                     const std::optional<SmallVector<int64_t>> &amounts) {
  auto input = ctx.firstInput(numInputs);
  if (failed(input))
    return failure();
  TensorType x = *input;
  StringRef what = toBatch ? "paddings" : "crops";
  if (!x.hasRank() || !block || !amounts) {
    out.push_back(x.hasRank() ? Type(RankedTensorType::get(
                                    SmallVector<int64_t>(x.getRank(), ShapedType::kDynamic),
                                    x.getElementType()))
                              : Type(x));
    return success();
  }
  int64_t m = static_cast<int64_t>(block->size());
  if (m == 0 || x.getRank() < 1 + m)
    return ctx.error("block_shape has ", m, " entries for an input of rank ", x.getRank(),
                     " (from 1 to the rank - 1)");
  if (static_cast<int64_t>(amounts->size()) != 2 * m)
    return ctx.error(what, " must have the shape [", m, ", 2]");
  SmallVector<int64_t> shape(x.getShape());
  int64_t blocks = 1;
  for (int64_t b : *block) {
    if (b < 1 || b > kMaxTensorElements / blocks)
      return ctx.error("block_shape ", describeDims(*block), " must hold positive sizes");
    blocks *= b;
  }
  if (!ShapedType::isDynamic(shape[0])) {
    if (toBatch && shape[0] > kMaxTensorElements / blocks)
      return ctx.error("the batch ", shape[0], " times the block's ", blocks, " is more than 2^48");
    if (!toBatch && shape[0] % blocks != 0)
      return ctx.error("the batch ", shape[0], " is not a multiple of the block's ", blocks,
                       " elements");
    shape[0] = toBatch ? shape[0] * blocks : shape[0] / blocks;
  }
  for (int64_t i = 0; i < m; ++i) {
    int64_t before = (*amounts)[2 * i], after = (*amounts)[2 * i + 1], b = (*block)[i];
    if (before < 0 || after < 0 || before > kMaxTensorElements || after > kMaxTensorElements)
      return ctx.error(what, " ", describeDims(*amounts), " must be from 0 to 2^48");
    int64_t &d = shape[1 + i];
    if (ShapedType::isDynamic(d))
      continue;
    if (toBatch) {
      if ((d + before + after) % b != 0)
        return ctx.error("dimension ", 1 + i, " padded to ", d + before + after,
                         " is not a multiple of its block size ", b);
      d = (d + before + after) / b;
    } else {
      if (d > kMaxTensorElements / b || before + after > d * b)
        return ctx.error("crops ", before, " and ", after, " do not fit dimension ", 1 + i, " of ",
                         d, " times ", b);
      d = d * b - before - after;
    }
  }
  out.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult inferSpaceToBatchND(const InferContext &ctx, InferResult &out) {
  return inferSpaceBatch(ctx, out, true, 3, ctx.constantInts(1), ctx.constantInts(2));
}

LogicalResult inferBatchToSpaceND(const InferContext &ctx, InferResult &out) {
  return inferSpaceBatch(ctx, out, false, 3, ctx.constantInts(1), ctx.constantInts(2));
}

/// SpaceToBatch and BatchToSpace: the ND forms with `block_size` for the two dimensions
/// after the batch of a 4-D input.
static LogicalResult inferSpaceBatchV1(const InferContext &ctx, InferResult &out, bool toBatch) {
  auto size = ctx.attr<IntegerAttr>("block_size");
  if (!size || size.getInt() < 2)
    return ctx.error("block_size must be an integer of 2 or more");
  auto x = dyn_cast<TensorType>(ctx.operandType(0));
  if (x && x.hasRank() && x.getRank() != 4)
    return ctx.error("input must be 4-D, got ", x);
  SmallVector<int64_t> block(2, size.getInt());
  return inferSpaceBatch(ctx, out, toBatch, 2, block, ctx.constantInts(1));
}

LogicalResult inferSpaceToBatch(const InferContext &ctx, InferResult &out) {
  return inferSpaceBatchV1(ctx, out, true);
}

LogicalResult inferBatchToSpace(const InferContext &ctx, InferResult &out) {
  return inferSpaceBatchV1(ctx, out, false);
}

static Type indexElement(const InferContext &ctx, StringRef attrName, Type fallback) {
  if (auto t = ctx.attr<TypeAttr>(attrName))
    return t.getValue();
  return fallback;
}

LogicalResult inferShapeOf(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(1)))
    return failure();
  auto x = cast<TensorType>(ctx.operandType(0));
  Type element = indexElement(ctx, "out_type", IntegerType::get(ctx.context, 32));
  // As TensorFlow's kernel: a dimension a 32-bit shape cannot hold is an error, not a
  // wrapped (negative) number.
  if (element.isInteger(32) && x.hasRank())
    for (auto [i, d] : llvm::enumerate(x.getShape()))
      if (!ShapedType::isDynamic(d) && d > std::numeric_limits<int32_t>::max())
        return ctx.error("Shape output type is 32-bit but dimension ", i, " is ", d,
                         " (use out_type int64)");
  out.push_back(RankedTensorType::get({x.hasRank() ? x.getRank() : ShapedType::kDynamic}, element));
  return success();
}

LogicalResult inferSizeOf(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(1)))
    return failure();
  auto x = cast<TensorType>(ctx.operandType(0));
  Type element = indexElement(ctx, "out_type", IntegerType::get(ctx.context, 32));
  if (element.isInteger(32) && x.hasStaticShape() &&
      x.getNumElements() > std::numeric_limits<int32_t>::max())
    return ctx.error("Size output type is 32-bit but the input has ", x.getNumElements(),
                     " elements (use out_type int64)");
  out.push_back(RankedTensorType::get({}, element));
  return success();
}

LogicalResult inferRankOf(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(1)))
    return failure();
  out.push_back(RankedTensorType::get({}, IntegerType::get(ctx.context, 32)));
  return success();
}

/// A constant integer tensor of `type` holding `values`.
Attribute intConstant(Type type, ArrayRef<int64_t> values) {
  auto tensor = cast<RankedTensorType>(type);
  unsigned width = tensor.getElementType().getIntOrFloatBitWidth();
  SmallVector<APInt> ints;
  for (int64_t v : values)
    ints.push_back(APInt(width, v, /*isSigned=*/true));
  return DenseElementsAttr::get(tensor, ints);
}

/// Reshape, Squeeze and ExpandDims of a constant: its elements in the result's static shape
/// (Keras 3 reshapes each batch normalisation's statistics to 1x1x1xC, which must fold for
/// the arithmetic on them to fold too).
static OpFoldResult reshapeConstant(Operation *op, Attribute input) {
  auto values = dyn_cast_or_null<DenseIntOrFPElementsAttr>(input);
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!values || !type || !type.hasStaticShape() ||
      !cast<GraphOpInterface>(op).getControlInputs().empty() ||
      values.getElementType() != type.getElementType() ||
      values.getNumElements() != type.getNumElements() ||
      type.getNumElements() > kMaxFoldedElements)
    return {};
  return values.reshape(type);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  return reshapeConstant(*this, adaptor.getOperands()[0]);
}

OpFoldResult SqueezeOp::fold(FoldAdaptor adaptor) {
  return reshapeConstant(*this, adaptor.getOperands()[0]);
}

OpFoldResult ExpandDimsOp::fold(FoldAdaptor adaptor) {
  return reshapeConstant(*this, adaptor.getOperands()[0]);
}

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto x = dyn_cast<RankedTensorType>(getInput().getType());
  if (!x || !x.hasStaticShape() || !getOutput().getType().hasStaticShape())
    return {};
  return intConstant(getOutput().getType(), x.getShape());
}

OpFoldResult SizeOp::fold(FoldAdaptor) {
  auto x = dyn_cast<RankedTensorType>(getInput().getType());
  if (!x || !x.hasStaticShape())
    return {};
  return intConstant(getOutput().getType(), {x.getNumElements()});
}

OpFoldResult RankOp::fold(FoldAdaptor) {
  auto x = dyn_cast<RankedTensorType>(getInput().getType());
  if (!x)
    return {};
  return intConstant(getOutput().getType(), {x.getRank()});
}

} // namespace kiln::tf
