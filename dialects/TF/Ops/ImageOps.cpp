//===- ImageOps.cpp - ExtractImagePatches, LRN, colour spaces, FakeQuant* -----===//
#include "dialects/TF/TFOps.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;

namespace kiln::tf {

LogicalResult inferExtractImagePatches(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  auto ksizes = ctx.intList("ksizes"), strides = ctx.intList("strides"),
       rates = ctx.intList("rates");
  auto padding = ctx.attr<StringAttr>("padding");
  for (auto [name, list] :
       {std::pair{"ksizes", &ksizes}, std::pair{"strides", &strides}, std::pair{"rates", &rates}})
    if (!*list || (*list)->size() != 4 || (**list)[0] != 1 || (**list)[3] != 1 || (**list)[1] < 1 ||
        (**list)[2] < 1)
      return ctx.error(name, " must be [1, rows, cols, 1] of positive sizes");
  if (!padding || (padding.getValue() != "SAME" && padding.getValue() != "VALID"))
    return ctx.error("padding must be \"SAME\" or \"VALID\"");
  if (!input->hasRank()) {
    out.push_back(UnrankedTensorType::get(input->getElementType()));
    return success();
  }
  if (input->getRank() != 4)
    return ctx.error("images must be 4-D (NHWC), got ", *input);
  SmallVector<int64_t> shape(input->getShape());
  for (int d : {1, 2}) {
    if (ShapedType::isDynamic(shape[d]))
      continue;
    auto window = computeWindow(ctx, shape[d], (*ksizes)[d], (*strides)[d], (*rates)[d],
                                padding.getValue(), 0, 0);
    if (failed(window))
      return failure();
    shape[d] = window->output;
  }
  int64_t depth = shape[3];
  shape[3] = ShapedType::isDynamic(depth) ? depth : (*ksizes)[1] * (*ksizes)[2] * depth;
  out.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult inferLRN(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  if (input->hasRank() && input->getRank() != 4)
    return ctx.error("input must be 4-D, got ", *input);
  auto radius = ctx.attr<IntegerAttr>("depth_radius");
  if (radius && (radius.getInt() < 0 || radius.getInt() > (int64_t(1) << 31)))
    return ctx.error("depth_radius must be from 0 to 2^31, got ", radius.getInt());
  out.push_back(*input);
  return success();
}

/// LRNGrad: LRN's checks on the input image; the three tensors of one type.
LogicalResult inferLRNGrad(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(3)))
    return failure();
  for (unsigned i : {1u, 2u}) {
    auto a = cast<TensorType>(ctx.operandType(0)), b = cast<TensorType>(ctx.operandType(i));
    if (a.getElementType() != b.getElementType() ||
        (a.hasRank() && b.hasRank() && failed(verifyCompatibleShape(a.getShape(), b.getShape()))))
      return ctx.error("input_grads, input_image and output_image must be of one type and "
                       "shape, got ",
                       a, " and ", b);
  }
  InferContext lrn{ctx.context, ctx.location, ctx.operands.drop_front(), ctx.attributes, "tf.LRN"};
  return inferLRN(lrn, out);
}

/// ResizeBilinearGrad: grads [N, h, w, C] for an original image [N, H, W, C], whose type
/// the result has.
LogicalResult inferResizeBilinearGrad(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto grads = cast<TensorType>(ctx.operandType(0));
  auto image = cast<TensorType>(ctx.operandType(1));
  if (failed(ctx.checkTypeAttr("T", image.getElementType())))
    return failure();
  if ((grads.hasRank() && grads.getRank() != 4) || (image.hasRank() && image.getRank() != 4))
    return ctx.error("grads and original_image must be 4-D, got ", grads, " and ", image);
  if (grads.hasRank() && image.hasRank())
    for (int64_t d : {0, 3})
      if (!ShapedType::isDynamic(grads.getDimSize(d)) &&
          !ShapedType::isDynamic(image.getDimSize(d)) && grads.getDimSize(d) != image.getDimSize(d))
        return ctx.error("grads and original_image must have the same batch and channels, got ",
                         grads, " and ", image);
  out.push_back(image);
  return success();
}

LogicalResult inferCropAndResize(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(4)))
    return failure();
  auto image = cast<TensorType>(ctx.operandType(0));
  auto boxes = cast<TensorType>(ctx.operandType(1));
  auto indices = cast<TensorType>(ctx.operandType(2));
  if (failed(ctx.checkTypeAttr("T", image.getElementType())))
    return failure();
  if (image.hasRank() && image.getRank() != 4)
    return ctx.error("image must be 4-D (NHWC), got ", image);
  if (boxes.hasRank() &&
      (boxes.getRank() != 2 || (!boxes.isDynamicDim(1) && boxes.getDimSize(1) != 4)))
    return ctx.error("boxes must be [num_boxes, 4], got ", boxes);
  if (indices.hasRank() && indices.getRank() != 1)
    return ctx.error("box_ind must be a vector, got ", indices);
  if (boxes.hasRank() && indices.hasRank() &&
      failed(verifyCompatibleShape(boxes.getShape().take_front(1), indices.getShape())))
    return ctx.error("box_ind must have one index per box, got ", indices, " for ", boxes);
  auto method = ctx.attr<StringAttr>("method");
  if (method && method.getValue() != "bilinear" && method.getValue() != "nearest")
    return ctx.error("method must be \"bilinear\" or \"nearest\", got \"", method.getValue(), "\"");
  auto size = ctx.constantInts(3);
  if (size && (size->size() != 2 || (*size)[0] < 1 || (*size)[1] < 1))
    return ctx.error("crop_size must be 2 positive sizes, got ", describeDims(*size));
  int64_t n = boxes.hasRank() ? boxes.getDimSize(0) : ShapedType::kDynamic;
  int64_t c = image.hasRank() ? image.getDimSize(3) : ShapedType::kDynamic;
  SmallVector<int64_t> shape{n, size ? (*size)[0] : ShapedType::kDynamic,
                             size ? (*size)[1] : ShapedType::kDynamic, c};
  out.push_back(RankedTensorType::get(shape, Float32Type::get(ctx.context)));
  return success();
}

void CropAndResizeOp::getRuntimeChecks(SmallVectorImpl<RuntimeCheck> &checks) {
  auto image = dyn_cast<RankedTensorType>(getImage().getType());
  if (!image || image.isDynamicDim(0))
    return;
  int64_t batch = image.getDimSize(0);
  checks.push_back({getBoxInd(),
                    "in_range",
                    {batch},
                    "box_ind{index} = {value} is not in [0, " + std::to_string(batch) + ")"});
}

LogicalResult inferBitcast(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  auto type = ctx.attr<TypeAttr>("type");
  if (!type)
    return ctx.error("requires the attribute 'type', a dtype");
  Type from = input->getElementType(), to = type.getValue();
  if (from.isInteger(1) || to.isInteger(1) || !from.isIntOrFloat() || !to.isIntOrFloat())
    return ctx.error("cannot bitcast ", from, " to ", to, ": both must be numbers");
  int64_t a = from.getIntOrFloatBitWidth(), b = to.getIntOrFloatBitWidth();
  if (!input->hasRank()) {
    out.push_back(UnrankedTensorType::get(to));
    return success();
  }
  SmallVector<int64_t> shape(input->getShape());
  if (a > b) {
    shape.push_back(a / b);
  } else if (a < b) {
    if (shape.empty() || (!ShapedType::isDynamic(shape.back()) && shape.back() != b / a))
      return ctx.error("bitcasting ", from, " to ", to, " needs a last dimension of ", b / a,
                       ", got ", *input);
    shape.pop_back();
  }
  out.push_back(RankedTensorType::get(shape, to));
  return success();
}

LogicalResult inferColor(const InferContext &ctx, InferResult &out) {
  bool contrast = ctx.opName == "tf.AdjustContrastv2";
  auto input = ctx.firstInput(contrast ? 2 : 1);
  if (failed(input))
    return failure();
  if (contrast) {
    auto factor = cast<TensorType>(ctx.operandType(1));
    if (factor.hasRank() && factor.getRank() != 0)
      return ctx.error("contrast_factor must be a scalar, got ", factor);
    if (input->hasRank() && input->getRank() < 3)
      return ctx.error("images must have rank 3 or more, got ", *input);
  } else if (input->hasRank() &&
             (input->getRank() == 0 ||
              (!input->isDynamicDim(input->getRank() - 1) && input->getShape().back() != 3))) {
    return ctx.error("images must have 3 channels in the last dimension, got ", *input);
  }
  out.push_back(*input);
  return success();
}

LogicalResult inferFakeQuant(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(1);
  if (failed(input))
    return failure();
  auto bits = ctx.attr<IntegerAttr>("num_bits");
  if (bits && (bits.getInt() < 2 || bits.getInt() > 16))
    return ctx.error("num_bits must be from 2 to 16, got ", bits.getInt());
  if (ctx.opName == "tf.FakeQuantWithMinMaxArgs") {
    auto min = ctx.attr<FloatAttr>("min"), max = ctx.attr<FloatAttr>("max");
    double lo = min ? min.getValueAsDouble() : -6, hi = max ? max.getValueAsDouble() : 6;
    if (!(lo < hi))
      return ctx.error("min has to be smaller than max, got min ", lo, " and max ", hi);
  } else {
    if (failed(ctx.requireTensorOperands(3)))
      return failure();
    bool perChannel = ctx.opName == "tf.FakeQuantWithMinMaxVarsPerChannel";
    for (unsigned i : {1u, 2u}) {
      auto bound = cast<TensorType>(ctx.operandType(i));
      if (!bound.hasRank())
        continue;
      if (!perChannel && bound.getRank() != 0)
        return ctx.error("min and max must be scalars, got ", bound);
      if (perChannel &&
          (bound.getRank() != 1 ||
           (input->hasRank() && input->getRank() > 0 &&
            failed(verifyCompatibleShape(bound.getShape(), input->getShape().take_back(1))))))
        return ctx.error("min and max must be vectors of the last dimension of inputs ", *input,
                         ", got ", bound);
    }
  }
  out.push_back(*input);
  return success();
}

/// The FakeQuant gradients: FakeQuant's checks on (inputs, bounds), gradients of the
/// inputs' shape; the input's backprop of its type, then the bounds' (Vars forms).
LogicalResult inferFakeQuantGrad(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(2)))
    return failure();
  auto gradients = cast<TensorType>(ctx.operandType(0));
  auto inputs = cast<TensorType>(ctx.operandType(1));
  if (gradients.getElementType() != inputs.getElementType() ||
      (gradients.hasRank() && inputs.hasRank() &&
       failed(verifyCompatibleShape(gradients.getShape(), inputs.getShape()))))
    return ctx.error("gradients must have the inputs' shape, got ", gradients, " and ", inputs);
  StringRef forward = ctx.opName.drop_back(StringRef("Gradient").size());
  InferContext quant{ctx.context, ctx.location, ctx.operands.drop_front(), ctx.attributes, forward};
  if (failed(inferFakeQuant(quant, out)))
    return failure();
  if (forward != "tf.FakeQuantWithMinMaxArgs")
    for (unsigned i : {2u, 3u})
      out.push_back(ctx.operandType(i));
  return success();
}

namespace {

/// TensorFlow's sampling kernels (sampling_kernels.h), in float as there.
struct SamplingKernel {
  enum Kind { Lanczos, Gaussian, Box, Triangle, KeysCubic, MitchellCubic } kind;
  float radius;

  float operator()(float x) const {
    x = std::abs(x);
    switch (kind) {
    case Lanczos: {
      constexpr float kPI = 3.14159265359;
      if (x > radius)
        return 0.0;
      if (x <= 1e-3)
        return 1.0;
      return radius * std::sin(kPI * x) * std::sin(kPI * x / radius) / (kPI * kPI * x * x);
    }
    case Gaussian: {
      const float sigma = radius / 3.0f;
      if (x >= radius)
        return 0.0;
      return std::exp(-x * x / (2.0 * sigma * sigma));
    }
    case Box:
      return x < 0.5f ? 1. : x == 0.5f ? 0.5f : 0.0f;
    case Triangle:
      return x < 1.0f ? 1.0f - x : 0.0f;
    case KeysCubic:
      if (x >= 2.0f)
        return 0.0f;
      if (x >= 1.0f)
        return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
      return ((1.5f * x - 2.5f) * x) * x + 1.0f;
    case MitchellCubic:
      if (x >= 2.0f)
        return 0.0f;
      if (x >= 1.0f)
        return (((-7.0f / 18.0f) * x + 2.0f) * x - 10.0f / 3.0f) * x + 16.0f / 9.0f;
      return (((7.0f / 6.0f) * x - 2.0f) * x) * x + 8.0f / 9.0f;
    }
    return 0.0f;
  }
};

std::optional<SamplingKernel> samplingKernel(StringRef name) {
  using K = SamplingKernel;
  return llvm::StringSwitch<std::optional<SamplingKernel>>(name)
      .Case("lanczos1", K{K::Lanczos, 1.0f})
      .Case("lanczos3", K{K::Lanczos, 3.0f})
      .Case("lanczos5", K{K::Lanczos, 5.0f})
      .Case("gaussian", K{K::Gaussian, 1.5f})
      .Case("box", K{K::Box, 1.0f})
      .Case("triangle", K{K::Triangle, 1.0f})
      .Case("keyscubic", K{K::KeysCubic, 2.0f})
      .Case("mitchellcubic", K{K::MitchellCubic, 2.0f})
      .Default(std::nullopt);
}

} // namespace

bool isSamplingKernel(StringRef kernel) { return samplingKernel(kernel).has_value(); }

std::optional<SpanAxis> spanAxis(StringRef name, int64_t in, int64_t out, float scale,
                                 float translate, bool antialias) {
  auto kernel = samplingKernel(name);
  if (!kernel)
    return std::nullopt;
  // ComputeSpansCore, statement for statement.
  const float invScale = 1.0 / scale;
  const float invTranslate = -invScale * translate;
  const float kernelScale = antialias ? std::max(invScale, 1.0f) : 1.0f;
  SpanAxis axis;
  axis.span =
      std::min<int64_t>(2 * static_cast<int>(std::ceil(kernel->radius * kernelScale)) + 1, in);
  axis.weight.assign(axis.span * out, 0.0f);
  const float oneOverKernelScale = 1.0f / kernelScale;
  std::vector<float> temp;
  for (int64_t x = 0; x < out; ++x) {
    const float colF = x + 0.5f;
    const float sampleF = colF * invScale + invTranslate;
    int64_t start = 0;
    if (!(sampleF < 0 || sampleF > in)) {
      int64_t spanStart = std::ceil(sampleF - kernel->radius * kernelScale - 0.5f);
      int64_t spanEnd = std::floor(sampleF + kernel->radius * kernelScale - 0.5f);
      spanStart = std::clamp<int64_t>(spanStart, 0, in - 1);
      spanEnd = std::clamp<int64_t>(spanEnd, 0, in - 1) + 1;
      float total = 0.0f;
      temp.clear();
      for (int64_t source = spanStart; source < spanEnd; ++source) {
        float position = static_cast<float>(source) + 0.5f - sampleF;
        float weight = (*kernel)(std::abs(position * oneOverKernelScale));
        total += weight;
        temp.push_back(weight);
      }
      if (std::abs(total) >= 1000.0f * std::numeric_limits<float>::min()) {
        float oneOverTotal = 1.0f / total;
        for (auto [j, weight] : llvm::enumerate(temp))
          if (static_cast<int64_t>(j) < axis.span)
            axis.weight[x * axis.span + j] = weight * oneOverTotal;
      }
      start = spanStart;
    }
    axis.start.push_back(start);
    // The kernel reads span entries from start, as far as the input goes.
    axis.count.push_back(std::min(start + axis.span, in) - start);
  }
  return axis;
}

LogicalResult inferScaleAndTranslate(const InferContext &ctx, InferResult &out) {
  if (failed(ctx.requireTensorOperands(4)))
    return failure();
  auto images = cast<TensorType>(ctx.operandType(0));
  if (failed(ctx.checkTypeAttr("T", images.getElementType())))
    return failure();
  if (images.hasRank() && images.getRank() != 4)
    return ctx.error("images must be 4-D (NHWC), got ", images);
  auto kernel = ctx.attr<StringAttr>("kernel_type");
  if (kernel && !isSamplingKernel(kernel.getValue()))
    return ctx.error("kernel_type \"", kernel.getValue(),
                     "\" is not one of lanczos1, lanczos3, lanczos5, gaussian, box, triangle, "
                     "keyscubic, mitchellcubic");
  auto size = ctx.constantInts(1);
  if (size && (size->size() != 2 || (*size)[0] < 1 || (*size)[1] < 1))
    return ctx.error("size must be 2 positive sizes, got ", describeDims(*size));
  int64_t batch = images.hasRank() ? images.getDimSize(0) : ShapedType::kDynamic;
  int64_t channels = images.hasRank() ? images.getDimSize(3) : ShapedType::kDynamic;
  SmallVector<int64_t> shape{batch, size ? (*size)[0] : ShapedType::kDynamic,
                             size ? (*size)[1] : ShapedType::kDynamic, channels};
  out.push_back(RankedTensorType::get(shape, Float32Type::get(ctx.context)));
  return success();
}

LogicalResult inferAdjustColor(const InferContext &ctx, InferResult &out) {
  auto input = ctx.firstInput(2);
  if (failed(input))
    return failure();
  auto factor = cast<TensorType>(ctx.operandType(1));
  if (factor.hasRank() && factor.getRank() != 0)
    return ctx.error(ctx.opName == "tf.AdjustHue" ? "delta" : "scale", " must be a scalar, got ",
                     factor);
  if (input->hasRank() && (input->getRank() < 3 || (!input->isDynamicDim(input->getRank() - 1) &&
                                                    input->getShape().back() != 3)))
    return ctx.error("images must have rank 3 or more and 3 channels in the last dimension, got ",
                     *input);
  out.push_back(*input);
  return success();
}

} // namespace kiln::tf
