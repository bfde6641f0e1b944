//===- ConfigFuzz.cpp - tfcompile configs (text tf2xla.Config) -----------------===//
//
// One input is a config file: it must load or be rejected with an error diagnostic.
// Loaded, its feeds and fetches are applied to the bundled example MLP, which must then
// import or report why (a feed or fetch naming no node, a bad port, a wrong shape).
//
//===----------------------------------------------------------------------------===//
#include "FuzzChecks.h"
#include "MemoryFile.h"

#include "compiler/Import/Import.h"
#include "dialects/TF/TFDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

#ifndef KILN_FUZZ_GRAPH
#error "KILN_FUZZ_GRAPH names the graph the configs are applied to"
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kiln_fuzz::MemoryFile file(data, size);
  mlir::MLIRContext context;
  context.loadDialect<kiln::tf::TFDialect, mlir::func::FuncDialect>();
  kiln_fuzz::ErrorCounter counter(&context);
  kiln::import::ImportOptions options;
  options.importAllWithoutFetches = false;
  if (mlir::failed(kiln::import::loadConfigFile(file.path, options, &context))) {
    counter.expectReported(true, "loading the config");
    return 0;
  }
  auto module = kiln::import::importGraphDefFile(KILN_FUZZ_GRAPH, options, &context);
  counter.expectReported(!module, "the import with the config");
  if (module)
    kiln_fuzz::expectVerifies(*module, "the importer");
  return 0;
}
