//===- LinearAlgebra.cpp - MatMul and BiasAdd ---------------------------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

namespace kiln::lower {

Value buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs, RankedTensorType resultType,
                  bool transposeA, bool transposeB, ElementKind kind) {
  MLIRContext *ctx = b.getContext();
  // Loops (m, k, n): with n innermost, B and C are read along their rows, which LLVM
  // vectorizes; kiln-lower-kernel-calls recognises this form.
  AffineExpr m, n, k;
  bindDims(ctx, m, k, n);
  AffineMap aMap = AffineMap::get(3, 0, transposeA ? ArrayRef{k, m} : ArrayRef{m, k}, ctx);
  AffineMap bMap = AffineMap::get(3, 0, transposeB ? ArrayRef{n, k} : ArrayRef{k, n}, ctx);
  AffineMap cMap = AffineMap::get(3, 0, {m, n}, ctx);
  Value zero = scalarConstant(b, loc, resultType.getElementType(), 0);
  Value init = filledTensor(b, loc, resultType, zero);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{lhs, rhs}, ValueRange{init},
      ArrayRef<AffineMap>{aMap, bMap, cMap},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel, utils::IteratorType::reduction,
                                    utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, multiplyAdd(nb, l, kind, args[0], args[1], args[2]));
      });
  return generic.getResult(0);
}

namespace {

/// C[m, n] = sum_k A[m, k] * B[k, n], with A and B read transposed when asked.
struct MatMulLowering : OpConversionPattern<tf::MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::MatMulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getProduct().getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a static result shape");
    rewriter.replaceOp(op, buildMatmul(rewriter, op.getLoc(), adaptor.getA(), adaptor.getB(),
                                       resultType, op.getTransposeA(), op.getTransposeB(),
                                       kindOf(getElementTypeOrSelf(op.getA().getType()))));
    return success();
  }
};

struct BiasAddLowering : OpConversionPattern<tf::BiasAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::BiasAddOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(getTypeConverter(), op.getOutput().getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "needs a static result shape");
    int64_t rank = resultType.getRank();
    int64_t channel = (op.getDataFormat() == "NCHW" && rank > 2) ? 1 : rank - 1;
    MLIRContext *ctx = rewriter.getContext();
    AffineMap valueMap = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap biasMap = AffineMap::get(rank, 0, getAffineDimExpr(channel, ctx));
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getValue().getType()));
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), resultType, {adaptor.getValue(), adaptor.getBias()},
        {valueMap, biasMap}, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          if (kind == ElementKind::Float)
            return arith::AddFOp::create(b, l, args[0], args[1]);
          return arith::AddIOp::create(b, l, args[0], args[1]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Batched matmul: one contraction generic over (batch..., m, k, n); each input's batch
/// dimensions broadcast NumPy-style (aligned at the end, size 1 repeats).
template <typename OpT> struct BatchMatMulLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = staticTensorType(this->getTypeConverter(), op.getOutput().getType());
    auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
    auto yType = dyn_cast<RankedTensorType>(adaptor.getY().getType());
    if (!resultType || !xType || !yType)
      return rewriter.notifyMatchFailure(op, "needs static shapes");
    MLIRContext *ctx = rewriter.getContext();
    // Loops (batch..., m, k, n), n innermost as in MatMul.
    int64_t batch = resultType.getRank() - 2, loops = batch + 3;
    AffineExpr m = getAffineDimExpr(batch, ctx), k = getAffineDimExpr(batch + 1, ctx),
               n = getAffineDimExpr(batch + 2, ctx);
    auto operandMap = [&](RankedTensorType t, bool adjoint, AffineExpr rows, AffineExpr cols) {
      SmallVector<AffineExpr> exprs;
      int64_t tb = t.getRank() - 2;
      for (int64_t i = 0; i < tb; ++i) {
        int64_t loop = batch - tb + i;
        bool repeat = t.getDimSize(i) == 1 && resultType.getDimSize(loop) != 1;
        exprs.push_back(repeat ? getAffineConstantExpr(0, ctx) : getAffineDimExpr(loop, ctx));
      }
      exprs.push_back(adjoint ? cols : rows);
      exprs.push_back(adjoint ? rows : cols);
      return AffineMap::get(loops, 0, exprs, ctx);
    };
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < batch; ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    outExprs.append({m, n});
    SmallVector<utils::IteratorType> iterators(loops, utils::IteratorType::parallel);
    iterators[batch + 1] = utils::IteratorType::reduction;
    Location loc = op.getLoc();
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getX().getType()));
    Value init = filledTensor(rewriter, loc, resultType,
                              scalarConstant(rewriter, loc, resultType.getElementType(), 0));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{adaptor.getX(), adaptor.getY()},
        ValueRange{init},
        ArrayRef<AffineMap>{operandMap(xType, op.getAdjX(), m, k),
                            operandMap(yType, op.getAdjY(), k, n),
                            AffineMap::get(loops, 0, outExprs, ctx)},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, multiplyAdd(b, l, kind, args[0], args[1], args[2]));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void populateLinearAlgebraPatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MatMulLowering, BiasAddLowering, BatchMatMulLowering<tf::BatchMatMulOp>,
               BatchMatMulLowering<tf::BatchMatMulV2Op>>(converter, patterns.getContext());
}

} // namespace kiln::lower
