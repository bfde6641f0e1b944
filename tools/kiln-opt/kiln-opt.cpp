//===- kiln-opt.cpp - run Kiln and upstream MLIR passes -----------------------===//
#include "compiler/Init/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kiln::registerAllDialects(registry);
  kiln::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
