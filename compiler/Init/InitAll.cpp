//===- InitAll.cpp - dialects and passes every Kiln tool knows ----------------===//
#include "compiler/Init/InitAll.h"
#include "codegen/GPU/Passes.h"
#include "codegen/KilnToLLVM/Passes.h"
#include "compiler/Pipelines/Pipelines.h"
#include "dialects/Kiln/KilnDialect.h"
#include "dialects/TF/TFDialect.h"
#include "passes/RegisterAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void kiln::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<kiln::tf::TFDialect, kiln::dialect::KilnDialect>();
  kiln::dialect::registerBufferizableOpInterfaces(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates GPU modules to LLVM IR (NVVM) on its way to PTX.
  mlir::registerAllToLLVMIRTranslations(registry);
}

void kiln::registerAllPasses() {
  mlir::registerAllPasses();
  kiln::registerAllKilnPasses();
  kiln::codegen::registerKilnCodegenPasses();
  kiln::codegen::gpu::registerKilnGPUPasses();
  kiln::pipelines::registerPipelines();
}
