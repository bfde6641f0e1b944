//===- Structure.cpp - Const, Identity and IdentityN --------------------------===//
#include "passes/Lower/Patterns/Patterns.h"
#include "dialects/TF/TFOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

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

/// The partitions run as one sequence on one thread, so a _Send/_Recv pair is a plain
/// value: the _Recv becomes what its _Send (same tensor_name) sends, and the _Send goes.
struct SendLowering : OpConversionPattern<tf::SendOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::SendOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

struct RecvLowering : OpConversionPattern<tf::RecvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::RecvOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    tf::SendOp send;
    op->getParentRegion()->walk([&](tf::SendOp s) {
      if (s.getTensorName() == op.getTensorName())
        send = s;
    });
    if (!send)
      return op.emitOpError() << "has no _Send of tensor '" << op.getTensorName()
                              << "' in this graph (receiving from another process is not "
                                 "supported yet)";
    Value sent = rewriter.getRemappedValue(send.getTensor());
    if (!sent)
      return rewriter.notifyMatchFailure(op, "the sent value is not converted yet");
    rewriter.replaceOp(op, sent);
    return success();
  }
};

} // namespace

void populateStructurePatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ConstLowering, IdentityLowering, IdentityNLowering, SendLowering, RecvLowering>(converter, patterns.getContext());
}

} // namespace kiln::lower
