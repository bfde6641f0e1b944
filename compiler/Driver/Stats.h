//===- Stats.h - what `kiln compile --stats` reports ----------------*- C++ -*-===//
//
// Each function prints lines starting "stats: " to standard output, for the stage that
// knows them: the placement after the graph passes, the arena and the partitions after
// lowering, the GPU arenas in the LLVM dialect.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DRIVER_STATS_H
#define KILN_COMPILER_DRIVER_STATS_H

#include "codegen/Target/ModelABI.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/ADT/DenseMap.h"

#include <mutex>
#include <string>
#include <vector>

namespace kiln::driver {

/// The ops of the graph under `root`: functions, their terminators and the calls of
/// partitions are structure, not ops.
size_t countOps(mlir::Operation *root);

/// The placement summary: ops per device, and what crosses devices.
void printPlacement(mlir::ModuleOp module);

/// The model after lowering: the ops after import and after the graph passes, each entry
/// point's arena, partitions and inputs and outputs, each GPU partition's traffic and
/// library calls, the state.
void printModel(mlir::ModuleOp module, const codegen::ModelInterface &model, size_t importedOps,
                size_t graphOps);

/// Each GPU partition's device arena, as kiln-gpu-host sized it (kGpuArenaBytesAttrName).
void printGpuArenas(mlir::ModuleOp module);

/// Records the number of ops before and after each pass. MLIR's own pass statistics are
/// compiled out of release builds of LLVM, so the driver counts itself.
struct OpCounts : mlir::PassInstrumentation {
  struct Record {
    std::string pass;
    size_t before = 0, after = 0;
  };
  std::mutex mutex;
  std::vector<Record> records;
  llvm::DenseMap<std::pair<mlir::Pass *, mlir::Operation *>, size_t> open;

  void runBeforePass(mlir::Pass *pass, mlir::Operation *op) override;
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override;
  /// A line per pass run.
  void print() const;
};

} // namespace kiln::driver

#endif // KILN_COMPILER_DRIVER_STATS_H
