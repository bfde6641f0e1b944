//===- Prune.cpp - keep only what the function results need -------------------===//
#include "passes/Graph/Passes.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace kiln::graph {
#define GEN_PASS_DEF_PRUNEPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace {

struct PrunePass : kiln::graph::impl::PrunePassBase<PrunePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &body = func.getBody().front();
    llvm::SmallPtrSet<Operation *, 32> live;
    SmallVector<Operation *> worklist{body.getTerminator()};
    // Run-time checks (kiln-graph-bound-sizes' --bound checks) stay with what they check.
    for (auto check : body.getOps<kiln::dialect::CheckOp>())
      worklist.push_back(check);
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!live.insert(op).second)
        continue;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          worklist.push_back(def);
      // Ops nested in regions may use values defined above them.
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (Operation *def = operand.getDefiningOp(); def && def->getBlock() == &body)
            worklist.push_back(def);
      });
    }
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body))) {
      if (live.contains(&op))
        continue;
      op.dropAllUses();
      op.erase();
      ++numPruned;
    }
  }
};

} // namespace
