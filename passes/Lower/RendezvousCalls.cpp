//===- RendezvousCalls.cpp - kiln.send/kiln.recv become runtime calls ----------===//
#include "passes/Lower/Passes.h"

#include "dialects/Kiln/Model.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <set>

namespace kiln::lower {
#define GEN_PASS_DEF_RENDEZVOUSCALLSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

// The key and the buffer of a kiln.send or kiln.recv.
StringRef keyOf(Operation *op) {
  if (auto send = dyn_cast<kiln::dialect::SendOp>(op))
    return send.getTensorName();
  return cast<kiln::dialect::RecvOp>(op).getTensorName();
}
Value bufferOf(Operation *op) {
  if (auto send = dyn_cast<kiln::dialect::SendOp>(op))
    return send.getValue();
  return cast<kiln::dialect::RecvOp>(op).getDest();
}

/// Every key is sent once and received at most once; a receive needs its send in the model
/// (receiving from another process is not supported yet), and one in the same function must
/// come after it: a partition waits in a receive until the send has happened.
LogicalResult checkPairs(ArrayRef<Operation *> ops) {
  llvm::StringMap<Operation *> sends, recvs;
  bool ok = true;
  for (Operation *op : ops) {
    auto &seen = isa<kiln::dialect::SendOp>(op) ? sends : recvs;
    auto [it, inserted] = seen.try_emplace(keyOf(op), op);
    if (!inserted) {
      op->emitOpError() << "is the second " << (&seen == &sends ? "send" : "receive")
                        << " of tensor '" << keyOf(op) << "'";
      ok = false;
    }
  }
  for (auto &[key, recv] : recvs) {
    auto it = sends.find(key);
    if (it == sends.end()) {
      recv->emitOpError() << "waits for tensor '" << key
                          << "', which nothing in this model sends (receiving from another "
                             "process is not supported yet)";
      ok = false;
      continue;
    }
    Operation *send = it->second;
    if (send->getParentOfType<func::FuncOp>() == recv->getParentOfType<func::FuncOp>()) {
      // Compare the ancestors of both in the function's body.
      Block *body = &send->getParentOfType<func::FuncOp>().getBody().front();
      Operation *s = body->findAncestorOpInBlock(*send), *r = body->findAncestorOpInBlock(*recv);
      if (s && r && !s->isBeforeInBlock(r)) {
        recv->emitOpError() << "receives tensor '" << key
                            << "' before the same function sends it, so it would wait for ever";
        ok = false;
      }
    }
  }
  return success(ok);
}

struct RendezvousCallsPass : kiln::lower::impl::RendezvousCallsPassBase<RendezvousCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::set<std::string> names;
    SmallVector<Operation *> ops;
    bool ok = true;
    module.walk([&](Operation *op) {
      if (!isa<kiln::dialect::SendOp, kiln::dialect::RecvOp>(op))
        return;
      auto type = dyn_cast<MemRefType>(bufferOf(op).getType());
      if (!type || !type.hasStaticShape()) {
        op->emitOpError() << "needs a buffer of static shape; run after bufferization";
        ok = false;
        return;
      }
      names.insert(keyOf(op).str());
      ops.push_back(op);
    });
    if (!ok || failed(checkPairs(ops)))
      return signalPassFailure();
    if (ops.empty())
      return;
    kiln::dialect::ModelOp model = kiln::dialect::getModel(module);
    if (!model) {
      ops.front()->emitOpError()
          << "moves a tensor between partitions, but the module has no kiln.model to hold "
             "the keys the entry point passes to the runtime";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    SmallVector<Attribute> keys;
    llvm::StringMap<int32_t> number;
    for (const std::string &name : names) {
      number[name] = static_cast<int32_t>(keys.size());
      keys.push_back(StringAttr::get(ctx, name));
    }
    model.setRendezvousKeysAttr(ArrayAttr::get(ctx, keys));

    OpBuilder b(ctx);
    for (Operation *op : ops) {
      bool send = isa<kiln::dialect::SendOp>(op);
      Value buffer = bufferOf(op);
      StringRef name = keyOf(op);
      Location loc = op->getLoc();
      b.setInsertionPoint(op);
      auto type = cast<MemRefType>(buffer.getType());
      // The runtime moves contiguous bytes: a view goes through a dense copy.
      Value dense = buffer;
      if (!type.getLayout().isIdentity()) {
        dense = memref::AllocOp::create(b, loc,
                                        MemRefType::get(type.getShape(), type.getElementType()));
        if (send)
          memref::CopyOp::create(b, loc, buffer, dense);
      }
      NamedAttrList params;
      params.set("key", b.getI32IntegerAttr(number[name]));
      // A GPU partition's buffers (the dense copy too, once in its arena) are device memory:
      // the runtime's GPU layer moves them through the host.
      bool gpu = kiln::dialect::isOnGpu(op);
      StringRef kernel = send ? (gpu ? "gpu_partition_send" : "partition_send")
                              : (gpu ? "gpu_partition_recv" : "partition_recv");
      kiln::dialect::KernelCallOp::create(
          b, loc, b.getStringAttr(kernel), send ? ValueRange{dense} : ValueRange{},
          send ? ValueRange{} : ValueRange{dense}, params.getDictionary(ctx));
      if (!send && dense != buffer)
        memref::CopyOp::create(b, loc, dense, buffer);
      op->erase();
    }
  }
};

} // namespace
