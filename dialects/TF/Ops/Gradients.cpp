//===- Gradients.cpp - gradients of window ops, batch norm and losses ---------===//
//
// The gradient ops TensorFlow's training graphs carry, written by kiln-graph-decompose
// (decomposeGradient) as forward ops Kiln has kernels for. A window op's gradient works
// tap by tap: the tap's strided slice of the padded input lines up, for every output
// position, the input element that tap of its window reads, and a gradient goes back to
// those elements by spreading it out with the strides (Reshape and Pad, no scatter):
//
//   Conv*BackpropFilter   the filter's tap t is slice_t(x)^T . dy (one MatMul a tap)
//   Depthwise...Filter    slice_t(x) * dy summed over the batch and positions
//   Depthwise...Input     spread_t(sum over the multiplier of dy * filter[t]), summed
//   AvgPoolGrad           spread_t(grad / count), summed over the taps
//   MaxPoolGrad           spread_t(grad where tap t is the window's first maximum)
//   MaxPoolGradGrad       slice_t(grad) where tap t is the first maximum
//
// The inference functions are in Convolution.cpp, beside the forward ops'.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/Ops/GraphBuilder.h"
#include "dialects/TF/TFOps.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::tf {

namespace {

/// A window op's geometry, per spatial dimension, in channels-last order.
struct Window {
  SmallVector<int64_t> input, size, stride, dilation, before, after, output;
  size_t spatial() const { return input.size(); }
  /// The size of the padded input along spatial dimension d.
  int64_t padded(size_t d) const { return before[d] + input[d] + after[d]; }
  int64_t outputCount() const {
    int64_t n = 1;
    for (int64_t o : output)
      n *= o;
    return n;
  }
  /// Where the window of output `position` (row-major) starts along spatial dimension d,
  /// in the unpadded input (negative inside the padding before it).
  int64_t start(int64_t position, size_t d) const {
    for (size_t e = spatial(); e-- > d + 1;)
      position /= output[e];
    return position % output[d] * stride[d] - before[d];
  }
};

/// Whether `op`'s data_format puts channels right after the batch (NCHW).
bool channelsFirst(Operation *op) {
  auto f = op->getAttrOfType<StringAttr>("data_format");
  return f && f.getValue().starts_with("NC");
}

/// The spatial entries of a per-dimension list in data_format order.
SmallVector<int64_t> spatialOf(ArrayRef<int64_t> list, bool first, size_t spatial) {
  return SmallVector<int64_t>(list.slice(first ? 2 : 1, spatial));
}

/// The permutations between channels-first and channels-last tensors of `rank`.
SmallVector<int64_t> toChannelsLast(int64_t rank) {
  SmallVector<int64_t> perm = {0};
  for (int64_t d = 2; d < rank; ++d)
    perm.push_back(d);
  perm.push_back(1);
  return perm;
}
SmallVector<int64_t> toChannelsFirst(int64_t rank) {
  SmallVector<int64_t> perm = {0, rank - 1};
  for (int64_t d = 1; d < rank - 1; ++d)
    perm.push_back(d);
  return perm;
}

/// The geometry of `op`'s window over an input of channels-last `shape`, its spatial
/// window `size` (none: the op's ksize, from its attribute or, for the V2 ops, from
/// operand 3) and its attributes; inference has checked them.
FailureOr<Window> windowOf(Operation *op, ArrayRef<int64_t> shape,
                           std::optional<ArrayRef<int64_t>> size) {
  size_t spatial = shape.size() - 2;
  bool first = channelsFirst(op);
  ValueRange data = cast<GraphOpInterface>(op).getDataInputs();
  bool v2 = op->getName().getStringRef().ends_with("V2") && data.size() == 5;
  InferContext ctx = InferContext::of(op);
  auto strides = v2 ? constantIntsOf(data[4]) : ctx.intList("strides");
  auto ksize = v2 ? constantIntsOf(data[3]) : ctx.intList("ksize");
  if (!strides || (!size && !ksize))
    return failure();
  Window w;
  w.input = SmallVector<int64_t>(shape.slice(1, spatial));
  w.size = size ? SmallVector<int64_t>(*size) : spatialOf(*ksize, first, spatial);
  w.stride = spatialOf(*strides, first, spatial);
  w.dilation = spatialOf(ctx.intList("dilations").value_or(SmallVector<int64_t>(spatial + 2, 1)),
                         first, spatial);
  StringRef padding = op->getAttrOfType<StringAttr>("padding").getValue();
  auto explicitPads = ctx.intList("explicit_paddings");
  for (size_t d = 0; d < spatial; ++d) {
    int64_t e = 2 * (first ? d + 2 : d + 1);
    bool given = padding == "EXPLICIT" && explicitPads && explicitPads->size() > size_t(e + 1);
    auto dim = computeWindow(ctx, w.input[d], w.size[d], w.stride[d], w.dilation[d], padding,
                             given ? (*explicitPads)[e] : 0, given ? (*explicitPads)[e + 1] : 0);
    if (failed(dim) || ShapedType::isDynamic(dim->output))
      return failure();
    w.before.push_back(dim->padBefore);
    w.after.push_back(dim->padAfter);
    w.output.push_back(dim->output);
  }
  return w;
}

/// Every tap of the window, as its index per spatial dimension, in row-major order (the
/// order TensorFlow's kernels scan a window in).
SmallVector<SmallVector<int64_t>> tapsOf(const Window &w) {
  SmallVector<SmallVector<int64_t>> taps = {{}};
  for (int64_t size : w.size) {
    SmallVector<SmallVector<int64_t>> next;
    for (const auto &t : taps)
      for (int64_t k = 0; k < size; ++k) {
        next.push_back(t);
        next.back().push_back(k);
      }
    taps = std::move(next);
  }
  return taps;
}

/// Window tensors, channels last: [N, spatial..., C].
struct WindowBuilder : GraphBuilder {
  const Window &w;

  WindowBuilder(RewriterBase &rewriter, Operation *op, const Window &w)
      : GraphBuilder{rewriter, op}, w(w) {}

  /// x [N, input..., C] padded with `value` to [N, padded..., C].
  Value padInput(Value x, double value = 0) {
    SmallVector<int64_t> amounts = {0, 0};
    for (size_t d = 0; d < w.spatial(); ++d)
      amounts.append({w.before[d], w.after[d]});
    amounts.append({0, 0});
    if (llvm::all_of(amounts, [](int64_t a) { return a == 0; }))
      return x;
    return pad(x, amounts, scalar(getElementTypeOrSelf(x.getType()), value));
  }

  /// The elements of padded [N, padded..., C] that tap `t` of each window reads:
  /// [N, output..., C].
  Value tapSlice(Value padded, ArrayRef<int64_t> t) {
    auto shape = cast<RankedTensorType>(padded.getType()).getShape();
    SmallVector<int64_t> begin = {0}, end = {shape[0]}, strides = {1};
    for (size_t d = 0; d < w.spatial(); ++d) {
      int64_t offset = t[d] * w.dilation[d];
      begin.push_back(offset);
      end.push_back(w.output[d] == 0 ? offset : offset + (w.output[d] - 1) * w.stride[d] + 1);
      strides.push_back(w.stride[d]);
    }
    begin.push_back(0);
    end.push_back(shape.back());
    strides.push_back(1);
    return stridedSlice(padded, begin, end, strides);
  }

  /// g [N, output..., C] put where tap `t` of each window reads from a padded input, zeros
  /// elsewhere: [N, padded..., C]. (The inverse of tapSlice.)
  Value spread(Value g, ArrayRef<int64_t> t) {
    auto shape = cast<RankedTensorType>(g.getType()).getShape();
    Value zero = scalar(getElementTypeOrSelf(g.getType()), 0);
    int64_t n = shape.front(), c = shape.back();
    if (llvm::any_of(w.stride, [](int64_t s) { return s > 1; })) {
      // [N, O1, 1, O2, 1, C] padded to [N, O1, s1, O2, s2, C]: stride - 1 zeros after each.
      SmallVector<int64_t> interleaved = {n}, amounts = {0, 0}, spreadShape = {n};
      for (size_t d = 0; d < w.spatial(); ++d) {
        interleaved.append({w.output[d], 1});
        amounts.append({0, 0, 0, w.stride[d] - 1});
        spreadShape.push_back(w.output[d] * w.stride[d]);
      }
      interleaved.push_back(c);
      amounts.append({0, 0});
      spreadShape.push_back(c);
      g = reshape(pad(reshape(g, interleaved), amounts, zero), spreadShape);
    }
    // Position o goes to offset + o * stride: cut the zeros past the padded input, pad
    // the rest.
    SmallVector<int64_t> begin = {0}, end = {n}, ones = {1}, amounts = {0, 0};
    bool cut = false;
    for (size_t d = 0; d < w.spatial(); ++d) {
      int64_t offset = t[d] * w.dilation[d];
      int64_t length = std::min(w.output[d] * w.stride[d], w.padded(d) - offset);
      cut |= length < w.output[d] * w.stride[d];
      begin.push_back(0);
      end.push_back(length);
      ones.push_back(1);
      amounts.append({offset, w.padded(d) - offset - length});
    }
    begin.push_back(0);
    end.push_back(c);
    ones.push_back(1);
    amounts.append({0, 0});
    if (cut)
      g = stridedSlice(g, begin, end, ones);
    return pad(g, amounts, zero);
  }

  /// The input part [N, input..., C] of a padded [N, padded..., C].
  Value crop(Value padded) {
    auto shape = cast<RankedTensorType>(padded.getType()).getShape();
    SmallVector<int64_t> begin = {0}, end = {shape.front()}, ones = {1};
    for (size_t d = 0; d < w.spatial(); ++d) {
      begin.push_back(w.before[d]);
      end.push_back(w.before[d] + w.input[d]);
      ones.push_back(1);
    }
    begin.push_back(0);
    end.push_back(shape.back());
    ones.push_back(1);
    return stridedSlice(padded, begin, end, ones);
  }

  /// For each output position, whether tap `t` of its window lies inside the input.
  SmallVector<bool> inside(ArrayRef<int64_t> t) {
    SmallVector<bool> mask(w.outputCount(), true);
    for (size_t i = 0; i < mask.size(); ++i)
      for (size_t d = 0; d < w.spatial(); ++d) {
        int64_t at = w.start(i, d) + t[d] * w.dilation[d];
        if (at < 0 || at >= w.input[d])
          mask[i] = false;
      }
    return mask;
  }

  /// A constant [1, output..., 1] of `values`, one per output position.
  Value perPosition(Type element, ArrayRef<Attribute> values) {
    SmallVector<int64_t> shape = {1};
    shape.append(w.output.begin(), w.output.end());
    shape.push_back(1);
    return constant(element, shape, values);
  }
  Value mask(ArrayRef<bool> values) {
    SmallVector<Attribute> attrs;
    for (bool v : values)
      attrs.push_back(rewriter.getBoolAttr(v));
    return perPosition(rewriter.getI1Type(), attrs);
  }

  /// For each window of x [N, input..., C], the index of the tap holding its first
  /// maximum among the taps inside the input (TensorFlow's CPU kernels' choice): i32
  /// [N, output..., C].
  Value firstMaximum(Value x) {
    Value padded = padInput(x);
    SmallVector<SmallVector<int64_t>> taps = tapsOf(w);
    Value best, index;
    SmallVector<bool> seen(w.outputCount(), false);
    Type i32 = rewriter.getI32Type();
    for (auto [t, tap] : llvm::enumerate(taps)) {
      Value candidate = tapSlice(padded, tap);
      SmallVector<bool> in = inside(tap);
      if (t == 0) {
        best = candidate;
        index = scalar(i32, 0);
        seen = in;
        continue;
      }
      // take = inside && (no tap inside seen yet || best < candidate)
      Value take = create("Less", {best, candidate});
      bool allSeen = llvm::all_of(seen, [](bool s) { return s; });
      if (!allSeen) {
        SmallVector<bool> unseen;
        for (bool s : seen)
          unseen.push_back(!s);
        take = create("LogicalOr", {take, mask(unseen)});
      }
      if (!llvm::all_of(in, [](bool s) { return s; }))
        take = create("LogicalAnd", {take, mask(in)});
      best = create("SelectV2", {take, candidate, best});
      index = create("SelectV2", {take, scalar(i32, t), index});
      for (size_t i = 0; i < seen.size(); ++i)
        seen[i] = seen[i] || in[i];
    }
    return index;
  }
};

/// Makes x channels-last when the op's data format is channels-first.
Value channelsLast(GraphBuilder &b, Value x, bool first) {
  return first ? b.transpose(x, toChannelsLast(rankedOf(x).getRank())) : x;
}

/// The replacement of a window-op gradient: its one result.
FailureOr<SmallVector<Value>> windowGradient(RewriterBase &rewriter, Operation *op) {
  ValueRange data = dataOf(op);
  StringRef name = op->getName().getStringRef();
  bool first = channelsFirst(op);
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType || !resultType.hasStaticShape())
    return op->emitError() << "needs static shapes";
  for (Value v : data)
    if (!rankedOf(v) || !rankedOf(v).hasStaticShape())
      return op->emitError() << "needs static shapes";
  int64_t rank = resultType.getRank();
  Type element = resultType.getElementType();
  GraphBuilder g{rewriter, op};
  Value result;
  if (isa<Conv2DBackpropFilterOp, Conv3DBackpropFilterV2Op, DepthwiseConv2dNativeBackpropFilterOp>(
          op)) {
    Value x = channelsLast(g, data[0], first), dy = channelsLast(g, data[2], first);
    ArrayRef<int64_t> filter = resultType.getShape();
    auto w = windowOf(op, rankedOf(x).getShape(), filter.drop_back(2));
    if (failed(w))
      return op->emitError() << "needs a known window";
    WindowBuilder b(rewriter, op, *w);
    Value padded = b.padInput(x);
    int64_t n = rankedOf(x).getDimSize(0), positions = n * w->outputCount();
    int64_t cin = filter[rank - 2], cout = filter[rank - 1];
    bool depthwise = isa<DepthwiseConv2dNativeBackpropFilterOp>(op);
    SmallVector<int64_t> split(rankedOf(dy).getShape().drop_back());
    split.append({cin, cout});
    SmallVector<int64_t> column(rankedOf(dy).getShape().drop_back());
    column.append({cin, 1});
    Value grad = depthwise ? b.reshape(dy, split) : b.reshape(dy, {positions, cout});
    SmallVector<Value> taps;
    SmallVector<int64_t> reduced = llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
    for (const auto &t : tapsOf(*w)) {
      Value slice = b.tapSlice(padded, t);
      if (depthwise)
        taps.push_back(b.sum(b.create("Mul", {b.reshape(slice, column), grad}), reduced));
      else
        taps.push_back(b.create("MatMul", {b.reshape(slice, {positions, cin}), grad},
                                {b.attr("transpose_a", rewriter.getBoolAttr(true))}));
    }
    Value packed = taps.size() == 1
                       ? taps.front()
                       : b.create("Pack", taps,
                                  {b.attr("axis", rewriter.getI64IntegerAttr(0)),
                                   b.attr("N", rewriter.getI64IntegerAttr(taps.size()))});
    result = b.reshape(packed, filter);
    if (b.failed || g.failed)
      return failure();
    return SmallVector<Value>{result};
  }
  // The ops below give (or take) a tensor of the forward input's shape.
  SmallVector<int64_t> inputShape(name.contains("GradGrad") ? rankedOf(data[0]).getShape()
                                                            : resultType.getShape());
  if (first) {
    SmallVector<int64_t> permuted;
    for (int64_t d : toChannelsLast(rank))
      permuted.push_back(inputShape[d]);
    inputShape = permuted;
  }
  std::optional<ArrayRef<int64_t>> size;
  if (isa<DepthwiseConv2dNativeBackpropInputOp>(op))
    size = rankedOf(data[1]).getShape().drop_back(2);
  auto w = windowOf(op, inputShape, size);
  if (failed(w))
    return op->emitError() << "needs a known window";
  WindowBuilder b(rewriter, op, *w);
  SmallVector<SmallVector<int64_t>> taps = tapsOf(*w);
  Value zero = b.scalar(element, 0);
  auto sumSpread = [&](function_ref<Value(ArrayRef<int64_t>, size_t)> contribution) {
    Value total;
    for (auto [i, t] : llvm::enumerate(taps)) {
      Value placed = b.spread(contribution(t, i), t);
      total = total ? b.create("AddV2", {total, placed}) : placed;
    }
    return b.crop(total);
  };
  if (isa<DepthwiseConv2dNativeBackpropInputOp>(op)) {
    Value dy = channelsLast(b, data[2], first);
    auto filter = rankedOf(data[1]).getShape();
    int64_t c = filter[2], m = filter[3];
    SmallVector<int64_t> split(rankedOf(dy).getShape().drop_back());
    split.append({c, m});
    Value grad = b.reshape(dy, split);
    Value perTap = b.reshape(data[1], {static_cast<int64_t>(taps.size()), c, m});
    result = sumSpread([&](ArrayRef<int64_t>, size_t i) {
      int64_t at = static_cast<int64_t>(i);
      Value f = b.stridedSlice(perTap, {at, 0, 0}, {at + 1, c, m}, {1, 1, 1});
      Value weighted = b.create("Mul", {grad, b.reshape(f, {c, m})});
      return b.create("Sum", {weighted, b.ints({rank})},
                      {b.attr("keep_dims", rewriter.getBoolAttr(false))});
    });
  } else if (isa<AvgPoolGradOp, AvgPool3DGradOp>(op)) {
    // Each output's gradient divided by the number of input elements in its window.
    SmallVector<Attribute> counts;
    SmallVector<int64_t> count(w->outputCount(), 1);
    for (size_t i = 0; i < count.size(); ++i)
      for (size_t d = 0; d < w->spatial(); ++d) {
        int64_t lo = w->start(i, d);
        count[i] *= std::min(lo + w->size[d], w->input[d]) - std::max<int64_t>(lo, 0);
      }
    for (int64_t k : count)
      counts.push_back(FloatAttr::get(element, static_cast<double>(k)));
    Value share =
        b.create("RealDiv", {channelsLast(b, data[1], first), b.perPosition(element, counts)});
    result = sumSpread([&](ArrayRef<int64_t>, size_t) { return share; });
  } else {
    Value index = b.firstMaximum(channelsLast(b, data[0], first));
    Value grad = channelsLast(b, data[2], first);
    Type i32 = rewriter.getI32Type();
    if (name.contains("GradGrad")) {
      // Each output takes the gradient at its window's first maximum.
      Value padded = b.padInput(grad);
      for (auto [i, t] : llvm::enumerate(taps)) {
        Value at = b.tapSlice(padded, t);
        result = i == 0 ? at
                        : b.create("SelectV2",
                                   {b.create("Equal", {index, b.scalar(i32, i)}), at, result});
      }
    } else {
      result = sumSpread([&](ArrayRef<int64_t>, size_t i) {
        return b.create("SelectV2", {b.create("Equal", {index, b.scalar(i32, i)}), grad, zero});
      });
    }
  }
  if (first)
    result = b.transpose(result, toChannelsFirst(rank));
  if (b.failed || g.failed)
    return failure();
  return SmallVector<Value>{result};
}

/// FusedBatchNormGrad and its V2 and V3 forms, computed in the statistics' type.
FailureOr<SmallVector<Value>> batchNormGradient(RewriterBase &rewriter, Operation *op) {
  ValueRange data = dataOf(op);
  GraphBuilder b{rewriter, op};
  auto x = rankedOf(data[1]);
  if (!x || x.getRank() != 4)
    return op->emitError() << "needs x's rank";
  Type u = getElementTypeOrSelf(data[2].getType());
  Type t = x.getElementType();
  auto cast = [&](Value v, Type to) {
    return getElementTypeOrSelf(v.getType()) == to
               ? v
               : b.create("Cast", {v}, {b.attr("DstT", TypeAttr::get(to))});
  };
  bool first = channelsFirst(op);
  SmallVector<int64_t> axes = first ? SmallVector<int64_t>{0, 2, 3} : SmallVector<int64_t>{0, 1, 2};
  // A per-channel vector broadcast against x.
  auto perChannel = [&](Value v) { return first ? b.reshape(v, {-1, 1, 1}) : v; };
  Value dy = cast(data[0], u), input = cast(data[1], u);
  Value scale = data[2], mean = data[3], variance = data[4];
  auto epsilon = op->getAttrOfType<FloatAttr>("epsilon");
  double eps = epsilon ? epsilon.getValueAsDouble() : 1e-4;
  Value rsqrt = b.create("Rsqrt", {b.create("AddV2", {variance, b.scalar(u, eps)})});
  Value centred = b.create("Sub", {input, perChannel(mean)});
  Value dySum = b.sum(dy, axes);
  Value dyCentred = b.sum(b.create("Mul", {dy, centred}), axes);
  Value scaleGrad = b.create("Mul", {dyCentred, rsqrt});
  Value coef = perChannel(b.create("Mul", {scale, rsqrt}));
  Value xGrad;
  auto training = op->getAttrOfType<BoolAttr>("is_training");
  if (!training || training.getValue()) {
    // coef * (dy - mean(dy) - centred * rsqrt^2 * mean(dy * centred))
    int64_t count = 1;
    for (int64_t a : axes)
      count *= x.getDimSize(a);
    Value n = b.scalar(u, static_cast<double>(std::max<int64_t>(count, 1)));
    Value dyMean = perChannel(b.create("RealDiv", {dySum, n}));
    Value slope =
        b.create("Mul", {b.create("RealDiv", {dyCentred, n}), b.create("Mul", {rsqrt, rsqrt})});
    Value inner = b.create(
        "Sub", {b.create("Sub", {dy, dyMean}), b.create("Mul", {centred, perChannel(slope)})});
    xGrad = b.create("Mul", {coef, inner});
  } else {
    xGrad = b.create("Mul", {dy, coef});
  }
  Value empty = b.constant(u, {0}, {});
  if (b.failed)
    return failure();
  return SmallVector<Value>{cast(xGrad, t), scaleGrad, dySum, empty, empty};
}

/// SoftmaxCrossEntropyWithLogits and its sparse form, as TensorFlow's kernels compute
/// them: the logits less their row maximum, the log of the sum of their exponentials.
FailureOr<SmallVector<Value>> crossEntropy(RewriterBase &rewriter, Operation *op) {
  ValueRange data = dataOf(op);
  GraphBuilder b{rewriter, op};
  auto features = rankedOf(data[0]);
  if (!features || !features.hasStaticShape())
    return op->emitError() << "needs the features' shape";
  int64_t batch = features.getDimSize(0), classes = features.getDimSize(1);
  Type element = features.getElementType();
  auto keep = b.attr("keep_dims", rewriter.getBoolAttr(true));
  Value shifted = b.create("Sub", {data[0], b.create("Max", {data[0], b.ints({1})}, {keep})});
  Value exp = b.create("Exp", {shifted});
  Value total = b.create("Sum", {exp, b.ints({1})}, {keep});
  Value logTotal = b.create("Log", {total});
  Value softmax = b.create("RealDiv", {exp, total});
  Value loss, backprop;
  if (isa<SoftmaxCrossEntropyWithLogitsOp>(op)) {
    Value terms = b.create("Mul", {data[1], b.create("Sub", {logTotal, shifted})});
    loss = b.sum(terms, {1});
    backprop = b.create("Sub", {softmax, data[1]});
  } else {
    // The label's logit by a gather along the classes, which checks the label's range.
    Type index = getElementTypeOrSelf(data[1].getType());
    Value picked = b.create("GatherV2", {shifted, data[1], b.scalar(rewriter.getI32Type(), 1)},
                            {b.attr("batch_dims", rewriter.getI64IntegerAttr(1))});
    loss = b.create("Sub", {b.reshape(logTotal, {batch}), picked});
    Value hot = b.create("OneHot",
                         {data[1], b.scalar(rewriter.getI32Type(), classes), b.scalar(element, 1),
                          b.scalar(element, 0)},
                         {b.attr("TI", TypeAttr::get(index))});
    backprop = b.create("Sub", {softmax, hot});
  }
  if (b.failed)
    return failure();
  return SmallVector<Value>{loss, backprop};
}

} // namespace

FailureOr<bool> decomposeGradient(RewriterBase &rewriter, Operation *op) {
  FailureOr<SmallVector<Value>> replacement;
  rewriter.setInsertionPoint(op);
  if (isa<Conv2DBackpropFilterOp, Conv3DBackpropFilterV2Op, DepthwiseConv2dNativeBackpropFilterOp,
          DepthwiseConv2dNativeBackpropInputOp, AvgPoolGradOp, AvgPool3DGradOp, MaxPoolGradOp,
          MaxPoolGradV2Op, MaxPool3DGradOp, MaxPoolGradGradOp, MaxPoolGradGradV2Op,
          MaxPool3DGradGradOp>(op))
    replacement = windowGradient(rewriter, op);
  else if (isa<FusedBatchNormGradOp, FusedBatchNormGradV2Op, FusedBatchNormGradV3Op>(op))
    replacement = batchNormGradient(rewriter, op);
  else if (isa<SoftmaxCrossEntropyWithLogitsOp, SparseSoftmaxCrossEntropyWithLogitsOp>(op))
    replacement = crossEntropy(rewriter, op);
  else
    return false;
  return replaceDecomposed(rewriter, op, replacement);
}

} // namespace kiln::tf
