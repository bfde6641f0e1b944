//===- TFToLinalg.cpp - lower the tf dialect to upstream dialects -------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Passes.h"
#include "passes/Lower/Patterns/Patterns.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::lower {
#define GEN_PASS_DEF_TFTOLINALGPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;
using namespace kiln;

namespace {

/// Sequential code needs no control edges: drop them, then the ops that only carried them.
void dropControlDependencies(ModuleOp module) {
  module.walk([](tf::GraphOpInterface op) { op.getControlInputsMutable().clear(); });
  module.walk([](Operation *op) {
    // Assert's check is a kiln.check already (kiln-graph-insert-checks).
    if (isa<tf::NoOpOp, tf::AssertOp>(op) && op->use_empty())
      op->erase();
  });
}

} // namespace

namespace {

struct TFToLinalgPass : lower::impl::TFToLinalgPassBase<TFToLinalgPass> {
  using TFToLinalgPassBase::TFToLinalgPassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    dropControlDependencies(module);
    // kiln-lower-freeze-interface has reported every unknown shape by its cause; an op
    // with one here was not given to it.
    bool frozen = true;
    module.walk([&](Operation *op) {
      if (isa<tf::TFDialect>(op->getDialect()) && llvm::any_of(op->getResultTypes(), [](Type t) {
            auto shaped = dyn_cast<ShapedType>(t);
            return shaped && !shaped.hasStaticShape();
          })) {
        op->emitError() << "has a result of unknown shape; run kiln-lower-freeze-interface "
                           "first, which reports why";
        frozen = false;
      }
    });
    if (!frozen)
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    lower::TFTypeConverter converter;
    RewritePatternSet patterns(ctx);
    lower::populateStructurePatterns(converter, patterns);
    lower::populateControlFlowPatterns(converter, patterns);
    lower::populateListPatterns(converter, patterns);
    lower::populateElementwisePatterns(converter, patterns);
    lower::populateLinearAlgebraPatterns(converter, patterns);
    lower::populateShapePatterns(converter, patterns);
    lower::populateReductionPatterns(converter, patterns);
    lower::populateConvolutionPatterns(converter, patterns, winograd);
    lower::populateImagePatterns(converter, patterns);
    lower::populateDataDependentPatterns(converter, patterns);
    lower::populateScatterPatterns(converter, patterns);
    lower::populateDiagonalPatterns(converter, patterns);
    lower::populateRandomPatterns(converter, patterns);
    lower::populateSpecialPatterns(converter, patterns);
    lower::populateFactorizationPatterns(converter, patterns, runtimeChecks);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*ctx);
    target.addLegalOp<ModuleOp>();
    target.addIllegalDialect<tf::TFDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect, math::MathDialect,
                           scf::SCFDialect, tensor::TensorDialect, kiln::dialect::KilnDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
      return converter.isSignatureLegal(f.getFunctionType()) && converter.isLegal(&f.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp, kiln::dialect::CheckOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    // A pattern that reports why it cannot lower its op (a malformed attribute) has said
    // what is wrong in the user's terms: the conversion's own "failed to legalize" adds
    // only MLIR's view of it.
    bool reported = false;
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) -> LogicalResult {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      if (reported && StringRef(diag.str()).starts_with("failed to legalize operation"))
        return success();
      reported = true;
      return failure();
    });
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
