//===- Variables.h - a SavedModel's variables as constants (internal) -*- C++ -*-===//
#ifndef KILN_COMPILER_IMPORT_VARIABLES_H
#define KILN_COMPILER_IMPORT_VARIABLES_H

#include "graph.pb.h"
#include "saved_model.pb.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <map>
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
/// `fileName` and `what` (the signature), the variable and the key. `captured` gives more
/// keys (VarHandleOp node -> key, from capturedVariableKeys), which take precedence. A
/// variable passed into While, If, Case or a call becomes its value in a copy of each
/// function it reaches, whose ReadVariableOps become Identity nodes.
llvm::LogicalResult freezeVariables(tensorflow::GraphDef &graph, llvm::StringRef restoreOp,
                                    llvm::StringRef bundlePrefix, llvm::ArrayRef<std::string> roots,
                                    llvm::ArrayRef<std::string> stops,
                                    const std::map<std::string, std::string> &captured,
                                    llvm::StringRef fileName, llvm::StringRef what,
                                    mlir::MLIRContext *context);

/// The checkpoint keys of the variables that `graph`'s calls of TensorFlow 2 functions
/// capture (VarHandleOp node -> key), as TensorFlow 2's loader finds them: a call's input
/// after those of the function's signature is object `bound_inputs[k]` of `objects`, whose
/// key the checkpoint's object graph (the string under "_CHECKPOINTABLE_OBJECT_GRAPH" in
/// `bundlePrefix`) gives, its objects matched to `objects`' by name from the root. Empty
/// for a graph without an object graph (TensorFlow 1). Call it before calls are inlined;
/// errors name `fileName` and `what`, as freezeVariables's.
llvm::FailureOr<std::map<std::string, std::string>>
capturedVariableKeys(const tensorflow::GraphDef &graph, const tensorflow::SavedObjectGraph &objects,
                     llvm::StringRef bundlePrefix, llvm::StringRef fileName, llvm::StringRef what,
                     mlir::MLIRContext *context);

} // namespace kiln::import

#endif // KILN_COMPILER_IMPORT_VARIABLES_H
