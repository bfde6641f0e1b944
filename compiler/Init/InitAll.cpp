//===- InitAll.cpp - dialects and passes every Kiln tool knows ----------------===//
#include "compiler/Init/InitAll.h"
#include "codegen/KilnToLLVM/Passes.h"
#include "compiler/Pipelines/Pipelines.h"
#include "dialects/Kiln/KilnDialect.h"
#include "dialects/TF/TFDialect.h"
#include "passes/RegisterAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

void kiln::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<kiln::tf::TFDialect, kiln::dialect::KilnDialect>();
  kiln::dialect::registerBufferizableOpInterfaces(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
}

void kiln::registerAllPasses() {
  mlir::registerAllPasses();
  kiln::registerAllKilnPasses();
  kiln::codegen::registerKilnCodegenPasses();
  kiln::pipelines::registerPipelines();
}
