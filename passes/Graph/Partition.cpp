//===- Partition.cpp - Send/Recv on every edge that crosses devices -------------===//
//
// Section 3.2.2 of the TensorFlow paper: once every op has a device, each edge from an op on
// one device to an op on another becomes a _Send on the producer's device and a _Recv on the
// consumer's. There is one _Recv per tensor per destination device, shared by all of that
// device's consumers (so the tensor crosses once), and one _Send for it. Constants are not
// sent: each device that uses one gets its own copy. With compress-transfers, f32 pairs are
// marked to cross as bfloat16 by truncation (section 5.5; tf-to-linalg does the conversion).
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Graph/Passes.h"

#include "llvm/ADT/MapVector.h"

namespace kiln::graph {
#define GEN_PASS_DEF_PARTITIONPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace {

using kiln::graph::deviceOf;

struct PartitionPass : kiln::graph::impl::PartitionPassBase<PartitionPass> {
  using PartitionPassBase::PartitionPassBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &body = func.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    MLIRContext *ctx = &getContext();
    for (Operation *producer : ops) {
      StringRef from = deviceOf(producer);
      if (from.empty() || !isa<kiln::tf::TFDialect>(producer->getDialect()))
        continue;
      for (OpResult result : producer->getResults()) {
        if (!isa<TensorType>(result.getType()))
          continue; // control edges order ops on their own device only (see passes.md)
        // Consumers on other devices, by device, in program order. A tensor that another
        // device's op takes as a control input (`^node`: ordering only) is not sent: like
        // control tokens, control edges order ops on their own device only.
        llvm::MapVector<StringRef, SmallVector<OpOperand *>> remote;
        SmallVector<OpOperand *> remoteControl;
        for (OpOperand &use : result.getUses()) {
          StringRef to = deviceOf(use.getOwner());
          if (to.empty() || to == from)
            continue;
          if (kiln::graph::isControlInput(use))
            remoteControl.push_back(&use);
          else
            remote[to].push_back(&use);
        }
        // Last operand first, so that the numbers of those still to go stay valid.
        llvm::sort(remoteControl, [](OpOperand *a, OpOperand *b) {
          return a->getOperandNumber() > b->getOperandNumber();
        });
        for (OpOperand *use : remoteControl) {
          auto consumer = cast<kiln::tf::GraphOpInterface>(use->getOwner());
          consumer.getControlInputsMutable().erase(use->getOperandNumber() -
                                                   consumer.getDataInputs().size());
        }
        for (auto &[to, uses] : remote) {
          Operation *first = uses.front()->getOwner();
          for (OpOperand *use : uses)
            if (use->getOwner()->isBeforeInBlock(first))
              first = use->getOwner();
          OpBuilder b(first);
          Value received;
          if (isa<kiln::tf::ConstOp>(producer)) {
            Operation *copy = b.clone(*producer);
            copy->setAttr("device", StringAttr::get(ctx, to));
            received = copy->getResult(result.getResultNumber());
          } else {
            std::string name = kiln::graph::nodeName(producer) + ":" +
                               std::to_string(result.getResultNumber()) + ";" + to.str();
            auto nameAttr = StringAttr::get(ctx, name);
            auto fromAttr = StringAttr::get(ctx, from), toAttr = StringAttr::get(ctx, to);
            OpBuilder sb(producer->getContext());
            sb.setInsertionPointAfter(producer);
            auto send = kiln::tf::SendOp::create(
                sb, producer->getLoc(), result, nameAttr, fromAttr, toAttr, IntegerAttr(),
                BoolAttr(), TypeAttr::get(getElementTypeOrSelf(result.getType())), ValueRange{});
            send->setAttr("device", fromAttr);
            auto recv = kiln::tf::RecvOp::create(
                b, first->getLoc(), result.getType(), nameAttr, fromAttr, toAttr,
                TypeAttr::get(getElementTypeOrSelf(result.getType())), IntegerAttr(), BoolAttr(),
                ValueRange{});
            recv->setAttr("device", toAttr);
            if (compressTransfers && getElementTypeOrSelf(result.getType()).isF32()) {
              send->setAttr(kiln::tf::kCompressedAttr, UnitAttr::get(ctx));
              recv->setAttr(kiln::tf::kCompressedAttr, UnitAttr::get(ctx));
            }
            received = recv.getTensor();
            ++numRecvs;
          }
          for (OpOperand *use : uses)
            use->set(received);
        }
      }
    }
  }
};

} // namespace
