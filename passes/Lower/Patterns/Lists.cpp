//===- Lists.cpp - TensorList ops on their dense tensors -----------------------===//
//
// After kiln-graph-resolve-lists a list is the tensor [N, S...] of its elements: making
// one is a tensor of zeros (TensorFlow reads an element never set as zeros) or the tensor
// it comes from, stacking it is the tensor itself, and an element is read or written as
// the slice at its index (clamped into the list: the index's check has run before); a
// scatter writes its rows one by one in a loop.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::lower {
namespace {

/// Element `at` of the index operand (a scalar's, by default) as an `index` clamped into
/// [0, n).
Value clampedIndex(OpBuilder &b, Location loc, Value index, int64_t n, ValueRange at = {}) {
  Value i = tensor::ExtractOp::create(b, loc, index, at);
  i = arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
  return clampIndex(b, loc, i, n);
}

/// Offsets, sizes and strides of the element at `index` of a list of type `list`.
void elementSlice(OpBuilder &b, RankedTensorType list, Value index,
                  SmallVectorImpl<OpFoldResult> &offsets, SmallVectorImpl<OpFoldResult> &sizes,
                  SmallVectorImpl<OpFoldResult> &strides) {
  offsets.push_back(index);
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t d : list.getShape().drop_front()) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(d));
  }
  strides.assign(list.getRank(), b.getIndexAttr(1));
}

struct ReserveLowering : OpConversionPattern<tf::TensorListReserveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::TensorListReserveOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getHandle().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a static list type");
    Value zero = scalarConstant(rewriter, op.getLoc(), type.getElementType(), 0);
    rewriter.replaceOp(op, filledTensor(rewriter, op.getLoc(), type, zero));
    return success();
  }
};

/// A list made from a tensor, or stacked into one, is that tensor.
template <typename Op> struct PassThroughLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperands().front());
    return success();
  }
};

struct GetItemLowering : OpConversionPattern<tf::TensorListGetItemOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::TensorListGetItemOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto list = dyn_cast<RankedTensorType>(adaptor.getInputHandle().getType());
    auto item = staticTensorType(getTypeConverter(), op.getItem().getType());
    if (!list || !list.hasStaticShape() || !item || list.getDimSize(0) == 0)
      return rewriter.notifyMatchFailure(op, "needs a static, non-empty list");
    Location loc = op.getLoc();
    Value index = clampedIndex(rewriter, loc, adaptor.getIndex(), list.getDimSize(0));
    SmallVector<OpFoldResult> offsets, sizes, strides;
    elementSlice(rewriter, list, index, offsets, sizes, strides);
    Value slice = tensor::ExtractSliceOp::create(rewriter, loc, item, adaptor.getInputHandle(),
                                                 offsets, sizes, strides);
    rewriter.replaceOp(op, slice);
    return success();
  }
};

struct SetItemLowering : OpConversionPattern<tf::TensorListSetItemOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::TensorListSetItemOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto list = dyn_cast<RankedTensorType>(adaptor.getInputHandle().getType());
    if (!list || !list.hasStaticShape() || list.getDimSize(0) == 0 ||
        !isa<RankedTensorType>(adaptor.getItem().getType()))
      return rewriter.notifyMatchFailure(op, "needs a static, non-empty list");
    Location loc = op.getLoc();
    Value index = clampedIndex(rewriter, loc, adaptor.getIndex(), list.getDimSize(0));
    SmallVector<OpFoldResult> offsets, sizes, strides;
    elementSlice(rewriter, list, index, offsets, sizes, strides);
    rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
        op, adaptor.getItem(), adaptor.getInputHandle(), offsets, sizes, strides);
    return success();
  }
};

/// Row k of `tensor` into element indices[k] of the list, for each k in turn (so the last
/// of repeated indices wins), in an scf.for carrying the list.
struct ScatterLowering : OpConversionPattern<tf::TensorListScatterIntoExistingListOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::TensorListScatterIntoExistingListOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto list = dyn_cast<RankedTensorType>(adaptor.getInputHandle().getType());
    auto rows = dyn_cast<RankedTensorType>(adaptor.getTensor().getType());
    auto indices = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
    if (!list || !list.hasStaticShape() || list.getDimSize(0) == 0 || !rows ||
        !rows.hasStaticShape() || !indices || indices.getRank() != 1)
      return rewriter.notifyMatchFailure(op, "needs a static, non-empty list");
    Location loc = op.getLoc();
    int64_t n = list.getDimSize(0);
    auto loop =
        scf::ForOp::create(rewriter, loc, indexConstant(rewriter, loc, 0),
                           indexConstant(rewriter, loc, rows.getDimSize(0)),
                           indexConstant(rewriter, loc, 1), ValueRange{adaptor.getInputHandle()});
    OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
    Value k = loop.getInductionVar();
    Value i = clampedIndex(b, loc, adaptor.getIndices(), n, k);
    SmallVector<OpFoldResult> from, to, sizes, strides;
    elementSlice(b, rows, k, from, sizes, strides);
    SmallVector<int64_t> rowDims(rows.getShape());
    rowDims[0] = 1;
    auto row = tensor::ExtractSliceOp::create(b, loc,
                                              RankedTensorType::get(rowDims, rows.getElementType()),
                                              adaptor.getTensor(), from, sizes, strides);
    sizes.clear();
    strides.clear();
    elementSlice(b, list, i, to, sizes, strides);
    Value updated =
        tensor::InsertSliceOp::create(b, loc, row, loop.getRegionIterArgs()[0], to, sizes, strides);
    scf::YieldOp::create(b, loc, updated);
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

/// Length and ElementShape of a static list, if kiln-graph-fold-constants left any.
template <typename Op> struct ListConstantLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto folded = dyn_cast_or_null<DenseElementsAttr>(
        llvm::dyn_cast_if_present<Attribute>(op.fold(typename Op::FoldAdaptor({}, op))));
    auto type = staticTensorType(this->getTypeConverter(), op->getResult(0).getType());
    if (!folded || !type)
      return rewriter.notifyMatchFailure(op, "needs a static list");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, folded);
    return success();
  }
};

} // namespace

void populateListPatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReserveLowering, PassThroughLowering<tf::TensorListFromTensorOp>,
               PassThroughLowering<tf::TensorListStackOp>, GetItemLowering, SetItemLowering,
               ScatterLowering, ListConstantLowering<tf::TensorListLengthOp>,
               ListConstantLowering<tf::TensorListElementShapeOp>>(converter,
                                                                   patterns.getContext());
}

} // namespace kiln::lower
