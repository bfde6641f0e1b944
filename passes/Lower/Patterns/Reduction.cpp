//===- Reduction.cpp - Sum, Mean, Max, Min, Prod, ArgMax, ArgMin, TopKV2 ------===//
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <limits>

using namespace mlir;

namespace kiln::lower {
namespace {

enum class Combine { Sum, Mean, Prod, Max, Min, All, Any };

/// The identity of the combination, as an element of `type` of kind `kind`.
Value initialValue(OpBuilder &b, Location loc, Type type, ElementKind kind, Combine c) {
  switch (c) {
  case Combine::Sum:
  case Combine::Mean:
    return scalarConstant(b, loc, type, 0);
  case Combine::Prod:
  case Combine::All:
    return scalarConstant(b, loc, type, 1);
  case Combine::Any:
    return scalarConstant(b, loc, type, 0);
  case Combine::Max:
  case Combine::Min: {
    bool max = c == Combine::Max;
    if (auto f = dyn_cast<FloatType>(type))
      return arith::ConstantOp::create(
          b, loc,
          b.getFloatAttr(f, max ? -std::numeric_limits<double>::infinity()
                                : std::numeric_limits<double>::infinity()));
    unsigned w = type.getIntOrFloatBitWidth();
    APInt v = kind == ElementKind::Unsigned
                  ? (max ? APInt::getMinValue(w) : APInt::getMaxValue(w))
                  : (max ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w));
    return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, v));
  }
  }
  llvm_unreachable("unknown combination");
}

Value combine(OpBuilder &b, Location loc, ElementKind kind, Combine c, Value x, Value acc) {
  bool f = kind == ElementKind::Float, u = kind == ElementKind::Unsigned;
  switch (c) {
  case Combine::Sum:
  case Combine::Mean:
    return f ? Value(arith::AddFOp::create(b, loc, x, acc))
             : Value(arith::AddIOp::create(b, loc, x, acc));
  case Combine::Prod:
    return f ? Value(arith::MulFOp::create(b, loc, x, acc))
             : Value(arith::MulIOp::create(b, loc, x, acc));
  case Combine::Max:
    if (f)
      return arith::MaximumFOp::create(b, loc, x, acc);
    return u ? Value(arith::MaxUIOp::create(b, loc, x, acc))
             : Value(arith::MaxSIOp::create(b, loc, x, acc));
  case Combine::Min:
    if (f)
      return arith::MinimumFOp::create(b, loc, x, acc);
    return u ? Value(arith::MinUIOp::create(b, loc, x, acc))
             : Value(arith::MinSIOp::create(b, loc, x, acc));
  case Combine::All:
    return arith::AndIOp::create(b, loc, x, acc);
  case Combine::Any:
    return arith::OrIOp::create(b, loc, x, acc);
  }
  llvm_unreachable("unknown combination");
}

/// Normalised reduction axes of `rank`, sorted and unique.
SmallVector<int64_t> normalize(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t a : axes)
    result.push_back(a < 0 ? a + rank : a);
  llvm::sort(result);
  result.erase(std::unique(result.begin(), result.end()), result.end());
  return result;
}

template <typename OpT, Combine C> struct ReductionLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(x.getType());
    auto resultType = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    auto axes = constantInts(adaptor.getReductionIndices());
    if (!inputType || !inputType.hasStaticShape() || !resultType || !axes)
      return rewriter.notifyMatchFailure(op, "needs static shapes and constant axes");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = inputType.getRank();
    SmallVector<int64_t> reduced = normalize(*axes, rank);
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getInput().getType()));
    Type element = inputType.getElementType();

    SmallVector<int64_t> keptShape;
    SmallVector<AffineExpr> keptExprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t i = 0; i < rank; ++i) {
      bool isReduced = llvm::is_contained(reduced, i);
      iterators.push_back(isReduced ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (!isReduced) {
        keptShape.push_back(inputType.getDimSize(i));
        keptExprs.push_back(getAffineDimExpr(i, ctx));
      }
    }
    auto keptType = RankedTensorType::get(keptShape, element);
    Value init =
        filledTensor(rewriter, loc, keptType, initialValue(rewriter, loc, element, kind, C));
    Value acc = linalg::GenericOp::create(
                    rewriter, loc, TypeRange{keptType}, x, init,
                    ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx),
                                        AffineMap::get(rank, 0, keptExprs, ctx)},
                    iterators,
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      linalg::YieldOp::create(b, l, combine(b, l, kind, C, args[0], args[1]));
                    })
                    .getResult(0);
    if (C == Combine::Mean) {
      int64_t count = 1;
      for (int64_t a : reduced)
        count *= inputType.getDimSize(a);
      Value n = scalarConstant(rewriter, loc, element, static_cast<double>(count));
      acc = buildElementwise(rewriter, loc, keptType, acc,
                             [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                               if (kind == ElementKind::Float)
                                 return arith::DivFOp::create(b, l, args[0], n);
                               if (kind == ElementKind::Unsigned)
                                 return arith::DivUIOp::create(b, l, args[0], n);
                               return arith::DivSIOp::create(b, l, args[0], n);
                             });
    }
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, acc, resultType));
    return success();
  }
};

template <typename OpT, bool Max> struct ArgReductionLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto inputType = dyn_cast<RankedTensorType>(x.getType());
    auto resultType = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    auto axisValues = constantInts(adaptor.getDimension());
    if (!inputType || !inputType.hasStaticShape() || !resultType || !axisValues ||
        axisValues->size() != 1)
      return rewriter.notifyMatchFailure(op, "needs static shapes and a constant dimension");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = inputType.getRank();
    int64_t axis = normalize(*axisValues, rank)[0];
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getInput().getType()));
    Type element = inputType.getElementType();
    Type indexType = resultType.getElementType();

    SmallVector<AffineExpr> keptExprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t i = 0; i < rank; ++i) {
      iterators.push_back(i == axis ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (i != axis)
        keptExprs.push_back(getAffineDimExpr(i, ctx));
    }
    auto valueType = resultType.clone(element);
    Value best =
        filledTensor(rewriter, loc, valueType,
                     initialValue(rewriter, loc, element, kind, Max ? Combine::Max : Combine::Min));
    Value index =
        filledTensor(rewriter, loc, resultType, scalarConstant(rewriter, loc, indexType, 0));
    AffineMap kept = AffineMap::get(rank, 0, keptExprs, ctx);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueType, resultType}, x, ValueRange{best, index},
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx), kept, kept}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = args[0], current = args[1], currentIndex = args[2];
          Value better;
          // Strict comparison keeps the first index on ties.
          if (kind == ElementKind::Float)
            better = arith::CmpFOp::create(
                b, l, Max ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, v, current);
          else if (kind == ElementKind::Unsigned)
            better = arith::CmpIOp::create(
                b, l, Max ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::ult, v, current);
          else
            better = arith::CmpIOp::create(
                b, l, Max ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt, v, current);
          Value i =
              arith::IndexCastOp::create(b, l, indexType, linalg::IndexOp::create(b, l, axis));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, better, v, current),
                         arith::SelectOp::create(b, l, better, i, currentIndex)});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

/// TopKV2's order: (va, a) comes before (vb, b) if va is larger, or equal with a < b. NaN is
/// larger than every number and equal to NaN, so the order is total.
Value comesBefore(OpBuilder &b, Location l, ElementKind kind, Value va, Value a, Value vb,
                  Value bi) {
  Value greater, equal;
  if (kind == ElementKind::Float) {
    using P = arith::CmpFPredicate;
    Value aNaN = arith::CmpFOp::create(b, l, P::UNO, va, va);
    Value bNaN = arith::CmpFOp::create(b, l, P::UNO, vb, vb);
    Value bNumber = arith::XOrIOp::create(b, l, bNaN, arith::ConstantIntOp::create(b, l, 1, 1));
    greater = arith::OrIOp::create(b, l, arith::CmpFOp::create(b, l, P::OGT, va, vb),
                                   arith::AndIOp::create(b, l, aNaN, bNumber));
    equal = arith::OrIOp::create(b, l, arith::CmpFOp::create(b, l, P::OEQ, va, vb),
                                 arith::AndIOp::create(b, l, aNaN, bNaN));
  } else {
    using P = arith::CmpIPredicate;
    greater = arith::CmpIOp::create(b, l, kind == ElementKind::Unsigned ? P::ugt : P::sgt, va, vb);
    equal = arith::CmpIOp::create(b, l, P::eq, va, vb);
  }
  Value earlier = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, a, bi);
  return arith::OrIOp::create(b, l, greater, arith::AndIOp::create(b, l, equal, earlier));
}

/// What a running scan combines.
enum class Scan { Sum, Product, LogSumExp };

/// Cumsum, Cumprod and CumulativeLogsumexp: a loop over the scanned dimension carrying the
/// running total (a tensor of the other dimensions, so each step is one vectorizable
/// elementwise op), each step writing its slice of the result before (exclusive) or after
/// adding its own.
template <typename OpT, Scan How> struct CumulativeLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(this->getTypeConverter(), op.getOut().getType());
    std::optional<int64_t> axis = op.getScannedAxis();
    if (!type || !axis)
      return rewriter.notifyMatchFailure(op, "needs a static shape and a constant axis");
    Location loc = op.getLoc();
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getX().getType()));
    int64_t rank = type.getRank(), n = type.getDimSize(*axis);
    SmallVector<int64_t> rowShape(type.getShape());
    rowShape.erase(rowShape.begin() + *axis);
    auto rowType = RankedTensorType::get(rowShape, type.getElementType());
    double start = How == Scan::Product     ? 1
                   : How == Scan::LogSumExp ? -std::numeric_limits<double>::infinity()
                                            : 0;
    Value identity = scalarConstant(rewriter, loc, type.getElementType(), start);
    Value total = filledTensor(rewriter, loc, rowType, identity);
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType());
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    Value zero = indexConstant(rewriter, loc, 0), one = indexConstant(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, indexConstant(rewriter, loc, n), one, ValueRange{init, total},
        [&](OpBuilder &b, Location l, Value k, ValueRange acc) {
          Value at =
              reverse ? Value(arith::SubIOp::create(b, l, indexConstant(b, l, n - 1), k)) : k;
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
              strides(rank, b.getIndexAttr(1));
          for (int64_t d = 0; d < rank; ++d)
            sizes.push_back(b.getIndexAttr(d == *axis ? 1 : type.getDimSize(d)));
          offsets[*axis] = at;
          Value slice = tensor::ExtractSliceOp::create(b, l, rowType, adaptor.getX(), offsets,
                                                       sizes, strides);
          auto insert = [&](Value row) -> Value {
            return tensor::InsertSliceOp::create(b, l, row, acc[0], offsets, sizes, strides);
          };
          // The exclusive result is written before the running total is updated, which may
          // happen in place.
          Value result = exclusive ? insert(acc[1]) : Value();
          Value sum = buildElementwise(b, l, rowType, {acc[1], slice},
                                       [&](OpBuilder &nb, Location nl, ValueRange args) {
                                         return combine(nb, nl, kind, args);
                                       });
          if (!exclusive)
            result = insert(sum);
          scf::YieldOp::create(b, l, ValueRange{result, sum});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }

  static Value combine(OpBuilder &b, Location l, ElementKind kind, ValueRange args) {
    if (How == Scan::LogSumExp) {
      // max + log1p(exp(min - max)), TensorFlow's LogSumExp.
      Value low = arith::MinimumFOp::create(b, l, args[0], args[1]);
      Value high = arith::MaximumFOp::create(b, l, args[0], args[1]);
      Value difference = arith::SubFOp::create(b, l, low, high);
      Value e = math::ExpOp::create(b, l, difference);
      Value term = math::Log1pOp::create(b, l, e);
      return arith::AddFOp::create(b, l, high, term);
    }
    if (How == Scan::Product)
      return arithmetic<arith::MulFOp, arith::MulIOp>(b, l, kind, args);
    return arithmetic<arith::AddFOp, arith::AddIOp>(b, l, kind, args);
  }
};

/// A heap of the best `k` (value, index) pairs seen so far, held in two tensors, whose root
/// is the worst of them in TopKV2's order (comesBefore): a new pair better than the root
/// replaces it and sinks, so a row of n elements costs O(n log k) comparisons.
class WorstFirstHeap {
public:
  WorstFirstHeap(ElementKind kind, int64_t k) : kind(kind), k(k) {}

  /// Whether the pair at `a` is worse than the pair at `b` (comes after it).
  Value worse(OpBuilder &b, Location l, Value values, Value indices, Value a, Value bi) const {
    return comesBefore(b, l, kind, extract(b, l, values, bi), extract(b, l, indices, bi),
                       extract(b, l, values, a), extract(b, l, indices, a));
  }

  /// `(v, i)` placed at `hole` of a heap of `size` pairs, moved down past every child worse
  /// than it. Returns the heap's two tensors.
  std::pair<Value, Value> sink(OpBuilder &b, Location l, Value values, Value indices, Value size,
                               Value hole, Value v, Value i) const {
    Type indexType = b.getIndexType();
    auto loop = scf::WhileOp::create(
        b, l, TypeRange{values.getType(), indices.getType(), indexType, b.getI1Type()},
        ValueRange{values, indices, hole, arith::ConstantIntOp::create(b, l, 1, 1)},
        [&](OpBuilder &wb, Location wl, ValueRange st) {
          scf::ConditionOp::create(wb, wl, st[3], st);
        },
        [&](OpBuilder &wb, Location wl, ValueRange st) {
          Value one = indexConstant(wb, wl, 1), two = indexConstant(wb, wl, 2);
          Value left =
              arith::AddIOp::create(wb, wl, arith::MulIOp::create(wb, wl, st[2], two), one);
          Value right = arith::AddIOp::create(wb, wl, left, one);
          Value hasLeft = arith::CmpIOp::create(wb, wl, arith::CmpIPredicate::slt, left, size);
          Value hasRight = arith::CmpIOp::create(wb, wl, arith::CmpIPredicate::slt, right, size);
          // The worse child (reads clamped into the heap when a child is missing).
          Value last = indexConstant(wb, wl, std::max<int64_t>(k - 1, 0));
          Value l0 = arith::MinSIOp::create(wb, wl, left, last);
          Value r0 = arith::MinSIOp::create(wb, wl, right, last);
          Value rightWorse =
              arith::AndIOp::create(wb, wl, hasRight, worse(wb, wl, st[0], st[1], r0, l0));
          Value child = arith::SelectOp::create(wb, wl, rightWorse, r0, l0);
          Value cv = extract(wb, wl, st[0], child), ci = extract(wb, wl, st[1], child);
          // The child moves up if it is worse than (v, i).
          Value moves =
              arith::AndIOp::create(wb, wl, hasLeft, comesBefore(wb, wl, kind, v, i, cv, ci));
          step(wb, wl, st, moves, cv, ci, child, v, i);
        });
    return {loop.getResult(0), loop.getResult(1)};
  }

  /// `(v, i)` added at position `size` and moved up past every parent better than it.
  std::pair<Value, Value> rise(OpBuilder &b, Location l, Value values, Value indices, Value size,
                               Value v, Value i) const {
    Type indexType = b.getIndexType();
    auto loop = scf::WhileOp::create(
        b, l, TypeRange{values.getType(), indices.getType(), indexType, b.getI1Type()},
        ValueRange{values, indices, size, arith::ConstantIntOp::create(b, l, 1, 1)},
        [&](OpBuilder &wb, Location wl, ValueRange st) {
          scf::ConditionOp::create(wb, wl, st[3], st);
        },
        [&](OpBuilder &wb, Location wl, ValueRange st) {
          Value zero = indexConstant(wb, wl, 0), one = indexConstant(wb, wl, 1);
          Value hasParent = arith::CmpIOp::create(wb, wl, arith::CmpIPredicate::sgt, st[2], zero);
          Value parent = arith::DivUIOp::create(
              wb, wl,
              arith::MaxSIOp::create(wb, wl, arith::SubIOp::create(wb, wl, st[2], one), zero),
              indexConstant(wb, wl, 2));
          Value pv = extract(wb, wl, st[0], parent), pi = extract(wb, wl, st[1], parent);
          // The parent moves down if it is better than (v, i).
          Value moves =
              arith::AndIOp::create(wb, wl, hasParent, comesBefore(wb, wl, kind, pv, pi, v, i));
          step(wb, wl, st, moves, pv, pi, parent, v, i);
        });
    return {loop.getResult(0), loop.getResult(1)};
  }

private:
  /// One step of a sift, yielding the loop's next state {values, indices, hole, again}: if
  /// `moves`, the pair (mv, mi) from position `from` fills the hole, which goes to `from`;
  /// otherwise (v, i) fills it and the sift ends.
  static void step(OpBuilder &b, Location l, ValueRange st, Value moves, Value mv, Value mi,
                   Value from, Value v, Value i) {
    auto fill = scf::IfOp::create(
        b, l, moves,
        [&](OpBuilder &tb, Location tl) {
          Value nv = tensor::InsertOp::create(tb, tl, mv, st[0], ValueRange{st[2]});
          Value ni = tensor::InsertOp::create(tb, tl, mi, st[1], ValueRange{st[2]});
          scf::YieldOp::create(tb, tl, ValueRange{nv, ni, from});
        },
        [&](OpBuilder &tb, Location tl) {
          Value nv = tensor::InsertOp::create(tb, tl, v, st[0], ValueRange{st[2]});
          Value ni = tensor::InsertOp::create(tb, tl, i, st[1], ValueRange{st[2]});
          scf::YieldOp::create(tb, tl, ValueRange{nv, ni, st[2]});
        });
    scf::YieldOp::create(
        b, l, ValueRange{fill.getResult(0), fill.getResult(1), fill.getResult(2), moves});
  }

  static Value extract(OpBuilder &b, Location l, Value t, Value at) {
    return tensor::ExtractOp::create(b, l, t, ValueRange{at});
  }
  ElementKind kind;
  int64_t k;
};

/// TopKV2, one row at a time: the first k elements fill a heap whose root is the worst of
/// them; each later element better than the root replaces it (O(log k)); then the heap is
/// emptied worst first into positions k-1 down to 0. The heap (2k values) lives in the
/// scratch arena. Results follow comesBefore's total order, so they are those of a full
/// sort.
struct TopKLowering : OpConversionPattern<tf::TopKV2Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::TopKV2Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    auto valuesType = staticTensorType(getTypeConverter(), op.getValues().getType());
    auto indicesType = staticTensorType(getTypeConverter(), op.getIndices().getType());
    if (!inputType || !inputType.hasStaticShape() || !valuesType || !indicesType)
      return rewriter.notifyMatchFailure(op, "needs static shapes and a constant k");
    Location loc = op.getLoc();
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getInput().getType()));
    Type element = inputType.getElementType(), indexType = indicesType.getElementType();
    Type i64 = rewriter.getI64Type();
    int64_t n = inputType.getShape().back(), k = valuesType.getShape().back();
    int64_t rows = inputType.getNumElements() / std::max<int64_t>(n, 1);
    if (n == 0)
      rows = valuesType.getNumElements() / std::max<int64_t>(k, 1);
    Value x =
        reshapeTo(rewriter, loc, adaptor.getInput(), RankedTensorType::get({rows, n}, element));
    Value values = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{rows, k}, element);
    Value indices = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{rows, k}, indexType);
    if (k == 0 || rows == 0) {
      rewriter.replaceOp(op, {reshapeTo(rewriter, loc, values, valuesType),
                              reshapeTo(rewriter, loc, indices, indicesType)});
      return success();
    }
    WorstFirstHeap heap(kind, k);
    Value zero = indexConstant(rewriter, loc, 0), one = indexConstant(rewriter, loc, 1);
    auto rowLoop = scf::ForOp::create(
        rewriter, loc, zero, indexConstant(rewriter, loc, rows), one, ValueRange{values, indices},
        [&](OpBuilder &b, Location l, Value r, ValueRange rowAcc) {
          Value heapValues = tensor::EmptyOp::create(b, l, ArrayRef<int64_t>{k}, element);
          Value heapIndices = tensor::EmptyOp::create(b, l, ArrayRef<int64_t>{k}, i64);
          auto scan = scf::ForOp::create(
              b, l, zero, indexConstant(b, l, n), one, ValueRange{heapValues, heapIndices},
              [&](OpBuilder &sb, Location sl, Value i, ValueRange h) {
                Value v = tensor::ExtractOp::create(sb, sl, x, ValueRange{r, i});
                Value i64v = arith::IndexCastOp::create(sb, sl, i64, i);
                Value kIndex = indexConstant(sb, sl, k);
                Value filling = arith::CmpIOp::create(sb, sl, arith::CmpIPredicate::slt, i, kIndex);
                auto next = scf::IfOp::create(
                    sb, sl, filling,
                    [&](OpBuilder &tb, Location tl) {
                      auto [nv, ni] = heap.rise(tb, tl, h[0], h[1], i, v, i64v);
                      scf::YieldOp::create(tb, tl, ValueRange{nv, ni});
                    },
                    [&](OpBuilder &tb, Location tl) {
                      Value rootV = tensor::ExtractOp::create(tb, tl, h[0], ValueRange{zero});
                      Value rootI = tensor::ExtractOp::create(tb, tl, h[1], ValueRange{zero});
                      Value better = comesBefore(tb, tl, kind, v, i64v, rootV, rootI);
                      auto replace = scf::IfOp::create(
                          tb, tl, better,
                          [&](OpBuilder &rb, Location rl) {
                            auto [nv, ni] = heap.sink(rb, rl, h[0], h[1], kIndex, zero, v, i64v);
                            scf::YieldOp::create(rb, rl, ValueRange{nv, ni});
                          },
                          [&](OpBuilder &rb, Location rl) {
                            scf::YieldOp::create(rb, rl, ValueRange{h[0], h[1]});
                          });
                      scf::YieldOp::create(tb, tl, replace.getResults());
                    });
                scf::YieldOp::create(sb, sl, next.getResults());
              });
          // Empty the heap worst first, filling the row from its end.
          auto drain = scf::ForOp::create(
              b, l, zero, indexConstant(b, l, k), one,
              ValueRange{rowAcc[0], rowAcc[1], scan.getResult(0), scan.getResult(1)},
              [&](OpBuilder &db, Location dl, Value j, ValueRange st) {
                Value size = arith::SubIOp::create(db, dl, indexConstant(db, dl, k), j);
                Value at = arith::SubIOp::create(db, dl, size, one);
                Value rootV = tensor::ExtractOp::create(db, dl, st[2], ValueRange{zero});
                Value rootI = tensor::ExtractOp::create(db, dl, st[3], ValueRange{zero});
                Value outV = tensor::InsertOp::create(db, dl, rootV, st[0], ValueRange{r, at});
                Value position = indexType == i64
                                     ? rootI
                                     : Value(arith::TruncIOp::create(db, dl, indexType, rootI));
                Value outI = tensor::InsertOp::create(db, dl, position, st[1], ValueRange{r, at});
                Value lastV = tensor::ExtractOp::create(db, dl, st[2], ValueRange{at});
                Value lastI = tensor::ExtractOp::create(db, dl, st[3], ValueRange{at});
                auto [hv, hi] = heap.sink(db, dl, st[2], st[3], at, zero, lastV, lastI);
                scf::YieldOp::create(db, dl, ValueRange{outV, outI, hv, hi});
              });
          scf::YieldOp::create(b, l, ValueRange{drain.getResult(0), drain.getResult(1)});
        });
    rewriter.replaceOp(op, {reshapeTo(rewriter, loc, rowLoop.getResult(0), valuesType),
                            reshapeTo(rewriter, loc, rowLoop.getResult(1), indicesType)});
    return success();
  }
};

/// LowerBound and UpperBound by counting: the number of elements of the sorted row below
/// the value (LowerBound: s < v) or not above it (UpperBound: !(v < s)), which for a sorted
/// row is the index a binary search finds, NaN included; a reduction over the row.
template <typename OpT, bool Upper> struct SearchSortedLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    auto sorted = dyn_cast<RankedTensorType>(adaptor.getSortedInputs().getType());
    if (!type || !sorted || !sorted.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getValues().getType()));
    int64_t rank = type.getRank();
    MLIRContext *ctx = rewriter.getContext();
    // Loops (rows..., m, n): the sorted row reads (rows..., n), the values (rows..., m).
    SmallVector<AffineExpr> rowsAndN, rowsAndM;
    for (int64_t d = 0; d < rank - 1; ++d) {
      rowsAndN.push_back(getAffineDimExpr(d, ctx));
      rowsAndM.push_back(getAffineDimExpr(d, ctx));
    }
    rowsAndN.push_back(getAffineDimExpr(rank, ctx));
    rowsAndM.push_back(getAffineDimExpr(rank - 1, ctx));
    AffineMap sortedMap = AffineMap::get(rank + 1, 0, rowsAndN, ctx);
    AffineMap valueMap = AffineMap::get(rank + 1, 0, rowsAndM, ctx);
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value init =
        filledTensor(rewriter, loc, type, scalarConstant(rewriter, loc, type.getElementType(), 0));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{adaptor.getSortedInputs(), adaptor.getValues()}, init,
        ArrayRef<AffineMap>{sortedMap, valueMap, valueMap}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value s = args[0], v = args[1];
          Value counts;
          using P = arith::CmpFPredicate;
          using I = arith::CmpIPredicate;
          bool isUnsigned = kind == ElementKind::Unsigned;
          if (kind == ElementKind::Float)
            counts = Upper ? arith::CmpFOp::create(b, l, P::UGE, v, s)
                           : arith::CmpFOp::create(b, l, P::OLT, s, v);
          else
            counts = Upper ? arith::CmpIOp::create(b, l, isUnsigned ? I::ule : I::sle, s, v)
                           : arith::CmpIOp::create(b, l, isUnsigned ? I::ult : I::slt, s, v);
          Value one = arith::ExtUIOp::create(b, l, args[2].getType(), counts);
          linalg::YieldOp::create(b, l, ValueRange{arith::AddIOp::create(b, l, args[2], one)});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// InTopKV2: per row, the number of predictions greater than the target's (a reduction
/// reading the target's prediction inside the loop), then whether the target is in range,
/// its prediction finite, and the count below k.
struct InTopKLowering : OpConversionPattern<tf::InTopKV2Op> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::InTopKV2Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getPrecision().getType());
    auto predictions = dyn_cast<RankedTensorType>(adaptor.getPredictions().getType());
    if (!type || !predictions || !predictions.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t classes = predictions.getDimSize(1);
    Value pred = adaptor.getPredictions();
    Type targetType = getElementTypeOrSelf(adaptor.getTargets().getType());
    // The target's prediction, read with a clamped index.
    auto targetValue = [&](OpBuilder &b, Location l, Value row, Value target) -> Value {
      Value i = arith::IndexCastOp::create(b, l, b.getIndexType(), target);
      Value clamped = clampIndex(b, l, i, classes);
      return tensor::ExtractOp::create(b, l, pred, ValueRange{row, clamped});
    };
    auto countType = RankedTensorType::get(type.getShape(), targetType);
    Value zeros =
        filledTensor(rewriter, loc, countType, scalarConstant(rewriter, loc, targetType, 0));
    AffineExpr b0 = getAffineDimExpr(0, ctx);
    AffineMap whole = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap perRow = AffineMap::get(2, 0, {b0}, ctx);
    auto counted = linalg::GenericOp::create(
        rewriter, loc, countType, ValueRange{pred, adaptor.getTargets()}, zeros,
        ArrayRef<AffineMap>{whole, perRow, perRow},
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                      utils::IteratorType::reduction},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value row = linalg::IndexOp::create(b, l, 0);
          Value target = targetValue(b, l, row, args[1]);
          Value greater = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, args[0], target);
          Value one = arith::ExtUIOp::create(b, l, targetType, greater);
          linalg::YieldOp::create(b, l, ValueRange{arith::AddIOp::create(b, l, args[2], one)});
        });
    Value k = adaptor.getK();
    Type kType = getElementTypeOrSelf(k.getType());
    AffineMap rows = AffineMap::getMultiDimIdentityMap(1, ctx);
    AffineMap scalar = AffineMap::get(1, 0, ctx);
    Value result = buildParallelGeneric(
        rewriter, loc, type, ValueRange{counted.getResult(0), adaptor.getTargets(), k},
        {rows, rows, scalar}, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value row = linalg::IndexOp::create(b, l, 0);
          Value target = args[1];
          Value zero = scalarConstant(b, l, targetType, 0);
          Value size = scalarConstant(b, l, targetType, classes);
          Value from = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, target, zero);
          Value below = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, target, size);
          Value inRange = arith::AndIOp::create(b, l, from, below);
          Value value = targetValue(b, l, row, target);
          Value magnitude = math::AbsFOp::create(b, l, value);
          Value infinity =
              scalarConstant(b, l, value.getType(), std::numeric_limits<double>::infinity());
          Value finite =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, magnitude, infinity);
          Value count = args[0];
          Value kWide = args[2];
          if (kType != targetType)
            kWide = kType.getIntOrFloatBitWidth() < targetType.getIntOrFloatBitWidth()
                        ? Value(arith::ExtSIOp::create(b, l, targetType, kWide))
                        : Value(arith::TruncIOp::create(b, l, targetType, kWide));
          Value inTop = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, count, kWide);
          Value ok = arith::AndIOp::create(b, l, inRange, finite);
          return arith::AndIOp::create(b, l, ok, inTop);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateReductionPatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<
      ReductionLowering<tf::SumOp, Combine::Sum>, ReductionLowering<tf::MeanOp, Combine::Mean>,
      ReductionLowering<tf::ProdOp, Combine::Prod>, ReductionLowering<tf::MaxOp, Combine::Max>,
      ReductionLowering<tf::MinOp, Combine::Min>, ReductionLowering<tf::AllOp, Combine::All>,
      ReductionLowering<tf::AnyOp, Combine::Any>, ArgReductionLowering<tf::ArgMaxOp, true>,
      ArgReductionLowering<tf::ArgMinOp, false>, TopKLowering,
      CumulativeLowering<tf::CumsumOp, Scan::Sum>, CumulativeLowering<tf::CumprodOp, Scan::Product>,
      CumulativeLowering<tf::CumulativeLogsumexpOp, Scan::LogSumExp>,
      SearchSortedLowering<tf::LowerBoundOp, false>, SearchSortedLowering<tf::UpperBoundOp, true>,
      InTopKLowering>(converter, patterns.getContext());
}

} // namespace kiln::lower
