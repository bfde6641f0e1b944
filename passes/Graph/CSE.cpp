//===- CSE.cpp - merge identical tf ops -----------------------------------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Graph/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"

namespace kiln::graph {
#define GEN_PASS_DEF_CSEPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace {

/// Hashes and compares ops by name, attributes, result types and operands (the same SSA
/// values in the same order, control inputs included), ignoring locations (node names).
struct OpKey : llvm::DenseMapInfo<Operation *> {
  static unsigned getHashValue(const Operation *op) {
    return OperationEquivalence::computeHash(
        const_cast<Operation *>(op), OperationEquivalence::directHashValue,
        OperationEquivalence::ignoreHashValue, OperationEquivalence::IgnoreLocations);
  }
  static bool isEqual(const Operation *lhs, const Operation *rhs) {
    if (lhs == rhs)
      return true;
    if (lhs == getEmptyKey() || lhs == getTombstoneKey() || rhs == getEmptyKey() ||
        rhs == getTombstoneKey())
      return false;
    return OperationEquivalence::isEquivalentTo(
        const_cast<Operation *>(lhs), const_cast<Operation *>(rhs),
        OperationEquivalence::exactValueMatch, nullptr, OperationEquivalence::IgnoreLocations);
  }
};

/// Ops that may be merged: tf ops without side effects. A Placeholder is one input of the
/// graph however alike two of them look, and stateful ops (variables, random numbers,
/// queues, I/O) are not memory-effect free, so neither is merged.
bool mergeable(Operation *op) {
  return isa<kiln::tf::TFDialect>(op->getDialect()) && !isa<kiln::tf::PlaceholderOp>(op) &&
         op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

struct CSEPass : kiln::graph::impl::CSEPassBase<CSEPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // Ops are visited in order, so by the time an op is seen its operands are already the
    // representatives of their classes: chains of copies collapse in one pass.
    llvm::DenseMap<Operation *, Operation *, OpKey> seen;
    for (Operation &op : llvm::make_early_inc_range(func.getBody().front())) {
      if (!mergeable(&op))
        continue;
      auto [it, inserted] = seen.try_emplace(&op, &op);
      if (inserted)
        continue;
      op.replaceAllUsesWith(it->second);
      op.erase();
      ++numMerged;
    }
  }
};

} // namespace
