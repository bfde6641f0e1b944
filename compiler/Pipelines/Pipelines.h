//===- Pipelines.h - Kiln's pass pipelines ---------------------------*- C++ -*-===//
//
// Pipelines only combine registered passes; each is also registered as a kiln-opt flag.
//
//   kiln-graph-pipeline  tf dialect -> tf dialect: shapes from the feeds, pruning
//   kiln-lower-pipeline  tf dialect -> bufferized linalg on memrefs with a scratch arena
//   kiln-llvm-pipeline   bufferized upstream IR -> LLVM dialect (CPU)
//   kiln-cpu-pipeline    all three
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_COMPILER_PIPELINES_PIPELINES_H
#define KILN_COMPILER_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

#include <string>

namespace kiln::pipelines {

/// The textual form of each pipeline (what `--dump-ir` and the docs show).
/// With `devices`, the graph pipeline ends with placement on them (kiln-graph-place).
std::string graphPipeline(llvm::ArrayRef<std::string> devices = {});
/// Without `kernelCalls`, every op stays generated loops (no runtime kernel calls).
std::string lowerPipeline(bool kernelCalls = true);
llvm::StringRef llvmPipeline();

/// Appends the pipeline to `pm`, which must be anchored on builtin.module.
llvm::LogicalResult buildGraphPipeline(mlir::OpPassManager &pm,
                                       llvm::ArrayRef<std::string> devices = {});
llvm::LogicalResult buildLowerPipeline(mlir::OpPassManager &pm, bool kernelCalls = true);
llvm::LogicalResult buildLLVMPipeline(mlir::OpPassManager &pm);

/// Registers the pipelines as kiln-opt flags.
void registerPipelines();

} // namespace kiln::pipelines

#endif // KILN_COMPILER_PIPELINES_PIPELINES_H
