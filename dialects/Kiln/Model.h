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

/// The module's kiln.model, or null when it has none.
ModelOp getModel(mlir::ModuleOp module);

/// Replaces every part of the model's entry points that runs `function` with what
/// `update` makes of it; returns whether there was one.
bool updateParts(mlir::ModuleOp module, llvm::StringRef function,
                 llvm::function_ref<PartAttr(PartAttr)> update);

} // namespace kiln::dialect

#endif // KILN_DIALECTS_KILN_MODEL_H
