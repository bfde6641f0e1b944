//===- GraphImporter.h - a parsed GraphDef to tf dialect (internal) ---*- C++ -*-===//
#ifndef KILN_COMPILER_IMPORT_GRAPHIMPORTER_H
#define KILN_COMPILER_IMPORT_GRAPHIMPORTER_H

#include "compiler/Import/Import.h"

#include "graph.pb.h"

namespace kiln::import {

/// Imports a parsed GraphDef whose function calls are already inlined
/// (inlineFunctionCalls): steps 1 to 5 of GraphImporter.cpp. Errors name `fileName`.
mlir::OwningOpRef<mlir::ModuleOp> importInlinedGraph(const tensorflow::GraphDef &graph,
                                                     llvm::StringRef fileName,
                                                     const ImportOptions &options,
                                                     mlir::MLIRContext *context);

} // namespace kiln::import

#endif // KILN_COMPILER_IMPORT_GRAPHIMPORTER_H
