//===- Diagonals.cpp - MatrixDiag*, MatrixDiagPart*, MatrixSetDiag*, Diag ------===//
//
// Each is a gather over its result: an element computes the diagonal d (= col - row) and
// the position on it that it reads or writes, as TensorFlow's kernels do, and reads the
// source there (indices clamped, so that no read leaves it) or takes the padding (or, for
// MatrixSetDiag, the input's element) where it is off the diagonals.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/Ops/Infer.h"
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::lower {
namespace {

/// Index arithmetic in a linalg body. (Each op's operands are built in named steps, so
/// that the ops come in one order whatever the compiler's order of evaluating arguments.)
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return indexConstant(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value select(Value test, Value x, Value y) { return arith::SelectOp::create(b, loc, test, x, y); }
  Value clamp(Value x, int64_t size) { return clampIndex(b, loc, x, size); }
  /// min(d, 0) and max(d, 0).
  Value below(Value d) {
    Value zero = c(0);
    return min(d, zero);
  }
  Value above(Value d) {
    Value zero = c(0);
    return max(d, zero);
  }
  /// The length of diagonal d of an m x n matrix: min(m + min(d, 0), n - max(d, 0)).
  Value length(Value d, int64_t m, int64_t n) {
    Value rows = add(c(m), below(d));
    Value cols = sub(c(n), above(d));
    return min(rows, cols);
  }
  /// Where diagonal d starts in a row of `maxLength` entries: 0 when it aligns left (a
  /// superdiagonal, d >= 0, with leftSuper, or a subdiagonal, d <= 0, with leftSub), else
  /// the padding before it (TensorFlow's ComputeOffset).
  Value offset(Value d, int64_t m, int64_t n, int64_t maxLength, const tf::DiagonalRange &r) {
    Value zero = c(0);
    Value left;
    if (r.leftSuper && r.leftSub)
      return zero;
    if (r.leftSuper)
      left = cmp(arith::CmpIPredicate::sge, d, zero);
    else if (r.leftSub)
      left = cmp(arith::CmpIPredicate::sle, d, zero);
    Value padded = sub(c(maxLength), length(d, m, n));
    return left ? select(left, zero, padded) : padded;
  }
};

/// The map that reads a scalar (rank-0 tensor) at every element of a rank-`rank` result.
AffineMap scalarMap(MLIRContext *ctx, int64_t rank) { return AffineMap::get(rank, 0, ctx); }

/// The diagonals of `input` ([B..., M, N]) as `resultType` ([B..., (count,) maxLength]).
Value buildDiagonalPart(OpBuilder &b, Location loc, Value input, Value padding,
                        RankedTensorType resultType, const tf::DiagonalRange &r) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t batch = inputType.getRank() - 2;
  int64_t m = inputType.getDimSize(batch), n = inputType.getDimSize(batch + 1);
  int64_t maxLength = resultType.getShape().back();
  int64_t rank = resultType.getRank();
  return buildParallelGeneric(b, loc, resultType, padding, scalarMap(b.getContext(), rank),
                              [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                                IndexMath x{nb, l};
                                SmallVector<Value> at;
                                for (int64_t i = 0; i < batch; ++i)
                                  at.push_back(linalg::IndexOp::create(nb, l, i));
                                Value d;
                                if (r.count() > 1) {
                                  Value hi = x.c(r.hi);
                                  Value j = linalg::IndexOp::create(nb, l, batch);
                                  d = x.sub(hi, j);
                                } else {
                                  d = x.c(r.lo);
                                }
                                Value i = linalg::IndexOp::create(nb, l, rank - 1);
                                Value p = x.sub(i, x.offset(d, m, n, maxLength, r));
                                Value zero = x.c(0);
                                Value started = x.cmp(arith::CmpIPredicate::sge, p, zero);
                                Value before =
                                    x.cmp(arith::CmpIPredicate::slt, p, x.length(d, m, n));
                                Value valid = x.both(started, before);
                                at.push_back(x.clamp(x.sub(p, x.below(d)), m));
                                at.push_back(x.clamp(x.add(p, x.above(d)), n));
                                Value value = tensor::ExtractOp::create(nb, l, input, at);
                                return x.select(valid, value, args[0]);
                              });
}

/// Matrices `resultType` ([B..., M, N]) holding `diagonal` ([B..., (count,) maxLength]) on
/// the diagonals of `r` and `fallback` elsewhere: a scalar (padding) or a tensor of the
/// result's type (MatrixSetDiag's input).
Value buildDiagonalMatrix(OpBuilder &b, Location loc, Value diagonal, Value fallback,
                          RankedTensorType resultType, const tf::DiagonalRange &r) {
  auto diagonalType = cast<RankedTensorType>(diagonal.getType());
  int64_t rank = resultType.getRank(), batch = rank - 2;
  int64_t m = resultType.getDimSize(batch), n = resultType.getDimSize(batch + 1);
  int64_t maxLength = diagonalType.getShape().back();
  auto fallbackType = cast<RankedTensorType>(fallback.getType());
  AffineMap map = fallbackType.getRank() == 0 ? scalarMap(b.getContext(), rank)
                                              : b.getMultiDimIdentityMap(rank);
  return buildParallelGeneric(
      b, loc, resultType, fallback, map, [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        IndexMath x{nb, l};
        SmallVector<Value> at;
        for (int64_t i = 0; i < batch; ++i)
          at.push_back(linalg::IndexOp::create(nb, l, i));
        Value row = linalg::IndexOp::create(nb, l, batch);
        Value col = linalg::IndexOp::create(nb, l, batch + 1);
        Value d = x.sub(col, row);
        Value lo = x.c(r.lo), hi = x.c(r.hi);
        Value fromLo = x.cmp(arith::CmpIPredicate::sge, d, lo);
        Value toHi = x.cmp(arith::CmpIPredicate::sle, d, hi);
        Value on = x.both(fromLo, toHi);
        if (r.count() > 1)
          at.push_back(x.clamp(x.sub(hi, d), r.count()));
        Value p = x.add(row, x.below(d));
        at.push_back(x.clamp(x.add(p, x.offset(d, m, n, maxLength, r)), maxLength));
        Value value = tensor::ExtractOp::create(nb, l, diagonal, at);
        return x.select(on, value, args[0]);
      });
}

/// The zero of `type`'s element as a rank-0 tensor.
Value zeroScalar(OpBuilder &b, Location loc, Type element) {
  auto type = RankedTensorType::get({}, element);
  Attribute zero = isa<FloatType>(element) ? Attribute(b.getFloatAttr(element, 0))
                                           : Attribute(b.getIntegerAttr(element, 0));
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, zero));
}

/// MatrixDiagPart, V2 and V3.
template <typename OpT> struct DiagonalPartLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(this->getTypeConverter(), op.getDiagonal().getType());
    auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    std::optional<tf::DiagonalRange> range = tf::diagonalRange(op);
    if (!type || !input || !input.hasStaticShape() || !range)
      return rewriter.notifyMatchFailure(op, "needs static shapes and a constant k");
    ValueRange operands = adaptor.getOperands();
    Value padding = operands.size() > 2 ? operands[2]
                                        : zeroScalar(rewriter, op.getLoc(), type.getElementType());
    rewriter.replaceOp(
        op, buildDiagonalPart(rewriter, op.getLoc(), adaptor.getInput(), padding, type, *range));
    return success();
  }
};

/// MatrixDiag, V2 and V3 (`Set` false: the padding, operand 4 or zero, off the diagonals)
/// and MatrixSetDiag, V2 and V3 (`Set`: the input there).
template <typename OpT, bool Set> struct DiagonalMatrixLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    auto diagonal = dyn_cast<RankedTensorType>(adaptor.getDiagonal().getType());
    std::optional<tf::DiagonalRange> range = tf::diagonalRange(op);
    if (!type || !diagonal || !diagonal.hasStaticShape() || !range)
      return rewriter.notifyMatchFailure(op, "needs static shapes and a constant k");
    ValueRange operands = adaptor.getOperands();
    Value fallback = Set ? operands[0]
                     : operands.size() > 4
                         ? operands[4]
                         : zeroScalar(rewriter, op.getLoc(), type.getElementType());
    rewriter.replaceOp(op, buildDiagonalMatrix(rewriter, op.getLoc(), adaptor.getDiagonal(),
                                               fallback, type, *range));
    return success();
  }
};

/// Diag and DiagPart: MatrixDiag and MatrixDiagPart of the flattened [N] and [N, N].
struct DiagLowering : OpConversionPattern<tf::DiagOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::DiagOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto input = dyn_cast<RankedTensorType>(adaptor.getDiagonal().getType());
    if (!type || !input || !input.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    int64_t n = input.getNumElements();
    Type element = type.getElementType();
    Value flat =
        reshapeTo(rewriter, loc, adaptor.getDiagonal(), RankedTensorType::get({n}, element));
    Value matrix = buildDiagonalMatrix(rewriter, loc, flat, zeroScalar(rewriter, loc, element),
                                       RankedTensorType::get({n, n}, element), {});
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, matrix, type));
    return success();
  }
};

struct DiagPartLowering : OpConversionPattern<tf::DiagPartOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::DiagPartOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getDiagonal().getType());
    auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!type || !input || !input.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    int64_t n = type.getNumElements();
    Type element = type.getElementType();
    Value matrix =
        reshapeTo(rewriter, loc, adaptor.getInput(), RankedTensorType::get({n, n}, element));
    Value diagonal = buildDiagonalPart(rewriter, loc, matrix, zeroScalar(rewriter, loc, element),
                                       RankedTensorType::get({n}, element), {});
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, diagonal, type));
    return success();
  }
};

} // namespace

void populateDiagonalPatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<
      DiagonalPartLowering<tf::MatrixDiagPartOp>, DiagonalPartLowering<tf::MatrixDiagPartV2Op>,
      DiagonalPartLowering<tf::MatrixDiagPartV3Op>, DiagonalMatrixLowering<tf::MatrixDiagOp, false>,
      DiagonalMatrixLowering<tf::MatrixDiagV2Op, false>,
      DiagonalMatrixLowering<tf::MatrixDiagV3Op, false>,
      DiagonalMatrixLowering<tf::MatrixSetDiagOp, true>,
      DiagonalMatrixLowering<tf::MatrixSetDiagV2Op, true>,
      DiagonalMatrixLowering<tf::MatrixSetDiagV3Op, true>, DiagLowering, DiagPartLowering>(
      converter, patterns.getContext());
}

} // namespace kiln::lower
