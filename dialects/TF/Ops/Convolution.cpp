//===- Convolution.cpp - Conv2D, DepthwiseConv2dNative, pooling, batch norm ---===//
#include "dialects/TF/TFOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

using namespace mlir;

namespace kiln::tf {

FailureOr<WindowDim> computeWindow(const InferContext &ctx, int64_t input, int64_t size,
                                   int64_t stride, int64_t dilation, StringRef padding,
                                   int64_t explicitBefore, int64_t explicitAfter) {
  if (stride < 1 || dilation < 1 || size < 1)
    return ctx.error("window size, stride and dilation must be positive, got ", size, ", ", stride,
                     " and ", dilation);
  // TensorFlow's are int32 in practice; larger ones would overflow the arithmetic below.
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (stride > kMax || dilation > kMax || size > kMax || explicitBefore > kMax ||
      explicitAfter > kMax)
    return ctx.error("window size, stride, dilation and paddings must be at most ", kMax, ", got ",
                     size, ", ", stride, ", ", dilation, " and ", explicitBefore, "/",
                     explicitAfter);
  if (padding != "SAME" && padding != "VALID" && padding != "EXPLICIT")
    return ctx.error("padding must be \"SAME\", \"VALID\" or \"EXPLICIT\", got \"", padding, "\"");
  if (ShapedType::isDynamic(input))
    return WindowDim{ShapedType::kDynamic, 0, 0};
  if (input < 0 || input > kMaxTensorElements)
    return ctx.error("an input dimension of ", input, " is more than a tensor may hold (",
                     kMaxTensorElements, " elements)");
  int64_t effective = (size - 1) * dilation + 1;
  WindowDim w{0, 0, 0};
  if (padding == "SAME") {
    w.output = (input + stride - 1) / stride;
    int64_t total = std::max<int64_t>((w.output - 1) * stride + effective - input, 0);
    w.padBefore = total / 2;
    w.padAfter = total - w.padBefore;
    return w;
  }
  if (padding == "EXPLICIT") {
    if (explicitBefore < 0 || explicitAfter < 0)
      return ctx.error("explicit paddings must not be negative");
    w.padBefore = explicitBefore;
    w.padAfter = explicitAfter;
  }
  int64_t padded = input + w.padBefore + w.padAfter;
  if (padded < effective)
    return ctx.error("the window (", effective, " elements with dilation) is larger than the ",
                     padded, " input elements");
  w.output = (padded - effective) / stride + 1;
  return w;
}

namespace {

/// The attributes every 2-D window op reads, checked.
struct Window2D {
  Layout layout;
  StringRef padding;
  SmallVector<int64_t> strides, dilations, explicitPaddings;
};

FailureOr<Window2D> readWindowAttrs(const InferContext &ctx) {
  Window2D w{Layout::of("NHWC"), "", {}, {1, 1, 1, 1}, {}};
  StringRef format = "NHWC";
  if (auto f = ctx.attr<StringAttr>("data_format"))
    format = f.getValue();
  if (format != "NHWC" && format != "NCHW")
    return ctx.error("data_format must be \"NHWC\" or \"NCHW\", got \"", format, "\"");
  w.layout = Layout::of(format);
  auto padding = ctx.requireAttr<StringAttr>("padding", "a string (s: \"SAME\", ...)");
  if (failed(padding) ||
      failed(ctx.requireAttr<ArrayAttr>("strides", "a list of integers (list { i: ... })")))
    return failure();
  w.padding = padding->getValue();
  auto strides = ctx.intList("strides");
  if (!strides || strides->size() != 4)
    return ctx.error("strides must have 4 entries");
  w.strides = *strides;
  if (auto d = ctx.intList("dilations")) {
    if (d->size() != 4)
      return ctx.error("dilations must have 4 entries");
    w.dilations = *d;
  }
  if (w.padding == "EXPLICIT") {
    auto e = ctx.intList("explicit_paddings");
    if (!e || e->size() != 8)
      return ctx.error("EXPLICIT padding needs 8 explicit_paddings");
    w.explicitPaddings = *e;
  } else {
    w.explicitPaddings.assign(8, 0);
  }
  if (w.strides[0] != 1 || w.strides[w.layout.c] != 1 || w.dilations[0] != 1 ||
      w.dilations[w.layout.c] != 1)
    return ctx.error("strides and dilations along the batch and channel dimensions must be 1");
  return w;
}

/// Output type of a 2-D window op over `input` with a window of kh x kw and `channels`
/// output channels (dynamic if unknown).
LogicalResult windowOutput(const InferContext &ctx, const Window2D &w, TensorType input, int64_t kh,
                           int64_t kw, int64_t channels, InferResult &out) {
  if (!input.hasRank()) {
    out.push_back(UnrankedTensorType::get(input.getElementType()));
    return success();
  }
  if (input.getRank() != 4)
    return ctx.error("input must be 4-D, got ", input);
  SmallVector<int64_t> shape(input.getShape());
  const Layout &l = w.layout;
  // The width only when the height is right: an error of both (a bad padding) is one.
  auto h = computeWindow(ctx, input.getDimSize(l.h), kh, w.strides[l.h], w.dilations[l.h],
                         w.padding, w.explicitPaddings[2 * l.h], w.explicitPaddings[2 * l.h + 1]);
  if (failed(h))
    return failure();
  auto wd = computeWindow(ctx, input.getDimSize(l.w), kw, w.strides[l.w], w.dilations[l.w],
                          w.padding, w.explicitPaddings[2 * l.w], w.explicitPaddings[2 * l.w + 1]);
  if (failed(wd))
    return failure();
  shape[l.h] = h->output;
  shape[l.w] = wd->output;
  shape[l.c] = channels;
  out.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult inferConvolution(const InferContext &ctx, InferResult &out, bool depthwise) {
  auto inputs = ctx.twoInputs("input and filter");
  if (failed(inputs))
    return failure();
  auto [input, filter] = *inputs;
  auto w = readWindowAttrs(ctx);
  if (failed(w))
    return failure();
  if (!filter.hasRank()) {
    out.push_back(UnrankedTensorType::get(input.getElementType()));
    return success();
  }
  if (filter.getRank() != 4)
    return ctx.error("filter must be 4-D, got ", filter);
  int64_t inChannels = input.hasRank() && input.getRank() == 4 ? input.getDimSize(w->layout.c)
                                                               : ShapedType::kDynamic;
  int64_t fc = filter.getDimSize(2);
  int64_t channels = filter.getDimSize(3);
  if (!ShapedType::isDynamic(inChannels) && !ShapedType::isDynamic(fc) && inChannels != fc) {
    // A grouped Conv2D: inChannels / fc groups, each with its share of the outputs.
    if (depthwise || fc < 1 || inChannels % fc != 0)
      return ctx.error("the input has ", inChannels, " channels but the filter expects ", fc,
                       depthwise ? "" : " (or a divisor of them, for a grouped convolution)");
    if (!ShapedType::isDynamic(channels) && channels % (inChannels / fc) != 0)
      return ctx.error("the filter's ", channels, " output channels do not split into the ",
                       inChannels / fc, " groups of its ", fc, " input channels");
  }
  if (depthwise && !ShapedType::isDynamic(channels) && !ShapedType::isDynamic(fc))
    channels *= fc;
  else if (depthwise)
    channels = ShapedType::kDynamic;
  return windowOutput(ctx, *w, input, filter.getDimSize(0), filter.getDimSize(1), channels, out);
}

} // namespace

LogicalResult inferConv2D(const InferContext &ctx, InferResult &out) {
  return inferConvolution(ctx, out, /*depthwise=*/false);
}

/// Conv2DBackpropInput and DepthwiseConv2dNativeBackpropInput: the input_sizes, checked
/// against the forward op the filter and out_backprop describe.
static LogicalResult inferBackpropInput(const InferContext &ctx, InferResult &out, bool depthwise) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto filter = cast<TensorType>(ctx.operandType(1));
  auto grad = cast<TensorType>(ctx.operandType(2));
  if (failed(ctx.checkSameElementType(filter, grad, "filter and out_backprop")))
    return failure();
  auto w = readWindowAttrs(ctx);
  if (failed(w))
    return failure();
  auto sizes = ctx.constantInts(0);
  if (!sizes) {
    out.push_back(UnrankedTensorType::get(filter.getElementType()));
    return success();
  }
  if (sizes->size() != 4)
    return ctx.error("input_sizes must have 4 entries, got ", sizes->size());
  for (int64_t d : *sizes)
    if (d < 0)
      return ctx.error("input_sizes must not be negative");
  auto input = RankedTensorType::get(*sizes, filter.getElementType());
  if (filter.hasRank() && filter.getRank() != 4)
    return ctx.error("filter must be 4-D, got ", filter);
  if (grad.hasRank() && grad.getRank() != 4)
    return ctx.error("out_backprop must be 4-D, got ", grad);
  if (filter.hasRank()) {
    int64_t fc = filter.getDimSize(2), c = input.getDimSize(w->layout.c);
    if (!ShapedType::isDynamic(fc) && fc != c)
      return ctx.error("input_sizes has ", c, " channels but the filter expects ", fc);
    // The forward Conv2D's output must be out_backprop's shape.
    SmallVector<Type, 1> forward;
    int64_t outChannels = filter.getDimSize(3);
    if (depthwise && !ShapedType::isDynamic(outChannels) && !ShapedType::isDynamic(fc))
      outChannels *= fc;
    else if (depthwise)
      outChannels = ShapedType::kDynamic;
    if (failed(windowOutput(ctx, *w, input, filter.getDimSize(0), filter.getDimSize(1), outChannels,
                            forward)))
      return failure();
    if (grad.hasRank() && failed(verifyCompatibleShape(forward[0], grad)))
      return ctx.error("out_backprop ", grad, " is not the shape of the Conv2D output ", forward[0],
                       " for input_sizes ", input);
  }
  out.push_back(input);
  return success();
}

LogicalResult inferConv2DBackpropInput(const InferContext &ctx, InferResult &out) {
  return inferBackpropInput(ctx, out, /*depthwise=*/false);
}

LogicalResult inferDepthwiseConv2DBackpropInput(const InferContext &ctx, InferResult &out) {
  return inferBackpropInput(ctx, out, /*depthwise=*/true);
}

FailureOr<StringRef> fusedActivation(const InferContext &ctx, bool allowBatchNorm,
                                     bool &batchNorm) {
  auto ops = ctx.attr<ArrayAttr>("fused_ops");
  auto numArgs = ctx.attr<IntegerAttr>("num_args");
  if (!ops || !numArgs)
    return ctx.error("needs the attributes fused_ops and num_args");
  if (auto host = ctx.attr<IntegerAttr>("num_host_args"); host && host.getInt() != 0)
    return ctx.error("has ", host.getInt(), " host arguments; Kiln supports none");
  SmallVector<StringRef> names;
  for (Attribute a : ops)
    if (auto str = dyn_cast<StringAttr>(a))
      names.push_back(str.getValue());
  auto describe = [&] {
    std::string text = "[";
    for (auto [i, n] : llvm::enumerate(names))
      text += (i ? ", \"" : "\"") + n.str() + "\"";
    return text + "]";
  };
  // The epilogues TensorFlow's CPU kernels implement: Tanh and Sigmoid only after MatMul.
  static constexpr StringRef kActivations[] = {"Relu",      "Relu6", "Elu",
                                               "LeakyRelu", "Tanh",  "Sigmoid"};
  ArrayRef<StringRef> activations(kActivations, allowBatchNorm ? 4 : 6);
  bool known = !names.empty() && names.size() <= 2 &&
               (names[0] == "BiasAdd" || (allowBatchNorm && names[0] == "FusedBatchNorm")) &&
               (names.size() == 1 || llvm::is_contained(activations, names[1]));
  if (!known)
    return ctx.error("fused_ops ", describe(), " is not supported (Kiln supports ",
                     allowBatchNorm ? "BiasAdd or FusedBatchNorm" : "BiasAdd",
                     ", optionally followed by Relu, Relu6, Elu, LeakyRelu",
                     allowBatchNorm ? ")" : ", Tanh or Sigmoid)");
  batchNorm = names[0] == "FusedBatchNorm";
  int64_t expected = batchNorm ? 4 : 1;
  if (numArgs.getInt() != expected)
    return ctx.error("fused_ops ", describe(), " takes ", expected, " argument",
                     expected == 1 ? "" : "s", ", but num_args is ", numArgs.getInt());
  if (ctx.operands.size() < static_cast<size_t>(2 + expected))
    return ctx.error("expects ", 2 + expected, " data inputs, got ", ctx.operands.size());
  return names.size() == 2 ? names[1] : StringRef();
}

/// Checks the epilogue arguments: each a vector of the output's channel count.
static LogicalResult checkFusedArgs(const InferContext &ctx, Type result, int64_t channelDim,
                                    unsigned count) {
  auto type = dyn_cast<RankedTensorType>(result);
  int64_t channels = type ? type.getDimSize(channelDim) : ShapedType::kDynamic;
  for (unsigned i = 0; i < count; ++i) {
    auto arg = dyn_cast<TensorType>(ctx.operandType(2 + i));
    if (!arg)
      return ctx.error("epilogue argument ", i, " is not a tensor");
    if (arg.getElementType() != mlir::getElementTypeOrSelf(result))
      return ctx.error("epilogue argument ", i, " has type ", arg, ", expected elements of ",
                       mlir::getElementTypeOrSelf(result));
    if (!arg.hasRank())
      continue;
    if (arg.getRank() != 1 ||
        (!ShapedType::isDynamic(channels) && !ShapedType::isDynamic(arg.getDimSize(0)) &&
         arg.getDimSize(0) != channels))
      return ctx.error("epilogue argument ", i, " must be a vector of ", channels,
                       " values (one per output channel), got ", arg);
  }
  return success();
}

LogicalResult inferFusedConv2D(const InferContext &ctx, InferResult &out) {
  bool batchNorm = false;
  if (failed(fusedActivation(ctx, /*allowBatchNorm=*/true, batchNorm)) ||
      failed(inferConvolution(ctx, out, /*depthwise=*/false)))
    return failure();
  auto format = ctx.attr<StringAttr>("data_format");
  int64_t channelDim = format && format.getValue() == "NCHW" ? 1 : 3;
  return checkFusedArgs(ctx, out.front(), channelDim, batchNorm ? 4 : 1);
}

LogicalResult inferFusedMatMul(const InferContext &ctx, InferResult &out) {
  bool batchNorm = false;
  if (failed(fusedActivation(ctx, /*allowBatchNorm=*/false, batchNorm)) ||
      failed(inferMatMul(ctx, out)))
    return failure();
  return checkFusedArgs(ctx, out.front(), 1, 1);
}

LogicalResult inferDepthwiseConv2D(const InferContext &ctx, InferResult &out) {
  return inferConvolution(ctx, out, /*depthwise=*/true);
}

LogicalResult inferPool(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(1)))
    return failure();
  auto input = cast<TensorType>(ctx.operandType(0));
  if (failed(ctx.checkTypeAttr("T", input.getElementType())))
    return failure();
  auto w = readWindowAttrs(ctx);
  if (failed(w))
    return failure();
  if (w->padding == "EXPLICIT")
    return ctx.error("pooling supports only SAME and VALID padding");
  auto ksize = ctx.intList("ksize");
  if (!ksize || ksize->size() != 4)
    return ctx.error("ksize must have 4 entries");
  if ((*ksize)[0] != 1 || (*ksize)[w->layout.c] != 1)
    return ctx.error("pooling windows along the batch and channel dimensions must be 1");
  int64_t channels = input.hasRank() && input.getRank() == 4 ? input.getDimSize(w->layout.c)
                                                             : ShapedType::kDynamic;
  return windowOutput(ctx, *w, input, (*ksize)[w->layout.h], (*ksize)[w->layout.w], channels, out);
}

static LogicalResult inferBatchNorm(const InferContext &ctx, InferResult &out, int statistics) {
  if (failed(ctx.requireTensorOperands(5)))
    return failure();
  auto x = cast<TensorType>(ctx.operandType(0));
  auto scale = cast<TensorType>(ctx.operandType(1));
  for (unsigned i = 1; i < 5; ++i) {
    auto t = cast<TensorType>(ctx.operandType(i));
    if (t.getElementType() != scale.getElementType())
      return ctx.error("scale, offset, mean and variance must have one element type");
    if (t.hasRank() && t.getRank() != 1)
      return ctx.error("scale, offset, mean and variance must be 1-D, got ", t);
  }
  StringRef format = "NHWC";
  if (auto f = ctx.attr<StringAttr>("data_format"))
    format = f.getValue();
  if (format != "NHWC" && format != "NCHW")
    return ctx.error("data_format must be \"NHWC\" or \"NCHW\", got \"", format, "\"");
  if (x.hasRank() && x.getRank() != 4)
    return ctx.error("x must be 4-D, got ", x);
  if (x.hasRank() && scale.hasRank()) {
    int64_t c = x.getDimSize(Layout::of(format).c), s = scale.getDimSize(0);
    if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(s) && c != s)
      return ctx.error("x has ", c, " channels but scale has ", s, " elements");
  }
  out.push_back(x);
  // batch_mean, batch_variance, reserve_space_1, reserve_space_2 (, reserve_space_3).
  for (int i = 0; i < statistics; ++i)
    out.push_back(scale);
  return success();
}

LogicalResult inferFusedBatchNorm(const InferContext &ctx, InferResult &out) {
  return inferBatchNorm(ctx, out, 4);
}

LogicalResult inferFusedBatchNormV3(const InferContext &ctx, InferResult &out) {
  return inferBatchNorm(ctx, out, 5);
}

/// _FusedBatchNormEx: FusedBatchNormV3's results; its side input, if any, of y's type.
LogicalResult inferFusedBatchNormEx(const InferContext &ctx, InferResult &out) {
  auto sides = ctx.attr<IntegerAttr>("num_side_inputs");
  int64_t numSides = sides ? sides.getInt() : 0;
  if (numSides < 0 || numSides > 1)
    return ctx.error("num_side_inputs must be 0 or 1, got ", numSides);
  auto mode = ctx.attr<StringAttr>("activation_mode");
  StringRef activation = mode ? mode.getValue() : "Identity";
  if (!llvm::is_contained({"Identity", "Relu", "Relu6", "Elu", "LeakyRelu"}, activation))
    return ctx.error("activation_mode must be Identity, Relu, Relu6, Elu or LeakyRelu, got \"",
                     activation, "\"");
  if (ctx.operands.size() < size_t(5 + numSides))
    return ctx.error("needs ", 5 + numSides, " inputs, got ", ctx.operands.size());
  InferContext v3{ctx.context, ctx.location, ctx.operands.take_front(5), ctx.attributes,
                  "tf.FusedBatchNormV3"};
  if (failed(inferBatchNorm(v3, out, 5)))
    return failure();
  if (numSides == 1) {
    auto y = dyn_cast<RankedTensorType>(out.front());
    auto side = dyn_cast<RankedTensorType>(ctx.operandType(5));
    if (!side || !y || side.getElementType() != y.getElementType() ||
        failed(verifyCompatibleShape(side.getShape(), y.getShape())))
      return ctx.error("the side input must be of y's type ", out.front(), ", got ",
                       ctx.operandType(5));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Canonicalization: zero padding becomes the convolution's own.
//===----------------------------------------------------------------------===//

/// The 8 per-dimension (before, after) amounts a tf.Pad or a tf.PadV2 with a zero value
/// adds to a 4-D tensor, if they are constants, non-negative, and the op has no control
/// inputs (folding it would drop them).
static std::optional<SmallVector<int64_t>> zeroPadding(Operation *op) {
  Value paddings;
  if (auto pad = dyn_cast_or_null<PadOp>(op)) {
    if (!pad.getControlInputs().empty())
      return std::nullopt;
    paddings = pad.getPaddings();
  } else if (auto pad = dyn_cast_or_null<PadV2Op>(op)) {
    if (!pad.getControlInputs().empty())
      return std::nullopt;
    paddings = pad.getPaddings();
    auto c = pad.getConstantValues().getDefiningOp<ConstOp>();
    auto v = c ? dyn_cast<DenseFPElementsAttr>(c.getValueAttr()) : DenseFPElementsAttr();
    if (!v || v.getNumElements() != 1 || !(*v.value_begin<APFloat>()).isZero())
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  auto amounts = constantIntsOf(paddings);
  if (!amounts || amounts->size() != 8 || llvm::any_of(*amounts, [](int64_t p) { return p < 0; }))
    return std::nullopt;
  return amounts;
}

namespace {

/// conv(pad(x, zeros)) -> conv(x) with the padding added to its explicit padding, when
/// the convolution's padding is VALID or EXPLICIT and the pad touches neither the batch nor
/// the channel dimension. The Pad goes when nothing else uses it.
template <typename ConvOp> struct FoldZeroPadIntoConvolution : OpRewritePattern<ConvOp> {
  using OpRewritePattern<ConvOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvOp conv, PatternRewriter &rewriter) const override {
    Operation *padOp = conv->getOperand(0).getDefiningOp();
    auto pad = zeroPadding(padOp);
    if (!pad)
      return rewriter.notifyMatchFailure(conv, "the input is not zero-padded by constants");
    StringRef padding = conv.getPadding();
    if (padding != "VALID" && padding != "EXPLICIT")
      return rewriter.notifyMatchFailure(conv, "SAME padding");
    int64_t channel = conv.getDataFormat() == "NCHW" ? 1 : 3;
    if ((*pad)[0] || (*pad)[1] || (*pad)[2 * channel] || (*pad)[2 * channel + 1])
      return rewriter.notifyMatchFailure(conv, "the pad touches the batch or the channels");
    SmallVector<int64_t> explicitPads(8, 0);
    if (ArrayAttr old = conv.getExplicitPaddingsAttr();
        padding == "EXPLICIT" && old && old.size() == 8)
      for (auto [i, a] : llvm::enumerate(old)) {
        auto value = dyn_cast<IntegerAttr>(a);
        if (!value)
          return rewriter.notifyMatchFailure(conv, "explicit_paddings are not integers");
        explicitPads[i] = value.getInt();
      }
    for (int i = 0; i < 8; ++i)
      explicitPads[i] += (*pad)[i];
    rewriter.modifyOpInPlace(conv, [&] {
      conv.setPaddingAttr(rewriter.getStringAttr("EXPLICIT"));
      conv.setExplicitPaddingsAttr(rewriter.getI64ArrayAttr(explicitPads));
      conv->setOperand(0, padOp->getOperand(0));
    });
    if (padOp->use_empty())
      rewriter.eraseOp(padOp);
    return success();
  }
};

} // namespace

void Conv2DOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<FoldZeroPadIntoConvolution<Conv2DOp>>(context);
}
void DepthwiseConv2dNativeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                          MLIRContext *context) {
  results.add<FoldZeroPadIntoConvolution<DepthwiseConv2dNativeOp>>(context);
}
void FusedConv2DOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<FoldZeroPadIntoConvolution<FusedConv2DOp>>(context);
}

//===----------------------------------------------------------------------===//
// 3-D windows (NDHWC).
//===----------------------------------------------------------------------===//

namespace {

/// The output of a 3-D window op over `input` (NDHWC) with window `size` (3 entries) and
/// `channels` output channels (the input's when negative).
LogicalResult window3DOutput(const InferContext &ctx, TensorType input, ArrayRef<int64_t> size,
                             int64_t channels, InferResult &out) {
  StringRef format = "NDHWC";
  if (auto f = ctx.attr<StringAttr>("data_format"))
    format = f.getValue();
  if (format != "NDHWC")
    return ctx.error("data_format must be \"NDHWC\" (TensorFlow's CPU kernels have no other), "
                     "got \"",
                     format, "\"");
  auto padding = ctx.requireAttr<StringAttr>("padding", "a string (s: \"SAME\", ...)");
  if (failed(padding))
    return failure();
  if (padding->getValue() == "EXPLICIT")
    return ctx.error("padding must be \"SAME\" or \"VALID\", got \"EXPLICIT\"");
  auto strides = ctx.intList("strides");
  auto dilations = ctx.intList("dilations").value_or(SmallVector<int64_t>(5, 1));
  if (!strides || strides->size() != 5 || dilations.size() != 5)
    return ctx.error("strides and dilations must have 5 entries");
  if ((*strides)[0] != 1 || (*strides)[4] != 1 || dilations[0] != 1 || dilations[4] != 1)
    return ctx.error("strides and dilations along the batch and channel dimensions must be 1");
  if (!input.hasRank()) {
    out.push_back(UnrankedTensorType::get(input.getElementType()));
    return success();
  }
  if (input.getRank() != 5)
    return ctx.error("input must be 5-D, got ", input);
  SmallVector<int64_t> shape(input.getShape());
  for (int i = 0; i < 3; ++i) {
    auto d = computeWindow(ctx, shape[1 + i], size[i], (*strides)[1 + i], dilations[1 + i],
                           padding->getValue(), 0, 0);
    if (failed(d))
      return failure();
    shape[1 + i] = d->output;
  }
  if (channels >= 0)
    shape[4] = channels;
  out.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

} // namespace

LogicalResult inferConv3D(const InferContext &ctx, InferResult &out) {
  auto inputs = ctx.twoInputs("input and filter");
  if (failed(inputs))
    return failure();
  auto [x, f] = *inputs;
  if (!f.hasRank() || !f.hasStaticShape())
    return ctx.error("needs a filter of known shape, got ", f);
  if (f.getRank() != 5)
    return ctx.error("filter must be 5-D [depth, height, width, in, out], got ", f);
  int64_t perGroup = f.getDimSize(3), outputs = f.getDimSize(4);
  if (perGroup < 1)
    return ctx.error("filter must have input channels, got ", f);
  if (x.hasRank() && x.getRank() == 5 && !x.isDynamicDim(4)) {
    int64_t channels = x.getDimSize(4), groups = channels / perGroup;
    if (channels % perGroup != 0 || groups < 1 || outputs % groups != 0)
      return ctx.error("the input's ", channels, " channels are not groups of the filter's ",
                       perGroup, " input channels with ", outputs, " outputs");
  }
  return window3DOutput(ctx, x, f.getShape().take_front(3), f.getDimSize(4), out);
}

LogicalResult inferConv3DBackpropInput(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto filter = cast<TensorType>(ctx.operandType(1));
  auto grad = cast<TensorType>(ctx.operandType(2));
  if (failed(ctx.checkSameElementType(filter, grad, "filter and out_backprop")))
    return failure();
  auto sizes = ctx.constantInts(0);
  if (!sizes) {
    out.push_back(UnrankedTensorType::get(filter.getElementType()));
    return success();
  }
  if (sizes->size() != 5 || llvm::any_of(*sizes, [](int64_t d) { return d < 0; }))
    return ctx.error("input_sizes must be 5 sizes (NDHWC), got ", describeDims(*sizes));
  auto input = RankedTensorType::get(*sizes, filter.getElementType());
  if (!filter.hasStaticShape() || filter.getRank() != 5)
    return ctx.error("filter must be 5-D [depth, height, width, in, out] of known shape, got ",
                     filter);
  if (filter.getDimSize(3) != input.getDimSize(4))
    return ctx.error("input_sizes has ", input.getDimSize(4), " channels but the filter expects ",
                     filter.getDimSize(3));
  // The forward Conv3D's output must be out_backprop's shape.
  SmallVector<Type, 1> forward;
  if (failed(window3DOutput(ctx, input, filter.getShape().take_front(3), filter.getDimSize(4),
                            forward)))
    return failure();
  if (grad.hasRank() && failed(verifyCompatibleShape(forward.front(), grad)))
    return ctx.error("out_backprop must have the forward Conv3D's output shape ", forward.front(),
                     ", got ", grad);
  out.push_back(input);
  return success();
}

LogicalResult inferPool3D(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  auto ksize = ctx.intList("ksize");
  if (!ksize || ksize->size() != 5)
    return ctx.error("ksize must have 5 entries");
  if ((*ksize)[0] != 1 || (*ksize)[4] != 1)
    return ctx.error("ksize along the batch and channel dimensions must be 1");
  return window3DOutput(ctx, *input, ArrayRef<int64_t>(*ksize).slice(1, 3), -1, out);
}

//===----------------------------------------------------------------------===//
// Gradients of the window ops (decomposed in Gradients.cpp).
//===----------------------------------------------------------------------===//

namespace {

/// Checks that `grad` has the shape of the forward window op's output over `input` (of
/// rank 4, or 5 for the 3-D ops) with a window of `size` and `channels` output channels.
LogicalResult checkForwardOutput(const InferContext &ctx, TensorType input, ArrayRef<int64_t> size,
                                 int64_t channels, Type grad, StringRef gradName) {
  SmallVector<Type, 1> forward;
  if (input.hasRank() && input.getRank() == 5) {
    if (failed(window3DOutput(ctx, input, size, channels, forward)))
      return failure();
  } else {
    auto w = readWindowAttrs(ctx);
    if (failed(w) ||
        failed(windowOutput(ctx, *w, input, size[0], size[1],
                            channels < 0 ? input.getDimSize(w->layout.c) : channels, forward)))
      return failure();
  }
  if (failed(verifyCompatibleShape(forward.front(), grad)))
    return ctx.error(gradName, " must have the forward op's output shape ", forward.front(),
                     ", got ", grad);
  return success();
}

/// The window of a pooling gradient's `ksize` in the spatial order of `data_format`.
FailureOr<SmallVector<int64_t>> poolWindow(const InferContext &ctx, int rank) {
  auto ksize = ctx.intList("ksize");
  if (!ksize || static_cast<int>(ksize->size()) != rank)
    return ctx.error("ksize must have ", rank, " entries");
  auto f = ctx.attr<StringAttr>("data_format");
  bool channelsFirst = f && f.getValue().starts_with("NC");
  int64_t c = channelsFirst ? 1 : rank - 1;
  if ((*ksize)[0] != 1 || (*ksize)[c] != 1)
    return ctx.error("pooling windows along the batch and channel dimensions must be 1");
  SmallVector<int64_t> size;
  for (int64_t d = 1; d < rank; ++d)
    if (d != c)
      size.push_back((*ksize)[d]);
  return size;
}

/// The attributes with a V2 op's constant ksize and strides operands (at `first` and
/// first + 1) set, or none when they are not constants.
std::optional<DictionaryAttr> windowOperandsAsAttrs(const InferContext &ctx, unsigned first) {
  auto ksize = ctx.constantInts(first), strides = ctx.constantInts(first + 1);
  if (!ksize || !strides)
    return std::nullopt;
  Builder b(ctx.context);
  NamedAttrList attrs(ctx.attributes);
  attrs.set("ksize", b.getI64ArrayAttr(*ksize));
  attrs.set("strides", b.getI64ArrayAttr(*strides));
  return attrs.getDictionary(ctx.context);
}

} // namespace

LogicalResult inferFilterGrad(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  auto input = cast<TensorType>(ctx.operandType(0));
  auto grad = cast<TensorType>(ctx.operandType(2));
  if (failed(ctx.checkSameElementType(input, grad, "input and out_backprop")))
    return failure();
  bool depthwise = ctx.opName == "tf.DepthwiseConv2dNativeBackpropFilter";
  int rank = ctx.opName == "tf.Conv3DBackpropFilterV2" ? 5 : 4;
  auto sizes = ctx.constantInts(1);
  if (!sizes)
    return ctx.error("filter_sizes must be a constant");
  if (static_cast<int>(sizes->size()) != rank ||
      llvm::any_of(*sizes, [](int64_t d) { return d < 0; }))
    return ctx.error("filter_sizes must be ", rank, " sizes, got ", describeDims(*sizes));
  auto filter = RankedTensorType::get(*sizes, input.getElementType());
  if (input.hasRank() && input.getRank() != rank)
    return ctx.error("input must be ", rank, "-D, got ", input);
  if (input.hasRank()) {
    // The input's channels are the filter's (or its groups').
    auto f = ctx.attr<StringAttr>("data_format");
    int64_t c = input.getDimSize(f && f.getValue().starts_with("NC") ? 1 : rank - 1);
    int64_t fc = (*sizes)[rank - 2];
    if (!ShapedType::isDynamic(c) && c != fc)
      return ctx.error("the input's ", c, " channels do not match filter_sizes ",
                       describeDims(*sizes));
    int64_t channels = depthwise ? fc * (*sizes)[rank - 1] : (*sizes)[rank - 1];
    if (failed(checkForwardOutput(ctx, input, ArrayRef<int64_t>(*sizes).take_front(rank - 2),
                                  channels, grad, "out_backprop")))
      return failure();
  }
  out.push_back(filter);
  return success();
}

LogicalResult inferAvgPoolGrad(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto grad = cast<TensorType>(ctx.operandType(1));
  if (failed(ctx.checkTypeAttr("T", grad.getElementType())))
    return failure();
  int rank = ctx.opName == "tf.AvgPool3DGrad" ? 5 : 4;
  auto sizes = ctx.constantInts(0);
  if (!sizes)
    return ctx.error("orig_input_shape must be a constant");
  if (static_cast<int>(sizes->size()) != rank ||
      llvm::any_of(*sizes, [](int64_t d) { return d < 0; }))
    return ctx.error("orig_input_shape must be ", rank, " sizes, got ", describeDims(*sizes));
  auto input = RankedTensorType::get(*sizes, grad.getElementType());
  auto size = poolWindow(ctx, rank);
  if (failed(size) || failed(checkForwardOutput(ctx, input, *size, -1, grad, "grad")))
    return failure();
  out.push_back(input);
  return success();
}

LogicalResult inferMaxPoolGrad(const InferContext &ctx, InferResult &out) {
  StringRef name = ctx.opName;
  bool v2 = name.ends_with("V2");
  if (failed(ctx.requireTensorOperands(v2 ? 5 : 3)))
    return failure();
  auto input = cast<TensorType>(ctx.operandType(0));
  auto output = cast<TensorType>(ctx.operandType(1));
  auto grad = cast<TensorType>(ctx.operandType(2));
  bool gradGrad = name.contains("GradGrad");
  if (failed(ctx.checkSameElementType(output, grad, "orig_output and grad")) ||
      (!name.starts_with("tf.MaxPool3DGrad") &&
       failed(ctx.checkSameElementType(input, grad, "orig_input and grad"))))
    return failure();
  InferContext window = ctx;
  std::optional<DictionaryAttr> attrs;
  if (v2) {
    attrs = windowOperandsAsAttrs(ctx, 3);
    if (!attrs)
      return ctx.error("ksize and strides must be constants");
    window.attributes = *attrs;
  }
  if (!input.hasRank()) {
    out.push_back(gradGrad ? output : input);
    return success();
  }
  int rank = input.getRank();
  if (rank != (name.starts_with("tf.MaxPool3D") ? 5 : 4))
    return ctx.error("orig_input must be ", name.starts_with("tf.MaxPool3D") ? 5 : 4, "-D, got ",
                     input);
  auto size = poolWindow(window, rank);
  if (failed(size) || failed(checkForwardOutput(window, input, *size, -1, output, "orig_output")))
    return failure();
  // grad is the forward output's gradient (MaxPoolGrad) or the input's (MaxPoolGradGrad).
  if (failed(verifyCompatibleShape(gradGrad ? input : output, grad)))
    return ctx.error("grad must have the shape of ", gradGrad ? "orig_input " : "orig_output ",
                     gradGrad ? input : output, ", got ", grad);
  Type result = gradGrad ? output : input;
  out.push_back(cast<TensorType>(result).clone(grad.getElementType()));
  return success();
}

LogicalResult inferFusedBatchNormGrad(const InferContext &ctx, InferResult &out) {
  unsigned count = ctx.opName == "tf.FusedBatchNormGradV3" ? 6 : 5;
  if (failed(ctx.requireTensorOperands(count)))
    return failure();
  auto dy = cast<TensorType>(ctx.operandType(0));
  auto x = cast<TensorType>(ctx.operandType(1));
  auto scale = cast<TensorType>(ctx.operandType(2));
  if (failed(ctx.checkSameElementType(dy, x, "y_backprop and x")))
    return failure();
  for (unsigned i = 3; i < 5; ++i)
    if (cast<TensorType>(ctx.operandType(i)).getElementType() != scale.getElementType())
      return ctx.error("scale, reserve_space_1 and reserve_space_2 must have one element type");
  if (failed(verifyCompatibleShape(dy, x)))
    return ctx.error("y_backprop ", dy, " and x ", x, " must have one shape");
  SmallVector<Type, 5> forward;
  // The forward op's checks (x 4-D, the vectors 1-D of x's channels, data_format).
  SmallVector<Value, 5> operands = {ctx.operands[1], ctx.operands[2], ctx.operands[2],
                                    ctx.operands[3], ctx.operands[4]};
  InferContext batchNorm{ctx.context, ctx.location, operands, ctx.attributes, ctx.opName};
  if (failed(inferBatchNorm(batchNorm, forward, 0)))
    return failure();
  auto empty = RankedTensorType::get({0}, scale.getElementType());
  out.append({x, scale, scale, empty, empty});
  return success();
}

LogicalResult inferSoftmaxCrossEntropy(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto features = cast<TensorType>(ctx.operandType(0));
  auto labels = cast<TensorType>(ctx.operandType(1));
  if (failed(ctx.checkTypeAttr("T", features.getElementType())))
    return failure();
  Type element = features.getElementType();
  bool sparse = ctx.opName == "tf.SparseSoftmaxCrossEntropyWithLogits";
  if (!features.hasRank() || !labels.hasRank())
    return ctx.error("needs the ranks of features and labels");
  if (features.getRank() != 2)
    return ctx.error("features must be 2-D [batch, classes], got ", features);
  int64_t batch = features.getDimSize(0);
  SmallVector<int64_t> shape(features.getShape());
  if (sparse) {
    if (labels.getRank() != 1)
      return ctx.error("labels must be 1-D [batch], got ", labels);
    if (!ShapedType::isDynamic(batch) && !labels.isDynamicDim(0) && labels.getDimSize(0) != batch)
      return ctx.error("labels ", labels, " must have one entry per row of features ", features);
  } else {
    if (labels.getElementType() != element)
      return ctx.error("features and labels must have one element type, got ", features, " and ",
                       labels);
    if (labels.getRank() != 2)
      return ctx.error("labels must be 2-D [batch, classes], got ", labels);
    for (int d = 0; d < 2; ++d) {
      int64_t a = shape[d], b = labels.getDimSize(d);
      if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b)) {
        shape[d] = a == 1 ? b : (b == 1 ? a : (ShapedType::isDynamic(a) ? b : a));
        continue;
      }
      if (a != b && a != 1 && b != 1)
        return ctx.error("features ", features, " and labels ", labels, " do not broadcast");
      shape[d] = a == 1 ? b : a;
    }
  }
  out.push_back(RankedTensorType::get({shape[0]}, element));
  out.push_back(RankedTensorType::get(shape, element));
  return success();
}

} // namespace kiln::tf
