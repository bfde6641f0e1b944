//===- ApproximateMath.cpp - vectorizable polynomials for math functions -------===//
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <set>

namespace kiln::lower {
#define GEN_PASS_DEF_APPROXIMATEMATHPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

/// Replaces `op`, if it is a `From`, by the LLVM intrinsic `To` of the same operands.
template <class From, class To> bool intrinsic(Operation *op) {
  if (!isa<From>(op))
    return false;
  OpBuilder b(op);
  Value v = To::create(b, op->getLoc(), op->getResultTypes(), op->getOperands(),
                       ArrayRef<NamedAttribute>{})
                .getResult();
  op->getResult(0).replaceAllUsesWith(v);
  op->erase();
  return true;
}

struct ApproximateMathPass : kiln::lower::impl::ApproximateMathPassBase<ApproximateMathPass> {
  using ApproximateMathPassBase::ApproximateMathPassBase;

  void runOnOperation() override {
    std::set<std::string> chosen(functions.begin(), functions.end());
    RewritePatternSet patterns(&getContext());
    // The predicate sees full op names ("math.tanh").
    populateMathPolynomialApproximationPatterns(patterns, [&](StringRef name) {
      name.consume_front("math.");
      return chosen.count(name.str()) > 0;
    });
    llvm::DenseSet<Operation *> conversions;
    getOperation().walk([&](arith::FPToSIOp op) { conversions.insert(op); });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // The approximations' range reductions convert a float to an integer (exp's exponent),
    // which for NaN is poison in LLVM: where LLVM can see the NaN (a constant graph folded
    // whole), the poison spreads past the approximations' own NaN handling. Their
    // conversions read 0 instead of NaN; the NaN still reaches the result through the
    // other operands.
    getOperation().walk([&](arith::FPToSIOp op) {
      if (conversions.contains(op))
        return;
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value in = op.getIn();
      Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, in, in);
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(in.getType()));
      op.getInMutable().assign(arith::SelectOp::create(b, loc, isNaN, zero, in));
    });
    // The approximations compute with math.fma and math.floor, which convert-math-to-libm
    // would turn into calls of fmaf and floorf: one call per element wherever LLVM does
    // not vectorize the loop (a softmax's exp inside its sum, whose float reduction
    // keeps its order). The exactly rounded operations become LLVM intrinsics (one
    // instruction each) right away; they give libm's results bit for bit.
    // Only f32 and f64: narrower floats are computed in f32 later
    // (math-extend-to-supported-types).
    getOperation().walk([](Operation *op) {
      // convert-math-to-libm refuses math.ctpop (it has no libm function), whatever its
      // width: LLVM's intrinsic is one instruction.
      if (intrinsic<math::CtPopOp, LLVM::CtPopOp>(op))
        return;
      if (op->getNumResults() != 1 ||
          !(op->getResult(0).getType().isF32() || op->getResult(0).getType().isF64()))
        return;
      intrinsic<math::FmaOp, LLVM::FMAOp>(op) || intrinsic<math::FloorOp, LLVM::FFloorOp>(op) ||
          intrinsic<math::CeilOp, LLVM::FCeilOp>(op) ||
          intrinsic<math::TruncOp, LLVM::FTruncOp>(op) ||
          intrinsic<math::RoundEvenOp, LLVM::RoundEvenOp>(op) ||
          intrinsic<math::RoundOp, LLVM::RoundOp>(op) ||
          intrinsic<math::SqrtOp, LLVM::SqrtOp>(op) || intrinsic<math::AbsFOp, LLVM::FAbsOp>(op);
    });
  }
};

} // namespace
