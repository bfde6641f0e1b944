//===- Functionalize.h - TF1 control flow to If and While (internal) -*- C++ -*-===//
#ifndef KILN_COMPILER_IMPORT_FUNCTIONALIZE_H
#define KILN_COMPILER_IMPORT_FUNCTIONALIZE_H

#include "compiler/Import/Import.h"

#include "graph.pb.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace kiln::import {

/// A part of a graph that functionalizeControlFlow cut out as a function: a loop's
/// condition or body, or a branch of a conditional. Its nodes keep their names; each
/// argument is a Placeholder among them. It has no library of its own: the functions its
/// nodes name are the whole graph's.
struct GraphBody {
  tensorflow::GraphDef graph;
  std::vector<std::string> args; // the Placeholders, in argument order
  std::vector<TensorId> results;
};

/// Bodies by the function name the While and If nodes give in their attributes.
using GraphBodies = std::map<std::string, GraphBody>;

/// Whether `graph` holds TensorFlow 1 control flow: Switch, Merge, Enter, Exit,
/// NextIteration or LoopCond nodes.
bool hasV1ControlFlow(const tensorflow::GraphDef &graph);

/// Whether `op` is one of TensorFlow 1's TensorArray ops (TensorArrayV3, TensorArrayWriteV3
/// ...).
bool isTensorArrayOp(llvm::StringRef op);

/// Rewrites TensorFlow 1 TensorArrays (TensorArrayV3 and its Write, Read, Gather, Scatter,
/// Size and Close) as TensorLists whose list is the array's flow, as TensorFlow 2 does;
/// the handle and what carries it (Enter, Identity) go. Run before
/// functionalizeControlFlow, which then sees the flow as an ordinary loop variable. Errors
/// (a dynamic_size array, another TensorArray op, a handle read by anything else) name
/// `fileName` and the node.
llvm::LogicalResult rewriteTensorArrays(tensorflow::GraphDef &graph, llvm::StringRef fileName,
                                        mlir::MLIRContext *context);

/// Turns TensorFlow 1 control flow into functional form, as TensorFlow's own
/// functionalization does: every loop frame (Enter ... Exit, innermost first) becomes a
/// While node whose cond and body are in `bodies`, and every conditional (Switch ...
/// Merge on one predicate, innermost first) an If node. The loop's Exit nodes and the
/// conditional's Merge nodes become Identities of the new node's results, keeping their
/// names, so what consumes them is unchanged. Errors name `fileName`, the node and what
/// is wrong (a frame without a LoopCond, a Merge whose inputs are not two branches, a node
/// reading a loop's tensor from outside it ...).
llvm::LogicalResult functionalizeControlFlow(tensorflow::GraphDef &graph, GraphBodies &bodies,
                                             llvm::StringRef fileName, mlir::MLIRContext *context);

} // namespace kiln::import

#endif // KILN_COMPILER_IMPORT_FUNCTIONALIZE_H
