//===- Stream.cpp - a GPU partition's work in order on one stream per call ----===//
#include "codegen/GPU/Passes.h"

namespace kiln::codegen::gpu {
#define GEN_PASS_DEF_STREAMPASS
#include "codegen/GPU/Passes.h.inc"
} // namespace kiln::codegen::gpu

using namespace mlir;

namespace {

/// The device work the host side of a GPU partition queues: launches, copies and fills.
bool queuesWork(Operation *op) {
  return isa<mlir::gpu::LaunchFuncOp, mlir::gpu::MemcpyOp, mlir::gpu::MemsetOp>(op);
}

struct StreamPass : kiln::codegen::gpu::impl::StreamPassBase<StreamPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<Operation *> work;
    WalkResult walk = func.walk([&](Operation *op) {
      if (isa<mlir::gpu::WaitOp>(op) ||
          (queuesWork(op) && cast<mlir::gpu::AsyncOpInterface>(op).getAsyncToken())) {
        op->emitOpError() << "is already asynchronous: kiln-gpu-stream orders a function's "
                             "GPU work itself";
        return WalkResult::interrupt();
      }
      if (queuesWork(op))
        work.push_back(op);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (work.empty())
      return;
    if (!func.getBody().hasOneBlock()) {
      func.emitOpError() << "with GPU work must have one block";
      return signalPassFailure();
    }

    // The call's stream: created on entry, waited for and released before it returns.
    Block &entry = func.front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    auto tokenType = mlir::gpu::AsyncTokenType::get(&getContext());
    Value stream =
        mlir::gpu::WaitOp::create(b, func.getLoc(), tokenType, ValueRange{}).getAsyncToken();
    for (Operation *op : work) {
      // Each op runs after what was queued before it on the same stream, whatever region
      // it is in, so every op depends on the entry token; its own token is that stream.
      cast<mlir::gpu::AsyncOpInterface>(op).addAsyncDependency(stream);
      SmallVector<Type> results(op->getResultTypes());
      results.push_back(tokenType);
      OpBuilder at(op);
      Operation *async = Operation::create(op->getLoc(), op->getName(), results, op->getOperands(),
                                           op->getDiscardableAttrDictionary(),
                                           op->getPropertiesStorage(), op->getSuccessors(),
                                           /*numRegions=*/0);
      at.insert(async);
      op->replaceAllUsesWith(async->getResults().drop_back());
      op->erase();
      ++numOps;
    }
    b.setInsertionPoint(entry.getTerminator());
    mlir::gpu::WaitOp::create(b, func.getLoc(), Type(), ValueRange{stream});
    ++numStreams;
  }
};

} // namespace
