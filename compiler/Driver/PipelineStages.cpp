//===- PipelineStages.cpp - the stages that are pass pipelines --------------===//
//
// The graph passes, the lowering and the conversion to the LLVM dialect: each runs the
// pipeline compiler/Pipelines builds for it (kiln-opt runs the same passes alone), then
// reports what --stats asks about the module as that stage leaves it.
//
//===----------------------------------------------------------------------------===//
#include "compiler/Driver/Compilation.h"
#include "compiler/Driver/Stats.h"

#include "dialects/Kiln/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace kiln::driver {

pipelines::PipelineOptions Compilation::pipelineOptions() const {
  pipelines::PipelineOptions p;
  p.devices = options.devices;
  p.compressTransfers = options.compressTransfers;
  p.bounds = options.bounds;
  p.kernelCalls = !options.noKernels;
  p.runtimeChecks = options.runtimeChecks;
  p.strictFloat = options.strictFloat;
  p.allowTf32 = options.allowTf32;
  p.gpuEpilogues = options.gpuEpilogues;
  p.cublasltEpilogues = options.cublasltEpilogues;
  if (!options.gpuArch.empty()) {
    p.gpuArch = options.gpuArch;
    p.gpuAssemble = options.emit != EmitKind::Ptx;
  }
  // --emit ptx writes one module, which ptxas takes as it is.
  if (options.emit == EmitKind::Ptx)
    p.gpuModules = 1;
  return p;
}

LogicalResult Compilation::runPipeline(function_ref<LogicalResult(OpPassManager &)> build,
                                       StringRef folder, bool countPasses) {
  PassManager pm(&context);
  if (failed(build(pm)))
    return failure();
  if (!options.dumpIrDir.empty()) {
    context.disableMultithreading();
    pm.enableIRPrintingToFileTree(
        [](Pass *, Operation *) { return false; }, [](Pass *, Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false,
        /*printAfterOnlyOnFailure=*/false, options.dumpIrDir + "/" + folder.str());
  }
  OpCounts *counts = nullptr;
  if (options.stats && countPasses) {
    auto owned = std::make_unique<OpCounts>();
    counts = owned.get();
    pm.addInstrumentation(std::move(owned));
  }
  if (failed(pm.run(*module)))
    return failure();
  if (counts)
    counts->print();
  return success();
}

LogicalResult Compilation::runGraphPasses() {
  auto graph = [&](OpPassManager &pm) {
    return pipelines::buildGraphPipeline(pm, pipelineOptions());
  };
  if (failed(runPipeline(graph, "graph", /*countPasses=*/true)))
    return failure();
  if (options.stats && !options.devices.empty())
    printPlacement(*module);
  graphOps = countOps(*module);
  return success();
}

LogicalResult Compilation::lower() {
  auto lower = [&](OpPassManager &pm) {
    return pipelines::buildLowerPipeline(pm, pipelineOptions());
  };
  if (failed(runPipeline(lower, "lower")))
    return failure();
  // The interface, as the lowering left it in the kiln.model.
  nameModel();
  FailureOr<codegen::ModelInterface> interface = codegen::readModel(*module);
  if (failed(interface))
    return failure();
  model = std::move(*interface);
  if (options.stats)
    printModel(*module, *model, importedOps, graphOps);
  onGpu = llvm::any_of(module->getOps<func::FuncOp>(),
                       [](func::FuncOp f) { return dialect::isOnGpu(f); });
  if (!onGpu && options.emit == EmitKind::Ptx)
    return error("--emit ptx: no op is placed on a GPU (place them with --devices /gpu:0)");
  return success();
}

LogicalResult Compilation::lowerToLLVM() {
  auto toLLVM = [&](OpPassManager &pm) {
    return pipelines::buildLLVMPipeline(pm, pipelineOptions());
  };
  if (failed(runPipeline(toLLVM, "llvm")))
    return failure();
  if (options.stats && onGpu)
    printGpuArenas(*module);
  return success();
}

} // namespace kiln::driver
