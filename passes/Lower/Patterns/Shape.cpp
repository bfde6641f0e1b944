//===- Shape.cpp - Reshape, Squeeze, ExpandDims, Transpose, Pad, Shape ... ----===//
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace kiln::lower {

Value reshapeTo(OpBuilder &b, Location loc, Value value, RankedTensorType type) {
  auto inputType = cast<RankedTensorType>(value.getType());
  if (inputType == type)
    return value;
  // Scalars: every dimension on the other side is 1 and the reassociation is empty.
  if (inputType.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, type, value, ArrayRef<ReassociationIndices>{});
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, value, ArrayRef<ReassociationIndices>{});
  auto allDims = [](int64_t rank) {
    ReassociationIndices group;
    for (int64_t i = 0; i < rank; ++i)
      group.push_back(i);
    return SmallVector<ReassociationIndices>{group};
  };
  auto flatType = RankedTensorType::get({inputType.getNumElements()}, inputType.getElementType());
  if (inputType.getRank() != 1)
    value = tensor::CollapseShapeOp::create(b, loc, flatType, value, allDims(inputType.getRank()));
  if (type.getRank() != 1)
    value = tensor::ExpandShapeOp::create(b, loc, type, value, allDims(type.getRank()));
  return value;
}

namespace {

/// Ops that only change the shape of their first operand: Reshape, Squeeze, ExpandDims.
template <typename OpT> struct ReshapeLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getOperands()[0];
    auto resultType = staticTensorType(this->getTypeConverter(), op->getResult(0).getType());
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!resultType || !inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), input, resultType));
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<tf::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getY().getType());
    auto perm = constantInts(adaptor.getPerm());
    if (!resultType || !perm)
      return rewriter.notifyMatchFailure(op, "needs a static shape and a constant perm");
    Location loc = op.getLoc();
    Value init =
        tensor::EmptyOp::create(rewriter, loc, resultType.getShape(), resultType.getElementType());
    rewriter.replaceOp(
        op, linalg::TransposeOp::create(rewriter, loc, adaptor.getX(), init, *perm).getResult()[0]);
    return success();
  }
};

/// Pad and PadV2: tensor.pad with a constant (zero, or PadV2's scalar).
template <typename OpT> struct PadLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    auto pads = constantInts(adaptor.getPaddings());
    if (!resultType || !pads)
      return rewriter.notifyMatchFailure(op, "needs a static shape and constant paddings");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> low, high;
    for (size_t i = 0; i < pads->size(); i += 2) {
      low.push_back(rewriter.getIndexAttr((*pads)[i]));
      high.push_back(rewriter.getIndexAttr((*pads)[i + 1]));
    }
    Value padValue;
    if constexpr (std::is_same_v<OpT, tf::PadV2Op>) {
      Value c = adaptor.getConstantValues();
      auto cType = cast<RankedTensorType>(c.getType());
      SmallVector<Value> zeros(cType.getRank(), arith::ConstantIndexOp::create(rewriter, loc, 0));
      padValue = tensor::ExtractOp::create(rewriter, loc, c, zeros);
    } else {
      padValue = scalarConstant(rewriter, loc, resultType.getElementType(), 0);
    }
    rewriter.replaceOp(op, tensor::PadOp::create(rewriter, loc, resultType, adaptor.getInput(), low,
                                                 high, padValue)
                               .getResult());
    return success();
  }
};

/// Slice and StridedSlice: a generic over the result that reads the input at begin + stride
/// * index (strides may be negative) and at fixed indices for dropped dimensions.
template <typename OpT> struct SliceLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!resultType || !inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Operation *raw = op.getOperation();
    tf::InferContext ctx = tf::InferContext::of(raw);
    FailureOr<tf::SliceSpec> spec;
    if constexpr (std::is_same_v<OpT, tf::SliceOp>) {
      auto begin = ctx.constantInts(1), size = ctx.constantInts(2);
      if (!begin || !size)
        return rewriter.notifyMatchFailure(op, "needs constant begin and size");
      spec = tf::computeSlice(ctx, inputType.getShape(), *begin, *size);
    } else {
      auto begin = ctx.constantInts(1), end = ctx.constantInts(2), strides = ctx.constantInts(3);
      if (!begin || !end || !strides)
        return rewriter.notifyMatchFailure(op, "needs constant begin, end and strides");
      spec = tf::computeStridedSlice(ctx, inputType.getShape(), *begin, *end, *strides,
                                     op.getBeginMask(), op.getEndMask(), op.getEllipsisMask(),
                                     op.getNewAxisMask(), op.getShrinkAxisMask());
    }
    if (failed(spec))
      return failure();
    // A gather: each output element reads the input at begin + stride * index (affine maps
    // cannot say this, since linalg would take the input's extent as the loop bound).
    Value result = buildGather(rewriter, op.getLoc(), resultType, adaptor.getInput(),
                               [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
                                 SmallVector<Value> source;
                                 for (int64_t k = 0; k < inputType.getRank(); ++k)
                                   source.push_back(indexConstant(b, l, spec->fixedIndex[k]));
                                 for (int64_t j = 0; j < resultType.getRank(); ++j) {
                                   if (spec->inputDim[j] < 0)
                                     continue;
                                   Value scaled = arith::MulIOp::create(
                                       b, l, index[j], indexConstant(b, l, spec->stride[j]));
                                   source[spec->inputDim[j]] = arith::AddIOp::create(
                                       b, l, scaled, indexConstant(b, l, spec->begin[j]));
                                 }
                                 return source;
                               });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GatherV2: output position (outer, i, inner) reads params at (outer, indices[i], inner);
/// with batch_dims b, the first b dimensions of outer (the batch) also index indices,
/// before i. An index out of range gives zero.
struct GatherLowering : OpConversionPattern<tf::GatherV2Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::GatherV2Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto paramsType = dyn_cast<RankedTensorType>(adaptor.getParams().getType());
    auto indicesType = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
    auto axisValue = constantInts(adaptor.getAxis());
    if (!resultType || !paramsType || !indicesType || !axisValue)
      return rewriter.notifyMatchFailure(op, "needs static shapes and a constant axis");
    int64_t axis = (*axisValue)[0] < 0 ? (*axisValue)[0] + paramsType.getRank() : (*axisValue)[0];
    int64_t indexRank = indicesType.getRank();
    int64_t batch = static_cast<int64_t>(op.getBatchDims());
    if (batch < 0)
      batch += indexRank;
    Value params = adaptor.getParams(), indices = adaptor.getIndices();
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          SmallVector<Value> at;
          for (int64_t j = 0; j < batch; ++j)
            at.push_back(linalg::IndexOp::create(b, l, j));
          for (int64_t j = batch; j < indexRank; ++j)
            at.push_back(linalg::IndexOp::create(b, l, axis + j - batch));
          Value raw = tensor::ExtractOp::create(b, l, indices, at);
          Value index = arith::IndexCastOp::create(b, l, b.getIndexType(), raw);
          Value size = arith::ConstantIndexOp::create(b, l, paramsType.getDimSize(axis));
          Value inRange = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, index, size);
          Value safe = arith::SelectOp::create(b, l, inRange, index,
                                               arith::ConstantIndexOp::create(b, l, 0));
          SmallVector<Value> source;
          for (int64_t k = 0; k < axis; ++k)
            source.push_back(linalg::IndexOp::create(b, l, k));
          source.push_back(safe);
          for (int64_t k = axis + 1; k < paramsType.getRank(); ++k)
            source.push_back(linalg::IndexOp::create(b, l, k - 1 + indexRank - batch));
          Value v = tensor::ExtractOp::create(b, l, params, source);
          Value zero = scalarConstant(b, l, v.getType(), 0);
          return arith::SelectOp::create(b, l, inRange, v, zero);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// GatherNd: output position (outer, inner) reads params at (indices[outer, :], inner); a
/// tuple with any entry out of range gives zero, as for GatherV2.
struct GatherNdLowering : OpConversionPattern<tf::GatherNdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::GatherNdOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto paramsType = dyn_cast<RankedTensorType>(adaptor.getParams().getType());
    auto indicesType = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
    if (!resultType || !paramsType || !indicesType || !indicesType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t outer = indicesType.getRank() - 1;
    int64_t depth = indicesType.getDimSize(outer);
    Value params = adaptor.getParams(), indices = adaptor.getIndices();
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          SmallVector<Value> at, source;
          for (int64_t j = 0; j < outer; ++j)
            at.push_back(linalg::IndexOp::create(b, l, j));
          at.push_back(Value());
          Value inRange = arith::ConstantIntOp::create(b, l, 1, 1);
          Value zeroIndex = indexConstant(b, l, 0);
          for (int64_t q = 0; q < depth; ++q) {
            at.back() = indexConstant(b, l, q);
            Value raw = tensor::ExtractOp::create(b, l, indices, at);
            Value index = arith::IndexCastOp::create(b, l, b.getIndexType(), raw);
            Value size = indexConstant(b, l, paramsType.getDimSize(q));
            Value ok = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, index, size);
            inRange = arith::AndIOp::create(b, l, inRange, ok);
            source.push_back(arith::SelectOp::create(b, l, ok, index, zeroIndex));
          }
          for (int64_t k = depth; k < paramsType.getRank(); ++k)
            source.push_back(linalg::IndexOp::create(b, l, outer + k - depth));
          Value v = tensor::ExtractOp::create(b, l, params, source);
          return arith::SelectOp::create(b, l, inRange, v, scalarConstant(b, l, v.getType(), 0));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Tile: output index i reads the input at i mod size, per dimension.
struct TileLowering : OpConversionPattern<tf::TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::TileOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!resultType || !inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Value result =
        buildGather(rewriter, op.getLoc(), resultType, adaptor.getInput(),
                    [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
                      SmallVector<Value> source;
                      for (int64_t k = 0; k < inputType.getRank(); ++k)
                        source.push_back(arith::RemUIOp::create(
                            b, l, index[k], indexConstant(b, l, inputType.getDimSize(k))));
                      return source;
                    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// BroadcastTo: the input read through NumPy's broadcasting map.
struct BroadcastToLowering : OpConversionPattern<tf::BroadcastToOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::BroadcastToOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!resultType || !inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Value result = buildElementwise(rewriter, op.getLoc(), resultType, adaptor.getInput(),
                                    [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// MatrixBandPart: element [..., m, n] kept where (lower < 0 || m - n <= lower) and
/// (upper < 0 || n - m <= upper), zero elsewhere; the bounds are read as i64.
struct MatrixBandPartLowering : OpConversionPattern<tf::MatrixBandPartOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::MatrixBandPartOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getBand().getType());
    if (!type || type.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "needs a static shape of rank 2 or more");
    Location loc = op.getLoc();
    int64_t rank = type.getRank();
    Value result = buildElementwise(
        rewriter, loc, type, adaptor.getInput(),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          // Read inside the loop, so that a GPU kernel reads them from device memory.
          auto bound = [&](Value scalar) -> Value {
            Value v = tensor::ExtractOp::create(b, l, scalar, ValueRange{});
            if (v.getType().isInteger(64))
              return v;
            return arith::ExtSIOp::create(b, l, b.getI64Type(), v);
          };
          Value lower = bound(adaptor.getNumLower());
          Value upper = bound(adaptor.getNumUpper());
          auto position = [&](int64_t dim) -> Value {
            Value index = linalg::IndexOp::create(b, l, dim);
            return arith::IndexCastOp::create(b, l, b.getI64Type(), index);
          };
          Value m = position(rank - 2), n = position(rank - 1);
          Value zero = arith::ConstantOp::create(b, l, b.getI64IntegerAttr(0));
          auto within = [&](Value from, Value to, Value limit) -> Value {
            Value unlimited = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, limit, zero);
            Value distance = arith::SubIOp::create(b, l, from, to);
            Value near = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle, distance, limit);
            return arith::OrIOp::create(b, l, unlimited, near);
          };
          Value belowBand = within(m, n, lower);
          Value aboveBand = within(n, m, upper);
          Value keep = arith::AndIOp::create(b, l, belowBand, aboveBand);
          Value zeroElement = arith::ConstantOp::create(b, l, b.getZeroAttr(args[0].getType()));
          return arith::SelectOp::create(b, l, keep, args[0], zeroElement);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// InvertPermutation: a loop writing y[x[i]] = i; an entry outside [0, n) (which the
/// run-time check reports) changes nothing.
struct InvertPermutationLowering : OpConversionPattern<tf::InvertPermutationOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::InvertPermutationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getY().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Location loc = op.getLoc();
    int64_t n = type.getDimSize(0);
    Type element = type.getElementType();
    Value init = filledTensor(rewriter, loc, type, scalarConstant(rewriter, loc, element, 0));
    Value zero = indexConstant(rewriter, loc, 0), one = indexConstant(rewriter, loc, 1);
    Value size = indexConstant(rewriter, loc, n);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, size, one, ValueRange{init},
        [&](OpBuilder &b, Location l, Value i, ValueRange acc) {
          Value target = tensor::ExtractOp::create(b, l, adaptor.getX(), ValueRange{i});
          Value at = arith::IndexCastOp::create(b, l, b.getIndexType(), target);
          // Outside [0, n): element 0 is written its own value.
          Value inside = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, at, size);
          Value safeAt = arith::SelectOp::create(b, l, inside, at, zero);
          Value old = tensor::ExtractOp::create(b, l, acc[0], ValueRange{safeAt});
          Value index = arith::IndexCastOp::create(b, l, element, i);
          Value value = arith::SelectOp::create(b, l, inside, index, old);
          Value written = tensor::InsertOp::create(b, l, value, acc[0], ValueRange{safeAt});
          scf::YieldOp::create(b, l, written);
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

/// LinSpace: element i is start + i * ((stop - start) / (num - 1)), the last one stop,
/// as TensorFlow's kernel computes them.
struct LinSpaceLowering : OpConversionPattern<tf::LinSpaceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::LinSpaceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getOutput().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a constant num");
    int64_t n = type.getDimSize(0);
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), type, {}, {}, [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Type element = type.getElementType();
          Value start = tensor::ExtractOp::create(b, l, adaptor.getStart(), ValueRange{});
          Value stop = tensor::ExtractOp::create(b, l, adaptor.getStop(), ValueRange{});
          if (n == 1)
            return start;
          Value index = linalg::IndexOp::create(b, l, 0);
          Value i = arith::UIToFPOp::create(
              b, l, element, arith::IndexCastUIOp::create(b, l, b.getI64Type(), index));
          Value span = arith::SubFOp::create(b, l, stop, start);
          Value step = arith::DivFOp::create(b, l, span, scalarConstant(b, l, element, n - 1));
          Value value = arith::AddFOp::create(b, l, start, arith::MulFOp::create(b, l, step, i));
          Value last = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, index,
                                             indexConstant(b, l, n - 1));
          return arith::SelectOp::create(b, l, last, stop, value);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Roll: output index i along each rolled axis reads input index (i - shift) mod n, the
/// shifts (fed at run time too) summed per axis. They are read inside the loop, so that a
/// GPU kernel reads them from device memory.
struct RollLowering : OpConversionPattern<tf::RollOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::RollOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto axes = tf::constantIntsOf(op.getAxis());
    auto shiftType = dyn_cast<RankedTensorType>(adaptor.getShift().getType());
    if (!type || !axes || !shiftType)
      return rewriter.notifyMatchFailure(op, "needs a static shape and constant axes");
    int64_t rank = type.getRank();
    Value result = buildGather(
        rewriter, op.getLoc(), type, adaptor.getInput(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
          // The net shift per dimension.
          SmallVector<Value> net(rank);
          for (auto [k, a] : llvm::enumerate(*axes)) {
            int64_t d = a < 0 ? a + rank : a;
            if (type.getDimSize(d) == 0)
              continue;
            SmallVector<Value> at;
            if (shiftType.getRank() == 1)
              at.push_back(indexConstant(b, l, k));
            Value s = tensor::ExtractOp::create(b, l, adaptor.getShift(), at);
            s = arith::IndexCastOp::create(b, l, b.getIndexType(), s);
            net[d] = net[d] ? arith::AddIOp::create(b, l, net[d], s).getResult() : s;
          }
          SmallVector<Value> source(index);
          for (int64_t d = 0; d < rank; ++d) {
            if (!net[d])
              continue;
            // (i - shift) mod n, in [0, n).
            Value n = indexConstant(b, l, type.getDimSize(d));
            Value r =
                arith::RemSIOp::create(b, l, arith::SubIOp::create(b, l, index[d], net[d]), n);
            Value negative =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, r, indexConstant(b, l, 0));
            source[d] =
                arith::SelectOp::create(b, l, negative, arith::AddIOp::create(b, l, r, n), r);
          }
          return source;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ReverseSequence: along seq_dim, index t of batch entry b reads len - 1 - t when t < len,
/// t otherwise, with len = seq_lengths[b] clamped to [0, n] (the run-time check reports
/// one outside it).
struct ReverseSequenceLowering : OpConversionPattern<tf::ReverseSequenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::ReverseSequenceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto dims = op.getDims();
    if (!type || !dims)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    auto [seqDim, batchDim] = *dims;
    int64_t n = type.getDimSize(seqDim);
    Value result =
        buildGather(rewriter, op.getLoc(), type, adaptor.getInput(),
                    [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
                      SmallVector<Value> source(index);
                      Value len = tensor::ExtractOp::create(b, l, adaptor.getSeqLengths(),
                                                            ValueRange{index[batchDim]});
                      len = arith::IndexCastOp::create(b, l, b.getIndexType(), len);
                      len = arith::MaxSIOp::create(b, l, len, indexConstant(b, l, 0));
                      len = arith::MinSIOp::create(b, l, len, indexConstant(b, l, n));
                      Value t = index[seqDim];
                      Value inside = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, t, len);
                      Value last = arith::SubIOp::create(b, l, len, indexConstant(b, l, 1));
                      Value mirrored = arith::SubIOp::create(b, l, last, t);
                      source[seqDim] = arith::SelectOp::create(b, l, inside, mirrored, t);
                      return source;
                    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// ReverseV2: output index i reads input index d - 1 - i along each reversed axis.
struct ReverseLowering : OpConversionPattern<tf::ReverseV2Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::ReverseV2Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    std::optional<SmallVector<int64_t>> axes = op.getReversedAxes();
    if (!resultType || !axes)
      return rewriter.notifyMatchFailure(op, "needs a static shape and constant axes");
    Value result =
        buildGather(rewriter, op.getLoc(), resultType, adaptor.getTensor(),
                    [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
                      SmallVector<Value> source(index);
                      for (int64_t a : *axes)
                        source[a] = arith::SubIOp::create(
                            b, l, indexConstant(b, l, resultType.getDimSize(a) - 1), index[a]);
                      return source;
                    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// DepthToSpace (NHWC): output (n, h, w, c) reads input (n, h / b, w / b,
/// ((h % b) * b + w % b) * C + c); SpaceToDepth is the inverse.
template <typename OpT, bool ToSpace> struct SpaceDepthLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!resultType || !inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t block = static_cast<int64_t>(op.getBlockSize());
    int64_t outC = resultType.getDimSize(3), inC = inputType.getDimSize(3);
    Value result = buildGather(
        rewriter, op.getLoc(), resultType, adaptor.getInput(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> i) {
          Value bs = indexConstant(b, l, block);
          auto div = [&](Value v) -> Value { return arith::DivUIOp::create(b, l, v, bs); };
          auto rem = [&](Value v) -> Value { return arith::RemUIOp::create(b, l, v, bs); };
          auto mul = [&](Value v, int64_t c) -> Value {
            return arith::MulIOp::create(b, l, v, indexConstant(b, l, c));
          };
          auto add = [&](Value x, Value y) -> Value { return arith::AddIOp::create(b, l, x, y); };
          if (ToSpace) {
            // c_in = ((h % b) * b + w % b) * C_out + c
            Value offset = add(mul(rem(i[1]), block), rem(i[2]));
            return SmallVector<Value>{i[0], div(i[1]), div(i[2]), add(mul(offset, outC), i[3])};
          }
          // Output (n, h, w, c) with c = ((dh * b) + dw) * C_in + c_in reads
          // (n, h * b + dh, w * b + dw, c_in).
          Value cIn = arith::RemUIOp::create(b, l, i[3], indexConstant(b, l, inC));
          Value offset = arith::DivUIOp::create(b, l, i[3], indexConstant(b, l, inC));
          return SmallVector<Value>{i[0], add(mul(i[1], block), div(offset)),
                                    add(mul(i[2], block), rem(offset)), cIn};
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// MirrorPad: output index o reads o - before, reflected at both edges (REFLECT skips the
/// edge element, SYMMETRIC repeats it).
struct MirrorPadLowering : OpConversionPattern<tf::MirrorPadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::MirrorPadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto pads = constantInts(adaptor.getPaddings());
    if (!resultType || !inputType || !pads)
      return rewriter.notifyMatchFailure(op, "needs static shapes and constant paddings");
    bool reflect = op.getMode() == "REFLECT";
    Value result =
        buildGather(rewriter, op.getLoc(), resultType, adaptor.getInput(),
                    [&](OpBuilder &b, Location l, ArrayRef<Value> index) {
                      SmallVector<Value> source;
                      for (int64_t k = 0; k < inputType.getRank(); ++k) {
                        int64_t n = inputType.getDimSize(k), before = (*pads)[2 * k];
                        // i = o - before; i < 0 -> -i - (symmetric); i >= n -> 2n - i - 2 (+1
                        // symmetric).
                        Type i64 = b.getI64Type();
                        Value o = arith::IndexCastOp::create(b, l, i64, index[k]);
                        Value i = arith::SubIOp::create(b, l, o, scalarConstant(b, l, i64, before));
                        Value zero = scalarConstant(b, l, i64, 0);
                        Value low = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i, zero);
                        Value mirroredLow = arith::SubIOp::create(
                            b, l, scalarConstant(b, l, i64, reflect ? 0 : -1), i);
                        Value high = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, i,
                                                           scalarConstant(b, l, i64, n));
                        Value mirroredHigh = arith::SubIOp::create(
                            b, l, scalarConstant(b, l, i64, reflect ? 2 * n - 2 : 2 * n - 1), i);
                        Value v = arith::SelectOp::create(b, l, low, mirroredLow, i);
                        v = arith::SelectOp::create(b, l, high, mirroredHigh, v);
                        source.push_back(arith::IndexCastOp::create(b, l, b.getIndexType(), v));
                      }
                      return source;
                    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// OneHot (axis -1): on_value where the last index equals indices[...], else off_value.
struct OneHotLowering : OpConversionPattern<tf::OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::OneHotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Location loc = op.getLoc();
    Value on = tensor::ExtractOp::create(rewriter, loc, adaptor.getOnValue(), ValueRange{});
    Value off = tensor::ExtractOp::create(rewriter, loc, adaptor.getOffValue(), ValueRange{});
    Value indices = adaptor.getIndices();
    int64_t rank = resultType.getRank();
    Value result = buildParallelGeneric(
        rewriter, loc, resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          SmallVector<Value> at;
          for (int64_t i = 0; i + 1 < rank; ++i)
            at.push_back(linalg::IndexOp::create(b, l, i));
          Value raw = tensor::ExtractOp::create(b, l, indices, at);
          Value position = arith::IndexCastOp::create(b, l, raw.getType(),
                                                      linalg::IndexOp::create(b, l, rank - 1));
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, raw, position);
          return arith::SelectOp::create(b, l, hit, on, off);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct FillLowering : OpConversionPattern<tf::FillOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::FillOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Value value =
        tensor::ExtractOp::create(rewriter, op.getLoc(), adaptor.getValue(), ValueRange{});
    rewriter.replaceOp(op, filledTensor(rewriter, op.getLoc(), resultType, value));
    return success();
  }
};

struct PlaceholderWithDefaultLowering : OpConversionPattern<tf::PlaceholderWithDefaultOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::PlaceholderWithDefaultOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

/// Split, SplitV and Unpack: each result is a static slice of the input along one axis
/// (Unpack's then loses that dimension).
template <typename OpT> struct SplitLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getValue();
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    if (!inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static input shape");
    int64_t axis;
    if constexpr (std::is_same_v<OpT, tf::UnpackOp>) {
      axis = static_cast<int64_t>(op.getAxis());
    } else {
      auto dim = constantInts(adaptor.getSplitDim());
      if (!dim)
        return rewriter.notifyMatchFailure(op, "needs a constant split_dim");
      axis = (*dim)[0];
    }
    if (axis < 0)
      axis += inputType.getRank();
    Location loc = op.getLoc();
    SmallVector<Value> results;
    int64_t offset = 0;
    for (Value r : op->getResults()) {
      auto resultType = cast<RankedTensorType>(this->getTypeConverter()->convertType(r.getType()));
      bool drop = std::is_same_v<OpT, tf::UnpackOp>;
      int64_t size = drop ? 1 : resultType.getDimSize(axis);
      SmallVector<OpFoldResult> offsets(inputType.getRank(), rewriter.getIndexAttr(0)), sizes,
          strides(inputType.getRank(), rewriter.getIndexAttr(1));
      for (int64_t d : inputType.getShape())
        sizes.push_back(rewriter.getIndexAttr(d));
      offsets[axis] = rewriter.getIndexAttr(offset);
      sizes[axis] = rewriter.getIndexAttr(size);
      SmallVector<int64_t> sliceShape(inputType.getShape());
      sliceShape[axis] = size;
      auto sliceType = RankedTensorType::get(sliceShape, inputType.getElementType());
      Value slice =
          tensor::ExtractSliceOp::create(rewriter, loc, sliceType, input, offsets, sizes, strides);
      results.push_back(reshapeTo(rewriter, loc, slice, resultType));
      offset += size;
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Joins static tensors along `axis` by inserting each into its slice of the result.
Value concatenate(OpBuilder &b, Location loc, ValueRange values, int64_t axis,
                  RankedTensorType resultType) {
  Value result =
      tensor::EmptyOp::create(b, loc, resultType.getShape(), resultType.getElementType());
  int64_t offset = 0;
  for (Value v : values) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)), sizes, strides;
    offsets[axis] = b.getIndexAttr(offset);
    for (int64_t d : type.getShape()) {
      sizes.push_back(b.getIndexAttr(d));
      strides.push_back(b.getIndexAttr(1));
    }
    result = tensor::InsertSliceOp::create(b, loc, v, result, offsets, sizes, strides);
    offset += type.getDimSize(axis);
  }
  return result;
}

bool allStatic(ValueRange values) {
  return llvm::all_of(values, [](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.hasStaticShape();
  });
}

struct ConcatLowering : OpConversionPattern<tf::ConcatV2Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::ConcatV2Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    ValueRange all = adaptor.getInputsAndControls();
    ValueRange values = all.take_front(op.getN());
    auto axis = constantInts(all[op.getN()]);
    if (!resultType || !allStatic(values) || !axis)
      return rewriter.notifyMatchFailure(op, "needs static shapes and a constant axis");
    int64_t a = (*axis)[0] < 0 ? (*axis)[0] + resultType.getRank() : (*axis)[0];
    rewriter.replaceOp(op, concatenate(rewriter, op.getLoc(), values, a, resultType));
    return success();
  }
};

struct PackLowering : OpConversionPattern<tf::PackOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::PackOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    ValueRange values = adaptor.getInputsAndControls().take_front(op.getN());
    if (!resultType || !allStatic(values))
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    int64_t axis = op.getAxis();
    if (axis < 0)
      axis += resultType.getRank();
    SmallVector<int64_t> sliceShape(resultType.getShape());
    sliceShape[axis] = 1;
    auto sliceType = RankedTensorType::get(sliceShape, resultType.getElementType());
    SmallVector<Value> slices;
    for (Value v : values)
      slices.push_back(reshapeTo(rewriter, op.getLoc(), v, sliceType));
    rewriter.replaceOp(op, concatenate(rewriter, op.getLoc(), slices, axis, resultType));
    return success();
  }
};

struct AddNLowering : OpConversionPattern<tf::AddNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::AddNOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getSum().getType());
    ValueRange values = adaptor.getInputsAndControls().take_front(op.getN());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    bool isFloat = kindOf(getElementTypeOrSelf(op.getSum().getType())) == ElementKind::Float;
    Value result = buildElementwise(rewriter, op.getLoc(), resultType, values,
                                    [&](OpBuilder &b, Location l, ValueRange args) {
                                      Value sum = args[0];
                                      for (Value v : args.drop_front())
                                        sum = isFloat ? Value(arith::AddFOp::create(b, l, sum, v))
                                                      : Value(arith::AddIOp::create(b, l, sum, v));
                                      return sum;
                                    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Range (a result too large to fold): element i is start + T(i) * delta, multiplied and
/// added in the element type T, as TensorFlow's kernel computes it.
struct RangeLowering : OpConversionPattern<tf::RangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::RangeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Location loc = op.getLoc();
    Value start = tensor::ExtractOp::create(rewriter, loc, adaptor.getStart(), ValueRange{});
    Value delta = tensor::ExtractOp::create(rewriter, loc, adaptor.getDelta(), ValueRange{});
    Type element = resultType.getElementType();
    Value result = buildParallelGeneric(
        rewriter, loc, resultType, ValueRange{}, {},
        [&](OpBuilder &b, Location l, ValueRange) -> Value {
          Value i = linalg::IndexOp::create(b, l, 0);
          if (isa<FloatType>(element)) {
            Value x = arith::SIToFPOp::create(b, l, element,
                                              arith::IndexCastOp::create(b, l, b.getI64Type(), i));
            return arith::AddFOp::create(b, l, start, arith::MulFOp::create(b, l, x, delta));
          }
          Value x = arith::IndexCastOp::create(b, l, element, i);
          return arith::AddIOp::create(b, l, start, arith::MulIOp::create(b, l, x, delta));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Shape, Size and Rank of a static tensor are constants (usually folded earlier).
template <typename OpT> struct ShapeQueryLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto folded = dyn_cast_or_null<DenseElementsAttr>(
        dyn_cast_if_present<Attribute>(op.fold(typename OpT::FoldAdaptor({}, op))));
    if (!folded)
      return rewriter.notifyMatchFailure(op, "needs a static input shape");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, folded.getType(), folded);
    return success();
  }
};

} // namespace

void populateShapePatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<
      ReshapeLowering<tf::ReshapeOp>, ReshapeLowering<tf::SqueezeOp>,
      ReshapeLowering<tf::ExpandDimsOp>, TransposeLowering, PadLowering<tf::PadOp>,
      PadLowering<tf::PadV2Op>, ShapeQueryLowering<tf::ShapeOp>, ShapeQueryLowering<tf::SizeOp>,
      ShapeQueryLowering<tf::RankOp>, ConcatLowering, PackLowering, AddNLowering,
      SliceLowering<tf::SliceOp>, SliceLowering<tf::StridedSliceOp>, GatherLowering,
      GatherNdLowering, TileLowering, ReverseLowering, FillLowering, PlaceholderWithDefaultLowering,
      SplitLowering<tf::SplitOp>, SplitLowering<tf::SplitVOp>, SplitLowering<tf::UnpackOp>,
      SpaceDepthLowering<tf::DepthToSpaceOp, true>, SpaceDepthLowering<tf::SpaceToDepthOp, false>,
      MirrorPadLowering, OneHotLowering, RangeLowering, BroadcastToLowering, MatrixBandPartLowering,
      InvertPermutationLowering, LinSpaceLowering, RollLowering, ReverseSequenceLowering>(
      converter, patterns.getContext());
}

} // namespace kiln::lower
