//===- Aliases.cpp - older names, composites and shape gradients --------------===//
//
// Ops TensorFlow keeps under older names (BiasAddV1, Concat, Gather, SpaceToBatch,
// MaxPoolV2 ...), composites of ops Kiln has kernels for (Cross, L2Loss, BiasAddGrad,
// DataFormatDimMap ...) and the shape arithmetic of gradients (BroadcastGradientArgs,
// ConcatOffset, ShapeN), which fold when shapes are known. Each infers its types here;
// kiln-graph-decompose writes it as the ops it stands for (decomposeAlias).
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/Ops/GraphBuilder.h"
#include "dialects/TF/TFOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::tf {

//===----------------------------------------------------------------------===//
// Shapes, as TensorFlow's BCast computes them.
//===----------------------------------------------------------------------===//

/// The shape `a` and `b` broadcast to, or none if they do not.
static std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                           ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      return std::nullopt;
    result[i] = x == 1 ? y : x;
  }
  return result;
}

/// BroadcastGradientArgs: for each operand, the dimensions of the broadcast shape where it
/// has size 1 (or none), which its gradient is summed over; none at all when the shapes are
/// equal, as TensorFlow's BCast leaves them.
static std::optional<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
gradientReductions(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (!broadcastShapes(a, b))
    return std::nullopt;
  std::pair<SmallVector<int64_t>, SmallVector<int64_t>> result;
  if (a == b)
    return result;
  size_t rank = std::max(a.size(), b.size());
  for (size_t i = 0; i < rank; ++i) {
    if (i < rank - a.size() || a[i - (rank - a.size())] == 1)
      result.first.push_back(i);
    if (i < rank - b.size() || b[i - (rank - b.size())] == 1)
      result.second.push_back(i);
  }
  return result;
}

/// Checks that operand `index` is a vector of integers (a shape).
static LogicalResult requireShapeVector(const InferContext &ctx, unsigned index, StringRef name) {
  auto t = dyn_cast<TensorType>(ctx.operandType(index));
  if (!t || !t.getElementType().isSignlessInteger() || (t.hasRank() && t.getRank() != 1))
    return ctx.error(name, " must be a vector of int32 or int64, got ", ctx.operandType(index));
  return success();
}

static Type vectorOf(const InferContext &ctx, unsigned index, int64_t size) {
  return RankedTensorType::get({size}, cast<TensorType>(ctx.operandType(index)).getElementType());
}

LogicalResult inferBroadcastArgs(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)) || failed(requireShapeVector(ctx, 0, "s0")) ||
      failed(requireShapeVector(ctx, 1, "s1")))
    return failure();
  auto a = ctx.constantInts(0), b = ctx.constantInts(1);
  if (a && b) {
    auto shape = broadcastShapes(*a, *b);
    if (!shape)
      return ctx.error("shapes ", describeDims(*a), " and ", describeDims(*b), " do not broadcast");
    out.push_back(vectorOf(ctx, 0, shape->size()));
    return success();
  }
  auto s0 = cast<TensorType>(ctx.operandType(0)), s1 = cast<TensorType>(ctx.operandType(1));
  bool known = s0.hasStaticShape() && s1.hasStaticShape();
  out.push_back(vectorOf(
      ctx, 0, known ? std::max(s0.getDimSize(0), s1.getDimSize(0)) : ShapedType::kDynamic));
  return success();
}

OpFoldResult BroadcastArgsOp::fold(FoldAdaptor) {
  auto a = constantIntsOf(getS0()), b = constantIntsOf(getS1());
  auto shape = a && b ? broadcastShapes(*a, *b) : std::nullopt;
  if (!shape || !getR0().getType().hasStaticShape())
    return {};
  return intConstant(getR0().getType(), *shape);
}

LogicalResult inferBroadcastGradientArgs(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)) || failed(requireShapeVector(ctx, 0, "s0")) ||
      failed(requireShapeVector(ctx, 1, "s1")))
    return failure();
  auto a = ctx.constantInts(0), b = ctx.constantInts(1);
  if (a && b) {
    auto reductions = gradientReductions(*a, *b);
    if (!reductions)
      return ctx.error("shapes ", describeDims(*a), " and ", describeDims(*b), " do not broadcast");
    out.push_back(vectorOf(ctx, 0, reductions->first.size()));
    out.push_back(vectorOf(ctx, 0, reductions->second.size()));
    return success();
  }
  out.push_back(vectorOf(ctx, 0, ShapedType::kDynamic));
  out.push_back(vectorOf(ctx, 0, ShapedType::kDynamic));
  return success();
}

LogicalResult BroadcastGradientArgsOp::fold(FoldAdaptor, SmallVectorImpl<OpFoldResult> &results) {
  auto a = constantIntsOf(getS0()), b = constantIntsOf(getS1());
  auto reductions = a && b ? gradientReductions(*a, *b) : std::nullopt;
  if (!reductions || !getR0().getType().hasStaticShape() || !getR1().getType().hasStaticShape())
    return failure();
  results.push_back(intConstant(getR0().getType(), reductions->first));
  results.push_back(intConstant(getR1().getType(), reductions->second));
  return success();
}

LogicalResult inferShapeN(const InferContext &ctx, InferResult &out) {
  auto values = ctx.listValues();
  if (failed(values))
    return failure();
  Type element = IntegerType::get(ctx.context, 32);
  if (auto t = ctx.attr<TypeAttr>("out_type"))
    element = t.getValue();
  for (Value v : *values) {
    auto t = dyn_cast<TensorType>(v.getType());
    if (!t)
      return ctx.error("the inputs must be tensors");
    out.push_back(
        RankedTensorType::get({t.hasRank() ? t.getRank() : ShapedType::kDynamic}, element));
  }
  return success();
}

LogicalResult ShapeNOp::fold(FoldAdaptor, SmallVectorImpl<OpFoldResult> &results) {
  for (auto [input, result] : llvm::zip(getInputsAndControls(), getOutput())) {
    auto t = dyn_cast<RankedTensorType>(input.getType());
    if (!t || !t.hasStaticShape() || !cast<ShapedType>(result.getType()).hasStaticShape())
      return failure();
    results.push_back(intConstant(result.getType(), t.getShape()));
  }
  return success();
}

/// ConcatOffset's offsets: each shape's position in the concatenation along `axis`, or
/// none after an error (reported through `ctx` when given).
static std::optional<SmallVector<SmallVector<int64_t>>>
concatOffsets(const InferContext *ctx, int64_t axis, ArrayRef<SmallVector<int64_t>> shapes) {
  auto fail = [&](auto &&...args) -> std::optional<SmallVector<SmallVector<int64_t>>> {
    if (ctx)
      (void)ctx->error(args...);
    return std::nullopt;
  };
  int64_t rank = shapes.front().size();
  if (axis < -rank || axis >= rank)
    return fail("concat_dim ", axis, " is out of range for shapes of rank ", rank);
  if (axis < 0)
    axis += rank;
  SmallVector<SmallVector<int64_t>> offsets;
  int64_t offset = 0;
  for (ArrayRef<int64_t> shape : shapes) {
    if (static_cast<int64_t>(shape.size()) != rank)
      return fail("the shapes must have one rank, got ", describeDims(shapes.front()), " and ",
                  describeDims(shape));
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && shape[d] != shapes.front()[d])
        return fail("shape ", describeDims(shape), " does not match ", describeDims(shapes.front()),
                    " outside dimension ", axis);
    SmallVector<int64_t> o(rank, 0);
    o[axis] = offset;
    offsets.push_back(o);
    offset += shape[axis];
  }
  return offsets;
}

LogicalResult inferConcatOffset(const InferContext &ctx, InferResult &out) {
  auto n = ctx.attr<IntegerAttr>("N");
  if (!n || n.getInt() < 2 || n.getInt() + 1 > static_cast<int64_t>(ctx.operands.size()))
    return ctx.error("requires N of 2 or more and N shapes after concat_dim");
  SmallVector<SmallVector<int64_t>> shapes;
  for (int64_t i = 1; i <= n.getInt(); ++i) {
    if (failed(requireShapeVector(ctx, i, "shape")))
      return failure();
    out.push_back(ctx.operandType(i));
    if (auto s = ctx.constantInts(i))
      shapes.push_back(*s);
  }
  auto axis = ctx.constantInts(0);
  if (axis && axis->size() == 1 && static_cast<int64_t>(shapes.size()) == n.getInt() &&
      !concatOffsets(&ctx, axis->front(), shapes))
    return failure();
  return success();
}

LogicalResult ConcatOffsetOp::fold(FoldAdaptor, SmallVectorImpl<OpFoldResult> &results) {
  auto axis = constantIntsOf(getInputsAndControls()[0]);
  SmallVector<SmallVector<int64_t>> shapes;
  for (Value v : getInputsAndControls().slice(1, getN()))
    if (auto s = constantIntsOf(v))
      shapes.push_back(*s);
  if (!axis || axis->size() != 1 || shapes.size() != getN())
    return failure();
  auto offsets = concatOffsets(nullptr, axis->front(), shapes);
  if (!offsets)
    return failure();
  for (auto [result, offset] : llvm::zip(getOffset(), *offsets)) {
    if (!cast<ShapedType>(result.getType()).hasStaticShape())
      return failure();
    results.push_back(intConstant(result.getType(), offset));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Older names and composites.
//===----------------------------------------------------------------------===//

LogicalResult inferConcatAxisFirst(const InferContext &ctx, InferResult &out) {
  auto n = ctx.attr<IntegerAttr>("N");
  if (!n || n.getInt() < 1 || n.getInt() + 1 > static_cast<int64_t>(ctx.operands.size()))
    return ctx.error("requires N of 1 or more and N values after concat_dim");
  // ConcatV2's operands: the values, the axis, the control inputs.
  SmallVector<Value> operands(ctx.operands.slice(1, n.getInt()));
  operands.push_back(ctx.operands.front());
  llvm::append_range(operands, ctx.operands.drop_front(n.getInt() + 1));
  InferContext v2{ctx.context, ctx.location, operands, ctx.attributes, ctx.opName};
  return inferConcat(v2, out);
}

LogicalResult inferGatherAxis0(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)) ||
      failed(ctx.checkTypeAttr("Tparams", getElementTypeOrSelf(ctx.operandType(0)))))
    return failure();
  auto params = cast<TensorType>(ctx.operandType(0));
  auto indices = cast<TensorType>(ctx.operandType(1));
  if (!indices.getElementType().isSignlessInteger())
    return ctx.error("indices must be int32 or int64, got ", indices);
  if (params.hasRank() && params.getRank() == 0)
    return ctx.error("params must have rank 1 or more, got ", params);
  if (!params.hasRank() || !indices.hasRank()) {
    out.push_back(UnrankedTensorType::get(params.getElementType()));
    return success();
  }
  SmallVector<int64_t> shape(indices.getShape());
  llvm::append_range(shape, params.getShape().drop_front());
  out.push_back(RankedTensorType::get(shape, params.getElementType()));
  return success();
}

LogicalResult inferBatchMatMulV3(const InferContext &ctx, InferResult &out) {
  auto tout = ctx.attr<TypeAttr>("Tout");
  if (!tout)
    return ctx.error("requires the attribute 'Tout', a dtype");
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  Type a = getElementTypeOrSelf(ctx.operandType(0)), b = getElementTypeOrSelf(ctx.operandType(1));
  if (a != b)
    return ctx.error("Kiln multiplies operands of one dtype, got ", a, " and ", b);
  if (failed(inferBatchMatMul(ctx, out)))
    return failure();
  out.back() = cast<TensorType>(out.back()).clone(tout.getValue());
  return success();
}

LogicalResult inferMaxPoolV2(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto ksize = ctx.constantInts(1), strides = ctx.constantInts(2);
  if (!ksize || !strides) {
    auto input = cast<TensorType>(ctx.operandType(0));
    out.push_back(input.hasRank() ? Type(RankedTensorType::get(
                                        SmallVector<int64_t>(input.getRank(), ShapedType::kDynamic),
                                        input.getElementType()))
                                  : Type(input));
    return success();
  }
  // MaxPool's inference, with the constants as its attributes.
  Builder b(ctx.context);
  NamedAttrList attrs(ctx.attributes);
  attrs.set("ksize", b.getI64ArrayAttr(*ksize));
  attrs.set("strides", b.getI64ArrayAttr(*strides));
  InferContext pool{ctx.context, ctx.location, ctx.operands.take_front(1),
                    attrs.getDictionary(ctx.context), ctx.opName};
  return inferPool(pool, out);
}

LogicalResult inferEmpty(const InferContext &ctx, InferResult &out) {
  auto dtype = ctx.attr<TypeAttr>("dtype");
  if (!dtype)
    return ctx.error("requires the attribute 'dtype'");
  if (failed(ctx.requireTensorOperands(1)) || failed(requireShapeVector(ctx, 0, "shape")))
    return failure();
  auto dims = ctx.constantInts(0);
  if (!dims) {
    out.push_back(UnrankedTensorType::get(dtype.getValue()));
    return success();
  }
  if (llvm::any_of(*dims, [](int64_t d) { return d < 0; }))
    return ctx.error("shape ", describeDims(*dims), " must not be negative");
  out.push_back(RankedTensorType::get(*dims, dtype.getValue()));
  return success();
}

/// DataFormatDimMap's and DataFormatVecPermute's formats: permutations of one another,
/// of 4 or 5 distinct letters.
static LogicalResult checkFormats(const InferContext &ctx, StringRef src, StringRef dst) {
  if ((src.size() != 4 && src.size() != 5) || src.size() != dst.size() ||
      !std::is_permutation(src.begin(), src.end(), dst.begin()) ||
      llvm::any_of(src, [&](char c) { return src.count(c) != 1; }))
    return ctx.error("src_format \"", src, "\" and dst_format \"", dst,
                     "\" must be permutations of one another, of 4 or 5 distinct letters");
  return success();
}

static std::pair<StringRef, StringRef> formatsOf(const InferContext &ctx) {
  auto src = ctx.attr<StringAttr>("src_format"), dst = ctx.attr<StringAttr>("dst_format");
  return {src ? src.getValue() : StringRef("NHWC"), dst ? dst.getValue() : StringRef("NCHW")};
}

LogicalResult inferDataFormat(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  auto [src, dst] = formatsOf(ctx);
  if (failed(checkFormats(ctx, src, dst)))
    return failure();
  if (!input->getElementType().isSignlessInteger())
    return ctx.error("x must be int32 or int64, got ", *input);
  if (ctx.opName == "tf.DataFormatVecPermute" && input->hasRank()) {
    int64_t n = src.size();
    int64_t rank = input->getRank();
    int64_t rows = rank > 0 ? input->getDimSize(0) : 0;
    bool fits = (rank == 1 || (rank == 2 && (input->getDimSize(1) == 2 ||
                                             ShapedType::isDynamic(input->getDimSize(1))))) &&
                (ShapedType::isDynamic(rows) || rows == n || rows == n - 2);
    if (!fits)
      return ctx.error("x must be a vector of ", n, " or ", n - 2, " entries or a [", n,
                       ", 2] or [", n - 2, ", 2] matrix, got ", *input);
  }
  out.push_back(*input);
  return success();
}

LogicalResult inferToBool(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.firstInput(1)))
    return failure();
  out.push_back(RankedTensorType::get({}, IntegerType::get(ctx.context, 1)));
  return success();
}

LogicalResult inferCross(const InferContext &ctx, InferResult &out) {
  if (failed(inferSameShapeBinary(ctx, out)))
    return failure();
  auto t = cast<TensorType>(out.back());
  if (t.hasRank() && (t.getRank() == 0 ||
                      (!ShapedType::isDynamic(t.getShape().back()) && t.getShape().back() != 3)))
    return ctx.error("a and b must have a last dimension of 3, got ", t);
  return success();
}

LogicalResult inferScalarOfFirst(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  out.push_back(RankedTensorType::get({}, input->getElementType()));
  return success();
}

/// The channel dimension of BiasAdd's and BiasAddGrad's value: 1 for NCHW of rank 3 or
/// more, else the last.
static int64_t channelDimension(StringRef format, int64_t rank) {
  return format == "NCHW" && rank > 2 ? 1 : rank - 1;
}

static StringRef dataFormatOf(Operation *op) {
  auto f = op->getAttrOfType<StringAttr>("data_format");
  return f ? f.getValue() : StringRef("NHWC");
}

LogicalResult inferBiasAddGrad(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  auto f = ctx.attr<StringAttr>("data_format");
  StringRef format = f ? f.getValue() : "NHWC";
  if (format != "NHWC" && format != "NCHW")
    return ctx.error("data_format must be \"NHWC\" or \"NCHW\", got \"", format, "\"");
  if (!input->hasRank()) {
    out.push_back(RankedTensorType::get({ShapedType::kDynamic}, input->getElementType()));
    return success();
  }
  if (input->getRank() < (format == "NCHW" ? 3 : 2))
    return ctx.error("out_backprop must have rank ", format == "NCHW" ? 3 : 2,
                     " or more for data_format \"", format, "\", got ", *input);
  int64_t c = input->getDimSize(channelDimension(format, input->getRank()));
  out.push_back(RankedTensorType::get({c}, input->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Decomposition.
//===----------------------------------------------------------------------===//

namespace {

LogicalResult requireConstant(Operation *op, std::optional<SmallVector<int64_t>> &values,
                              unsigned index, StringRef name) {
  values = constantIntsOf(dataOf(op)[index]);
  if (!values)
    return op->emitError() << name << " must be a constant";
  return success();
}

} // namespace

FailureOr<bool> decomposeAlias(RewriterBase &rewriter, Operation *op) {
  if (!isa<GraphOpInterface>(op))
    return false;
  GraphBuilder b{rewriter, op};
  rewriter.setInsertionPoint(op);
  ValueRange data = dataOf(op);
  Value replacement;
  std::optional<SmallVector<int64_t>> values;
  auto rankOf = [](Value v) { return cast<RankedTensorType>(v.getType()).getRank(); };
  auto ranked = [](Value v) { return isa<RankedTensorType>(v.getType()); };

  if (isa<BiasAddV1Op>(op)) {
    replacement = b.create("BiasAdd", data, b.copied({"T"}));
  } else if (isa<ConjugateTransposeOp>(op)) {
    replacement = b.create("Transpose", data, b.copied({"T", "Tperm"}));
  } else if (isa<EagerConstOp>(op)) {
    replacement = b.create("Identity", data, b.copied({"T"}));
  } else if (auto trigger = dyn_cast<ControlTriggerOp>(op)) {
    auto noOp = NoOpOp::create(rewriter, op->getLoc(), ControlType::get(op->getContext()),
                               trigger.getControlInputs());
    replacement = noOp.getControl();
  } else if (auto concat = dyn_cast<ConcatOp>(op)) {
    SmallVector<Value> operands(data.drop_front());
    operands.push_back(data.front());
    replacement = b.create("ConcatV2", operands, b.copied({"N", "T"}));
  } else if (isa<GatherOp>(op)) {
    replacement = b.create("GatherV2", {data[0], data[1], b.scalar(rewriter.getI32Type(), 0)},
                           b.copied({"Tparams", "Tindices"}));
  } else if (auto product = dyn_cast<BatchMatMulV3Op>(op)) {
    Type tout = product.getTout();
    SmallVector<Value> operands;
    for (Value v : data)
      operands.push_back(getElementTypeOrSelf(v.getType()) == tout
                             ? v
                             : b.create("Cast", {v}, {b.attr("DstT", TypeAttr::get(tout))}));
    replacement = b.create("BatchMatMulV2", operands, b.copied({"adj_x", "adj_y"}));
  } else if (auto v1 = dyn_cast<SpaceToBatchOp>(op)) {
    int64_t size = v1.getBlockSize();
    replacement = b.create("SpaceToBatchND", {data[0], b.ints({size, size}), data[1]});
  } else if (auto v1 = dyn_cast<BatchToSpaceOp>(op)) {
    int64_t size = v1.getBlockSize();
    replacement = b.create("BatchToSpaceND", {data[0], b.ints({size, size}), data[1]});
  } else if (isa<MaxPoolV2Op>(op)) {
    std::optional<SmallVector<int64_t>> strides;
    if (failed(requireConstant(op, values, 1, "ksize")) ||
        failed(requireConstant(op, strides, 2, "strides")))
      return failure();
    SmallVector<NamedAttribute> attrs = b.copied({"padding", "data_format", "T"});
    attrs.push_back(b.attr("ksize", rewriter.getI64ArrayAttr(*values)));
    attrs.push_back(b.attr("strides", rewriter.getI64ArrayAttr(*strides)));
    replacement = b.create("MaxPool", {data[0]}, attrs);
  } else if (isa<ReverseOp>(op)) {
    auto dims = data[1].getDefiningOp<ConstOp>();
    auto flags = dims ? dyn_cast<DenseElementsAttr>(dims.getValue()) : DenseElementsAttr();
    if (!flags || !ranked(data[0]) || flags.getNumElements() != rankOf(data[0]))
      return op->emitError() << "dims must be a constant with one entry per dimension of tensor";
    SmallVector<int64_t> axes;
    for (auto [i, flag] : llvm::enumerate(flags.getValues<bool>()))
      if (flag)
        axes.push_back(i);
    replacement = axes.empty() ? b.create("Identity", {data[0]})
                               : b.create("ReverseV2", {data[0], b.ints(axes)});
  } else if (auto empty = dyn_cast<EmptyOp>(op)) {
    Type element = empty.getDtype();
    Value zero = element.isInteger(1) ? b.constant(element, {}, {rewriter.getBoolAttr(false)})
                                      : b.scalar(element, 0);
    replacement = b.create("Fill", {data[0], zero});
  } else if (isa<DataFormatVecPermuteOp, DataFormatDimMapOp>(op)) {
    auto [src, dst] = formatsOf(InferContext::of(op, false));
    Type element = getElementTypeOrSelf(data[0].getType());
    if (isa<DataFormatVecPermuteOp>(op)) {
      // Entry i of the result is the entry of x for dst[i]; x may list only the spatial
      // dimensions (those other than N and C), in src's order.
      int64_t rows = cast<RankedTensorType>(data[0].getType()).getDimSize(0);
      std::string from = src.str(), to = dst.str();
      if (rows == static_cast<int64_t>(src.size()) - 2) {
        llvm::erase_if(from, [](char c) { return c == 'N' || c == 'C'; });
        llvm::erase_if(to, [](char c) { return c == 'N' || c == 'C'; });
      }
      SmallVector<int64_t> perm;
      for (char c : to)
        perm.push_back(from.find(c));
      replacement =
          b.create("GatherV2", {data[0], b.ints(perm), b.scalar(rewriter.getI32Type(), 0)});
    } else {
      // y = table[x mod n], table[i] the position in dst of src[i].
      SmallVector<int64_t> table;
      for (char c : src)
        table.push_back(dst.find(c));
      Value index = b.create("FloorMod", {data[0], b.scalar(element, src.size())});
      replacement =
          b.create("GatherV2", {b.ints(table, element), index, b.scalar(rewriter.getI32Type(), 0)});
    }
  } else if (isa<ToBoolOp>(op)) {
    if (!ranked(data[0]))
      return op->emitError() << "needs the input's rank";
    auto t = cast<RankedTensorType>(data[0].getType());
    Type element = t.getElementType();
    if (t.getRank() != 0) {
      if (!t.hasStaticShape())
        return op->emitError() << "needs the input's shape";
      replacement =
          b.constant(rewriter.getI1Type(), {}, {rewriter.getBoolAttr(t.getNumElements() > 0)});
    } else if (element.isInteger(1)) {
      replacement = b.create("Identity", {data[0]});
    } else {
      replacement = b.create("NotEqual", {data[0], b.scalar(element, 0)});
    }
  } else if (isa<CrossOp>(op)) {
    // (a x b)[i] = a[i+1] b[i+2] - a[i+2] b[i+1], indices mod 3, as TensorFlow computes it.
    Value axis = b.scalar(rewriter.getI32Type(), -1);
    Value a1 = b.create("GatherV2", {data[0], b.ints({1, 2, 0}), axis});
    Value a2 = b.create("GatherV2", {data[0], b.ints({2, 0, 1}), axis});
    Value b1 = b.create("GatherV2", {data[1], b.ints({1, 2, 0}), axis});
    Value b2 = b.create("GatherV2", {data[1], b.ints({2, 0, 1}), axis});
    Value left = b.create("Mul", {a1, b2});
    Value right = b.create("Mul", {a2, b1});
    replacement = b.create("Sub", {left, right});
  } else if (isa<L2LossOp>(op)) {
    // sum(t * t * 0.5), as TensorFlow's kernel computes it.
    if (!ranked(data[0]))
      return op->emitError() << "needs the input's rank";
    Value square = b.create("Square", {data[0]});
    Value half = b.scalar(getElementTypeOrSelf(data[0].getType()), 0.5);
    Value scaled = b.create("Mul", {square, half});
    replacement = b.sum(scaled, llvm::to_vector(llvm::seq<int64_t>(0, rankOf(data[0]))));
  } else if (isa<BiasAddGradOp>(op)) {
    if (!ranked(data[0]))
      return op->emitError() << "needs the input's rank";
    int64_t rank = rankOf(data[0]);
    int64_t channel = channelDimension(dataFormatOf(op), rank);
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < rank; ++d)
      if (d != channel)
        axes.push_back(d);
    replacement = b.sum(data[0], axes);
  } else if (isa<AdjustContrastv2Op>(op)) {
    // (x - mean) * factor + mean, the mean of each channel over height and width.
    if (!ranked(data[0]))
      return op->emitError() << "needs the images' rank";
    int64_t rank = rankOf(data[0]);
    Value mean = b.create("Mean", {data[0], b.ints({rank - 3, rank - 2})},
                          {b.attr("keep_dims", rewriter.getBoolAttr(true))});
    Value centred = b.create("Sub", {data[0], mean});
    Value scaled = b.create("Mul", {centred, data[1]});
    replacement = b.create("AddV2", {scaled, mean});
  } else if (isa<BroadcastArgsOp, BroadcastGradientArgsOp, ConcatOffsetOp, ShapeNOp>(op)) {
    return op->emitError() << "needs its shapes known at compile time (Kiln computes this "
                              "shape arithmetic while compiling)";
  } else {
    return false;
  }
  if (b.failed)
    return failure();
  if (replacement.getType() != op->getResult(0).getType() && !isa<ControlTriggerOp>(op)) {
    // A more refined type (a static shape TensorFlow's attributes left open) is fine.
    if (!areCompatibleResultTypes(replacement.getType(), op->getResult(0).getType()))
      return op->emitError() << "was rewritten as " << describeType(replacement.getType())
                             << " where " << describeType(op->getResult(0).getType())
                             << " was inferred";
  }
  rewriter.replaceOp(op, replacement);
  return true;
}

} // namespace kiln::tf
