//===- FuzzChecks.h - what every compiler fuzz target asserts ------------------===//
//
// An input either goes through a stage or is rejected with an error diagnostic; what a
// stage leaves must verify. Anything else aborts, which the fuzzer reports as a finding.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_TEST_FUZZ_FUZZCHECKS_H
#define KILN_TEST_FUZZ_FUZZCHECKS_H

#include "compiler/Init/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace kiln_fuzz {

/// Counts the errors reported in a context (and keeps them off standard error) while it
/// lives.
class ErrorCounter {
public:
  explicit ErrorCounter(mlir::MLIRContext *context)
      : handler(context, [this](mlir::Diagnostic &d) {
          errors += d.getSeverity() == mlir::DiagnosticSeverity::Error;
          return mlir::success();
        }) {}

  /// Aborts when `stage` failed without an error message.
  void expectReported(bool failed, const char *stage) const {
    if (failed && errors == 0) {
      llvm::errs() << stage << " failed without an error message\n";
      std::abort();
    }
  }

  int errors = 0;

private:
  mlir::ScopedDiagnosticHandler handler;
};

/// Every dialect and interface the compiler registers, made once for every input.
inline const mlir::DialectRegistry &registry() {
  static const mlir::DialectRegistry *r = [] {
    auto *reg = new mlir::DialectRegistry;
    kiln::registerAllDialects(*reg);
    return reg;
  }();
  return *r;
}

/// Aborts when `module`, which `stage` produced, does not verify.
inline void expectVerifies(mlir::ModuleOp module, const char *stage) {
  if (mlir::failed(mlir::verify(module))) {
    llvm::errs() << stage << " produced IR that does not verify\n";
    std::abort();
  }
}

} // namespace kiln_fuzz

#endif // KILN_TEST_FUZZ_FUZZCHECKS_H
