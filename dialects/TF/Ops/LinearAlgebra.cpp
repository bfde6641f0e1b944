//===- LinearAlgebra.cpp - MatMul, BiasAdd ------------------------------------===//
#include "dialects/TF/TFOps.h"

#include "mlir/Dialect/Traits.h"

using namespace mlir;

namespace kiln::tf {

static bool dimsConflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

LogicalResult inferMatMul(const InferContext &ctx, InferResult &out) {
  auto inputs = ctx.twoInputs("inputs");
  if (failed(inputs))
    return failure();
  auto [a, b] = *inputs;
  if ((a.hasRank() && a.getRank() != 2) || (b.hasRank() && b.getRank() != 2))
    return ctx.error("inputs must be 2-D, got ", a, " and ", b);
  bool ta = false, tb = false;
  if (auto attr = ctx.attr<BoolAttr>("transpose_a"))
    ta = attr.getValue();
  if (auto attr = ctx.attr<BoolAttr>("transpose_b"))
    tb = attr.getValue();
  int64_t m = ShapedType::kDynamic, ka = ShapedType::kDynamic;
  int64_t kb = ShapedType::kDynamic, n = ShapedType::kDynamic;
  if (a.hasRank()) {
    m = a.getDimSize(ta ? 1 : 0);
    ka = a.getDimSize(ta ? 0 : 1);
  }
  if (b.hasRank()) {
    kb = b.getDimSize(tb ? 1 : 0);
    n = b.getDimSize(tb ? 0 : 1);
  }
  if (dimsConflict(ka, kb))
    return ctx.error("inner dimensions differ: ", a, (ta ? " (transposed)" : ""), " times ", b,
                     (tb ? " (transposed)" : ""));
  out.push_back(RankedTensorType::get({m, n}, a.getElementType()));
  return success();
}

LogicalResult inferBiasAdd(const InferContext &ctx, InferResult &out) {
  auto inputs = ctx.twoInputs("value and bias");
  if (failed(inputs))
    return failure();
  auto [value, bias] = *inputs;
  StringRef format = "NHWC";
  if (auto attr = ctx.attr<StringAttr>("data_format"))
    format = attr.getValue();
  if (format != "NHWC" && format != "NCHW")
    return ctx.error("data_format must be \"NHWC\" or \"NCHW\", got \"", format, "\"");
  if (bias.hasRank() && bias.getRank() != 1)
    return ctx.error("bias must be 1-D, got ", bias);
  if (value.hasRank()) {
    if (value.getRank() < 2)
      return ctx.error("value must have rank 2 or more, got ", value);
    int64_t channelDim = (format == "NCHW" && value.getRank() > 2) ? 1 : value.getRank() - 1;
    if (bias.hasRank() && dimsConflict(value.getDimSize(channelDim), bias.getDimSize(0)))
      return ctx.error("bias of ", bias.getDimSize(0),
                       " elements does not match channel dimension ", channelDim, " of ", value);
  }
  out.push_back(value);
  return success();
}

LogicalResult inferBatchMatMul(const InferContext &ctx, InferResult &out) {
  auto inputs = ctx.twoInputs("inputs");
  if (failed(inputs))
    return failure();
  auto [x, y] = *inputs;
  if (!x.hasRank() || !y.hasRank()) {
    out.push_back(UnrankedTensorType::get(x.getElementType()));
    return success();
  }
  if (x.getRank() < 2 || y.getRank() < 2)
    return ctx.error("inputs must have rank 2 or more, got ", x, " and ", y);
  bool ax = false, ay = false;
  if (auto a = ctx.attr<BoolAttr>("adj_x"))
    ax = a.getValue();
  if (auto a = ctx.attr<BoolAttr>("adj_y"))
    ay = a.getValue();
  int64_t rx = x.getRank(), ry = y.getRank();
  int64_t m = x.getDimSize(ax ? rx - 1 : rx - 2), kx = x.getDimSize(ax ? rx - 2 : rx - 1);
  int64_t ky = y.getDimSize(ay ? ry - 1 : ry - 2), n = y.getDimSize(ay ? ry - 2 : ry - 1);
  if (dimsConflict(kx, ky))
    return ctx.error("inner dimensions differ: ", x, " times ", y);
  SmallVector<int64_t> batch;
  if (!OpTrait::util::getBroadcastedShape(x.getShape().drop_back(2), y.getShape().drop_back(2),
                                          batch))
    return ctx.error("batch dimensions of ", x, " and ", y, " do not broadcast");
  batch.append({m, n});
  out.push_back(RankedTensorType::get(batch, x.getElementType()));
  return success();
}

} // namespace kiln::tf
