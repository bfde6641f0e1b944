//===- Passes.h - graph-level passes ---------------------------------*- C++ -*-===//
#ifndef KILN_PASSES_GRAPH_PASSES_H
#define KILN_PASSES_GRAPH_PASSES_H

#include "dialects/Kiln/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <optional>
#include <string>

namespace kiln::graph {

/// A TensorFlow device name, full (`/job:J/replica:R/task:T/device:TYPE:N`), short
/// (`/cpu:0`, `/device:GPU:1`) or partial (`/device:GPU:*`, `/job:worker`): the fields given.
struct DeviceName {
  std::optional<std::string> job;
  std::optional<int64_t> replica, task;
  std::optional<std::string> type; // "CPU" or "GPU"
  std::optional<int64_t> id;       // none: any ("*")

  /// Parses `text` (empty: no constraint); none if it is not a device name.
  static std::optional<DeviceName> parse(llvm::StringRef text);
  /// The full name, unspecified fields defaulted (job localhost, 0, CPU).
  std::string str() const;
  /// True if every field given here equals `device`'s.
  bool matches(const DeviceName &device) const;
};

/// Floating-point operations of a tf op, estimated from its static shapes (the placement
/// cost model's compute term).
double estimateFlops(mlir::Operation *op);

/// Bytes of a tensor of `type`, 0 unless it has a static shape of ints or floats.
int64_t tensorBytes(mlir::Type type);

/// The node name of an imported op (its NameLoc), or the op's name when it has none.
std::string nodeName(mlir::Operation *op);

/// Folds tf op `op` if its operands' constants (tf.Const) and its folder decide its
/// results, replacing and erasing it: the values that replace its results, or none if it
/// stays (kiln-graph-fold-constants, one op).
std::optional<llvm::SmallVector<mlir::Value>> foldConstantOp(mlir::Operation *op);

/// The op's `device` attribute, or "" (also for a null op).
llvm::StringRef deviceOf(mlir::Operation *op);

/// Whether `use` is one of a tf op's control inputs (`^node`: ordering only, no data; the
/// operands after its data inputs, all of a NoOp's).
bool isControlInput(mlir::OpOperand &use);

#define GEN_PASS_DECL
#include "passes/Graph/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Graph/Passes.h.inc"

} // namespace kiln::graph

#endif // KILN_PASSES_GRAPH_PASSES_H
