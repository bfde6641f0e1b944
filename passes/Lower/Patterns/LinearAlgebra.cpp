//===- LinearAlgebra.cpp - MatMul and BiasAdd ---------------------------------===//
#include "passes/Lower/Patterns/Patterns.h"
#include "dialects/TF/TFOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

namespace kiln::lower {
namespace {

/// C[m, n] = sum_k A[m, k] * B[k, n], with A and B read transposed when asked: one
/// linalg.generic contraction over (m, n, k).
struct MatMulLowering : OpConversionPattern<tf::MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::MatMulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getProduct().getType()));
    if (!resultType || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a static result shape");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr m, n, k;
    bindDims(ctx, m, n, k);
    AffineMap aMap = AffineMap::get(3, 0, op.getTransposeA() ? ArrayRef{k, m} : ArrayRef{m, k}, ctx);
    AffineMap bMap = AffineMap::get(3, 0, op.getTransposeB() ? ArrayRef{n, k} : ArrayRef{k, n}, ctx);
    AffineMap cMap = AffineMap::get(3, 0, {m, n}, ctx);
    ElementKind kind = kindOf(getElementTypeOrSelf(op.getA().getType()));
    Value zero = scalarConstant(rewriter, loc, resultType.getElementType(), 0);
    Value init = filledTensor(rewriter, loc, resultType, zero);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{adaptor.getA(), adaptor.getB()},
        ValueRange{init}, ArrayRef<AffineMap>{aMap, bMap, cMap},
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                      utils::IteratorType::parallel,
                                      utils::IteratorType::reduction},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value product, sum;
          if (kind == ElementKind::Float) {
            product = arith::MulFOp::create(b, l, args[0], args[1]);
            sum = arith::AddFOp::create(b, l, args[2], product);
          } else {
            product = arith::MulIOp::create(b, l, args[0], args[1]);
            sum = arith::AddIOp::create(b, l, args[2], product);
          }
          linalg::YieldOp::create(b, l, sum);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct BiasAddLowering : OpConversionPattern<tf::BiasAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::BiasAddOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto resultType = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getOutput().getType()));
    if (!resultType || !resultType.hasStaticShape())
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

} // namespace

void populateLinearAlgebraPatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns) {
  patterns.add<MatMulLowering, BiasAddLowering>(converter, patterns.getContext());
}

} // namespace kiln::lower
