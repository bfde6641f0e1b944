//===- Partitions.cpp - each kiln.partition's function compiled on its own -----===//
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/Sequence.h"

namespace kiln::lower {
#define GEN_PASS_DEF_PARTITIONSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

/// The part of an entry that runs its whole function: every feed, every fetch, on the
/// device the graph was not placed on ("").
Attribute wholePart(MLIRContext *ctx, FlatSymbolRefAttr function, int64_t feeds, int64_t fetches) {
  auto positions = [&](int64_t n) {
    return DenseI64ArrayAttr::get(ctx, llvm::to_vector(llvm::seq<int64_t>(0, n)));
  };
  return kiln::dialect::PartAttr::get(ctx, function, StringAttr::get(ctx, ""), positions(feeds),
                                      positions(fetches), 0, 0, 0, false);
}

struct PartitionsPass : kiln::lower::impl::PartitionsPassBase<PartitionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !func.getBody().getOps<kiln::dialect::PartitionOp>().empty())
        entries.push_back(func);
    for (func::FuncOp entry : entries)
      if (failed(split(entry)))
        return signalPassFailure();
    // Every other entry point runs its function as its one part.
    module.walk([&](kiln::dialect::EntryOp op) {
      if (!op.getFunctionAttr())
        return;
      op.setPartsAttr(
          ArrayAttr::get(&getContext(), wholePart(&getContext(), op.getFunctionAttr(),
                                                  op.getFeeds().size(), op.getFetches().size())));
      op.removeFunctionAttr();
    });
  }

  LogicalResult split(func::FuncOp entry) {
    if (!entry.getBody().hasOneBlock())
      return entry.emitError() << "partitions must be called from a function of one block";
    Block &body = entry.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    MLIRContext *ctx = entry.getContext();
    SymbolTable symbols(getOperation());
    for (Operation &op : body.without_terminator())
      if (!isa<kiln::dialect::PartitionOp>(op))
        return op.emitError() << "'" << op.getName()
                              << "' beside kiln.partition ops: a function cut into partitions "
                                 "may only call them";
    SmallVector<bool> written(ret.getNumOperands(), false);
    SmallVector<Attribute> parts;
    for (Operation &op : body.without_terminator()) {
      auto partition = cast<kiln::dialect::PartitionOp>(op);
      auto callee = symbols.lookup<func::FuncOp>(partition.getCallee());
      if (!callee || callee.isExternal())
        return partition.emitOpError()
               << "calls '" << partition.getCallee() << "', which is not a function with a body";
      SmallVector<int64_t> inputs, outputs;
      for (Value v : partition.getInputs()) {
        auto arg = dyn_cast<BlockArgument>(v);
        if (!arg || arg.getOwner() != &body)
          return partition.emitOpError()
                 << "takes a value that is not an input of '" << entry.getSymName() << "'";
        inputs.push_back(arg.getArgNumber());
      }
      for (Value v : partition.getOutputs()) {
        SmallVector<int64_t> at;
        for (OpOperand &use : v.getUses())
          if (use.getOwner() == ret)
            at.push_back(use.getOperandNumber());
        if (at.size() != 1 || !v.hasOneUse())
          return partition.emitOpError()
                 << "has a result that is not exactly one output of '" << entry.getSymName() << "'";
        outputs.push_back(at.front());
        written[at.front()] = true;
      }
      callee.setPublic();
      callee->setAttr(kiln::dialect::kDeviceAttrName, partition.getDeviceAttr());
      parts.push_back(kiln::dialect::PartAttr::get(
          ctx, FlatSymbolRefAttr::get(callee.getSymNameAttr()), partition.getDeviceAttr(),
          DenseI64ArrayAttr::get(ctx, inputs), DenseI64ArrayAttr::get(ctx, outputs), 0, 0, 0,
          false));
    }
    for (auto [i, done] : llvm::enumerate(written))
      if (!done)
        return entry.emitError() << "output " << i << " is not computed by a partition";
    // The model's entry point runs the parts instead of the function.
    bool found = false;
    WalkResult walk = getOperation().walk([&](kiln::dialect::EntryOp op) {
      if (op.getFunction() != entry.getSymName())
        return WalkResult::advance();
      if (!op.getState().empty() || !op.getUpdates().empty()) {
        op.emitOpError() << "uses state, so it cannot run on several devices yet";
        return WalkResult::interrupt();
      }
      op.removeFunctionAttr();
      op.setPartsAttr(ArrayAttr::get(ctx, parts));
      found = true;
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    if (!found)
      return entry.emitError() << "is cut into partitions, but no kiln.entry runs it";
    entry.erase();
    return success();
  }
};

} // namespace
