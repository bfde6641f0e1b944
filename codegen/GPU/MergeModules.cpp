//===- MergeModules.cpp - the outlined kernels in one gpu.module, or a few ----===//
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

/// Gives each of `parts` a copy of the functions beside the kernels of the first (those the
/// kernels call), then leaves each the ones its kernels call, directly or not.
void shareFunctions(ArrayRef<mlir::gpu::GPUModuleOp> parts) {
  SmallVector<Operation *> functions;
  mlir::gpu::GPUModuleOp first = parts.front();
  for (Operation &op : first.getBody()->getOperations())
    if (!isa<mlir::gpu::GPUFuncOp>(op) || !cast<mlir::gpu::GPUFuncOp>(op).isKernel())
      functions.push_back(&op);
  for (mlir::gpu::GPUModuleOp part : parts.drop_front()) {
    OpBuilder b = OpBuilder::atBlockBegin(part.getBody());
    for (Operation *function : functions)
      b.clone(*function);
  }
  for (mlir::gpu::GPUModuleOp part : parts)
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation &op : llvm::make_early_inc_range(part.getBody()->getOperations())) {
        auto kernel = dyn_cast<mlir::gpu::GPUFuncOp>(op);
        if ((!kernel || !kernel.isKernel()) && SymbolTable::symbolKnownUseEmpty(&op, part)) {
          op.erase();
          erased = true;
        }
      }
    }
}

struct MergeModulesPass : kiln::codegen::gpu::impl::MergeModulesPassBase<MergeModulesPass> {
  using MergeModulesPassBase::MergeModulesPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<mlir::gpu::GPUModuleOp> sources(module.getOps<mlir::gpu::GPUModuleOp>());
    if (sources.empty())
      return;
    int64_t kernelCount = 0;
    for (mlir::gpu::GPUModuleOp source : sources)
      for (auto kernel : source.getOps<mlir::gpu::GPUFuncOp>())
        kernelCount += kernel.isKernel();
    int64_t count = std::clamp<int64_t>(kernelCount / std::max<int64_t>(kernelsPerModule, 1), 1,
                                        std::max<int64_t>(modules, 1));
    OpBuilder b(sources.front());
    // The modules, "kiln_kernels" then "kiln_kernels_1" ..., and the operations in each.
    SmallVector<mlir::gpu::GPUModuleOp> parts;
    SmallVector<int64_t> weights(count, 0);
    for (int64_t i = 0; i < count; ++i) {
      std::string partName = kModuleName.str() + (i ? "_" + std::to_string(i) : "");
      if (module.lookupSymbol(partName)) {
        module.emitError() << "already has a symbol '" << partName << "'";
        return signalPassFailure();
      }
      parts.push_back(mlir::gpu::GPUModuleOp::create(b, sources.front().getLoc(), partName));
      if (auto targets = sources.front().getTargetsAttr())
        parts.back().setTargetsAttr(targets);
    }
    mlir::gpu::GPUModuleOp merged = parts.front(); // the functions beside kernels, first
    // Each kernel takes the names of its function and of the graph node it computes (its
    // location's), else its module's, as a unique PTX identifier (profiles and --emit ptx then say
    // which op a kernel is); the functions outlining copied in beside kernels keep their names, one
    // copy each.
    llvm::DenseMap<Attribute, SymbolRefAttr> renamed;
    llvm::StringSet<> taken;
    Block &into = merged.getBodyRegion().front();
    auto lightest = [&] {
      return std::min_element(weights.begin(), weights.end()) - weights.begin();
    };
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
                               << kept->getName() << "' " << symbol.getNameAttr() << " beside it";
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
        int64_t part = lightest();
        kernel->walk([&](Operation *) { ++weights[part]; });
        Block &body = parts[part].getBodyRegion().front();
        kernel->moveBefore(&body, body.end());
        renamed[old] = SymbolRefAttr::get(parts[part].getSymNameAttr(),
                                          {FlatSymbolRefAttr::get(kernel.getNameAttr())});
      }
      source.erase();
    }
    if (count > 1)
      shareFunctions(parts);
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
