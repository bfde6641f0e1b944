//===- Functions.h - inlining a GraphDef's function library (internal) -*- C++ -*-===//
#ifndef KILN_COMPILER_IMPORT_FUNCTIONS_H
#define KILN_COMPILER_IMPORT_FUNCTIONS_H

#include "graph.pb.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"

namespace kiln::import {

/// The most nodes inlining may leave in a graph: a function that calls another twice, 40
/// levels deep, would otherwise ask for 2^40 copies.
inline constexpr int64_t kMaxInlinedNodes = int64_t(1) << 22;

/// Replaces every call of a function of `graph`'s library (a PartitionedCall or
/// StatefulPartitionedCall naming it in its `f` attribute, or a node whose op is the
/// function's name) by a copy of the function's body, its nodes named `CALL/NODE` and its
/// arguments `CALL/ARG` (Identity nodes of the call's inputs), with the caller's
/// attributes in place of the body's placeholders. The call node itself becomes an
/// Identity (one output), IdentityN (several) or NoOp (none) of the function's results,
/// waiting for its control outputs, so that what consumes `CALL:i` or `^CALL` is
/// unchanged. Calls inside the copied bodies are inlined in turn. The call's control
/// inputs hold back its arguments and the body's nodes that have no inputs; a body node
/// without a device takes the call's. Errors (an unknown function, a recursive one, a
/// wrong number of inputs, an output or attribute the body does not define, more than
/// kMaxInlinedNodes nodes) name `fileName`, the calling node and the function.
/// The functions come from `library`, or from `graph`'s own when it is null.
llvm::LogicalResult inlineFunctionCalls(tensorflow::GraphDef &graph, llvm::StringRef fileName,
                                        mlir::MLIRContext *context,
                                        const tensorflow::FunctionDefLibrary *library = nullptr);

} // namespace kiln::import

#endif // KILN_COMPILER_IMPORT_FUNCTIONS_H
