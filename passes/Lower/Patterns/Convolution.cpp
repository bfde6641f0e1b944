//===- Convolution.cpp - Conv2D and its input gradient, depthwise, pools, BN ---===//
//
// Convolutions and pools compute in NHWC; NCHW inputs are transposed in and out. Windows
// follow TensorFlow's padding rules (kiln::tf::computeWindow). f32 convolutions and pools
// are generics over the unpadded input, marked for the runtime's kernels (1x1 ones with
// unit strides are plain products); other types pad explicitly (tensor.pad) and use
// upstream linalg's named ops or generics.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Passes.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace kiln::lower {
namespace {

/// The integers of a list attribute, or `fallback` when it is absent or empty (TensorFlow
/// writes `explicit_paddings = []` unless the padding is EXPLICIT).
/// The integer list attribute `name` of `op`, of `size` values; `fallback` when it is
/// absent or empty. Anything else (a list of floats, of the wrong length) is reported.
FailureOr<SmallVector<int64_t>> intList(Operation *op, StringRef name, size_t size,
                                        SmallVector<int64_t> fallback) {
  Attribute attr = op->getAttr(name);
  auto list = dyn_cast_or_null<ArrayAttr>(attr);
  if ((!attr || (list && list.empty())) && fallback.size() == size)
    return fallback;
  SmallVector<int64_t> values;
  if (list)
    for (Attribute a : list)
      if (auto i = dyn_cast<IntegerAttr>(a))
        values.push_back(i.getInt());
  if (!list || values.size() != list.size() || values.size() != size)
    return op->emitError() << "attribute '" << name << "' must be a list of " << size << " integers"
                           << (attr ? "" : "; it is missing");
  return values;
}

Value transpose(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init, perm).getResult()[0];
}

constexpr int64_t kToNHWC[] = {0, 2, 3, 1};
constexpr int64_t kToNCHW[] = {0, 3, 1, 2};

/// The geometry of a 2-D window op, read from its attributes, in NHWC terms.
struct Geometry {
  bool nchw = false;
  int64_t stride[2], dilation[2], window[2];
  tf::WindowDim dims[2];
};

/// Computes the geometry of an op over a static NHWC `input` with a kh x kw window.
FailureOr<Geometry> geometry(Operation *op, RankedTensorType input, int64_t kh, int64_t kw) {
  Geometry g;
  auto format = op->getAttrOfType<StringAttr>("data_format");
  g.nchw = format && format.getValue() == "NCHW";
  tf::Layout layout = tf::Layout::of(g.nchw ? "NCHW" : "NHWC");
  auto stridesOr = intList(op, "strides", 4, {1, 1, 1, 1});
  auto dilationsOr = intList(op, "dilations", 4, {1, 1, 1, 1});
  auto explicitPadsOr = intList(op, "explicit_paddings", 8, SmallVector<int64_t>(8, 0));
  if (failed(stridesOr) || failed(dilationsOr) || failed(explicitPadsOr))
    return failure();
  SmallVector<int64_t> strides = *stridesOr, dilations = *dilationsOr,
                       explicitPads = *explicitPadsOr;
  StringRef padding = op->getAttrOfType<StringAttr>("padding").getValue();
  tf::InferContext ctx{op->getContext(), op->getLoc(), {}, {}, op->getName().getStringRef()};
  int64_t spatial[2] = {layout.h, layout.w};
  int64_t sizes[2] = {kh, kw};
  for (int i = 0; i < 2; ++i) {
    g.stride[i] = strides[spatial[i]];
    g.dilation[i] = dilations[spatial[i]];
    g.window[i] = sizes[i];
    auto d =
        tf::computeWindow(ctx, input.getDimSize(1 + i), sizes[i], g.stride[i], g.dilation[i],
                          padding, explicitPads[2 * spatial[i]], explicitPads[2 * spatial[i] + 1]);
    if (failed(d))
      return failure();
    g.dims[i] = *d;
  }
  return g;
}

/// `input` (NHWC) padded spatially with `value` as the geometry says.
Value padSpatial(OpBuilder &b, Location loc, Value input, const Geometry &g, Value value) {
  if (g.dims[0].padBefore == 0 && g.dims[0].padAfter == 0 && g.dims[1].padBefore == 0 &&
      g.dims[1].padAfter == 0)
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[1] += g.dims[0].padBefore + g.dims[0].padAfter;
  shape[2] += g.dims[1].padBefore + g.dims[1].padAfter;
  SmallVector<OpFoldResult> low = {b.getIndexAttr(0), b.getIndexAttr(g.dims[0].padBefore),
                                   b.getIndexAttr(g.dims[1].padBefore), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> high = {b.getIndexAttr(0), b.getIndexAttr(g.dims[0].padAfter),
                                    b.getIndexAttr(g.dims[1].padAfter), b.getIndexAttr(0)};
  return tensor::PadOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), input,
                               low, high, value)
      .getResult();
}

SmallVector<NamedAttribute> windowAttrs(OpBuilder &b, const Geometry &g) {
  auto t = RankedTensorType::get({2}, b.getI64Type());
  return {b.getNamedAttr("strides", DenseIntElementsAttr::get(t, ArrayRef<int64_t>(g.stride))),
          b.getNamedAttr("dilations", DenseIntElementsAttr::get(t, ArrayRef<int64_t>(g.dilation)))};
}

/// A 1x1 Conv2D with unit strides and no padding (isPlainProduct) as one matrix product:
/// the NHWC input viewed as [N*H*W, C] times the filter viewed as [C, F], viewed back as
/// [N, H, W, F]; the contraction calls the matrix-product kernel when it is large enough.
Value plainProduct(OpBuilder &b, Location loc, Value input, Value filter,
                   ArrayRef<int64_t> outNHW) {
  Type element = getElementTypeOrSelf(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  int64_t c = filterType.getDimSize(2), f = filterType.getDimSize(3);
  int64_t pixels = outNHW[0] * outNHW[1] * outNHW[2];
  Value rows = reshapeTo(b, loc, input, RankedTensorType::get({pixels, c}, element));
  Value weights = reshapeTo(b, loc, filter, RankedTensorType::get({c, f}, element));
  Value product = buildMatmul(b, loc, rows, weights, RankedTensorType::get({pixels, f}, element),
                              false, false, ElementKind::Float);
  return reshapeTo(b, loc, product,
                   RankedTensorType::get({outNHW[0], outNHW[1], outNHW[2], f}, element));
}

/// A depthwise convolution as one generic over loops (n, oh, ow, kh, kw, c, m): the
/// channel loop is innermost (m is almost always 1), so every access is contiguous and LLVM
/// vectorizes it; the window loops accumulate into the [N, OH, OW, C, M] result.
Value depthwise(OpBuilder &b, Location loc, Value padded, Value filter, Value init,
                const Geometry &g) {
  MLIRContext *ctx = b.getContext();
  AffineExpr n, oh, ow, kh, kw, c, m;
  bindDims(ctx, n, oh, ow, kh, kw, c, m);
  SmallVector<AffineMap> maps = {AffineMap::get(7, 0,
                                                {n, oh * g.stride[0] + kh * g.dilation[0],
                                                 ow * g.stride[1] + kw * g.dilation[1], c},
                                                ctx),
                                 AffineMap::get(7, 0, {kh, kw, c, m}, ctx),
                                 AffineMap::get(7, 0, {n, oh, ow, c, m}, ctx)};
  using utils::IteratorType;
  SmallVector<IteratorType> iterators = {IteratorType::parallel,  IteratorType::parallel,
                                         IteratorType::parallel,  IteratorType::reduction,
                                         IteratorType::reduction, IteratorType::parallel,
                                         IteratorType::parallel};
  ElementKind kind = kindOf(getElementTypeOrSelf(init.getType()));
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{padded, filter}, ValueRange{init}, maps,
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, multiplyAdd(nb, l, kind, args[0], args[1], args[2]));
             })
      .getResult(0);
}

/// Whether a Conv2D is a plain matrix product of its input (a 1x1 window, unit strides, no
/// padding): plainProduct then copies nothing, and the product gets the GEMM's own paths.
/// Every other f32 Conv2D that neither the 3x3 nor the direct kernel takes goes to
/// conv2d_gemm_f32, whose GEMM gathers the windows from the input as it packs them: no
/// padded copy, no patches matrix, and its epilogue fused (the audio model's 1-D
/// convolutions, InceptionV3's 1x7 and 7x1, the strided 3x3 and 1x1 ones of the ResNets).
bool isPlainProduct(const Geometry &g, RankedTensorType filter) {
  return filter.getDimSize(0) == 1 && filter.getDimSize(1) == 1 && g.stride[0] == 1 &&
         g.stride[1] == 1 && g.dims[0].padBefore == 0 && g.dims[1].padBefore == 0 &&
         g.dims[0].padAfter == 0 && g.dims[1].padAfter == 0;
}

/// Conv2D of a padded NHWC input: a plain product for an f32 one that is one, else
/// linalg's named convolution (other float types; f32 convolutions otherwise take the
/// kernels' window generics).
Value conv2d(OpBuilder &b, Location loc, Value padded, Value filter, const Geometry &g,
             ArrayRef<int64_t> outNHW) {
  Type element = getElementTypeOrSelf(padded.getType());
  if (element.isF32() && isPlainProduct(g, cast<RankedTensorType>(filter.getType())))
    return plainProduct(b, loc, padded, filter, outNHW);
  SmallVector<int64_t> outShape(outNHW);
  outShape.push_back(cast<RankedTensorType>(filter.getType()).getDimSize(3));
  auto outType = RankedTensorType::get(outShape, element);
  Value init = filledTensor(b, loc, outType, scalarConstant(b, loc, element, 0));
  return linalg::Conv2DNhwcHwcfOp::create(b, loc, TypeRange{outType}, ValueRange{padded, filter},
                                          ValueRange{init}, windowAttrs(b, g))
      .getResult(0);
}

/// Inside a generic whose loops 0, 1, 2 are (n, oh, ow), 3 and 4 the window's (kh, kw) and
/// 5 the channel: the element of the unpadded NHWC `input` under the window, or `outside`
/// where the window lies outside it, so that no padded copy is made.
Value windowElement(OpBuilder &b, Location l, Value input, const Geometry &g, Value outside) {
  auto inputType = cast<RankedTensorType>(input.getType());
  Value zero = indexConstant(b, l, 0);
  Value inside = arith::ConstantIntOp::create(b, l, 1, 1);
  SmallVector<Value> at = {linalg::IndexOp::create(b, l, 0)};
  for (int i = 0; i < 2; ++i) {
    // stride * o + dilation * k - pad, range-checked (a negative index is huge unsigned).
    Value o = linalg::IndexOp::create(b, l, 1 + i);
    Value k = linalg::IndexOp::create(b, l, 3 + i);
    Value pos = arith::AddIOp::create(
        b, l, arith::MulIOp::create(b, l, o, indexConstant(b, l, g.stride[i])),
        arith::MulIOp::create(b, l, k, indexConstant(b, l, g.dilation[i])));
    pos = arith::SubIOp::create(b, l, pos, indexConstant(b, l, g.dims[i].padBefore));
    Value ok = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, pos,
                                     indexConstant(b, l, inputType.getDimSize(1 + i)));
    inside = arith::AndIOp::create(b, l, inside, ok);
    at.push_back(arith::SelectOp::create(b, l, ok, pos, zero));
  }
  at.push_back(linalg::IndexOp::create(b, l, 5));
  Value v = tensor::ExtractOp::create(b, l, input, at);
  return arith::SelectOp::create(b, l, inside, v, outside);
}

/// A window op over the unpadded NHWC `input` as one generic over loops (n, oh, ow, kh, kw,
/// c, j): the filter is read at (kh, kw, c, j), the result written through `outMap`, and the
/// body reads the input through windowElement, taking zero outside it. The op carries `attr` =
/// `window`, from which kiln-lower-kernel-calls calls a runtime kernel instead.
Value windowUnpadded(OpBuilder &b, Location loc, Value input, Value filter, Value init,
                     const Geometry &g, AffineMap outMap, StringRef attr,
                     ArrayRef<int64_t> window) {
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = {AffineMap::get(7, 0, {d(3), d(4), d(5), d(6)}, ctx), outMap};
  using utils::IteratorType;
  SmallVector<IteratorType> iterators = {IteratorType::parallel,  IteratorType::parallel,
                                         IteratorType::parallel,  IteratorType::reduction,
                                         IteratorType::reduction, IteratorType::reduction,
                                         IteratorType::parallel};
  // The channel loop is a reduction of a convolution, a parallel loop of a depthwise one.
  if (outMap.getNumResults() == 5)
    iterators[5] = IteratorType::parallel;
  Type element = getElementTypeOrSelf(input.getType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{filter}, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value v = windowElement(nb, l, input, g, scalarConstant(nb, l, element, 0));
        linalg::YieldOp::create(nb, l, multiplyAdd(nb, l, ElementKind::Float, v, args[0], args[1]));
      });
  generic->setAttr(attr, b.getDenseI64ArrayAttr(window));
  return generic.getResult(0);
}

/// An f32 depthwise convolution over the unpadded NHWC `input` (windowUnpadded), marked
/// `kiln.depthwise` = [stride h, stride w, dilation h, dilation w, pad top, pad left].
Value depthwiseUnpadded(OpBuilder &b, Location loc, Value input, Value filter, Value init,
                        const Geometry &g) {
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  return windowUnpadded(b, loc, input, filter, init, g,
                        AffineMap::get(7, 0, {d(0), d(1), d(2), d(5), d(6)}, ctx), kDepthwiseAttr,
                        {g.stride[0], g.stride[1], g.dilation[0], g.dilation[1],
                         g.dims[0].padBefore, g.dims[1].padBefore});
}

/// Whether an f32 Conv2D goes to the runtime's 3x3 kernel (Winograd F(4x4, 3x3)): a 3x3
/// filter with unit strides and dilations, at least 16 input and output channels (with
/// fewer, the transforms cost more than the multiplications they save) and at least 64
/// output pixels. A filter that is not a constant is transformed at every call, which costs
/// about what 50 pixels' saved multiplications are worth, and with a transform of more than
/// 1 MiB (36 planes of c x f, written to memory on one thread: 37.7 MB for 512 x 512
/// channels) it needs 256 pixels: it made VGG16's 14x14 layers 1.3 to 1.4 times slower than
/// their patches' GEMM (3 alternated runs of 5, 1 thread: 525-605 against 384-420 ms; 2
/// threads: 425-488 against 311-342), and InceptionV3's 8x8 ones too (104-126 against 85-91
/// ms at 2 threads). A constant filter's transform is made once (the cached kernel), but
/// read from memory at every call: with more than 1 MiB of it, 128 pixels (8 tiles per
/// product) do. test/bench/conv_gemm_bench.c, 1 thread, 384 -> 384 channels, Winograd
/// against the windows-times-filter kernel: 8x8 (64 pixels) 0.92 against 0.75 ms, 2 x 8x8
/// (448 in) 1.33 against 1.82, 12x12 1.21 against 1.74; 14x14, 512 channels, 3.5 against
/// 6.0.
bool useConv3x3Kernel(const Geometry &g, RankedTensorType filter, int64_t outputPixels,
                      bool constantFilter) {
  constexpr int64_t kPositions = 36, kMaxCachedTransform = (int64_t(1) << 20) / 4;
  bool smallTransform =
      kPositions * filter.getDimSize(2) * filter.getDimSize(3) <= kMaxCachedTransform;
  return filter.getElementType().isF32() && filter.getDimSize(0) == 3 &&
         filter.getDimSize(1) == 3 && filter.getDimSize(2) >= 16 && filter.getDimSize(3) >= 16 &&
         outputPixels >= (smallTransform   ? 64
                          : constantFilter ? 128
                                           : 256) &&
         g.stride[0] == 1 && g.stride[1] == 1 && g.dilation[0] == 1 && g.dilation[1] == 1;
}

/// Whether an f32 Conv2D goes to the runtime's direct convolution kernel: a window of small
/// depth (kh * kw * c at most 64: the first convolution of an image model), other than 1x1
/// (which multiplies the input itself, without a patches matrix), and 8 or more output
/// channels (the kernel's register tile spans 16 or 32 of them). A patches matrix for it
/// would be as large as the output and the GEMM's depth too short to pay for its loads and
/// stores.
bool useDirectConvKernel(RankedTensorType filter) {
  int64_t taps = filter.getDimSize(0) * filter.getDimSize(1);
  return filter.getElementType().isF32() && taps > 1 && taps * filter.getDimSize(2) <= 64 &&
         filter.getDimSize(3) >= 8;
}

/// An f32 Conv2D over the unpadded NHWC `input` (windowUnpadded), marked `attr` = `window`:
/// `kiln.conv2d_3x3` = [pad top, pad left], or `kiln.conv2d_direct` or `kiln.conv2d_gemm` =
/// [stride h, stride w, dilation h, dilation w, pad top, pad left].
Value convUnpadded(OpBuilder &b, Location loc, Value input, Value filter, const Geometry &g,
                   ArrayRef<int64_t> outNHW, StringRef attr, ArrayRef<int64_t> window) {
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<int64_t> shape(outNHW);
  shape.push_back(cast<RankedTensorType>(filter.getType()).getDimSize(3));
  Type element = getElementTypeOrSelf(input.getType());
  Value init = filledTensor(b, loc, RankedTensorType::get(shape, element),
                            scalarConstant(b, loc, element, 0));
  return windowUnpadded(b, loc, input, filter, init, g,
                        AffineMap::get(7, 0, {d(0), d(1), d(2), d(6)}, ctx), attr, window);
}

template <typename OpT, bool Depthwise> struct ConvLowering : OpConversionPattern<OpT> {
  /// `winograd`: 3x3 convolutions may go to the Winograd kernel (not with --strict-float:
  /// its transforms round differently from the direct sum).
  ConvLowering(const TypeConverter &converter, MLIRContext *ctx, bool winograd)
      : OpConversionPattern<OpT>(converter, ctx), winograd(winograd) {}
  bool winograd;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    auto filterType = dyn_cast<RankedTensorType>(adaptor.getFilter().getType());
    if (!resultType || !filterType || !filterType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    bool nchw = op.getDataFormat() == "NCHW";
    if (nchw)
      input = transpose(rewriter, loc, input, kToNHWC);
    auto inputType = cast<RankedTensorType>(input.getType());
    if (!Depthwise && inputType.getDimSize(3) != filterType.getDimSize(2))
      return op.emitError("a grouped convolution (")
             << inputType.getDimSize(3) << " input channels, " << filterType.getDimSize(2)
             << " per group) must be decomposed first (kiln-graph-decompose)";
    auto g = geometry(op, inputType, filterType.getDimSize(0), filterType.getDimSize(1));
    if (failed(g))
      return failure();
    Type element = inputType.getElementType();
    Value zero = scalarConstant(rewriter, loc, element, 0);
    bool conv3x3 = !Depthwise && winograd &&
                   useConv3x3Kernel(*g, filterType,
                                    inputType.getDimSize(0) * g->dims[0].output * g->dims[1].output,
                                    isa_and_nonnull<tf::ConstOp>(op.getFilter().getDefiningOp()));
    bool direct = !Depthwise && !conv3x3 && useDirectConvKernel(filterType);
    bool gemm =
        !Depthwise && !conv3x3 && !direct && element.isF32() && !isPlainProduct(*g, filterType);
    bool unpadded = Depthwise ? element.isF32() : conv3x3 || direct || gemm;
    Value padded = unpadded ? input : padSpatial(rewriter, loc, input, *g, zero);
    SmallVector<int64_t> outShape = {inputType.getDimSize(0), g->dims[0].output, g->dims[1].output};
    Value result;
    if (Depthwise) {
      outShape.append({filterType.getDimSize(2), filterType.getDimSize(3)});
      auto outType = RankedTensorType::get(outShape, element);
      Value init = filledTensor(rewriter, loc, outType, zero);
      Value conv = unpadded ? depthwiseUnpadded(rewriter, loc, input, adaptor.getFilter(), init, *g)
                            : depthwise(rewriter, loc, padded, adaptor.getFilter(), init, *g);
      outShape.pop_back();
      outShape.back() = filterType.getDimSize(2) * filterType.getDimSize(3);
      result = reshapeTo(rewriter, loc, conv, RankedTensorType::get(outShape, element));
    } else if (conv3x3) {
      result = convUnpadded(rewriter, loc, input, adaptor.getFilter(), *g, outShape, kConv3x3Attr,
                            {g->dims[0].padBefore, g->dims[1].padBefore});
    } else if (direct) {
      result =
          convUnpadded(rewriter, loc, input, adaptor.getFilter(), *g, outShape, kConvDirectAttr,
                       {g->stride[0], g->stride[1], g->dilation[0], g->dilation[1],
                        g->dims[0].padBefore, g->dims[1].padBefore});
    } else if (gemm) {
      result = convUnpadded(rewriter, loc, input, adaptor.getFilter(), *g, outShape, kConvGemmAttr,
                            {g->stride[0], g->stride[1], g->dilation[0], g->dilation[1],
                             g->dims[0].padBefore, g->dims[1].padBefore});
    } else {
      result = conv2d(rewriter, loc, padded, adaptor.getFilter(), *g, outShape);
    }
    if (nchw)
      result = transpose(rewriter, loc, result, kToNCHW);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Conv2DBackpropInput as a Conv2D with unit strides: the gradient, with stride - 1 zeros
/// between its elements and padded so that every window that touched an input position
/// lines up with it, convolved with the filter turned by 180 degrees and with its channel
/// dimensions swapped.
struct ConvBackpropInputLowering : OpConversionPattern<tf::Conv2DBackpropInputOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::Conv2DBackpropInputOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto filterType = dyn_cast<RankedTensorType>(adaptor.getFilter().getType());
    if (!resultType || !filterType || !filterType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    bool nchw = op.getDataFormat() == "NCHW";
    Value grad = adaptor.getOutBackprop();
    auto inputType = resultType; // the forward Conv2D's input
    if (nchw) {
      grad = transpose(rewriter, loc, grad, kToNHWC);
      SmallVector<int64_t> shape;
      for (int64_t p : kToNHWC)
        shape.push_back(resultType.getDimSize(p));
      inputType = RankedTensorType::get(shape, resultType.getElementType());
    }
    int64_t kh = filterType.getDimSize(0), kw = filterType.getDimSize(1);
    auto g = geometry(op, inputType, kh, kw);
    if (failed(g))
      return failure();
    auto gradType = cast<RankedTensorType>(grad.getType());
    Type element = gradType.getElementType();
    // Position oh of the gradient goes to oh * stride + before in the padded tensor.
    SmallVector<int64_t> paddedShape(inputType.getShape());
    int64_t before[2];
    for (int i = 0; i < 2; ++i) {
      int64_t extent = (g->window[i] - 1) * g->dilation[i] + 1;
      before[i] = extent - 1 - g->dims[i].padBefore;
      paddedShape[1 + i] += extent - 1;
      int64_t last = before[i] + (gradType.getDimSize(1 + i) - 1) * g->stride[i];
      if (before[i] < 0 || (gradType.getDimSize(1 + i) > 0 && last >= paddedShape[1 + i]))
        return op.emitOpError() << "padding larger than the filter window is not supported";
    }
    paddedShape[3] = gradType.getDimSize(3);
    Value zero = scalarConstant(rewriter, loc, element, 0);
    Value padded = filledTensor(rewriter, loc, RankedTensorType::get(paddedShape, element), zero);
    padded = tensor::InsertSliceOp::create(
        rewriter, loc, grad, padded,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0), rewriter.getIndexAttr(before[0]),
                               rewriter.getIndexAttr(before[1]), rewriter.getIndexAttr(0)},
        getAsIndexOpFoldResult(rewriter.getContext(), gradType.getShape()),
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1), rewriter.getIndexAttr(g->stride[0]),
                               rewriter.getIndexAttr(g->stride[1]), rewriter.getIndexAttr(1)});
    // flipped[kh, kw, f, c] = filter[KH - 1 - kh, KW - 1 - kw, c, f].
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr dh, dw, df, dc;
    bindDims(ctx, dh, dw, df, dc);
    auto flippedType = RankedTensorType::get(
        {kh, kw, filterType.getDimSize(3), filterType.getDimSize(2)}, element);
    Value flipped = buildParallelGeneric(
        rewriter, loc, flippedType, {adaptor.getFilter()},
        {AffineMap::get(4, 0, {kh - 1 - dh, kw - 1 - dw, dc, df}, ctx)},
        [](OpBuilder &, Location, ValueRange args) -> Value { return args[0]; });
    Geometry unit = *g;
    for (int i = 0; i < 2; ++i) {
      unit.stride[i] = 1;
      unit.dims[i] = {inputType.getDimSize(1 + i), 0, 0};
    }
    SmallVector<int64_t> outNHW = {inputType.getDimSize(0), inputType.getDimSize(1),
                                   inputType.getDimSize(2)};
    // f32: the windows-times-filter kernel on the spread gradient (no patches matrix).
    Value result = element.isF32()
                       ? convUnpadded(rewriter, loc, padded, flipped, unit, outNHW, kConvGemmAttr,
                                      {1, 1, unit.dilation[0], unit.dilation[1], 0, 0})
                       : conv2d(rewriter, loc, padded, flipped, unit, outNHW);
    if (nchw)
      result = transpose(rewriter, loc, result, kToNCHW);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// _FusedConv2D and _FusedMatMul become the tf ops they fuse (the convolution or product,
/// BiasAdd or inference FusedBatchNormV3, then the activation), which the other patterns
/// lower; kiln-lower-fuse-elementwise then merges the epilogue into one loop nest.
template <typename OpT> struct FusedOpLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    constexpr bool conv = std::is_same_v<OpT, tf::FusedConv2DOp>;
    tf::InferContext ctx = tf::InferContext::of(op);
    bool batchNorm = false;
    auto activation = tf::fusedActivation(ctx, conv, batchNorm);
    if (failed(activation))
      return failure();
    Location loc = op.getLoc();
    ValueRange operands = adaptor.getOperands();
    auto copy = [&](ArrayRef<StringRef> names) {
      SmallVector<NamedAttribute> attrs;
      for (StringRef n : names)
        if (Attribute a = op->getAttr(n))
          attrs.push_back(rewriter.getNamedAttr(n, a));
      return attrs;
    };
    Value value = conv ? tf::createTF(rewriter, loc, "Conv2D", operands.take_front(2),
                                      copy({"strides", "padding", "explicit_paddings",
                                            "data_format", "dilations"}))
                       : tf::createTF(rewriter, loc, "MatMul", operands.take_front(2),
                                      copy({"transpose_a", "transpose_b"}));
    if (value && batchNorm) {
      SmallVector<Value> args = {value};
      llvm::append_range(args, operands.slice(2, 4));
      SmallVector<NamedAttribute> attrs = copy({"epsilon", "data_format"});
      attrs.push_back(rewriter.getNamedAttr("is_training", rewriter.getBoolAttr(false)));
      value = tf::createTF(rewriter, loc, "FusedBatchNormV3", args, attrs);
    } else if (value) {
      value = tf::createTF(rewriter, loc, "BiasAdd", {value, operands[2]}, copy({"data_format"}));
    }
    if (value && !activation->empty()) {
      SmallVector<NamedAttribute> attrs;
      if (*activation == "LeakyRelu")
        if (Attribute alpha = op->getAttr("leakyrelu_alpha"))
          attrs.push_back(rewriter.getNamedAttr("alpha", alpha));
      value = tf::createTF(rewriter, loc, *activation, {value}, attrs);
    }
    if (!value)
      return rewriter.notifyMatchFailure(op, "cannot build the unfused ops");
    rewriter.replaceOp(op, value);
    return success();
  }
};

/// The loops (n, oh, ow, kh, kw, c) of the pooling generics below, the channel innermost:
/// their kinds, and the maps of the window (kh x kw, whose shape gives the window loops
/// their sizes) and of the output.
struct PoolLoops {
  static SmallVector<utils::IteratorType> iterators() {
    using utils::IteratorType;
    return {IteratorType::parallel,  IteratorType::parallel,  IteratorType::parallel,
            IteratorType::reduction, IteratorType::reduction, IteratorType::parallel};
  }
  static SmallVector<AffineMap> windowAndOutputMaps(MLIRContext *ctx) {
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    return {AffineMap::get(6, 0, {d(3), d(4)}, ctx),
            AffineMap::get(6, 0, {d(0), d(1), d(2), d(5)}, ctx)};
  }
};

/// The sums of an average pool's windows over `padded` (NHWC, padded with zeros where the
/// window leaves the input) as one generic over loops (n, oh, ow, kh, kw, c), the channel
/// innermost so that the generated loop runs along contiguous channels (linalg's pooling
/// ops put the window loops inside the channel's: InceptionV3's 3x3 average pools took a
/// tenth of its time as scalar loops). Each window is summed as linalg's pooling op sums it,
/// kh then kw, from `init`. `window` (kh x kw, never read) gives the window loops their sizes.
Value windowSum(OpBuilder &b, Location loc, Value padded, Value window, Value init,
                const Geometry &g) {
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = {AffineMap::get(6, 0,
                                                {d(0), d(1) * g.stride[0] + d(3) * g.dilation[0],
                                                 d(2) * g.stride[1] + d(4) * g.dilation[1], d(5)},
                                                ctx)};
  llvm::append_range(maps, PoolLoops::windowAndOutputMaps(ctx));
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{padded, window}, ValueRange{init}, maps,
             PoolLoops::iterators(),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l,
                                       arith::AddFOp::create(nb, l, args[2], args[0]).getResult());
             })
      .getResult(0);
}

/// A floating-point max pool over the unpadded NHWC `input` as one generic over loops (n, oh,
/// ow, kh, kw, c), the channel innermost, as TensorFlow computes it: `init` holds the lowest
/// finite value and each window value greater than the running maximum replaces it, so NaNs
/// are passed over (a window of NaNs or of -inf gives the lowest value); positions outside
/// the input are that lowest value too. `window` (kh x kw, never read) gives the window
/// loops their sizes. An f32 op carries `kiln.max_pool` = [window h, window w, stride h,
/// stride w, pad top, pad left], from which kiln-lower-kernel-calls calls
/// kiln_kernel_max_pool2d_f32 instead.
Value maxPoolUnpadded(OpBuilder &b, Location loc, Value input, Value window, Value init,
                      Value lowest, const Geometry &g) {
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{window}, ValueRange{init},
      PoolLoops::windowAndOutputMaps(b.getContext()), PoolLoops::iterators(),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value v = windowElement(nb, l, input, g, lowest);
        Value greater = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, v, args[1]);
        linalg::YieldOp::create(nb, l,
                                arith::SelectOp::create(nb, l, greater, v, args[1]).getResult());
      });
  if (getElementTypeOrSelf(input.getType()).isF32())
    generic->setAttr(kMaxPoolAttr,
                     b.getDenseI64ArrayAttr({g.window[0], g.window[1], g.stride[0], g.stride[1],
                                             g.dims[0].padBefore, g.dims[1].padBefore}));
  return generic.getResult(0);
}

template <typename OpT, bool Max> struct PoolLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getInput().getType()));
    if (!Max && kind != ElementKind::Float)
      return rewriter.notifyMatchFailure(op, "AvgPool is defined on floats");
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    bool nchw = op.getDataFormat() == "NCHW";
    if (nchw)
      input = transpose(rewriter, loc, input, kToNHWC);
    auto inputType = cast<RankedTensorType>(input.getType());
    tf::Layout layout = tf::Layout::of(nchw ? "NCHW" : "NHWC");
    auto ksize = intList(op, "ksize", 4, {});
    if (failed(ksize))
      return failure();
    auto g = geometry(op, inputType, (*ksize)[layout.h], (*ksize)[layout.w]);
    if (failed(g))
      return failure();
    Type element = inputType.getElementType();
    Value initValue;
    if (!Max) {
      initValue = scalarConstant(rewriter, loc, element, 0);
    } else if (auto f = dyn_cast<FloatType>(element)) {
      initValue = arith::ConstantOp::create(
          rewriter, loc,
          FloatAttr::get(f, APFloat::getLargest(f.getFloatSemantics(), /*Negative=*/true)));
    } else {
      unsigned w = element.getIntOrFloatBitWidth();
      initValue = arith::ConstantOp::create(
          rewriter, loc,
          IntegerAttr::get(element, kind == ElementKind::Unsigned ? APInt::getMinValue(w)
                                                                  : APInt::getSignedMinValue(w)));
    }
    auto outType = RankedTensorType::get(
        {inputType.getDimSize(0), g->dims[0].output, g->dims[1].output, inputType.getDimSize(3)},
        element);
    Value init = filledTensor(rewriter, loc, outType, initValue);
    Value window = tensor::EmptyOp::create(rewriter, loc,
                                           ArrayRef<int64_t>{g->window[0], g->window[1]}, element);
    auto pool = [&]() -> Value {
      if (Max && isa<FloatType>(element))
        return maxPoolUnpadded(rewriter, loc, input, window, init, initValue, *g);
      Value padded = padSpatial(rewriter, loc, input, *g, initValue);
      if (!Max) {
        Value sums = windowSum(rewriter, loc, padded, window, init, *g);
        return divideByWindowCounts(rewriter, loc, sums, inputType, *g);
      }
      SmallVector<Value> ins = {padded, window};
      SmallVector<NamedAttribute> attrs = windowAttrs(rewriter, *g);
      if (kind == ElementKind::Unsigned)
        return linalg::PoolingNhwcMaxUnsignedOp::create(rewriter, loc, TypeRange{outType}, ins,
                                                        ValueRange{init}, attrs)
            .getResult(0);
      return linalg::PoolingNhwcMaxOp::create(rewriter, loc, TypeRange{outType}, ins,
                                              ValueRange{init}, attrs)
          .getResult(0);
    };
    Value result = pool();
    if (nchw)
      result = transpose(rewriter, loc, result, kToNCHW);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// TensorFlow averages over the elements inside the input only: each output position
  /// divides by its own count, known at compile time.
  static Value divideByWindowCounts(OpBuilder &b, Location loc, Value sums, RankedTensorType input,
                                    const Geometry &g) {
    auto type = cast<RankedTensorType>(sums.getType());
    SmallVector<double> counts;
    for (int64_t oh = 0; oh < g.dims[0].output; ++oh) {
      for (int64_t ow = 0; ow < g.dims[1].output; ++ow) {
        int64_t n = 1;
        int64_t start[2] = {oh * g.stride[0] - g.dims[0].padBefore,
                            ow * g.stride[1] - g.dims[1].padBefore};
        for (int i = 0; i < 2; ++i) {
          int64_t lo = std::max<int64_t>(start[i], 0);
          int64_t hi = std::min<int64_t>(start[i] + g.window[i], input.getDimSize(1 + i));
          n *= std::max<int64_t>(hi - lo, 0);
        }
        counts.push_back(static_cast<double>(n));
      }
    }
    auto countType =
        RankedTensorType::get({g.dims[0].output, g.dims[1].output}, type.getElementType());
    SmallVector<Attribute> values;
    for (double c : counts)
      values.push_back(b.getFloatAttr(type.getElementType(), c));
    Value countTensor =
        arith::ConstantOp::create(b, loc, DenseElementsAttr::get(countType, values));
    MLIRContext *ctx = b.getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
    AffineMap hw = AffineMap::get(4, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)}, ctx);
    return buildParallelGeneric(b, loc, type, {sums, countTensor}, {id, hw},
                                [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                                  return arith::DivFOp::create(nb, l, args[0], args[1]);
                                });
  }
};

/// The geometry of a 3-D window op (NDHWC; SAME or VALID), per spatial dimension.
struct Geometry3D {
  int64_t stride[3], dilation[3], window[3];
  tf::WindowDim dims[3];
};

FailureOr<Geometry3D> geometry3D(Operation *op, RankedTensorType input, ArrayRef<int64_t> window) {
  auto strides = intList(op, "strides", 5, {});
  auto dilations = intList(op, "dilations", 5, {1, 1, 1, 1, 1});
  if (failed(strides) || failed(dilations))
    return failure();
  StringRef padding = op->getAttrOfType<StringAttr>("padding").getValue();
  tf::InferContext ctx{op->getContext(), op->getLoc(), {}, {}, op->getName().getStringRef()};
  Geometry3D g;
  for (int i = 0; i < 3; ++i) {
    g.stride[i] = (*strides)[1 + i];
    g.dilation[i] = (*dilations)[1 + i];
    g.window[i] = window[i];
    auto d = tf::computeWindow(ctx, input.getDimSize(1 + i), window[i], g.stride[i], g.dilation[i],
                               padding, 0, 0);
    if (failed(d))
      return failure();
    g.dims[i] = *d;
  }
  return g;
}

/// `input` (NDHWC) padded along its three spatial dimensions with `value`.
Value padSpatial3D(OpBuilder &b, Location loc, Value input, const Geometry3D &g, Value value) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> low(5, b.getIndexAttr(0)), high(5, b.getIndexAttr(0));
  bool any = false;
  for (int i = 0; i < 3; ++i) {
    shape[1 + i] += g.dims[i].padBefore + g.dims[i].padAfter;
    low[1 + i] = b.getIndexAttr(g.dims[i].padBefore);
    high[1 + i] = b.getIndexAttr(g.dims[i].padAfter);
    any |= g.dims[i].padBefore != 0 || g.dims[i].padAfter != 0;
  }
  if (!any)
    return input;
  return tensor::PadOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), input,
                               low, high, value)
      .getResult();
}

/// Conv3D (NDHWC, a [d, h, w, in, out] filter): the padded input and linalg's named 3-D
/// convolution, in generated loops.
struct Conv3DLowering : OpConversionPattern<tf::Conv3DOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::Conv3DOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto filterType = dyn_cast<RankedTensorType>(adaptor.getFilter().getType());
    if (!resultType || !inputType || !filterType || !filterType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    if (inputType.getDimSize(4) != filterType.getDimSize(3))
      return op.emitError("a grouped convolution (")
             << inputType.getDimSize(4) << " input channels, " << filterType.getDimSize(3)
             << " per group) must be decomposed first (kiln-graph-decompose)";
    auto g = geometry3D(op, inputType, filterType.getShape().take_front(3));
    if (failed(g))
      return failure();
    Location loc = op.getLoc();
    Type element = inputType.getElementType();
    Value zero = scalarConstant(rewriter, loc, element, 0);
    Value padded = padSpatial3D(rewriter, loc, adaptor.getInput(), *g, zero);
    auto vector = [&](ArrayRef<int64_t> values) {
      return DenseIntElementsAttr::get(RankedTensorType::get({3}, rewriter.getI64Type()), values);
    };
    SmallVector<NamedAttribute> attrs = {rewriter.getNamedAttr("strides", vector(g->stride)),
                                         rewriter.getNamedAttr("dilations", vector(g->dilation))};
    Value init = filledTensor(rewriter, loc, resultType, zero);
    Value result = linalg::Conv3DNdhwcDhwcfOp::create(rewriter, loc, TypeRange{resultType},
                                                      ValueRange{padded, adaptor.getFilter()},
                                                      ValueRange{init}, attrs)
                       .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Conv3DBackpropInputV2 as a stride-1 Conv3D, as Conv2DBackpropInput: the gradient with
/// stride - 1 zeros between its elements, padded so that each window that touched an input
/// position lines up with it, convolved with the filter turned around in all three spatial
/// dimensions and its channel dimensions swapped.
struct Conv3DBackpropInputLowering : OpConversionPattern<tf::Conv3DBackpropInputV2Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::Conv3DBackpropInputV2Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto filterType = dyn_cast<RankedTensorType>(adaptor.getFilter().getType());
    auto gradType = dyn_cast<RankedTensorType>(adaptor.getOutBackprop().getType());
    if (!resultType || !filterType || !filterType.hasStaticShape() || !gradType ||
        !gradType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    ArrayRef<int64_t> window = filterType.getShape().take_front(3);
    auto g = geometry3D(op, resultType, window);
    if (failed(g))
      return failure();
    Location loc = op.getLoc();
    Type element = gradType.getElementType();
    SmallVector<int64_t> paddedShape(resultType.getShape());
    SmallVector<OpFoldResult> offsets{rewriter.getIndexAttr(0)}, strides{rewriter.getIndexAttr(1)};
    for (int i = 0; i < 3; ++i) {
      int64_t extent = (g->window[i] - 1) * g->dilation[i] + 1;
      int64_t before = extent - 1 - g->dims[i].padBefore;
      paddedShape[1 + i] += extent - 1;
      int64_t last = before + (gradType.getDimSize(1 + i) - 1) * g->stride[i];
      if (before < 0 || (gradType.getDimSize(1 + i) > 0 && last >= paddedShape[1 + i]))
        return op.emitOpError() << "padding larger than the filter window is not supported";
      offsets.push_back(rewriter.getIndexAttr(before));
      strides.push_back(rewriter.getIndexAttr(g->stride[i]));
    }
    offsets.push_back(rewriter.getIndexAttr(0));
    strides.push_back(rewriter.getIndexAttr(1));
    paddedShape[4] = gradType.getDimSize(4);
    Value zero = scalarConstant(rewriter, loc, element, 0);
    Value padded = filledTensor(rewriter, loc, RankedTensorType::get(paddedShape, element), zero);
    padded = tensor::InsertSliceOp::create(
        rewriter, loc, adaptor.getOutBackprop(), padded, offsets,
        getAsIndexOpFoldResult(rewriter.getContext(), gradType.getShape()), strides);
    // flipped[d, h, w, f, c] = filter[KD - 1 - d, KH - 1 - h, KW - 1 - w, c, f].
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr dd, dh, dw, df, dc;
    bindDims(ctx, dd, dh, dw, df, dc);
    auto flippedType = RankedTensorType::get(
        {window[0], window[1], window[2], filterType.getDimSize(4), filterType.getDimSize(3)},
        element);
    Value flipped = buildParallelGeneric(
        rewriter, loc, flippedType, {adaptor.getFilter()},
        {AffineMap::get(5, 0, {window[0] - 1 - dd, window[1] - 1 - dh, window[2] - 1 - dw, dc, df},
                        ctx)},
        [](OpBuilder &, Location, ValueRange args) -> Value { return args[0]; });
    auto vector = [&](ArrayRef<int64_t> values) {
      return DenseIntElementsAttr::get(RankedTensorType::get({3}, rewriter.getI64Type()), values);
    };
    SmallVector<NamedAttribute> attrs = {rewriter.getNamedAttr("strides", vector({1, 1, 1})),
                                         rewriter.getNamedAttr("dilations", vector(g->dilation))};
    Value init = filledTensor(rewriter, loc, resultType, zero);
    Value result =
        linalg::Conv3DNdhwcDhwcfOp::create(rewriter, loc, TypeRange{resultType},
                                           ValueRange{padded, flipped}, ValueRange{init}, attrs)
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// MaxPool3D and AvgPool3D (NDHWC): one generic over loops (n, od, oh, ow, kd, kh, kw, c),
/// the channel innermost, over the input padded with the lowest finite value (max: each
/// window value greater than the running maximum replaces it, so NaNs are passed over, as
/// in TensorFlow's) or zeros (average: the sums divided by the count of each window's
/// elements inside the input, known at compile time).
template <typename OpT, bool Max> struct Pool3DLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!resultType || !inputType)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    auto ksize = intList(op, "ksize", 5, {});
    if (failed(ksize))
      return failure();
    auto g = geometry3D(op, inputType, ArrayRef<int64_t>(*ksize).slice(1, 3));
    if (failed(g))
      return failure();
    Location loc = op.getLoc();
    auto element = cast<FloatType>(inputType.getElementType());
    Value initValue =
        Max ? Value(arith::ConstantOp::create(
                  rewriter, loc,
                  FloatAttr::get(element, APFloat::getLargest(element.getFloatSemantics(),
                                                              /*Negative=*/true))))
            : scalarConstant(rewriter, loc, element, 0);
    Value padded = padSpatial3D(rewriter, loc, adaptor.getInput(), *g, initValue);
    Value init = filledTensor(rewriter, loc, resultType, initValue);
    Value window = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>(g->window, 3), element);
    MLIRContext *ctx = rewriter.getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> in = {d(0)};
    for (unsigned i = 0; i < 3; ++i)
      in.push_back(d(1 + i) * g->stride[i] + d(4 + i) * g->dilation[i]);
    in.push_back(d(7));
    SmallVector<AffineMap> maps = {AffineMap::get(8, 0, in, ctx),
                                   AffineMap::get(8, 0, {d(4), d(5), d(6)}, ctx),
                                   AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(7)}, ctx)};
    using utils::IteratorType;
    SmallVector<IteratorType> iterators(8, IteratorType::parallel);
    for (int i = 4; i < 7; ++i)
      iterators[i] = IteratorType::reduction;
    Value result = linalg::GenericOp::create(
                       rewriter, loc, TypeRange{resultType}, ValueRange{padded, window},
                       ValueRange{init}, maps, iterators,
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         Value next;
                         if (Max) {
                           Value greater = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT,
                                                                 args[0], args[2]);
                           next = arith::SelectOp::create(b, l, greater, args[0], args[2]);
                         } else {
                           next = arith::AddFOp::create(b, l, args[2], args[0]);
                         }
                         linalg::YieldOp::create(b, l, next);
                       })
                       .getResult(0);
    if (!Max)
      result = divideByCounts(rewriter, loc, result, inputType, *g);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Each output position's sum divided by the number of its window's elements inside the
  /// input.
  static Value divideByCounts(OpBuilder &b, Location loc, Value sums, RankedTensorType input,
                              const Geometry3D &g) {
    auto type = cast<RankedTensorType>(sums.getType());
    auto inside = [&](int i, int64_t o) {
      int64_t start = o * g.stride[i] - g.dims[i].padBefore;
      int64_t lo = std::max<int64_t>(start, 0);
      int64_t hi = std::min<int64_t>(start + g.window[i], input.getDimSize(1 + i));
      return std::max<int64_t>(hi - lo, 0);
    };
    SmallVector<Attribute> counts;
    for (int64_t od = 0; od < g.dims[0].output; ++od)
      for (int64_t oh = 0; oh < g.dims[1].output; ++oh)
        for (int64_t ow = 0; ow < g.dims[2].output; ++ow)
          counts.push_back(b.getFloatAttr(type.getElementType(),
                                          double(inside(0, od) * inside(1, oh) * inside(2, ow))));
    auto countType = RankedTensorType::get({g.dims[0].output, g.dims[1].output, g.dims[2].output},
                                           type.getElementType());
    Value countTensor =
        arith::ConstantOp::create(b, loc, DenseElementsAttr::get(countType, counts));
    MLIRContext *ctx = b.getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(5, ctx);
    AffineMap dhw = AffineMap::get(
        5, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx), getAffineDimExpr(3, ctx)}, ctx);
    return buildParallelGeneric(b, loc, type, {sums, countTensor}, {id, dhw},
                                [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                                  return arith::DivFOp::create(nb, l, args[0], args[1]);
                                });
  }
};

/// Inference batch normalisation, per channel, computed in the statistics' type (U):
/// y = (x - mean) * scale * rsqrt(variance + epsilon) + offset.
template <typename OpT> struct FusedBatchNormLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getIsTraining())
      return op.emitError() << "'" << op->getName()
                            << "' in training mode (is_training = true) is not supported; "
                               "only inference graphs compile";
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!xType || !xType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    int64_t channel = tf::Layout::of(op.getDataFormat()).c;
    MLIRContext *ctx = rewriter.getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
    AffineMap c = AffineMap::get(4, 0, getAffineDimExpr(channel, ctx));
    Type u = cast<RankedTensorType>(adaptor.getScale().getType()).getElementType();
    double epsilon = op.getEpsilon().convertToDouble();
    if (Value folded = foldedBatchNorm(rewriter, loc, adaptor, xType, id, c, epsilon)) {
      replaceWithStatistics(rewriter, op, adaptor, folded);
      return success();
    }
    Value y = buildParallelGeneric(
        rewriter, loc, xType,
        {adaptor.getX(), adaptor.getScale(), adaptor.getOffset(), adaptor.getMean(),
         adaptor.getVariance()},
        {id, c, c, c, c}, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value x = args[0];
          Type t = x.getType();
          if (t != u)
            x = arith::ExtFOp::create(b, l, u, x);
          Value eps = scalarConstant(b, l, u, epsilon);
          Value one = scalarConstant(b, l, u, 1);
          Value inv = arith::DivFOp::create(
              b, l, one, math::SqrtOp::create(b, l, arith::AddFOp::create(b, l, args[4], eps)));
          Value centered = arith::SubFOp::create(b, l, x, args[3]);
          Value scaled =
              arith::MulFOp::create(b, l, centered, arith::MulFOp::create(b, l, args[1], inv));
          Value r = arith::AddFOp::create(b, l, scaled, args[2]);
          return t != u ? Value(arith::TruncFOp::create(b, l, t, r)) : r;
        });
    replaceWithStatistics(rewriter, op, adaptor, y);
    return success();
  }

  // In inference the batch statistics are the given ones.
  static void replaceWithStatistics(ConversionPatternRewriter &rewriter, OpT op,
                                    typename OpT::Adaptor adaptor, Value y) {
    SmallVector<Value> results = {y, adaptor.getMean(), adaptor.getVariance(), adaptor.getMean(),
                                  adaptor.getVariance()};
    if (op->getNumResults() == 6)
      results.push_back(adaptor.getMean());
    rewriter.replaceOp(op, results);
  }

  /// f32 with constant statistics (a frozen graph): x * s + b per channel, with
  /// s = scale / sqrt(variance + epsilon) and b = offset - mean * s computed here in double.
  /// That is the form the kernels apply as an epilogue; null otherwise.
  static Value foldedBatchNorm(OpBuilder &b, Location loc, typename OpT::Adaptor adaptor,
                               RankedTensorType xType, AffineMap id, AffineMap c, double epsilon) {
    // A constant operand: an arith.constant, or a tf.Const the conversion has not reached.
    auto constant = [](Value v, DenseFPElementsAttr &attr) {
      if (auto c = v.getDefiningOp<UnrealizedConversionCastOp>(); c && c->getNumOperands() == 1)
        v = c->getOperand(0);
      if (auto c = v.getDefiningOp<tf::ConstOp>())
        return static_cast<bool>(attr = dyn_cast<DenseFPElementsAttr>(c.getValue()));
      return matchPattern(v, m_Constant(&attr));
    };
    DenseFPElementsAttr scale, offset, mean, variance;
    if (!xType.getElementType().isF32() || !constant(adaptor.getScale(), scale) ||
        !constant(adaptor.getOffset(), offset) || !constant(adaptor.getMean(), mean) ||
        !constant(adaptor.getVariance(), variance) || !scale.getElementType().isF32())
      return Value();
    auto values = [](DenseFPElementsAttr a) {
      SmallVector<double> v;
      for (const APFloat &f : a.getValues<APFloat>())
        v.push_back(f.convertToDouble());
      return v;
    };
    SmallVector<double> sc = values(scale), of = values(offset), mu = values(mean),
                        var = values(variance);
    int64_t channels = static_cast<int64_t>(sc.size());
    if (of.size() != sc.size() || mu.size() != sc.size() || var.size() != sc.size())
      return Value();
    SmallVector<float> s(channels), t(channels);
    for (int64_t i = 0; i < channels; ++i) {
      double k = sc[i] / std::sqrt(var[i] + epsilon);
      s[i] = static_cast<float>(k);
      t[i] = static_cast<float>(of[i] - mu[i] * k);
    }
    auto vecType = RankedTensorType::get({channels}, b.getF32Type());
    Value sv = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vecType, ArrayRef(s)));
    Value tv = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vecType, ArrayRef(t)));
    return buildParallelGeneric(b, loc, xType, {adaptor.getX(), sv, tv}, {id, c, c},
                                [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                                  Value scaled = arith::MulFOp::create(nb, l, args[0], args[1]);
                                  return arith::AddFOp::create(nb, l, scaled, args[2]);
                                });
  }
};

} // namespace

void populateConvolutionPatterns(const TypeConverter &converter, RewritePatternSet &patterns,
                                 bool winograd) {
  patterns.add<ConvLowering<tf::Conv2DOp, false>, ConvLowering<tf::DepthwiseConv2dNativeOp, true>>(
      converter, patterns.getContext(), winograd);
  patterns.add<FusedOpLowering<tf::FusedConv2DOp>, FusedOpLowering<tf::FusedMatMulOp>,
               ConvBackpropInputLowering, PoolLowering<tf::MaxPoolOp, true>,
               PoolLowering<tf::AvgPoolOp, false>, FusedBatchNormLowering<tf::FusedBatchNormOp>,
               FusedBatchNormLowering<tf::FusedBatchNormV2Op>,
               FusedBatchNormLowering<tf::FusedBatchNormV3Op>, Conv3DLowering,
               Conv3DBackpropInputLowering, Pool3DLowering<tf::MaxPool3DOp, true>,
               Pool3DLowering<tf::AvgPool3DOp, false>>(converter, patterns.getContext());
}

} // namespace kiln::lower
