//===- kiln-translate.cpp - import graphs, translate MLIR to LLVM IR ----------===//
#include "compiler/Import/Import.h"

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::registerAllTranslations();
  kiln::import::registerImportTranslation();
  kiln::import::registerTensorBundleTranslation();
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "Kiln translation tool"));
}
