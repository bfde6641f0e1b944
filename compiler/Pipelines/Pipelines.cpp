//===- Pipelines.cpp - Kiln's pass pipelines ----------------------------------===//
#include "compiler/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace kiln::pipelines {

std::string graphPipeline(const PipelineOptions &options) {
  std::string text = "func.func(kiln-graph-infer-shapes,kiln-graph-fold-constants,"
                     "kiln-graph-infer-shapes,kiln-graph-fold-pads,kiln-graph-cse,kiln-graph-prune,"
                     "kiln-graph-schedule";
  if (!options.devices.empty())
    text += ",kiln-graph-place{devices=" + llvm::join(options.devices, ",") +
            "},kiln-graph-partition),kiln-graph-outline-partitions,func.func(";
  else
    text += ",";
  // Checks go in last, into the function (partition) that computes what they check.
  text += "kiln-graph-insert-checks";
  if (!options.runtimeChecks)
    text += "{constants-only}";
  return text + ")";
}

std::string lowerPipeline(const PipelineOptions &options) {
  std::string text = "kiln-lower-partitions,"
                     "kiln-lower-tf-to-linalg" +
                     std::string(options.strictFloat ? "{winograd=false}," : ",") +
                     "kiln-lower-fuse-elementwise,"
                     "kiln-lower-use-destinations,"
                     "canonicalize,"
                     "eliminate-empty-tensors,"
                     "one-shot-bufferize{bufferize-function-boundaries "
                     "function-boundary-type-conversion=identity-layout-map},"
                     "canonicalize,"
                     "kiln-lower-rendezvous-calls,";
  // Kernel calls come before buffer planning: fusing an epilogue changes which buffers the
  // kernels write, so lifetimes must be computed afterwards.
  if (options.kernelCalls)
    text += "kiln-lower-kernel-calls,kiln-lower-fuse-kernel-calls,kiln-lower-pack-weights,";
  return text + "kiln-lower-assign-scratch,kiln-lower-verify-scratch,kiln-lower-checks";
}

std::string llvmPipeline(const PipelineOptions &options) {
  // tanh, exp, expm1, log1p and erf as polynomials LLVM vectorizes (8 to 90 times faster
  // than libm, and within a few ulp: see the pass); log stays with libm, whose result for
  // subnormal inputs the approximation gets wrong. Strict float semantics keep libm.
  std::string approximated = options.strictFloat ? "" : "{functions=tanh,exp,expm1,log1p,erf}";
  return "func.func(kiln-lower-copies-to-linalg,"
         "kiln-lower-approximate-math" + approximated + ","
         "convert-linalg-to-loops,"
         "math-extend-to-supported-types,"
         // bf16 arithmetic in f32, rounded after each op as TensorFlow's (Eigen's) bfloat16
         // does; then the conversions, the extension's too, as integer arithmetic.
         "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
         "kiln-lower-expand-bf16),"
         "convert-scf-to-cf,"
         "kiln-lower-flatten-empty-arguments,"
         "expand-strided-metadata,"
         "lower-affine,"
         "finalize-memref-to-llvm,"
         // Integer powers become small functions; transcendental functions go to libm
         // first (math-to-llvm would compute expm1 and log1p as exp(x) - 1 and log(1 + x)).
         "convert-math-to-funcs,"
         "convert-math-to-libm,"
         "convert-math-to-llvm,"
         "convert-arith-to-llvm,"
         "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
         "convert-cf-to-llvm,"
         "convert-index-to-llvm,"
         "reconcile-unrealized-casts";
}

static LogicalResult build(OpPassManager &pm, StringRef text) {
  return parsePassPipeline(text, pm, llvm::errs());
}

LogicalResult buildGraphPipeline(OpPassManager &pm, const PipelineOptions &options) {
  return build(pm, graphPipeline(options));
}
LogicalResult buildLowerPipeline(OpPassManager &pm, const PipelineOptions &options) {
  return build(pm, lowerPipeline(options));
}
LogicalResult buildLLVMPipeline(OpPassManager &pm, const PipelineOptions &options) {
  return build(pm, llvmPipeline(options));
}

void registerPipelines() {
  PassPipelineRegistration<>("kiln-graph-pipeline",
                             "Shape inference and pruning on the tf dialect",
                             [](OpPassManager &pm) { (void)buildGraphPipeline(pm); });
  PassPipelineRegistration<>("kiln-lower-pipeline",
                             "tf dialect to bufferized linalg with a scratch arena",
                             [](OpPassManager &pm) { (void)buildLowerPipeline(pm); });
  PassPipelineRegistration<>("kiln-llvm-pipeline", "Bufferized IR to the LLVM dialect (CPU)",
                             [](OpPassManager &pm) { (void)buildLLVMPipeline(pm); });
  PassPipelineRegistration<>("kiln-cpu-pipeline", "tf dialect to the LLVM dialect (CPU)",
                             [](OpPassManager &pm) {
                               (void)buildGraphPipeline(pm);
                               (void)buildLowerPipeline(pm);
                               (void)buildLLVMPipeline(pm);
                             });
}

} // namespace kiln::pipelines
