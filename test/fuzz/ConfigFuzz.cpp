//===- ConfigFuzz.cpp - tfcompile configs (text tf2xla.Config) -----------------===//
//
// One input is a config file: it must load or be rejected with an error diagnostic.
// Loaded, its feeds and fetches are applied to the bundled example MLP, which must then
// import or report why (a feed or fetch naming no node, a bad port, a wrong shape).
//
//===----------------------------------------------------------------------------===//
#include "MemoryFile.h"

#include "compiler/Import/Import.h"
#include "dialects/TF/TFDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#ifndef KILN_FUZZ_GRAPH
#error "KILN_FUZZ_GRAPH names the graph the configs are applied to"
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kiln_fuzz::MemoryFile file(data, size);
  mlir::MLIRContext context;
  context.loadDialect<kiln::tf::TFDialect, mlir::func::FuncDialect>();
  int errors = 0;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    errors += d.getSeverity() == mlir::DiagnosticSeverity::Error;
    return mlir::success();
  });
  kiln::import::ImportOptions options;
  options.importAllWithoutFetches = false;
  if (mlir::failed(kiln::import::loadConfigFile(file.path, options, &context))) {
    if (errors == 0) {
      llvm::errs() << "the config failed to load without an error message\n";
      std::abort();
    }
    return 0;
  }
  auto module = kiln::import::importGraphDefFile(KILN_FUZZ_GRAPH, options, &context);
  if (!module && errors == 0) {
    llvm::errs() << "the import with the config failed without an error message\n";
    std::abort();
  }
  if (module && mlir::failed(mlir::verify(*module))) {
    llvm::errs() << "the importer produced IR that does not verify\n";
    std::abort();
  }
  return 0;
}
