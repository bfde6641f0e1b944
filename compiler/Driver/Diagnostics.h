//===- Diagnostics.h - `kiln compile`'s diagnostics, a line each -------*- C++ -*-===//
#ifndef KILN_COMPILER_DRIVER_DIAGNOSTICS_H
#define KILN_COMPILER_DRIVER_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kiln::driver {

/// `text` with control characters, DEL and bytes that are not UTF-8 escaped as \xNN (a
/// corrupt graph's names may hold any byte; a message is one line of text).
std::string printable(llvm::StringRef text);

/// Prints diagnostics as `kiln: error: GRAPH: node 'NAME': message`.
class DiagnosticPrinter {
public:
  DiagnosticPrinter(mlir::MLIRContext *ctx, llvm::StringRef graphPath, llvm::raw_ostream &os)
      : handler(ctx, [this](mlir::Diagnostic &d) { return print(d); }), graphPath(graphPath.str()),
        os(os) {}

  bool sawError() const { return errors > 0; }

private:
  mlir::LogicalResult print(mlir::Diagnostic &diag);

  mlir::ScopedDiagnosticHandler handler;
  std::string graphPath;
  llvm::raw_ostream &os;
  int errors = 0;
};

} // namespace kiln::driver

#endif // KILN_COMPILER_DRIVER_DIAGNOSTICS_H
