//===- ModuleToBinary.cpp - each gpu.module to a gpu.binary, on threads --------===//
#include "codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringSwitch.h"

namespace kiln::codegen::gpu {
#define GEN_PASS_DEF_MODULETOBINARYPASS
#include "codegen/GPU/Passes.h.inc"
} // namespace kiln::codegen::gpu

using namespace mlir;

namespace {

/// The objects of `module`, one per target, or failure after an error on it.
FailureOr<SmallVector<Attribute>> serialize(mlir::gpu::GPUModuleOp module,
                                            const mlir::gpu::TargetOptions &options) {
  ArrayAttr targets = module.getTargetsAttr();
  if (!targets || targets.empty())
    return module.emitError() << "has no target to compile it for";
  SmallVector<Attribute> objects;
  for (Attribute attr : targets) {
    auto target = dyn_cast<mlir::gpu::TargetAttrInterface>(attr);
    if (!target)
      return module.emitError() << "has the target " << attr << ", which cannot compile it";
    std::optional<SmallVector<char, 0>> serialized = target.serializeToObject(module, options);
    if (!serialized)
      return module.emitError() << "could not be compiled for " << attr;
    Attribute object = target.createObject(module, *serialized, options);
    if (!object)
      return module.emitError() << "gave no object for " << attr;
    objects.push_back(object);
  }
  return objects;
}

struct ModuleToBinaryPass : kiln::codegen::gpu::impl::ModuleToBinaryPassBase<ModuleToBinaryPass> {
  using ModuleToBinaryPassBase::ModuleToBinaryPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    std::optional<mlir::gpu::CompilationTarget> target =
        llvm::StringSwitch<std::optional<mlir::gpu::CompilationTarget>>(format)
            .Case("isa", mlir::gpu::CompilationTarget::Assembly)
            .Case("fatbin", mlir::gpu::CompilationTarget::Fatbin)
            .Default(std::nullopt);
    if (!target) {
      module.emitError() << "kiln-gpu-module-to-binary: format '" << format
                         << "' is neither isa nor fatbin";
      return signalPassFailure();
    }
    SmallVector<mlir::gpu::GPUModuleOp> gpuModules(module.getOps<mlir::gpu::GPUModuleOp>());
    if (gpuModules.empty())
      return;
    // Built before the threads start: a target may ask for it from any of them.
    SymbolTable table(module);
    mlir::gpu::TargetOptions options(toolkitPath, {}, {}, {}, *target,
                                     [&]() -> SymbolTable * { return &table; });
    // Every module is compiled, so that each one's errors are reported.
    SmallVector<std::optional<SmallVector<Attribute>>> objects(gpuModules.size());
    {
      ParallelDiagnosticHandler diagnostics(ctx);
      parallelFor(ctx, 0, gpuModules.size(), [&](size_t i) {
        diagnostics.setOrderIDForThread(i);
        FailureOr<SmallVector<Attribute>> serialized = serialize(gpuModules[i], options);
        diagnostics.eraseOrderIDForThread();
        if (succeeded(serialized))
          objects[i] = std::move(*serialized);
      });
    }
    if (llvm::any_of(objects, [](const auto &o) { return !o; }))
      return signalPassFailure();
    for (auto [gpuModule, moduleObjects] : llvm::zip(gpuModules, objects)) {
      OpBuilder b(gpuModule);
      b.setInsertionPointAfter(gpuModule);
      mlir::gpu::BinaryOp::create(
          b, gpuModule.getLoc(), gpuModule.getName(),
          dyn_cast_or_null<mlir::gpu::OffloadingLLVMTranslationAttrInterface>(
              gpuModule.getOffloadingHandlerAttr()),
          b.getArrayAttr(*moduleObjects));
      gpuModule.erase();
    }
  }
};

} // namespace
