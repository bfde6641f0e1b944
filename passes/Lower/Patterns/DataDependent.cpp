//===- DataDependent.cpp - Where, Unique, the non-max suppressions -------------===//
//
// Each op's first result has a size that depends on the values it reads. Here it has the
// static type of its bound (kiln-graph-bound-sizes gave it): the op writes its first `count`
// rows, never more than the bound, and zeros after them. Each is an scf loop in the order
// TensorFlow's CPU kernel works, carrying its results as tensors that bufferize in place.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln::lower {
namespace {

Value insertAt(OpBuilder &b, Location loc, Value value, Value into, ValueRange at) {
  return tensor::InsertOp::create(b, loc, value, into, at);
}

Value extractAt(OpBuilder &b, Location loc, Value from, ValueRange at) {
  return tensor::ExtractOp::create(b, loc, from, at);
}

/// `then` where `cond` holds, else `otherwise`: one tensor result of an scf.if, so that the
/// write in `then` happens only when it must (an arith.select of two tensors would copy).
Value ifThen(OpBuilder &b, Location loc, Value cond, Value otherwise,
             function_ref<Value(OpBuilder &, Location)> then) {
  auto op = scf::IfOp::create(
      b, loc, cond, [&](OpBuilder &nb, Location l) { scf::YieldOp::create(nb, l, then(nb, l)); },
      [&](OpBuilder &nb, Location l) { scf::YieldOp::create(nb, l, otherwise); });
  return op.getResult(0);
}

Value toIndex(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// Whether an element of `kind` is nonzero (NaN is).
Value isNonzero(OpBuilder &b, Location loc, ElementKind kind, Value v) {
  Value zero = scalarConstant(b, loc, v.getType(), 0);
  if (kind == ElementKind::Float)
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
}

struct WhereLowering : OpConversionPattern<tf::WhereOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::WhereOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getIndex().getType());
    auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!resultType || !inputType || !inputType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes (kiln-graph-bound-sizes)");
    Location loc = op.getLoc();
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getInput().getType()));
    int64_t n = inputType.getNumElements(), bound = resultType.getDimSize(0);
    auto flatType = RankedTensorType::get({n}, inputType.getElementType());
    Value flat = reshapeTo(rewriter, loc, adaptor.getInput(), flatType);
    Value zeros = filledTensor(rewriter, loc, resultType,
                               scalarConstant(rewriter, loc, rewriter.getI64Type(), 0));
    Value count = indexConstant(rewriter, loc, 0);
    auto loop = scf::ForOp::create(
        rewriter, loc, indexConstant(rewriter, loc, 0), indexConstant(rewriter, loc, n),
        indexConstant(rewriter, loc, 1), ValueRange{zeros, count},
        [&](OpBuilder &b, Location l, Value p, ValueRange carried) {
          Value out = carried[0], written = carried[1];
          Value nonzero = isNonzero(b, l, kind, extractAt(b, l, flat, p));
          Value room = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, written,
                                             indexConstant(b, l, bound));
          Value write = arith::AndIOp::create(b, l, nonzero, room);
          Value next = ifThen(b, l, write, out, [&](OpBuilder &tb, Location tl) {
            Value rest = p, row = out;
            for (int64_t d = inputType.getRank() - 1; d >= 0; --d) {
              Value size = indexConstant(tb, tl, inputType.getDimSize(d));
              Value coordinate = arith::RemUIOp::create(tb, tl, rest, size);
              rest = arith::DivUIOp::create(tb, tl, rest, size);
              Value c64 = arith::IndexCastOp::create(tb, tl, tb.getI64Type(), coordinate);
              row = insertAt(tb, tl, c64, row, {written, indexConstant(tb, tl, d)});
            }
            return row;
          });
          Value one = indexConstant(b, l, 1);
          Value counted = arith::SelectOp::create(
              b, l, nonzero, arith::AddIOp::create(b, l, written, one), written);
          scf::YieldOp::create(b, l, ValueRange{next, counted});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

/// Unique by search among the distinct values found so far (O(n * distinct)): NaNs are
/// each distinct, -0.0 and 0.0 one value, as TensorFlow's hash map has them.
struct UniqueLowering : OpConversionPattern<tf::UniqueOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::UniqueOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto yType = staticTensorType(getTypeConverter(), op.getY().getType());
    auto idxType = staticTensorType(getTypeConverter(), op.getIdx().getType());
    if (!yType || !idxType)
      return rewriter.notifyMatchFailure(op, "needs static shapes (kiln-graph-bound-sizes)");
    Location loc = op.getLoc();
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getX().getType()));
    int64_t n = idxType.getDimSize(0), bound = yType.getDimSize(0);
    Type element = yType.getElementType(), indexElement = idxType.getElementType();
    Value x = adaptor.getX();
    Value y = filledTensor(rewriter, loc, yType, scalarConstant(rewriter, loc, element, 0));
    Value idx =
        filledTensor(rewriter, loc, idxType, scalarConstant(rewriter, loc, indexElement, 0));
    Value zero = indexConstant(rewriter, loc, 0), one = indexConstant(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, indexConstant(rewriter, loc, n), one, ValueRange{y, idx, zero},
        [&](OpBuilder &b, Location l, Value i, ValueRange carried) {
          Value ys = carried[0], idxs = carried[1], distinct = carried[2];
          Value v = extractAt(b, l, x, i);
          // The first j < distinct (and < bound) with ys[j] == v, or distinct if none.
          Value searched = arith::MinSIOp::create(b, l, distinct, indexConstant(b, l, bound));
          auto search = scf::ForOp::create(
              b, l, indexConstant(b, l, 0), searched, indexConstant(b, l, 1), ValueRange{distinct},
              [&](OpBuilder &sb, Location sl, Value j, ValueRange found) {
                Value w = extractAt(sb, sl, ys, j);
                Value same =
                    kind == ElementKind::Float
                        ? Value(arith::CmpFOp::create(sb, sl, arith::CmpFPredicate::OEQ, v, w))
                        : Value(arith::CmpIOp::create(sb, sl, arith::CmpIPredicate::eq, v, w));
                Value earlier =
                    arith::CmpIOp::create(sb, sl, arith::CmpIPredicate::eq, found[0], distinct);
                Value take = arith::AndIOp::create(sb, sl, same, earlier);
                scf::YieldOp::create(
                    sb, sl, ValueRange{arith::SelectOp::create(sb, sl, take, j, found[0])});
              });
          Value at = search.getResult(0);
          Value fresh = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, at, distinct);
          Value room = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, distinct,
                                             indexConstant(b, l, bound));
          Value store = arith::AndIOp::create(b, l, fresh, room);
          Value nextY = ifThen(b, l, store, ys, [&](OpBuilder &tb, Location tl) {
            return insertAt(tb, tl, v, ys, distinct);
          });
          Value position = arith::IndexCastOp::create(b, l, indexElement, at);
          Value nextIdx = insertAt(b, l, position, idxs, i);
          Value grown = arith::SelectOp::create(
              b, l, fresh, arith::AddIOp::create(b, l, distinct, indexConstant(b, l, 1)), distinct);
          scf::YieldOp::create(b, l, ValueRange{nextY, nextIdx, grown});
        });
    rewriter.replaceOp(op, {loop.getResult(0), loop.getResult(1)});
    return success();
  }
};

/// std::min and std::max of floats, as TensorFlow's IOU computes them.
Value floatMin(OpBuilder &b, Location loc, Value x, Value y) {
  Value less = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, y, x);
  return arith::SelectOp::create(b, loc, less, y, x);
}
Value floatMax(OpBuilder &b, Location loc, Value x, Value y) {
  Value less = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, y);
  return arith::SelectOp::create(b, loc, less, y, x);
}

using Box = std::array<Value, 4>;

/// Intersection over union of boxes [y1, x1, y2, x2] (corners in either order), 0 when
/// either has no area: TensorFlow's IOU, operation for operation.
Value intersectionOverUnion(OpBuilder &b, Location loc, const Box &i, const Box &j) {
  auto extent = [&](const Box &box) {
    return std::array<Value, 4>{floatMin(b, loc, box[0], box[2]), floatMin(b, loc, box[1], box[3]),
                                floatMax(b, loc, box[0], box[2]), floatMax(b, loc, box[1], box[3])};
  };
  auto ei = extent(i), ej = extent(j);
  auto area = [&](const std::array<Value, 4> &e) {
    Value h = arith::SubFOp::create(b, loc, e[2], e[0]);
    Value w = arith::SubFOp::create(b, loc, e[3], e[1]);
    return arith::MulFOp::create(b, loc, h, w).getResult();
  };
  Value areaI = area(ei), areaJ = area(ej);
  Value zero = scalarConstant(b, loc, b.getF32Type(), 0);
  Value emptyI = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, areaI, zero);
  Value emptyJ = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, areaJ, zero);
  Value empty = arith::OrIOp::create(b, loc, emptyI, emptyJ);
  Value top = floatMax(b, loc, ei[0], ej[0]), left = floatMax(b, loc, ei[1], ej[1]);
  Value bottom = floatMin(b, loc, ei[2], ej[2]), right = floatMin(b, loc, ei[3], ej[3]);
  Value h = floatMax(b, loc, arith::SubFOp::create(b, loc, bottom, top), zero);
  Value w = floatMax(b, loc, arith::SubFOp::create(b, loc, right, left), zero);
  Value intersection = arith::MulFOp::create(b, loc, h, w);
  Value sum = arith::AddFOp::create(b, loc, areaI, areaJ);
  Value union_ = arith::SubFOp::create(b, loc, sum, intersection);
  Value iou = arith::DivFOp::create(b, loc, intersection, union_);
  return arith::SelectOp::create(b, loc, empty, zero, iou);
}

using BoxFn = function_ref<Box(OpBuilder &, Location, Value)>;
using ScoreFn = function_ref<Value(OpBuilder &, Location, Value)>;

/// The first of the `n` entries still in the running (`alive`, i1) with the highest score
/// (f32), as an index: n when none is. A candidate ranks by score, the lower index first
/// among equal scores, as TensorFlow's priority queues order them.
Value bestCandidate(OpBuilder &b, Location loc, int64_t n, Value alive, Value scores) {
  Value none = indexConstant(b, loc, n);
  auto search = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), none, indexConstant(b, loc, 1),
      ValueRange{none, scalarConstant(b, loc, b.getF32Type(), 0)},
      [&](OpBuilder &sb, Location sl, Value i, ValueRange best) {
        Value in = extractAt(sb, sl, alive, i);
        Value s = extractAt(sb, sl, scores, i);
        Value first = arith::CmpIOp::create(sb, sl, arith::CmpIPredicate::eq, best[0], none);
        Value higher = arith::CmpFOp::create(sb, sl, arith::CmpFPredicate::OGT, s, best[1]);
        Value better =
            arith::AndIOp::create(sb, sl, in, arith::OrIOp::create(sb, sl, first, higher));
        scf::YieldOp::create(sb, sl,
                             ValueRange{arith::SelectOp::create(sb, sl, better, i, best[0]),
                                        arith::SelectOp::create(sb, sl, better, s, best[1])});
      });
  return search.getResult(0);
}

/// What a non-max suppression selected: indices [bound] (i32) and their scores [bound]
/// (f32), zeros after the first `count` (an index).
struct Selection {
  Value indices, scores, count;
};

/// TensorFlow's DoNonMaxSuppressionOp over `n` boxes: its priority queue is an argmax over
/// the candidates still in it (the higher score first, the lower index among equals, as
/// its comparison orders them), each carrying its current score and how many selected
/// boxes it has been compared with. Selects at most min(limit, bound). `sigma` null: hard
/// suppression only.
Selection buildNonMaxSuppression(OpBuilder &b, Location loc, int64_t n, int64_t bound, Value limit,
                                 Value iouThreshold, Value scoreThreshold, Value sigma, BoxFn boxAt,
                                 ScoreFn scoreAt) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type(), i1 = b.getI1Type();
  auto vector = [&](int64_t size, Type t) { return RankedTensorType::get({size}, t); };
  Value zeroF = scalarConstant(b, loc, f32, 0);
  Value scores = buildParallelGeneric(b, loc, vector(n, f32), ValueRange{}, {},
                                      [&](OpBuilder &gb, Location l, ValueRange) {
                                        return scoreAt(gb, l, linalg::IndexOp::create(gb, l, 0));
                                      });
  Value alive = buildElementwise(
      b, loc, vector(n, i1), scores, [&](OpBuilder &gb, Location l, ValueRange args) -> Value {
        return arith::CmpFOp::create(gb, l, arith::CmpFPredicate::OGT, args[0], scoreThreshold);
      });
  Value begins = filledTensor(b, loc, vector(n, i32), scalarConstant(b, loc, i32, 0));
  Value selected = filledTensor(b, loc, vector(bound, i32), scalarConstant(b, loc, i32, 0));
  Value selectedScores = filledTensor(b, loc, vector(bound, f32), zeroF);
  Value stop = arith::MinSIOp::create(b, loc, limit, indexConstant(b, loc, bound));
  Value soft, scale;
  if (sigma) {
    soft = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sigma, zeroF);
    Value ratio = arith::DivFOp::create(b, loc, scalarConstant(b, loc, f32, -0.5), sigma);
    scale = arith::SelectOp::create(b, loc, soft, ratio, zeroF);
  }
  Value none = indexConstant(b, loc, n);
  SmallVector<Value> init{selected, selectedScores, scores,
                          alive,    begins,         indexConstant(b, loc, 0)};
  SmallVector<Type> types = llvm::to_vector(ValueRange(init).getTypes());
  SmallVector<Type> afterTypes(types);
  afterTypes.push_back(b.getIndexType());
  auto loop = scf::WhileOp::create(
      b, loc, afterTypes, init,
      [&](OpBuilder &wb, Location l, ValueRange state) {
        Value best = bestCandidate(wb, l, n, state[3], state[2]);
        Value found = arith::CmpIOp::create(wb, l, arith::CmpIPredicate::ne, best, none);
        Value room = arith::CmpIOp::create(wb, l, arith::CmpIPredicate::slt, state[5], stop);
        SmallVector<Value> forward(state);
        forward.push_back(best);
        scf::ConditionOp::create(wb, l, arith::AndIOp::create(wb, l, found, room), forward);
      },
      [&](OpBuilder &wb, Location l, ValueRange state) {
        Value sel = state[0], selScores = state[1], current = state[2], in = state[3],
              starts = state[4], count = state[5], best = state[6];
        Value original = extractAt(wb, l, current, best);
        Value from = toIndex(wb, l, extractAt(wb, l, starts, best));
        Box candidate = boxAt(wb, l, best);
        // Compare with the boxes selected since it was last compared, newest first.
        Value falseValue = arith::ConstantIntOp::create(wb, l, wb.getI1Type(), 0);
        Value span = arith::SubIOp::create(wb, l, count, from);
        auto compare = scf::WhileOp::create(
            wb, l, TypeRange{wb.getIndexType(), f32, i1, i1},
            ValueRange{indexConstant(wb, l, 0), original, falseValue, falseValue},
            [&](OpBuilder &cb, Location cl, ValueRange c) {
              Value more = arith::CmpIOp::create(cb, cl, arith::CmpIPredicate::slt, c[0], span);
              Value go = arith::AndIOp::create(
                  cb, cl, more,
                  arith::XOrIOp::create(cb, cl, c[3],
                                        arith::ConstantIntOp::create(cb, cl, cb.getI1Type(), 1)));
              scf::ConditionOp::create(cb, cl, go, c);
            },
            [&](OpBuilder &cb, Location cl, ValueRange c) {
              Value last = arith::SubIOp::create(cb, cl, count, indexConstant(cb, cl, 1));
              Value j = arith::SubIOp::create(cb, cl, last, c[0]);
              Value other = toIndex(cb, cl, extractAt(cb, cl, sel, j));
              Value iou = intersectionOverUnion(cb, cl, candidate, boxAt(cb, cl, other));
              Value over =
                  arith::CmpFOp::create(cb, cl, arith::CmpFPredicate::OGT, iou, iouThreshold);
              Value one = scalarConstant(cb, cl, f32, 1);
              // Hard suppression: weight 1 up to the threshold, 0 above it.
              Value weight = arith::SelectOp::create(cb, cl, over, zeroF, one);
              Value hard = over;
              if (sigma) {
                Value scaled = arith::MulFOp::create(cb, cl, scale, iou);
                Value decay =
                    math::ExpOp::create(cb, cl, arith::MulFOp::create(cb, cl, scaled, iou));
                weight = arith::SelectOp::create(cb, cl, soft, decay, weight);
                Value notSoft = arith::XOrIOp::create(
                    cb, cl, soft, arith::ConstantIntOp::create(cb, cl, cb.getI1Type(), 1));
                hard = arith::AndIOp::create(cb, cl, notSoft, over);
              }
              Value s = arith::MulFOp::create(cb, cl, c[1], weight);
              Value low =
                  arith::CmpFOp::create(cb, cl, arith::CmpFPredicate::OLE, s, scoreThreshold);
              Value next = arith::AddIOp::create(cb, cl, c[0], indexConstant(cb, cl, 1));
              scf::YieldOp::create(
                  cb, cl, ValueRange{next, s, hard, arith::OrIOp::create(cb, cl, hard, low)});
            });
        Value score = compare.getResult(1), hard = compare.getResult(2);
        Value kept = arith::XOrIOp::create(wb, l, hard,
                                           arith::ConstantIntOp::create(wb, l, wb.getI1Type(), 1));
        Value unchanged = arith::CmpFOp::create(wb, l, arith::CmpFPredicate::OEQ, score, original);
        Value select = arith::AndIOp::create(wb, l, kept, unchanged);
        Value above =
            arith::CmpFOp::create(wb, l, arith::CmpFPredicate::OGT, score, scoreThreshold);
        Value back = arith::AndIOp::create(
            wb, l, kept,
            arith::AndIOp::create(
                wb, l, above,
                arith::XOrIOp::create(wb, l, unchanged,
                                      arith::ConstantIntOp::create(wb, l, wb.getI1Type(), 1))));
        Value count32 = arith::IndexCastOp::create(wb, l, i32, count);
        starts = insertAt(wb, l, count32, starts, best);
        in = insertAt(wb, l, back, in, best);
        current = insertAt(wb, l, score, current, best);
        Value best32 = arith::IndexCastOp::create(wb, l, i32, best);
        auto write = scf::IfOp::create(
            wb, l, select,
            [&](OpBuilder &tb, Location tl) {
              scf::YieldOp::create(tb, tl,
                                   ValueRange{insertAt(tb, tl, best32, sel, count),
                                              insertAt(tb, tl, score, selScores, count)});
            },
            [&](OpBuilder &tb, Location tl) {
              scf::YieldOp::create(tb, tl, ValueRange{sel, selScores});
            });
        Value grown = arith::SelectOp::create(
            wb, l, select, arith::AddIOp::create(wb, l, count, indexConstant(wb, l, 1)), count);
        scf::YieldOp::create(
            wb, l, ValueRange{write.getResult(0), write.getResult(1), current, in, starts, grown});
      });
  return {loop.getResult(0), loop.getResult(1), loop.getResult(5)};
}

/// A scalar f32 operand's value.
Value scalarOf(OpBuilder &b, Location loc, Value tensor) {
  return tensor::ExtractOp::create(b, loc, tensor, ValueRange{});
}

/// max(v, 0) of an i32 scalar operand, as an index.
Value nonnegativeIndex(OpBuilder &b, Location loc, Value tensor) {
  Value v = scalarOf(b, loc, tensor);
  Value zero = scalarConstant(b, loc, v.getType(), 0);
  return toIndex(b, loc, arith::MaxSIOp::create(b, loc, v, zero));
}

template <typename Op> struct NonMaxSuppressionLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(this->getTypeConverter(), op.getSelectedIndices().getType());
    auto boxesType = dyn_cast<RankedTensorType>(adaptor.getBoxes().getType());
    if (!resultType || !boxesType || !boxesType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes (kiln-graph-bound-sizes)");
    Location loc = op.getLoc();
    Value boxes = adaptor.getBoxes(), scores = adaptor.getScores();
    Value sigma;
    if constexpr (std::is_same_v<Op, tf::NonMaxSuppressionV5Op>)
      sigma = scalarOf(rewriter, loc, adaptor.getSoftNmsSigma());
    Selection s = buildNonMaxSuppression(
        rewriter, loc, boxesType.getDimSize(0), resultType.getDimSize(0),
        nonnegativeIndex(rewriter, loc, adaptor.getMaxOutputSize()),
        scalarOf(rewriter, loc, adaptor.getIouThreshold()),
        scalarOf(rewriter, loc, adaptor.getScoreThreshold()), sigma,
        [&](OpBuilder &b, Location l, Value i) {
          Box box;
          for (int k = 0; k < 4; ++k)
            box[k] = extractAt(b, l, boxes, {i, indexConstant(b, l, k)});
          return box;
        },
        [&](OpBuilder &b, Location l, Value i) { return extractAt(b, l, scores, i); });
    SmallVector<Value> results{s.indices};
    if constexpr (std::is_same_v<Op, tf::NonMaxSuppressionV5Op>)
      results.push_back(s.scores);
    if constexpr (!std::is_same_v<Op, tf::NonMaxSuppressionV3Op>) {
      Value count = arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(), s.count);
      results.push_back(tensor::FromElementsOp::create(
          rewriter, loc, RankedTensorType::get({}, rewriter.getI32Type()), count));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Per image: hard NMS of each class into slots [class * perClass, ...), then the best
/// max_total_size of all slots by repeated argmax (the lower slot among equal scores).
struct CombinedNonMaxSuppressionLowering : OpConversionPattern<tf::CombinedNonMaxSuppressionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::CombinedNonMaxSuppressionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto boxesOut = staticTensorType(getTypeConverter(), op.getNmsedBoxes().getType());
    auto scoresOut = staticTensorType(getTypeConverter(), op.getNmsedScores().getType());
    auto validOut = staticTensorType(getTypeConverter(), op.getValidDetections().getType());
    auto boxesType = dyn_cast<RankedTensorType>(adaptor.getBoxes().getType());
    auto scoresType = dyn_cast<RankedTensorType>(adaptor.getScores().getType());
    if (!boxesOut || !scoresOut || !validOut || !boxesType || !boxesType.hasStaticShape() ||
        !scoresType || !scoresType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type(), i1 = rewriter.getI1Type();
    int64_t batch = boxesType.getDimSize(0), n = boxesType.getDimSize(1);
    int64_t q = boxesType.getDimSize(2), classes = scoresType.getDimSize(2);
    int64_t total = boxesOut.getDimSize(1);
    // Slots per class: the constant, else every box (the limit then applies at run time).
    auto perClassConst = constantInts(adaptor.getMaxOutputSizePerClass());
    int64_t perClass = std::min(n, perClassConst ? (*perClassConst)[0] : n);
    int64_t slots = perClass * classes;
    bool clip = op.getClipBoxes();
    Value boxes = adaptor.getBoxes(), scores = adaptor.getScores();
    Value limit = nonnegativeIndex(rewriter, loc, adaptor.getMaxOutputSizePerClass());
    Value iouThreshold = scalarOf(rewriter, loc, adaptor.getIouThreshold());
    Value scoreThreshold = scalarOf(rewriter, loc, adaptor.getScoreThreshold());
    Value zeroF = scalarConstant(rewriter, loc, f32, 0);
    Value outBoxes = filledTensor(rewriter, loc, boxesOut, zeroF);
    Value outScores = filledTensor(rewriter, loc, scoresOut, zeroF);
    Value outClasses = filledTensor(rewriter, loc, scoresOut, zeroF);
    Value outValid = filledTensor(rewriter, loc, validOut, scalarConstant(rewriter, loc, i32, 0));
    auto idx = [](OpBuilder &b, Location l, int64_t v) { return indexConstant(b, l, v); };
    auto images = scf::ForOp::create(
        rewriter, loc, idx(rewriter, loc, 0), idx(rewriter, loc, batch), idx(rewriter, loc, 1),
        ValueRange{outBoxes, outScores, outClasses, outValid},
        [&](OpBuilder &b, Location l, Value image, ValueRange out) {
          auto slotType = [&](Type t) { return RankedTensorType::get({slots}, t); };
          Value slotScore = filledTensor(b, l, slotType(f32), zeroF);
          Value slotBox = filledTensor(b, l, slotType(i32), scalarConstant(b, l, i32, 0));
          Value slotUsed =
              filledTensor(b, l, slotType(i1), arith::ConstantIntOp::create(b, l, i1, 0));
          auto perClassLoop = scf::ForOp::create(
              b, l, idx(b, l, 0), idx(b, l, classes), idx(b, l, 1),
              ValueRange{slotScore, slotBox, slotUsed},
              [&](OpBuilder &cb, Location cl, Value cls, ValueRange slot) {
                Value boxColumn = q > 1 ? cls : idx(cb, cl, 0);
                Selection s = buildNonMaxSuppression(
                    cb, cl, n, perClass, limit, iouThreshold, scoreThreshold, Value(),
                    [&](OpBuilder &bb, Location bl, Value i) {
                      Box box;
                      for (int k = 0; k < 4; ++k)
                        box[k] = extractAt(bb, bl, boxes,
                                           {image, i, boxColumn, indexConstant(bb, bl, k)});
                      return box;
                    },
                    [&](OpBuilder &bb, Location bl, Value i) {
                      return extractAt(bb, bl, scores, {image, i, cls});
                    });
                Value base = arith::MulIOp::create(cb, cl, cls, idx(cb, cl, perClass));
                auto copy = scf::ForOp::create(
                    cb, cl, idx(cb, cl, 0), s.count, idx(cb, cl, 1), slot,
                    [&](OpBuilder &kb, Location kl, Value k, ValueRange into) {
                      Value at = arith::AddIOp::create(kb, kl, base, k);
                      Value sc = extractAt(kb, kl, s.scores, k);
                      Value bx = extractAt(kb, kl, s.indices, k);
                      Value yes = arith::ConstantIntOp::create(kb, kl, i1, 1);
                      scf::YieldOp::create(kb, kl,
                                           ValueRange{insertAt(kb, kl, sc, into[0], at),
                                                      insertAt(kb, kl, bx, into[1], at),
                                                      insertAt(kb, kl, yes, into[2], at)});
                    });
                scf::YieldOp::create(cb, cl, copy.getResults());
              });
          Value candScore = perClassLoop.getResult(0), candBox = perClassLoop.getResult(1);
          Value candUsed = perClassLoop.getResult(2);
          // The best `total` slots, best first.
          auto pick = scf::ForOp::create(
              b, l, idx(b, l, 0), idx(b, l, total), idx(b, l, 1),
              ValueRange{out[0], out[1], out[2], candUsed, idx(b, l, 0)},
              [&](OpBuilder &pb, Location pl, Value k, ValueRange st) {
                Value none = idx(pb, pl, slots);
                Value best = bestCandidate(pb, pl, slots, st[3], candScore);
                Value found = arith::CmpIOp::create(pb, pl, arith::CmpIPredicate::ne, best, none);
                auto write = scf::IfOp::create(
                    pb, pl, found,
                    [&](OpBuilder &tb, Location tl) {
                      Value box = toIndex(tb, tl, extractAt(tb, tl, candBox, best));
                      Value cls = arith::DivUIOp::create(tb, tl, best, idx(tb, tl, perClass));
                      Value boxColumn = q > 1 ? cls : idx(tb, tl, 0);
                      Value rows = st[0];
                      for (int c = 0; c < 4; ++c) {
                        Value v = extractAt(tb, tl, boxes, {image, box, boxColumn, idx(tb, tl, c)});
                        if (clip)
                          v = floatMax(tb, tl, floatMin(tb, tl, v, scalarConstant(tb, tl, f32, 1)),
                                       zeroF);
                        rows = insertAt(tb, tl, v, rows, {image, k, idx(tb, tl, c)});
                      }
                      Value sc = extractAt(tb, tl, candScore, best);
                      Value clsF = arith::UIToFPOp::create(
                          tb, tl, f32, arith::IndexCastOp::create(tb, tl, i32, cls));
                      Value no = arith::ConstantIntOp::create(tb, tl, i1, 0);
                      scf::YieldOp::create(
                          tb, tl,
                          ValueRange{rows, insertAt(tb, tl, sc, st[1], {image, k}),
                                     insertAt(tb, tl, clsF, st[2], {image, k}),
                                     insertAt(tb, tl, no, st[3], best),
                                     arith::AddIOp::create(tb, tl, st[4], idx(tb, tl, 1))});
                    },
                    [&](OpBuilder &tb, Location tl) { scf::YieldOp::create(tb, tl, st); });
                scf::YieldOp::create(pb, pl, write.getResults());
              });
          Value valid = arith::IndexCastOp::create(b, l, i32, pick.getResult(4));
          scf::YieldOp::create(b, l,
                               ValueRange{pick.getResult(0), pick.getResult(1), pick.getResult(2),
                                          insertAt(b, l, valid, out[3], image)});
        });
    rewriter.replaceOp(op, images.getResults());
    return success();
  }
};

} // namespace

void populateDataDependentPatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns
      .add<WhereLowering, UniqueLowering, NonMaxSuppressionLowering<tf::NonMaxSuppressionV3Op>,
           NonMaxSuppressionLowering<tf::NonMaxSuppressionV4Op>,
           NonMaxSuppressionLowering<tf::NonMaxSuppressionV5Op>, CombinedNonMaxSuppressionLowering>(
          converter, patterns.getContext());
}

} // namespace kiln::lower
