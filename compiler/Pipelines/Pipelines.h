//===- Pipelines.h - Kiln's pass pipelines ---------------------------*- C++ -*-===//
//
// Each pipeline adds its passes, with their options, to a pass manager; each is also
// registered as a kiln-opt flag that takes kiln compile's options (devices, no-kernels,
// no-runtime-checks, strict-float).
//
//   kiln-graph-pipeline  tf dialect -> tf dialect: shapes from the feeds, pruning
//   kiln-lower-pipeline  tf dialect -> bufferized linalg on memrefs with a scratch arena
//   kiln-llvm-pipeline   bufferized upstream IR -> LLVM dialect (CPU; and, for partitions
//                        placed on a GPU, kernels in a gpu.binary of PTX or a fatbin)
//   kiln-cpu-pipeline    all three
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_COMPILER_PIPELINES_PIPELINES_H
#define KILN_COMPILER_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace kiln::pipelines {

/// What the pipelines do beyond their defaults (kiln compile's options).
struct PipelineOptions {
  /// Place the graph on these devices (kiln-graph-place) and partition it.
  std::vector<std::string> devices;
  /// Send f32 tensors across devices as their upper 16 bits (kiln-graph-partition's
  /// compress-transfers: the paper's lossy compression, section 5.5).
  bool compressTransfers = false;
  /// NODE=N: bounds of value-dependent sizes smaller than the natural ones
  /// (kiln-graph-bound-sizes; kiln compile --bound).
  std::vector<std::string> bounds;
  /// Call the runtime's kernels; without, every op stays generated loops.
  bool kernelCalls = true;
  /// Check input values where TensorFlow reports errors (kiln-graph-insert-checks);
  /// without, constants are still checked at compile time.
  bool runtimeChecks = true;
  /// Strict float semantics: no Winograd convolutions, no polynomial approximations of
  /// math functions (libm instead).
  bool strictFloat = false;
  /// A GPU's f32 matrix products and convolutions may round their operands to TF32 for
  /// the tensor cores (cuBLAS's and cuDNN's TF32 modes).
  bool allowTf32 = false;
  /// A GPU's convolutions apply the elementwise op after them in cuDNN's fused call, and
  /// 1x1 convolutions with a Relu epilogue are cuDNN's (without: generated kernels after
  /// them, and cuBLAS products).
  bool gpuEpilogues = false;
  /// A GPU's f32 matrix products (1x1 convolutions' too, before cuDNN's) apply the bias,
  /// Relu and residual after them in cuBLASLt's call (without: generated kernels after
  /// cuBLAS products).
  bool cublasltEpilogues = false;
  /// GPU code (for partitions placed on a GPU): the architecture its kernels are compiled
  /// for, and whether ptxas assembles them at compile time into a fatbin holding the cubin
  /// and the PTX (otherwise the module holds PTX, which the driver compiles at load).
  std::string gpuArch = "sm_80";
  bool gpuAssemble = false;
  /// The most PTX modules a GPU partition's kernels go into (kiln-gpu-merge-modules: at
  /// least 32 kernels each), compiled and assembled side by side; `--emit ptx`'s file is one.
  int64_t gpuModules = 8;
};

/// The GPU architectures (`sm_XX` and their arch-specific `sm_XXa`) LLVM's NVPTX backend
/// compiles for, in the order of their numbers: what `--gpu-arch` takes.
std::vector<std::string> gpuArchitectures();

/// Whether `options` place anything on a GPU (a device of type GPU in `devices`).
bool placesOnGpu(const PipelineOptions &options);

/// Appends the pipeline to `pm`, which must be anchored on builtin.module. (These succeed;
/// they return a LogicalResult to keep the signature of pipelines that can fail.)
llvm::LogicalResult buildGraphPipeline(mlir::OpPassManager &pm,
                                       const PipelineOptions &options = {});
llvm::LogicalResult buildLowerPipeline(mlir::OpPassManager &pm,
                                       const PipelineOptions &options = {});
llvm::LogicalResult buildLLVMPipeline(mlir::OpPassManager &pm, const PipelineOptions &options = {});

/// Registers the pipelines as kiln-opt flags.
void registerPipelines();

} // namespace kiln::pipelines

#endif // KILN_COMPILER_PIPELINES_PIPELINES_H
