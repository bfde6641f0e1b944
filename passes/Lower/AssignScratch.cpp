//===- AssignScratch.cpp - every allocation gets a slot in one arena ----------===//
#include "passes/Lower/Passes.h"

#include "kiln/runtime/abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/MathExtras.h"

namespace kiln::lower {
#define GEN_PASS_DEF_ASSIGNSCRATCHPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

int64_t byteSize(MemRefType type) {
  unsigned bits = type.getElementTypeBitWidth();
  return type.getNumElements() * static_cast<int64_t>((bits + 7) / 8);
}

struct AssignScratchPass : kiln::lower::impl::AssignScratchPassBase<AssignScratchPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic())
        continue;
      if (failed(assign(func)))
        return signalPassFailure();
    }
  }

  LogicalResult assign(func::FuncOp func) {
    SmallVector<memref::AllocOp> allocs;
    bool ok = true;
    func.walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
        alloc.emitError() << "cannot place " << type
                          << " in the scratch arena: it needs a static shape and identity layout";
        ok = false;
      }
      allocs.push_back(alloc);
    });
    if (!ok)
      return failure();

    // The naive plan: each buffer its own aligned slot.
    SmallVector<int64_t> offsets;
    int64_t size = 0;
    for (memref::AllocOp alloc : allocs) {
      offsets.push_back(size);
      size += llvm::alignTo(byteSize(alloc.getType()), KILN_SCRATCH_ALIGNMENT);
    }

    MLIRContext *ctx = func.getContext();
    auto scratchType = MemRefType::get({size}, IntegerType::get(ctx, 8));
    Block &entry = func.getBody().front();
    BlockArgument scratch = entry.addArgument(scratchType, func.getLoc());
    SmallVector<Type> argTypes(func.getArgumentTypes());
    argTypes.push_back(scratchType);
    func.setType(FunctionType::get(ctx, argTypes, func.getResultTypes()));
    func->setAttr(kiln::lower::kScratchBytesAttr, IntegerAttr::get(IntegerType::get(ctx, 64), size));

    for (auto [alloc, offset] : llvm::zip(allocs, offsets)) {
      OpBuilder b(alloc);
      Value off = arith::ConstantIndexOp::create(b, alloc.getLoc(), offset);
      Value view = memref::ViewOp::create(b, alloc.getLoc(), alloc.getType(), scratch, off,
                                          ValueRange{});
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      alloc.replaceAllUsesWith(view);
      alloc.erase();
    }
    return success();
  }
};

} // namespace
