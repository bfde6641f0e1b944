//===- Structure.cpp - Const, Identity and IdentityN --------------------------===//
#include "dialects/Kiln/KilnDialect.h"
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

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

/// A tensor of `type`'s shape with `element` elements.
RankedTensorType withElement(RankedTensorType type, Type element) {
  return RankedTensorType::get(type.getShape(), element);
}

/// The upper 16 bits of each f32 of `value` (bfloat16 by truncation, the paper's lossy
/// transfer compression): a NaN whose payload is all in the lower bits keeps the quiet bit
/// so that it stays a NaN instead of becoming an infinity.
Value truncateToUpperHalves(OpBuilder &b, Location loc, Value value) {
  auto type = withElement(cast<RankedTensorType>(value.getType()), b.getI16Type());
  return buildElementwise(b, loc, type, value, [](OpBuilder &b, Location loc, ValueRange x) {
    Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), x[0]);
    Value upper = arith::TruncIOp::create(
        b, loc, b.getI16Type(),
        arith::ShRUIOp::create(b, loc, bits, scalarConstant(b, loc, b.getI32Type(), 16)));
    Value quiet = arith::OrIOp::create(b, loc, upper, scalarConstant(b, loc, b.getI16Type(), 0x40));
    Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x[0], x[0]);
    return arith::SelectOp::create(b, loc, nan, quiet, upper).getResult();
  });
}

/// The f32s whose upper 16 bits `value` holds, the lower 16 zero.
Value widenUpperHalves(OpBuilder &b, Location loc, Value value) {
  auto type = withElement(cast<RankedTensorType>(value.getType()), b.getF32Type());
  return buildElementwise(b, loc, type, value, [](OpBuilder &b, Location loc, ValueRange x) {
    Value bits = arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, b.getI32Type(), x[0]),
                                       scalarConstant(b, loc, b.getI32Type(), 16));
    return arith::BitcastOp::create(b, loc, b.getF32Type(), bits).getResult();
  });
}

bool compressed(Operation *op, Type element) {
  return op->hasAttr(tf::kCompressedAttr) && element.isF32();
}

/// _Send and _Recv become the kiln dialect's send and recv, which bufferize and then call
/// the runtime's rendezvous (kiln-lower-rendezvous-calls). A pair kiln-graph-partition
/// marked compressed sends the upper halves of its f32s and widens them on receipt.
struct SendLowering : OpConversionPattern<tf::SendOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::SendOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value value = adaptor.getTensor();
    if (compressed(op, getElementTypeOrSelf(value.getType()))) {
      if (!isa<RankedTensorType>(value.getType()))
        return rewriter.notifyMatchFailure(op, "a compressed send needs a ranked tensor");
      value = truncateToUpperHalves(rewriter, op.getLoc(), value);
    }
    rewriter.replaceOpWithNewOp<kiln::dialect::SendOp>(op, value, op.getTensorNameAttr());
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
    bool compress = compressed(op, type.getElementType());
    RankedTensorType wire = compress ? withElement(type, rewriter.getI16Type()) : type;
    Value dest =
        tensor::EmptyOp::create(rewriter, op.getLoc(), wire.getShape(), wire.getElementType());
    Value received =
        kiln::dialect::RecvOp::create(rewriter, op.getLoc(), wire, op.getTensorNameAttr(), dest)
            .getResult();
    rewriter.replaceOp(op, compress ? widenUpperHalves(rewriter, op.getLoc(), received) : received);
    return success();
  }
};

} // namespace

void populateStructurePatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ConstLowering, IdentityLowering, IdentityNLowering, SendLowering, RecvLowering,
               CheckTypes>(converter, patterns.getContext());
}

} // namespace kiln::lower
