//===- Decompose.cpp - composite ops as the ops Kiln has kernels for ----------===//
//
// An Einsum of one operand is a Sum and a Transpose; of two, a matrix product between
// transposes and reshapes (MatMul when no dimension is batched). A batched product whose
// second operand has no batch of its own (Keras's Dense on a sequence) is one MatMul over
// the first's rows. A grouped Conv2D is a depthwise convolution (one input channel per
// group) or one Conv2D per group. Written as those ops, the products and convolutions
// reach their kernels and the rest lowers as it always has (kiln-graph-decompose).
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"

using namespace mlir;

namespace kiln::tf {
namespace {

/// Builds the tf ops of a decomposition, each with inferred types at the Einsum's location.
/// An op whose inference fails (which valid labels rule out) sets `failed` and stands in
/// as its first operand, so that the caller checks once, at the end.
struct Builder {
  RewriterBase &rewriter;
  Location loc;
  bool failed = false;

  Value constInts(ArrayRef<int64_t> values) {
    auto type = RankedTensorType::get({int64_t(values.size())}, rewriter.getI64Type());
    auto elements = DenseIntElementsAttr::get(type, values);
    return ConstOp::create(rewriter, loc, type, elements, TypeAttr::get(rewriter.getI64Type()),
                           ValueRange{});
  }
  Value create(StringRef name, ValueRange operands, ArrayRef<NamedAttribute> attrs = {}) {
    if (Value result = createTF(rewriter, loc, name, operands, attrs))
      return result;
    failed = true;
    return operands.front();
  }
  /// x with its dimensions in the order of `to` (labels of x in `from`); x itself when
  /// that is the order it has.
  Value transpose(Value x, ArrayRef<int> from, ArrayRef<int> to) {
    SmallVector<int64_t> perm;
    for (int label : to)
      perm.push_back(llvm::find(from, label) - from.begin());
    bool identity = llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()));
    return identity ? x : create("Transpose", {x, constInts(perm)});
  }
  /// A [rows, 2] i64 constant (paddings).
  Value constPairs(ArrayRef<int64_t> values) {
    auto type = RankedTensorType::get({int64_t(values.size()) / 2, 2}, rewriter.getI64Type());
    auto elements = DenseIntElementsAttr::get(type, values);
    return ConstOp::create(rewriter, loc, type, elements, TypeAttr::get(rewriter.getI64Type()),
                           ValueRange{});
  }
  Value constScalar(int32_t value) {
    auto type = RankedTensorType::get({}, rewriter.getI32Type());
    return ConstOp::create(rewriter, loc, type, DenseIntElementsAttr::get(type, {value}),
                           TypeAttr::get(rewriter.getI32Type()), ValueRange{});
  }
  /// x in `parts` equal parts along `axis` (tf.Split).
  SmallVector<Value> split(Value x, int32_t axis, int64_t parts) {
    OperationState state(loc, "tf.Split");
    state.addOperands({constScalar(axis), x});
    state.addAttribute("num_split", rewriter.getI64IntegerAttr(parts));
    Operation *op = createInferred(rewriter, state);
    if (!op) {
      failed = true;
      return SmallVector<Value>(parts, x);
    }
    return SmallVector<Value>(op->getResults());
  }
  Value reshape(Value x, ArrayRef<int64_t> shape) {
    if (cast<RankedTensorType>(x.getType()).getShape() == shape)
      return x;
    return create("Reshape", {x, constInts(shape)});
  }
  /// x summed over the dimensions whose labels `keep` rejects; `labels` becomes the rest.
  Value sumExcept(Value x, SmallVector<int> &labels, llvm::function_ref<bool(int)> keep) {
    SmallVector<int64_t> axes;
    SmallVector<int> kept;
    for (auto [d, label] : llvm::enumerate(labels)) {
      if (keep(label))
        kept.push_back(label);
      else
        axes.push_back(d);
    }
    if (axes.empty())
      return x;
    labels = kept;
    return create("Sum", {x, constInts(axes)},
                  {rewriter.getNamedAttr("keep_dims", rewriter.getBoolAttr(false))});
  }
};

int64_t product(ArrayRef<int> labels, const llvm::DenseMap<int, int64_t> &size) {
  int64_t n = 1;
  for (int label : labels)
    n *= size.lookup(label);
  return n;
}

} // namespace

LogicalResult decomposeEinsum(RewriterBase &rewriter, EinsumOp op) {
  InferContext ctx = InferContext::of(op);
  if (!op.getControlInputs().empty())
    return ctx.error("has control inputs, which its decomposition would not keep");
  ValueRange values = op.getValues();
  SmallVector<int64_t> ranks;
  for (Value v : values) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape())
      return ctx.error("needs inputs of known shape, got ", v.getType(),
                       " (give the feeds' shapes with --feed)");
    ranks.push_back(type.getRank());
  }
  auto resultType = dyn_cast<RankedTensorType>(op.getResult().getType());
  if (!resultType || !resultType.hasStaticShape())
    return ctx.error("needs a result of known shape, got ", op.getResult().getType());
  auto labels = parseEinsum(ctx, op.getEquation(), ranks);
  if (failed(labels))
    return failure();
  llvm::DenseMap<int, int64_t> size;
  for (auto [i, in] : llvm::enumerate(labels->inputs))
    for (auto [d, label] : llvm::enumerate(in)) {
      int64_t n = cast<RankedTensorType>(values[i].getType()).getDimSize(d);
      auto [it, inserted] = size.try_emplace(label, n);
      if (!inserted && it->second != n)
        return ctx.error("broadcasts ", einsumLabelName(label), " (size ", std::min(n, it->second),
                         " against ", std::max(n, it->second),
                         "), which is not supported yet: give it its full size in both inputs");
    }

  rewriter.setInsertionPoint(op);
  Builder b{rewriter, op.getLoc()};
  // A label repeated in an input (a diagonal, "ii->i"): its two dimensions moved last, then
  // MatrixDiagPart keeps their diagonal, until no label repeats.
  SmallVector<Value> inputs(values.begin(), values.end());
  for (auto [i, in] : llvm::enumerate(labels->inputs)) {
    while (true) {
      int64_t p = -1, q = -1;
      for (int64_t a = 0; a < int64_t(in.size()) && p < 0; ++a)
        for (int64_t c = a + 1; c < int64_t(in.size()); ++c)
          if (in[a] == in[c]) {
            p = a, q = c;
            break;
          }
      if (p < 0)
        break;
      SmallVector<int64_t> perm;
      SmallVector<int> rest;
      for (int64_t d = 0; d < int64_t(in.size()); ++d)
        if (d != p && d != q) {
          perm.push_back(d);
          rest.push_back(in[d]);
        }
      perm.push_back(p);
      perm.push_back(q);
      rest.push_back(in[p]);
      bool inPlace = p + 2 == int64_t(in.size()) && q + 1 == int64_t(in.size());
      Value moved = inPlace ? inputs[i] : b.create("Transpose", {inputs[i], b.constInts(perm)});
      inputs[i] = b.create("MatrixDiagPart", {moved});
      in = rest;
    }
  }
  values = inputs;
  ArrayRef<int> out = labels->output;
  auto inOutput = [&](int label) { return llvm::is_contained(out, label); };
  Value result;
  if (values.size() == 1) {
    SmallVector<int> x = labels->inputs[0];
    result = b.transpose(b.sumExcept(values[0], x, inOutput), x, out);
  } else {
    SmallVector<int> x = labels->inputs[0], y = labels->inputs[1];
    // Labels in one input only and not in the output are summed there first.
    SmallVector<int> x0 = x, y0 = y;
    Value xv =
        b.sumExcept(values[0], x, [&](int l) { return inOutput(l) || llvm::is_contained(y0, l); });
    Value yv =
        b.sumExcept(values[1], y, [&](int l) { return inOutput(l) || llvm::is_contained(x0, l); });
    SmallVector<int> batch, contract, freeX, freeY;
    for (int label : out) {
      bool inX = llvm::is_contained(x, label), inY = llvm::is_contained(y, label);
      (inX && inY ? batch : inX ? freeX : freeY).push_back(label);
    }
    for (int label : x)
      if (llvm::is_contained(y, label) && !inOutput(label))
        contract.push_back(label);
    // The product's columns come from y: swap the inputs when the output lists y's free
    // dimensions first, so that the product is already in the output's order.
    if (!freeX.empty() && !freeY.empty() &&
        llvm::find(out, freeY.front()) < llvm::find(out, freeX.front())) {
      std::swap(x, y);
      std::swap(xv, yv);
      std::swap(freeX, freeY);
    }
    // Each operand as [batch, rows, depth] / [batch, depth, columns], or the other way
    // round with adj_x / adj_y when that is the order it already has, or when that keeps
    // its last dimension last (a transpose that moves whole rows).
    auto concat = [](std::initializer_list<ArrayRef<int>> parts) {
      SmallVector<int> all;
      for (ArrayRef<int> p : parts)
        all.append(p.begin(), p.end());
      return all;
    };
    // `last` is the group the adjoint order ends with.
    auto orient = [](ArrayRef<int> labels, SmallVector<int> normal, SmallVector<int> adjoint,
                     ArrayRef<int> last, SmallVector<int> &order) {
      bool adj = labels != ArrayRef<int>(normal) &&
                 (labels == ArrayRef<int>(adjoint) ||
                  (!labels.empty() && llvm::is_contained(last, labels.back())));
      order = adj ? adjoint : normal;
      return adj;
    };
    SmallVector<int> xOrder, yOrder;
    bool adjX = orient(x, concat({batch, freeX, contract}), concat({batch, contract, freeX}), freeX,
                       xOrder);
    bool adjY = orient(y, concat({batch, contract, freeY}), concat({batch, freeY, contract}),
                       contract, yOrder);
    SmallVector<int64_t> batchDims;
    for (int label : batch)
      batchDims.push_back(size.lookup(label));
    int64_t m = product(freeX, size), k = product(contract, size), n = product(freeY, size);
    auto matrixShape = [&](int64_t rows, int64_t cols) {
      SmallVector<int64_t> shape = batchDims;
      shape.append({rows, cols});
      return shape;
    };
    xv = b.reshape(b.transpose(xv, x, xOrder), adjX ? matrixShape(k, m) : matrixShape(m, k));
    yv = b.reshape(b.transpose(yv, y, yOrder), adjY ? matrixShape(n, k) : matrixShape(k, n));
    Value product;
    if (batch.empty())
      product = b.create("MatMul", {xv, yv},
                         {rewriter.getNamedAttr("transpose_a", rewriter.getBoolAttr(adjX)),
                          rewriter.getNamedAttr("transpose_b", rewriter.getBoolAttr(adjY))});
    else
      product = b.create("BatchMatMulV2", {xv, yv},
                         {rewriter.getNamedAttr("adj_x", rewriter.getBoolAttr(adjX)),
                          rewriter.getNamedAttr("adj_y", rewriter.getBoolAttr(adjY))});
    SmallVector<int> productLabels = concat({batch, freeX, freeY});
    SmallVector<int64_t> productShape;
    for (int label : productLabels)
      productShape.push_back(size.lookup(label));
    result = b.transpose(b.reshape(product, productShape), productLabels, out);
  }
  if (b.failed || result.getType() != op.getResult().getType())
    return ctx.error("could not be decomposed into ops of its result type ", resultType);
  rewriter.replaceOp(op, result);
  return success();
}

LogicalResult decomposeGroupedConv2D(RewriterBase &rewriter, Conv2DOp op) {
  if (!op.getControlInputs().empty())
    return failure();
  auto x = dyn_cast<RankedTensorType>(op.getInput().getType());
  auto f = dyn_cast<RankedTensorType>(op.getFilter().getType());
  auto result = dyn_cast<RankedTensorType>(op.getOutput().getType());
  if (!x || !f || !result || x.getRank() != 4 || !f.hasStaticShape())
    return failure();
  int32_t axis = op.getDataFormat() == "NCHW" ? 1 : 3;
  int64_t channels = x.getDimSize(axis), perGroup = f.getDimSize(2), outputs = f.getDimSize(3);
  if (ShapedType::isDynamic(channels) || perGroup < 1 || channels == perGroup ||
      channels % perGroup != 0)
    return failure();
  int64_t groups = channels / perGroup;
  if (outputs % groups != 0)
    return failure();
  SmallVector<NamedAttribute> window;
  for (StringRef name : {"strides", "padding", "explicit_paddings", "data_format", "dilations"})
    if (Attribute attr = op->getAttr(name))
      window.push_back(rewriter.getNamedAttr(name, attr));
  rewriter.setInsertionPoint(op);
  Builder b{rewriter, op.getLoc()};
  Value y;
  if (perGroup == 1) {
    // One input channel per group: output channel g * (outputs / groups) + m reads input
    // channel g alone, as a depthwise convolution's channel g, multiplier m, does.
    Value filter =
        b.reshape(op.getFilter(), {f.getDimSize(0), f.getDimSize(1), channels, outputs / channels});
    y = b.create("DepthwiseConv2dNative", {op.getInput(), filter}, window);
  } else {
    SmallVector<Value> xs = b.split(op.getInput(), axis, groups);
    SmallVector<Value> fs = b.split(op.getFilter(), 3, groups);
    SmallVector<Value> parts;
    for (int64_t g = 0; g < groups; ++g)
      parts.push_back(b.create("Conv2D", {xs[g], fs[g]}, window));
    parts.push_back(b.constScalar(axis));
    y = b.create("ConcatV2", parts,
                 {rewriter.getNamedAttr("N", rewriter.getI64IntegerAttr(groups))});
  }
  if (b.failed || y.getType() != result)
    return failure();
  rewriter.replaceOp(op, y);
  return success();
}

LogicalResult decomposeGroupedConv3D(RewriterBase &rewriter, Conv3DOp op) {
  auto x = dyn_cast<RankedTensorType>(op.getInput().getType());
  auto f = dyn_cast<RankedTensorType>(op.getFilter().getType());
  auto result = dyn_cast<RankedTensorType>(op.getOutput().getType());
  if (!op.getControlInputs().empty() || !x || !f || !result || x.getRank() != 5 ||
      !f.hasStaticShape())
    return failure();
  int64_t channels = x.getDimSize(4), perGroup = f.getDimSize(3), outputs = f.getDimSize(4);
  if (ShapedType::isDynamic(channels) || perGroup < 1 || channels == perGroup ||
      channels % perGroup != 0 || outputs % (channels / perGroup) != 0)
    return failure();
  int64_t groups = channels / perGroup;
  SmallVector<NamedAttribute> window;
  for (StringRef name : {"strides", "padding", "data_format", "dilations"})
    if (Attribute attr = op->getAttr(name))
      window.push_back(rewriter.getNamedAttr(name, attr));
  rewriter.setInsertionPoint(op);
  Builder b{rewriter, op.getLoc()};
  SmallVector<Value> xs = b.split(op.getInput(), 4, groups);
  SmallVector<Value> fs = b.split(op.getFilter(), 4, groups);
  SmallVector<Value> parts;
  for (int64_t g = 0; g < groups; ++g)
    parts.push_back(b.create("Conv3D", {xs[g], fs[g]}, window));
  parts.push_back(b.constScalar(4));
  Value y =
      b.create("ConcatV2", parts, {rewriter.getNamedAttr("N", rewriter.getI64IntegerAttr(groups))});
  if (b.failed || y.getType() != result)
    return failure();
  rewriter.replaceOp(op, y);
  return success();
}

LogicalResult flattenBatchMatMul(RewriterBase &rewriter, Operation *op) {
  if (op->getNumOperands() != 2 || op->getNumResults() != 1)
    return failure(); // control inputs stay with the op
  auto x = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto y = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!x || !y || !result || !x.hasStaticShape() || !y.hasStaticShape() ||
      !result.hasStaticShape() || x.getRank() < 2 || y.getRank() < 2)
    return failure();
  auto flag = [&](StringRef name) {
    auto attr = op->getAttrOfType<BoolAttr>(name);
    return attr && attr.getValue();
  };
  if (flag("adj_x") || llvm::any_of(y.getShape().drop_back(2), [](int64_t d) { return d != 1; }))
    return failure();
  int64_t rows = 1;
  for (int64_t d : x.getShape().drop_back())
    rows *= d;
  rewriter.setInsertionPoint(op);
  Builder b{rewriter, op->getLoc()};
  Value lhs = b.reshape(op->getOperand(0), {rows, x.getShape().back()});
  Value rhs = b.reshape(op->getOperand(1), y.getShape().take_back(2));
  Value product =
      b.create("MatMul", {lhs, rhs},
               {rewriter.getNamedAttr("transpose_a", rewriter.getBoolAttr(false)),
                rewriter.getNamedAttr("transpose_b", rewriter.getBoolAttr(flag("adj_y")))});
  Value reshaped = b.reshape(product, result.getShape());
  if (b.failed || reshaped.getType() != result)
    return failure();
  rewriter.replaceOp(op, reshaped);
  return success();
}

namespace {

/// An attribute's integers, or `fallback` when it is absent.
SmallVector<int64_t> intsAttr(Operation *op, StringRef name, ArrayRef<int64_t> fallback) {
  auto list = op->getAttrOfType<ArrayAttr>(name);
  if (!list)
    return SmallVector<int64_t>(fallback);
  return llvm::map_to_vector(list, [](Attribute a) { return cast<IntegerAttr>(a).getInt(); });
}

} // namespace

LogicalResult decomposeSpaceBatch(RewriterBase &rewriter, Operation *op) {
  bool toBatch = isa<SpaceToBatchNDOp>(op);
  if (op->getNumOperands() != 3)
    return failure(); // control inputs stay with the op
  auto x = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  auto block = constantIntsOf(op->getOperand(1));
  auto amounts = constantIntsOf(op->getOperand(2));
  if (!x || !result || !x.hasStaticShape() || !result.hasStaticShape() || !block || !amounts ||
      block->empty() || amounts->size() != 2 * block->size())
    return failure();
  int64_t m = block->size(), rank = x.getRank();
  ArrayRef<int64_t> rest = x.getShape().drop_front(1 + m);
  rewriter.setInsertionPoint(op);
  Builder b{rewriter, op->getLoc()};
  Value v = op->getOperand(0);
  bool anyAmount = llvm::any_of(*amounts, [](int64_t a) { return a != 0; });
  SmallVector<int64_t> split, perm;
  if (toBatch) {
    // [B, P1, ..., PM, R] as [B, P1/b1, b1, ..., PM/bM, bM, R], the block offsets moved in
    // front of the batch: the output's batch index is offset * B + b.
    if (anyAmount) {
      SmallVector<int64_t> pads(2 * rank, 0);
      llvm::copy(*amounts, pads.begin() + 2);
      v = b.create("Pad", {v, b.constPairs(pads)});
    }
    split.push_back(x.getDimSize(0));
    for (int64_t i = 0; i < m; ++i) {
      int64_t padded = x.getDimSize(1 + i) + (*amounts)[2 * i] + (*amounts)[2 * i + 1];
      split.append({padded / (*block)[i], (*block)[i]});
    }
    for (int64_t i = 0; i < m; ++i)
      perm.push_back(2 + 2 * i);
    perm.push_back(0);
    for (int64_t i = 0; i < m; ++i)
      perm.push_back(1 + 2 * i);
  } else {
    // [b1 ... bM * B, S1, ..., SM, R] as [b1, ..., bM, B, S1, ..., SM, R], then each block
    // offset moved behind its dimension.
    int64_t blocks = 1;
    for (int64_t size : *block)
      blocks *= size;
    split.append(block->begin(), block->end());
    split.push_back(x.getDimSize(0) / blocks);
    llvm::append_range(split, x.getShape().slice(1, m));
    perm.push_back(m);
    for (int64_t i = 0; i < m; ++i)
      perm.append({m + 1 + i, i});
  }
  split.append(rest.begin(), rest.end());
  for (int64_t i = 0; i < static_cast<int64_t>(rest.size()); ++i)
    perm.push_back(2 * m + 1 + i);
  v = b.create("Transpose", {b.reshape(v, split), b.constInts(perm)});
  if (toBatch) {
    v = b.reshape(v, result.getShape());
  } else {
    SmallVector<int64_t> uncropped{result.getDimSize(0)};
    for (int64_t i = 0; i < m; ++i)
      uncropped.push_back(x.getDimSize(1 + i) * (*block)[i]);
    uncropped.append(rest.begin(), rest.end());
    v = b.reshape(v, uncropped);
    if (anyAmount) {
      SmallVector<int64_t> begin(rank, 0);
      for (int64_t i = 0; i < m; ++i)
        begin[1 + i] = (*amounts)[2 * i];
      v = b.create("Slice", {v, b.constInts(begin), b.constInts(result.getShape())});
    }
  }
  if (b.failed || v.getType() != result)
    return failure();
  rewriter.replaceOp(op, v);
  return success();
}

LogicalResult fuseDilatedConvolution(RewriterBase &rewriter, BatchToSpaceNDOp op) {
  if (!op.getControlInputs().empty())
    return failure();
  // The 1-D form: ExpandDims(H) -> Conv2D -> Squeeze(H) between the two.
  Value convResult = op.getInput();
  auto squeeze = convResult.getDefiningOp<SqueezeOp>();
  if (squeeze) {
    SmallVector<int64_t> dims = intsAttr(squeeze, "squeeze_dims", {});
    if (!squeeze->hasOneUse() || !squeeze.getControlInputs().empty() || dims.size() != 1 ||
        (dims[0] != 1 && dims[0] != -3))
      return failure();
    convResult = squeeze.getInput();
  }
  Operation *conv = convResult.getDefiningOp();
  if (!conv || !isa<Conv2DOp, DepthwiseConv2dNativeOp>(conv) || !conv->hasOneUse() ||
      conv->getNumOperands() != 2)
    return failure();
  auto format = conv->getAttrOfType<StringAttr>("data_format");
  auto padding = conv->getAttrOfType<StringAttr>("padding");
  SmallVector<int64_t> ones{1, 1, 1, 1};
  if ((format && format.getValue() != "NHWC") || !padding || padding.getValue() != "VALID" ||
      intsAttr(conv, "strides", ones) != ones || intsAttr(conv, "dilations", ones) != ones)
    return failure();
  Value convInput = conv->getOperand(0);
  ExpandDimsOp expand;
  if (squeeze) {
    expand = convInput.getDefiningOp<ExpandDimsOp>();
    auto axis = expand ? constantIntsOf(expand.getDim()) : std::nullopt;
    if (!expand || !expand->hasOneUse() || !expand.getControlInputs().empty() || !axis ||
        axis->size() != 1 || ((*axis)[0] != 1 && (*axis)[0] != -3))
      return failure();
    convInput = expand.getInput();
  }
  auto s2b = convInput.getDefiningOp<SpaceToBatchNDOp>();
  if (!s2b || !s2b->hasOneUse() || s2b->getNumOperands() != 3)
    return failure();
  auto block = constantIntsOf(op->getOperand(1));
  auto paddings = constantIntsOf(s2b->getOperand(2));
  auto crops = constantIntsOf(op->getOperand(2));
  size_t m = squeeze ? 1 : 2;
  if (!block || block->size() != m || block != constantIntsOf(s2b->getOperand(1)) || !paddings ||
      !crops || paddings->size() != 2 * m || crops->size() != 2 * m)
    return failure();
  // Stride 1: cropping c output rows at an end is padding c fewer input rows there.
  SmallVector<int64_t> explicitPaddings(8, 0), dilations(4, 1);
  for (size_t i = 0; i < m; ++i) {
    size_t dim = squeeze ? 2 : 1 + i;
    for (size_t end = 0; end < 2; ++end) {
      int64_t pad = (*paddings)[2 * i + end] - (*crops)[2 * i + end];
      if (pad < 0)
        return failure();
      explicitPaddings[2 * dim + end] = pad;
    }
    dilations[dim] = (*block)[i];
  }
  rewriter.setInsertionPoint(op);
  Builder b{rewriter, op.getLoc()};
  Value x = s2b.getInput();
  if (squeeze)
    x = b.create("ExpandDims", {x, expand.getDim()});
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute attr : conv->getAttrs())
    if (!llvm::is_contained({"padding", "explicit_paddings", "dilations"}, attr.getName()))
      attrs.push_back(attr);
  attrs.push_back(rewriter.getNamedAttr("padding", rewriter.getStringAttr("EXPLICIT")));
  attrs.push_back(
      rewriter.getNamedAttr("explicit_paddings", rewriter.getI64ArrayAttr(explicitPaddings)));
  attrs.push_back(rewriter.getNamedAttr("dilations", rewriter.getI64ArrayAttr(dilations)));
  Value y = b.create(conv->getName().stripDialect(), {x, conv->getOperand(1)}, attrs);
  if (squeeze)
    y = b.create("Squeeze", {y},
                 {rewriter.getNamedAttr("squeeze_dims", squeeze->getAttr("squeeze_dims"))});
  if (b.failed || y.getType() != op.getOutput().getType())
    return failure();
  rewriter.replaceOp(op, y);
  if (squeeze)
    rewriter.eraseOp(squeeze);
  rewriter.eraseOp(conv);
  if (expand)
    rewriter.eraseOp(expand);
  rewriter.eraseOp(s2b);
  return success();
}

} // namespace kiln::tf
