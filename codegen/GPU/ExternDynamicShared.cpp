//===- ExternDynamicShared.cpp - dynamic shared memory as CUDA declares it ----===//
#include "codegen/GPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace kiln::codegen::gpu {
#define GEN_PASS_DEF_EXTERNDYNAMICSHAREDPASS
#include "codegen/GPU/Passes.h.inc"
} // namespace kiln::codegen::gpu

using namespace mlir;

namespace {

/// NVVM's shared (workgroup) address space.
constexpr unsigned kShared = 3;

struct ExternDynamicSharedPass
    : kiln::codegen::gpu::impl::ExternDynamicSharedPassBase<ExternDynamicSharedPass> {
  void runOnOperation() override {
    for (auto global : getOperation().getBody()->getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (!array || array.getNumElements() != 0 || global.getAddrSpace() != kShared ||
          global.getLinkage() == LLVM::Linkage::External || global.getValueOrNull() ||
          !global.getInitializerRegion().empty())
        continue;
      global.setLinkage(LLVM::Linkage::External);
      ++numDeclared;
    }
  }
};

} // namespace
