//===- Variables.h - a SavedModel's variables as constants (internal) -*- C++ -*-===//
#ifndef KILN_COMPILER_IMPORT_VARIABLES_H
#define KILN_COMPILER_IMPORT_VARIABLES_H

#include "graph.pb.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace kiln::import {

/// Turns the variables that the nodes `roots` need (walking inputs backwards, stopping at
/// the nodes in `stops`) into constants holding their values in the checkpoint
/// `bundlePrefix` (a SavedModel's variables/variables), as TensorFlow's loader restores
/// them: the restore op `restoreOp` (the SaverDef's, on a graph whose function calls are
/// inlined) assigns each variable, through Identity nodes, an output of a RestoreV2 whose
/// tensor_names give the checkpoint key. A VariableV2 becomes a Const; a VarHandleOp
/// becomes a Const of its value, its ReadVariableOps Identity nodes of it. Errors (a
/// variable the restore op does not restore, one the signature writes, a key the
/// checkpoint lacks or holds with another dtype or shape, a damaged checkpoint) name
/// `fileName` and `what` (the signature), the variable and the key.
llvm::LogicalResult freezeVariables(tensorflow::GraphDef &graph, llvm::StringRef restoreOp,
                                    llvm::StringRef bundlePrefix, llvm::ArrayRef<std::string> roots,
                                    llvm::ArrayRef<std::string> stops, llvm::StringRef fileName,
                                    llvm::StringRef what, mlir::MLIRContext *context);

} // namespace kiln::import

#endif // KILN_COMPILER_IMPORT_VARIABLES_H
