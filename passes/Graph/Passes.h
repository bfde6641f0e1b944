//===- Passes.h - graph-level passes ---------------------------------*- C++ -*-===//
#ifndef KILN_PASSES_GRAPH_PASSES_H
#define KILN_PASSES_GRAPH_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln::graph {

#define GEN_PASS_DECL
#include "passes/Graph/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Graph/Passes.h.inc"

} // namespace kiln::graph

#endif // KILN_PASSES_GRAPH_PASSES_H
