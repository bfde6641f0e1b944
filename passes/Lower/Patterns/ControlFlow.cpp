//===- ControlFlow.cpp - If and While to scf ----------------------------------===//
//
// tf.If becomes scf.if, tf.Case scf.index_switch and tf.While scf.while, their regions moved over
// as they are; the tf ops inside are lowered in turn by the other patterns, and tf.Yield becomes
// scf.yield, or scf.condition at the end of a loop's condition. One-shot bufferization then gives
// the loop variables buffers, and their allocations inside the loop get arena slots that stay
// reserved for the whole loop (Lifetimes.h).
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

/// Whether a converted condition tensor holds, as TensorFlow converts a tensor to a bool:
/// a scalar is true when nonzero, any other tensor when it has elements.
Value truth(OpBuilder &b, Location loc, Value cond) {
  auto type = cast<RankedTensorType>(cond.getType());
  if (type.getRank() != 0)
    return arith::ConstantIntOp::create(b, loc, type.getNumElements() > 0 ? 1 : 0, 1);
  Value value = tensor::ExtractOp::create(b, loc, cond, ValueRange{});
  Type element = value.getType();
  if (element.isInteger(1))
    return value;
  if (isa<FloatType>(element))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                 scalarConstant(b, loc, element, 0));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                               scalarConstant(b, loc, element, 0));
}

/// The converted result types of `op`, each a static tensor; failure otherwise.
LogicalResult convertResults(const TypeConverter *converter, Operation *op,
                             SmallVectorImpl<Type> &types) {
  for (Type type : op->getResultTypes()) {
    RankedTensorType converted = staticTensorType(converter, type);
    if (!converted)
      return failure();
    types.push_back(converted);
  }
  return success();
}

/// Moves a branch's block into `to` (an scf region), its arguments replaced by `inputs`.
void moveBranch(ConversionPatternRewriter &rewriter, Region &from, Region &to, ValueRange inputs) {
  if (to.empty())
    rewriter.createBlock(&to);
  Block *block = &to.front();
  if (!block->empty())
    rewriter.eraseOp(&block->back()); // a builder's empty scf.yield
  rewriter.inlineBlockBefore(&from.front(), block, block->end(), inputs);
}

struct IfLowering : OpConversionPattern<tf::IfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::IfOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(convertResults(getTypeConverter(), op, types)) ||
        !isa<RankedTensorType>(adaptor.getCond().getType()))
      return rewriter.notifyMatchFailure(op, "needs static types");
    Location loc = op.getLoc();
    Value cond = truth(rewriter, loc, adaptor.getCond());
    auto ifOp = scf::IfOp::create(rewriter, loc, types, cond, /*withElseRegion=*/true);
    ValueRange inputs = adaptor.getInputsAndControls().take_front(op.getNumInputs());
    moveBranch(rewriter, op.getThenBranch(), ifOp.getThenRegion(), inputs);
    moveBranch(rewriter, op.getElseBranch(), ifOp.getElseRegion(), inputs);
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

/// scf.index_switch on the branch index: cases 0 to N-2, the last branch the default (an
/// index out of range runs it, as in TensorFlow).
struct CaseLowering : OpConversionPattern<tf::CaseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::CaseOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(convertResults(getTypeConverter(), op, types)) ||
        !isa<RankedTensorType>(adaptor.getBranchIndex().getType()))
      return rewriter.notifyMatchFailure(op, "needs static types");
    Location loc = op.getLoc();
    Value index = tensor::ExtractOp::create(rewriter, loc, adaptor.getBranchIndex(), ValueRange{});
    index = arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), index);
    unsigned n = op.getBranches().size();
    SmallVector<int64_t> cases;
    for (unsigned i = 0; i + 1 < n; ++i)
      cases.push_back(i);
    auto switchOp = scf::IndexSwitchOp::create(rewriter, loc, types, index, cases, n - 1);
    ValueRange inputs = adaptor.getInputsAndControls().take_front(op.getNumInputs());
    for (unsigned i = 0; i < n; ++i)
      moveBranch(rewriter, op.getBranches()[i],
                 i + 1 < n ? switchOp.getCaseRegions()[i] : switchOp.getDefaultRegion(), inputs);
    rewriter.replaceOp(op, switchOp.getResults());
    return success();
  }
};

struct WhileLowering : OpConversionPattern<tf::WhileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::WhileOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(convertResults(getTypeConverter(), op, types)))
      return rewriter.notifyMatchFailure(op, "needs static types");
    // kiln-graph-infer-shapes unrolls or rejects a body that changes a variable's shape.
    if (op.getBody().front().getTerminator()->getOperandTypes() != op.getResultTypes())
      return rewriter.notifyMatchFailure(op, "the body changes a loop variable's type");
    ValueRange inputs = adaptor.getInputsAndControls().take_front(op.getNumInputs());
    auto whileOp = scf::WhileOp::create(rewriter, op.getLoc(), types, inputs);
    rewriter.inlineRegionBefore(op.getCond(), whileOp.getBefore(), whileOp.getBefore().end());
    rewriter.inlineRegionBefore(op.getBody(), whileOp.getAfter(), whileOp.getAfter().end());
    if (failed(rewriter.convertRegionTypes(&whileOp.getBefore(), *getTypeConverter())) ||
        failed(rewriter.convertRegionTypes(&whileOp.getAfter(), *getTypeConverter())))
      return rewriter.notifyMatchFailure(op, "cannot convert the loop variables' types");
    rewriter.replaceOp(op, whileOp.getResults());
    return success();
  }
};

/// The end of a region that was a tf.If's or tf.While's: scf.yield, or scf.condition
/// passing the loop variables on when it ends a loop's condition.
struct YieldLowering : OpConversionPattern<tf::YieldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tf::YieldOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto loop = dyn_cast<scf::WhileOp>(op->getParentOp());
    if (loop && op->getParentRegion() == &loop.getBefore()) {
      if (adaptor.getValues().size() != 1 ||
          !isa<RankedTensorType>(adaptor.getValues()[0].getType()))
        return rewriter.notifyMatchFailure(op, "a loop's condition yields one tensor");
      Value cond = truth(rewriter, op.getLoc(), adaptor.getValues()[0]);
      rewriter.replaceOpWithNewOp<scf::ConditionOp>(op, cond,
                                                    loop.getBefore().front().getArguments());
      return success();
    }
    if (!isa<scf::IfOp, scf::IndexSwitchOp, scf::WhileOp>(op->getParentOp()))
      return rewriter.notifyMatchFailure(op, "its If or While is not lowered yet");
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, adaptor.getValues());
    return success();
  }
};

} // namespace

void populateControlFlowPatterns(const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<IfLowering, CaseLowering, WhileLowering, YieldLowering>(converter,
                                                                       patterns.getContext());
}

} // namespace kiln::lower
