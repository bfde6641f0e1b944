//===- Structure.cpp - Const, Identity and IdentityN --------------------------===//
#include "passes/Lower/Patterns/Patterns.h"
#include "dialects/Kiln/KilnDialect.h"
#include "dialects/TF/TFOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::lower {
namespace {

struct ConstLowering : OpConversionPattern<tf::ConstOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::ConstOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getOutput().getType());
    auto value = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!type || !value)
      return rewriter.notifyMatchFailure(op, "needs a dense value of ranked type");
    if (value.getElementType() != type.getElementType())
      value = value.bitcast(type.getElementType());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, value);
    return success();
  }
};

struct IdentityLowering : OpConversionPattern<tf::IdentityOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::IdentityOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

struct IdentityNLowering : OpConversionPattern<tf::IdentityNOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::IdentityNOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInputsAndControls().take_front(op.getNumResults()));
    return success();
  }
};

/// kiln.check keeps checking its operand once the operand's type is converted (unsigned
/// integers to signless; the op says the values are unsigned already).
struct CheckTypes : OpConversionPattern<kiln::dialect::CheckOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(kiln::dialect::CheckOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.modifyOpInPlace(op, [&] { op.getSubjectMutable().assign(adaptor.getSubject()); });
    return success();
  }
};

/// _Send and _Recv become the kiln dialect's send and recv, which bufferize and then call
/// the runtime's rendezvous (kiln-lower-rendezvous-calls).
struct SendLowering : OpConversionPattern<tf::SendOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::SendOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<kiln::dialect::SendOp>(op, adaptor.getTensor(),
                                                       op.getTensorNameAttr());
    return success();
  }
};

struct RecvLowering : OpConversionPattern<tf::RecvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::RecvOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto type = staticTensorType(getTypeConverter(), op.getTensor().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "needs a static shape");
    Value dest = tensor::EmptyOp::create(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType());
    rewriter.replaceOpWithNewOp<kiln::dialect::RecvOp>(op, type, op.getTensorNameAttr(), dest);
    return success();
  }
};

} // namespace

void populateStructurePatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ConstLowering, IdentityLowering, IdentityNLowering, SendLowering, RecvLowering,
               CheckTypes>(converter, patterns.getContext());
}

} // namespace kiln::lower
