//===- Model.h - building a model's interface ----------------------*- C++ -*-===//
#ifndef KILN_DIALECTS_KILN_MODEL_H
#define KILN_DIALECTS_KILN_MODEL_H

#include "dialects/Kiln/KilnDialect.h"

namespace kiln::dialect {

/// Appends `kiln.model "name"` to `module` with one stateless entry point, `run`,
/// running `function` on `feeds` and returning `fetches` (#kiln.tensor each).
ModelOp createSingleEntryModel(mlir::ModuleOp module, mlir::Location loc, llvm::StringRef name,
                               mlir::FlatSymbolRefAttr function,
                               llvm::ArrayRef<mlir::Attribute> feeds,
                               llvm::ArrayRef<mlir::Attribute> fetches);

} // namespace kiln::dialect

#endif // KILN_DIALECTS_KILN_MODEL_H
