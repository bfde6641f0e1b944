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

struct ApproximateMathPass
    : kiln::lower::impl::ApproximateMathPassBase<ApproximateMathPass> {
  using ApproximateMathPassBase::ApproximateMathPassBase;

  void runOnOperation() override {
    std::set<std::string> chosen(functions.begin(), functions.end());
    RewritePatternSet patterns(&getContext());
    // The predicate sees full op names ("math.tanh").
    populateMathPolynomialApproximationPatterns(patterns, [&](StringRef name) {
      name.consume_front("math.");
      return chosen.count(name.str()) > 0;
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // The approximations compute with math.fma, which convert-math-to-libm would turn into
    // calls of fmaf: make them the LLVM intrinsic (one instruction) right away.
    getOperation().walk([](math::FmaOp fma) {
      OpBuilder b(fma);
      fma.replaceAllUsesWith(LLVM::FMAOp::create(b, fma.getLoc(), fma.getA(), fma.getB(),
                                                 fma.getC())
                                 .getResult());
      fma.erase();
    });
  }
};

} // namespace
