//===- MergeModules.cpp - every outlined kernel in one gpu.module -------------===//
#include "codegen/GPU/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace kiln::codegen::gpu {
#define GEN_PASS_DEF_MERGEMODULESPASS
#include "codegen/GPU/Passes.h.inc"
} // namespace kiln::codegen::gpu

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kModuleName = "kiln_kernels";
constexpr int64_t kWorkgroupAlign = 32; // bytes

/// `name` as a PTX identifier: letters, digits, '_' and '$' ("main.gpu0_kernel" ->
/// "main_gpu0_kernel"; ptxas rejects the dot), made unique among `taken` with a suffix.
std::string kernelName(StringRef name, llvm::StringSet<> &taken) {
  std::string base;
  for (char c : name)
    base += llvm::isAlnum(c) || c == '_' || c == '$' ? c : '_';
  if (base.empty() || llvm::isDigit(base.front()))
    base = "k" + base;
  std::string unique = base;
  for (int n = 1; !taken.insert(unique).second; ++n)
    unique = base + "_" + std::to_string(n);
  return unique;
}

/// The graph node a kernel computes, from its location (the import names each op's location
/// after its node; a fused kernel's location holds several, the first is taken), or "".
std::string nodeOf(Location loc) {
  std::string node;
  loc->walk([&](Location inner) {
    if (auto name = dyn_cast<NameLoc>(inner); name && node.empty()) {
      node = name.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return node;
}

struct MergeModulesPass : kiln::codegen::gpu::impl::MergeModulesPassBase<MergeModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<mlir::gpu::GPUModuleOp> sources(module.getOps<mlir::gpu::GPUModuleOp>());
    if (sources.empty())
      return;
    if (module.lookupSymbol(kModuleName)) {
      module.emitError() << "already has a symbol '" << kModuleName << "'";
      return signalPassFailure();
    }
    OpBuilder b(sources.front());
    auto merged = mlir::gpu::GPUModuleOp::create(b, sources.front().getLoc(), kModuleName);
    if (auto targets = sources.front().getTargetsAttr())
      merged.setTargetsAttr(targets);
    // Each kernel takes the names of its function and of the graph node it computes (its
    // location's), else its module's, as a unique PTX identifier (profiles and --emit ptx then say which op a
    // kernel is); the functions outlining copied in beside kernels keep their names, one
    // copy each.
    llvm::DenseMap<Attribute, SymbolRefAttr> renamed;
    llvm::StringSet<> taken;
    Block &into = merged.getBodyRegion().front();
    for (mlir::gpu::GPUModuleOp source : sources) {
      StringAttr name = source.getSymNameAttr();
      for (Operation &op : llvm::make_early_inc_range(source.getBody()->getOperations())) {
        auto kernel = dyn_cast<mlir::gpu::GPUFuncOp>(op);
        if (!kernel || !kernel.isKernel()) {
          // What outlining copied in beside the kernel (the functions it calls: copies of
          // one module-level function under its name, so one of each is kept).
          auto symbol = dyn_cast<SymbolOpInterface>(op);
          if (!symbol) {
            op.emitOpError() << "in GPU module '" << name.getValue()
                             << "' beside its kernel cannot be merged";
            return signalPassFailure();
          }
          if (Operation *kept = merged.lookupSymbol(symbol.getNameAttr())) {
            if (kept->getName() != op.getName()) {
              op.emitOpError() << "in GPU module '" << name.getValue() << "' has the name of '"
                               << kept->getName() << "' " << symbol.getNameAttr()
                               << " beside it";
              return signalPassFailure();
            }
            op.erase(); // another copy of the same function
          } else {
            taken.insert(symbol.getName());
            op.moveBefore(&into, into.end());
          }
          continue;
        }
        SymbolRefAttr old = SymbolRefAttr::get(name, {FlatSymbolRefAttr::get(kernel)});
        // "<function>_<node>": outlining named the module "<function>_kernel[_N]".
        std::string node = nodeOf(kernel.getLoc());
        if (!node.empty()) {
          size_t kernelSuffix = name.getValue().rfind("_kernel");
          if (kernelSuffix != StringRef::npos && kernelSuffix > 0)
            node = name.getValue().take_front(kernelSuffix).str() + "_" + node;
        }
        kernel.setName(kernelName(node.empty() ? name.getValue() : StringRef(node), taken));
        // Workgroup buffers 32-byte aligned: the tensor cores' loads (wmma) read 256-bit
        // aligned addresses, and the NVVM lowering aligns a buffer to its element otherwise.
        for (unsigned i = 0; i < kernel.getNumWorkgroupAttributions(); ++i)
          if (!kernel.getWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName()))
            kernel.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                               b.getI64IntegerAttr(kWorkgroupAlign));
        kernel->moveBefore(&into, into.end());
        renamed[old] = SymbolRefAttr::get(merged.getSymNameAttr(),
                                          {FlatSymbolRefAttr::get(kernel.getNameAttr())});
      }
      source.erase();
    }
    WalkResult walk = module.walk([&](mlir::gpu::LaunchFuncOp launch) {
      auto it = renamed.find(launch.getKernel());
      if (it == renamed.end()) {
        launch.emitOpError() << "launches " << launch.getKernel()
                             << ", which is not an outlined kernel";
        return WalkResult::interrupt();
      }
      launch.setKernelAttr(it->second);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
