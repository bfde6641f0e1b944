//===- TFToLinalg.cpp - lower the tf dialect to upstream dialects -------------===//
#include "passes/Lower/Passes.h"
#include "passes/Lower/Patterns/Patterns.h"
#include "dialects/TF/TFOps.h"

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
  module.walk([](tf::NoOpOp op) {
    if (op->use_empty())
      op->erase();
  });
}

} // namespace

LogicalResult lower::checkLowerable(ModuleOp module) {
  // A feed without a static shape is the cause of every unknown shape downstream of it.
  bool ok = true;
  for (auto func : module.getOps<func::FuncOp>()) {
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      auto shaped = dyn_cast<ShapedType>(type);
      if (!shaped || shaped.hasStaticShape())
        continue;
      auto name = func.getArgAttrOfType<StringAttr>(i, "kiln.name");
      func.emitError() << "input '" << (name ? name.getValue() : StringRef("?"))
                       << "' has the shape " << tf::describeType(type)
                       << "; give it a static shape (--feed NAME=DTYPE[DIMS])";
      ok = false;
    }
  }
  if (!ok)
    return failure();
  module.walk([&](Operation *op) {
    if (!isa<tf::TFDialect>(op->getDialect()))
      return;
    if (isa<tf::PlaceholderOp>(op)) {
      op->emitError() << "Placeholder is needed by a fetch but is not fed; give it with "
                         "--feed or in the config";
      ok = false;
      return;
    }
    for (Type t : op->getResultTypes()) {
      auto shaped = dyn_cast<ShapedType>(t);
      if (shaped && !shaped.hasStaticShape()) {
        op->emitError() << "its output has the shape " << tf::describeType(t)
                        << ", not fully known; give static shapes for the feeds";
        ok = false;
        return;
      }
    }
  });
  return success(ok);
}

namespace {

struct TFToLinalgPass : lower::impl::TFToLinalgPassBase<TFToLinalgPass> {
  using TFToLinalgPassBase::TFToLinalgPassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    dropControlDependencies(module);
    if (failed(lower::checkLowerable(module)))
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    lower::TFTypeConverter converter;
    RewritePatternSet patterns(ctx);
    lower::populateStructurePatterns(converter, patterns);
    lower::populateElementwisePatterns(converter, patterns);
    lower::populateLinearAlgebraPatterns(converter, patterns);
    lower::populateShapePatterns(converter, patterns);
    lower::populateReductionPatterns(converter, patterns);
    lower::populateConvolutionPatterns(converter, patterns, winograd);
    lower::populateImagePatterns(converter, patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*ctx);
    target.addLegalOp<ModuleOp>();
    target.addIllegalDialect<tf::TFDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect, math::MathDialect,
                           scf::SCFDialect, tensor::TensorDialect,
                           kiln::dialect::KilnDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
      return converter.isSignatureLegal(f.getFunctionType()) &&
             converter.isLegal(&f.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp, kiln::dialect::CheckOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
