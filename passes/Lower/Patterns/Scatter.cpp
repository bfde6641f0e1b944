//===- Scatter.cpp - segment reductions, bin counts, ScatterNd, TensorScatter* -===//
//
// Each op writes rows of its result at indices read at run time: an scf.for over the index
// tuples, in order, carrying the result, combines each row of updates with the row it
// indexes (tensor.extract_slice, an elementwise linalg.generic, tensor.insert_slice, which
// bufferize in place). A tuple out of range (a segment id TensorFlow drops, or one a
// kiln.check has reported, or under --no-runtime-checks) writes nothing.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

using namespace mlir;

namespace kiln::lower {
namespace {

/// How a row of updates meets the row it lands on.
enum class Combine { Replace, Add, Subtract, Multiply, Max, Min };

Value combine(OpBuilder &b, Location loc, Combine how, ElementKind kind, Value old, Value update) {
  switch (how) {
  case Combine::Replace:
    return update;
  case Combine::Add:
    return arithmetic<arith::AddFOp, arith::AddIOp>(b, loc, kind, {old, update});
  case Combine::Subtract:
    return arithmetic<arith::SubFOp, arith::SubIOp>(b, loc, kind, {old, update});
  case Combine::Multiply:
    return arithmetic<arith::MulFOp, arith::MulIOp>(b, loc, kind, {old, update});
  case Combine::Max:
    return signedArithmetic<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>(b, loc, kind,
                                                                               {old, update});
  case Combine::Min:
    return signedArithmetic<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>(b, loc, kind,
                                                                               {old, update});
  }
  llvm_unreachable("every combination is handled");
}

/// The identity of a segment reduction: 0, 1, or the lowest or highest finite value (as
/// TensorFlow's kernels leave an empty segment of Max or Min).
Value identity(OpBuilder &b, Location loc, Combine how, ElementKind kind, Type type) {
  if (how == Combine::Add)
    return scalarConstant(b, loc, type, 0);
  if (how == Combine::Multiply)
    return scalarConstant(b, loc, type, 1);
  bool max = how == Combine::Max;
  if (auto f = dyn_cast<FloatType>(type)) {
    APFloat v = APFloat::getLargest(f.getFloatSemantics(), /*Negative=*/max);
    return arith::ConstantOp::create(b, loc, FloatAttr::get(f, v));
  }
  unsigned width = type.getIntOrFloatBitWidth();
  APInt v = kind == ElementKind::Unsigned
                ? (max ? APInt::getMinValue(width) : APInt::getMaxValue(width))
                : (max ? APInt::getSignedMinValue(width) : APInt::getSignedMaxValue(width));
  return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, v));
}

/// `into` ([D0..DK-1, rest...]) with row k of `updates` ([N, rest...]) combined into the
/// row at index tuple k of `indices` ([N, K]), for each k in turn. `updates` may be null: the
/// update is then `constant` for every element (a count). Tuples out of range write
/// nothing.
Value buildScatter(OpBuilder &b, Location loc, Value into, Value indices, Value updates,
                   Value constant, Combine how, ElementKind kind) {
  auto intoType = cast<RankedTensorType>(into.getType());
  auto indexType = cast<RankedTensorType>(indices.getType());
  int64_t n = indexType.getDimSize(0), k = indexType.getDimSize(1);
  ArrayRef<int64_t> rest = intoType.getShape().drop_front(k);
  auto rowType = RankedTensorType::get(rest, intoType.getElementType());
  Type index = b.getIndexType();
  auto loop = scf::ForOp::create(b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, n),
                                 indexConstant(b, loc, 1), ValueRange{into});
  OpBuilder body = OpBuilder::atBlockBegin(loop.getBody());
  Value row = loop.getInductionVar();
  Value out = loop.getRegionIterArgs()[0];
  SmallVector<OpFoldResult> offsets, sizes, strides;
  Value inRange;
  for (int64_t j = 0; j < k; ++j) {
    Value i =
        tensor::ExtractOp::create(body, loc, indices, ValueRange{row, indexConstant(body, loc, j)});
    i = arith::IndexCastOp::create(body, loc, index, i);
    Value low =
        arith::CmpIOp::create(body, loc, arith::CmpIPredicate::sge, i, indexConstant(body, loc, 0));
    Value high = arith::CmpIOp::create(body, loc, arith::CmpIPredicate::slt, i,
                                       indexConstant(body, loc, intoType.getDimSize(j)));
    Value here = arith::AndIOp::create(body, loc, low, high);
    inRange = inRange ? Value(arith::AndIOp::create(body, loc, inRange, here)) : here;
    offsets.push_back(i);
    sizes.push_back(body.getIndexAttr(1));
  }
  for (int64_t d : rest) {
    offsets.push_back(body.getIndexAttr(0));
    sizes.push_back(body.getIndexAttr(d));
  }
  strides.assign(offsets.size(), body.getIndexAttr(1));
  auto branch = scf::IfOp::create(
      body, loc, inRange,
      [&](OpBuilder &ib, Location l) {
        Value old = tensor::ExtractSliceOp::create(ib, l, rowType, out, offsets, sizes, strides);
        SmallVector<Value> operands{old};
        if (updates) {
          SmallVector<OpFoldResult> from{row}, fromSizes{ib.getIndexAttr(1)};
          for (int64_t d : rest) {
            from.push_back(ib.getIndexAttr(0));
            fromSizes.push_back(ib.getIndexAttr(d));
          }
          SmallVector<OpFoldResult> ones(from.size(), ib.getIndexAttr(1));
          operands.push_back(
              tensor::ExtractSliceOp::create(ib, l, rowType, updates, from, fromSizes, ones));
        }
        Value combined = buildElementwise(
            ib, l, rowType, operands, [&](OpBuilder &eb, Location el, ValueRange args) {
              return combine(eb, el, how, kind, args[0], updates ? args[1] : constant);
            });
        Value written =
            tensor::InsertSliceOp::create(ib, l, combined, out, offsets, sizes, strides);
        scf::YieldOp::create(ib, l, written);
      },
      [&](OpBuilder &eb, Location l) { scf::YieldOp::create(eb, l, out); });
  scf::YieldOp::create(body, loc, branch.getResults());
  return loop.getResult(0);
}

/// `value` reshaped so that its first `count` dimensions become one, [N, rest...] (N = 1
/// for count 0).
Value flattenLeading(OpBuilder &b, Location loc, Value value, int64_t count) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t n = 1;
  for (int64_t d : type.getShape().take_front(count))
    n *= d;
  SmallVector<int64_t> shape{n};
  llvm::append_range(shape, type.getShape().drop_front(count));
  return reshapeTo(b, loc, value, RankedTensorType::get(shape, type.getElementType()));
}

template <typename OpT> struct SegmentLowering : OpConversionPattern<OpT> {
  SegmentLowering(const TypeConverter &converter, MLIRContext *ctx, Combine how)
      : OpConversionPattern<OpT>(converter, ctx), how(how) {}

  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    auto data = dyn_cast<RankedTensorType>(adaptor.getData().getType());
    auto ids = dyn_cast<RankedTensorType>(adaptor.getSegmentIds().getType());
    if (!type || !data || !data.hasStaticShape() || !ids || !ids.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getData().getType()));
    Value init = filledTensor(rewriter, loc, type,
                              identity(rewriter, loc, how, kind, type.getElementType()));
    Value rows = flattenLeading(rewriter, loc, adaptor.getData(), ids.getRank());
    int64_t n = cast<RankedTensorType>(rows.getType()).getDimSize(0);
    Value indices = reshapeTo(rewriter, loc, adaptor.getSegmentIds(),
                              RankedTensorType::get({n, 1}, ids.getElementType()));
    rewriter.replaceOp(op, buildScatter(rewriter, loc, init, indices, rows, {}, how, kind));
    return success();
  }

  Combine how;
};

/// Bincount and DenseBincount: a scatter-add of the weights (or of 1, or a write of 1 for
/// binary_output) at the values; a matrix's row r counts into row r of the result, as the
/// flat index r * size + value (values of size or more made -1, so that they count nowhere).
template <typename OpT> struct BincountLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;

  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value result = op->getResult(0);
    auto type = staticTensorType(this->getTypeConverter(), result.getType());
    ValueRange operands = adaptor.getOperands();
    auto values = dyn_cast<RankedTensorType>(operands[0].getType());
    auto weights = dyn_cast<RankedTensorType>(operands[2].getType());
    if (!type || !values || !values.hasStaticShape() || !weights || !weights.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    Type element = type.getElementType();
    ElementKind kind = kindOf(getElementTypeOrSelf(result.getType()));
    int64_t size = type.getShape().back();
    int64_t total = values.getNumElements();
    bool binary = false;
    if (auto binaryAttr = op->template getAttrOfType<BoolAttr>("binary_output"))
      binary = binaryAttr.getValue();

    // Flat indices [total, 1]: row * size + value, or -1 for a value of size or more.
    Type indexElement = values.getElementType();
    auto flatType = RankedTensorType::get({total, 1}, indexElement);
    auto shapedIndices = RankedTensorType::get(values.getShape(), indexElement);
    Value flat = buildElementwise(
        rewriter, loc, shapedIndices, operands[0], [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = args[0];
          Value inside = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, v,
                                               scalarConstant(b, l, indexElement, size));
          Value position = v;
          if (values.getRank() == 2) {
            Value r = linalg::IndexOp::create(b, l, 0);
            r = arith::IndexCastOp::create(b, l, indexElement, r);
            Value base = arith::MulIOp::create(b, l, r, scalarConstant(b, l, indexElement, size));
            position = arith::AddIOp::create(b, l, base, v);
          }
          return arith::SelectOp::create(b, l, inside, position,
                                         scalarConstant(b, l, indexElement, -1));
        });
    flat = reshapeTo(rewriter, loc, flat, flatType);
    auto outFlat = RankedTensorType::get({type.getNumElements()}, element);
    Value init = filledTensor(rewriter, loc, outFlat, scalarConstant(rewriter, loc, element, 0));
    Value counted;
    if (binary || weights.getNumElements() == 0)
      counted =
          buildScatter(rewriter, loc, init, flat, {}, scalarConstant(rewriter, loc, element, 1),
                       binary ? Combine::Replace : Combine::Add, kind);
    else
      counted = buildScatter(
          rewriter, loc, init, flat,
          reshapeTo(rewriter, loc, operands[2], RankedTensorType::get({total}, element)), {},
          Combine::Add, kind);
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, counted, type));
    return success();
  }
};

/// Indices [..., K] as [N, K] and updates [..., rest] as [N, rest].
std::pair<Value, Value> scatterOperands(OpBuilder &b, Location loc, Value indices, Value updates) {
  auto indexType = cast<RankedTensorType>(indices.getType());
  int64_t leading = indexType.getRank() - 1;
  return {flattenLeading(b, loc, indices, leading), flattenLeading(b, loc, updates, leading)};
}

/// ScatterNd (into zeros of its shape; bools written, numbers added) and TensorScatter*
/// (into its tensor, combined by `how`).
template <typename OpT> struct NdScatterLowering : OpConversionPattern<OpT> {
  NdScatterLowering(const TypeConverter &converter, MLIRContext *ctx, Combine how)
      : OpConversionPattern<OpT>(converter, ctx), how(how) {}

  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    auto indices = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
    auto updates = dyn_cast<RankedTensorType>(adaptor.getUpdates().getType());
    if (!type || !indices || !indices.hasStaticShape() || indices.getRank() < 1 || !updates ||
        !updates.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getUpdates().getType()));
    Value into;
    Combine combination = how;
    if constexpr (std::is_same_v<OpT, tf::ScatterNdOp>) {
      Value zero =
          kind == ElementKind::Bool
              ? Value(arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(false)))
              : scalarConstant(rewriter, loc, type.getElementType(), 0);
      into = filledTensor(rewriter, loc, type, zero);
      if (kind == ElementKind::Bool)
        combination = Combine::Replace;
    } else {
      into = adaptor.getTensor();
    }
    auto [rows, values] =
        scatterOperands(rewriter, loc, adaptor.getIndices(), adaptor.getUpdates());
    rewriter.replaceOp(op, buildScatter(rewriter, loc, into, rows, values, {}, combination, kind));
    return success();
  }

  Combine how;
};

struct SparseToDenseLowering : OpConversionPattern<tf::SparseToDenseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::SparseToDenseOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getDense().getType());
    auto indices = dyn_cast<RankedTensorType>(adaptor.getSparseIndices().getType());
    auto values = dyn_cast<RankedTensorType>(adaptor.getSparseValues().getType());
    if (!type || !indices || !indices.hasStaticShape() || !values || !values.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getSparseValues().getType()));
    int64_t n = indices.getRank() == 0 ? 1 : indices.getDimSize(0);
    int64_t k = indices.getRank() == 2 ? indices.getDimSize(1) : 1;
    Value rows = reshapeTo(rewriter, loc, adaptor.getSparseIndices(),
                           RankedTensorType::get({n, k}, indices.getElementType()));
    Value init = buildElementwise(rewriter, loc, type, adaptor.getDefaultValue(),
                                  [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    // One value for every index, or one each.
    Value spread = buildElementwise(
        rewriter, loc, RankedTensorType::get({n}, type.getElementType()),
        values.getRank() == 0 ? adaptor.getSparseValues()
                              : reshapeTo(rewriter, loc, adaptor.getSparseValues(),
                                          RankedTensorType::get({n}, type.getElementType())),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    rewriter.replaceOp(op,
                       buildScatter(rewriter, loc, init, rows, spread, {}, Combine::Replace, kind));
    return success();
  }
};

template <typename T> struct Tag {
  using type = T;
};

} // namespace

void populateScatterPatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  auto segment = [&](auto tag, Combine how) {
    patterns.add<SegmentLowering<typename decltype(tag)::type>>(converter, ctx, how);
  };
  segment(Tag<tf::UnsortedSegmentSumOp>{}, Combine::Add);
  segment(Tag<tf::UnsortedSegmentProdOp>{}, Combine::Multiply);
  segment(Tag<tf::UnsortedSegmentMaxOp>{}, Combine::Max);
  segment(Tag<tf::UnsortedSegmentMinOp>{}, Combine::Min);
  segment(Tag<tf::SegmentSumV2Op>{}, Combine::Add);
  segment(Tag<tf::SegmentProdV2Op>{}, Combine::Multiply);
  segment(Tag<tf::SegmentMaxV2Op>{}, Combine::Max);
  segment(Tag<tf::SegmentMinV2Op>{}, Combine::Min);
  auto tensorScatter = [&](auto tag, Combine how) {
    patterns.add<NdScatterLowering<typename decltype(tag)::type>>(converter, ctx, how);
  };
  tensorScatter(Tag<tf::TensorScatterUpdateOp>{}, Combine::Replace);
  tensorScatter(Tag<tf::TensorScatterAddOp>{}, Combine::Add);
  tensorScatter(Tag<tf::TensorScatterSubOp>{}, Combine::Subtract);
  tensorScatter(Tag<tf::TensorScatterMaxOp>{}, Combine::Max);
  tensorScatter(Tag<tf::TensorScatterMinOp>{}, Combine::Min);
  tensorScatter(Tag<tf::ScatterNdOp>{}, Combine::Add);
  patterns.add<BincountLowering<tf::BincountOp>, BincountLowering<tf::DenseBincountOp>,
               SparseToDenseLowering>(converter, ctx);
}

} // namespace kiln::lower
