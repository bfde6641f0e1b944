//===- Schedule.cpp - order ops to keep peak live memory low --------------------===//
//
// Section 5.2 of the TensorFlow paper: the order in which independent ops run decides how
// many intermediate tensors are alive at once. This pass reorders the ops of a function
// (a dataflow graph in one block) by greedy list scheduling: among the ops whose inputs
// are all computed, it runs the one that frees the most memory net of what it allocates,
// so one branch finishes (and releases its tensors) before another starts. Ops with no
// tensor inputs (constants) and receives run as late as their first consumer allows. Ops
// with side effects keep their relative order.
//
//===----------------------------------------------------------------------------===//
#include "dialects/TF/TFOps.h"
#include "passes/Graph/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>

namespace kiln::graph {
#define GEN_PASS_DEF_SCHEDULEPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace {

/// The largest total size of tensors produced by `order` and still needed (by a later op
/// or a result) at any point: what a scratch arena must hold, up to alignment.
int64_t peakBytes(ArrayRef<Operation *> order) {
  DenseMap<Operation *, size_t> position;
  for (auto [i, op] : llvm::enumerate(order))
    position[op] = i;
  // Each result is live from its op to its last user (to the end if the terminator uses it).
  SmallVector<int64_t> delta(order.size() + 1, 0);
  for (auto [i, op] : llvm::enumerate(order)) {
    if (op->hasTrait<OpTrait::IsTerminator>() || isa<kiln::tf::ConstOp>(op))
      continue;
    for (Value r : op->getResults()) {
      size_t last = i;
      for (Operation *user : r.getUsers())
        if (auto it = position.find(user); it != position.end())
          last = std::max(last, it->second);
      delta[i] += kiln::graph::tensorBytes(r.getType());
      delta[last + 1] -= kiln::graph::tensorBytes(r.getType());
    }
  }
  int64_t live = 0, peak = 0;
  for (int64_t d : delta) {
    live += d;
    peak = std::max(peak, live);
  }
  return peak;
}

struct SchedulePass : kiln::graph::impl::SchedulePassBase<SchedulePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &block = func.getBody().front();
    SmallVector<Operation *> original;
    for (Operation &op : block.without_terminator())
      original.push_back(&op);
    if (original.size() < 3)
      return;

    auto deferred = [](Operation *op) {
      return op->getNumOperands() == 0 && isMemoryEffectFree(op);
    };
    // Dependencies: operands defined in the block, and the previous op with side effects.
    DenseMap<Operation *, unsigned> pending; // unscheduled producers
    DenseMap<Operation *, SmallVector<Operation *>> consumers;
    DenseMap<Value, unsigned> unscheduledUsers;
    DenseMap<Operation *, size_t> index;
    Operation *lastEffect = nullptr;
    for (auto [i, op] : llvm::enumerate(original)) {
      index[op] = i;
      llvm::SmallPtrSet<Operation *, 4> producers;
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp(); def && def->getBlock() == &block)
          producers.insert(def);
      if (!isMemoryEffectFree(op)) {
        if (lastEffect)
          producers.insert(lastEffect);
        lastEffect = op;
      }
      // Deferred producers (constants) are placed by their consumers, not awaited.
      pending[op] = static_cast<unsigned>(
          llvm::count_if(producers, [&](Operation *p) { return !deferred(p); }));
      for (Operation *p : producers)
        consumers[p].push_back(op);
      for (Value r : op->getResults())
        unscheduledUsers[r] = static_cast<unsigned>(
            llvm::count_if(r.getUsers(), [&](Operation *u) { return u->getBlock() == &block; }));
    }

    // Net bytes an op frees when it runs now: its inputs whose last reader it is, minus the
    // tensors it creates. Ops without tensor inputs (constants) are scheduled just before
    // their first consumer instead, so they never look attractive on their own.
    auto gain = [&](Operation *op) {
      int64_t freed = 0;
      llvm::SmallPtrSet<Value, 4> seen;
      for (Value v : op->getOperands()) {
        if (!seen.insert(v).second || !v.getDefiningOp() ||
            isa<kiln::tf::ConstOp>(v.getDefiningOp()))
          continue;
        unsigned uses = llvm::count(op->getOperands(), v);
        if (unscheduledUsers.lookup(v) == uses)
          freed += kiln::graph::tensorBytes(v.getType());
      }
      int64_t made = 0;
      for (Value r : op->getResults())
        made += kiln::graph::tensorBytes(r.getType());
      return freed - made;
    };

    SmallVector<Operation *> ready, order;
    for (Operation *op : original)
      if (pending[op] == 0 && !deferred(op))
        ready.push_back(op);
    llvm::SmallPtrSet<Operation *, 32> scheduled;
    std::function<void(Operation *)> schedule = [&](Operation *op) {
      // Deferred producers (constants) go right before their first consumer. (Every other
      // producer is scheduled already: an op becomes ready only after them.)
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp();
            def && def->getBlock() == &block && !scheduled.contains(def))
          schedule(def);
      if (!scheduled.insert(op).second)
        return;
      order.push_back(op);
      for (Value v : op->getOperands())
        if (auto it = unscheduledUsers.find(v); it != unscheduledUsers.end() && it->second)
          --it->second;
      if (!deferred(op))
        for (Operation *c : consumers[op])
          if (--pending[c] == 0 && !deferred(c))
            ready.push_back(c);
    };
    while (!ready.empty()) {
      auto best = ready.begin();
      int64_t bestGain = gain(*best);
      for (auto it = std::next(ready.begin()); it != ready.end(); ++it) {
        int64_t g = gain(*it);
        if (g > bestGain || (g == bestGain && index[*it] < index[*best])) {
          best = it;
          bestGain = g;
        }
      }
      Operation *op = *best;
      ready.erase(best);
      schedule(op);
    }
    // Deferred ops nothing consumed (a constant only the terminator returns) keep their
    // place at the end, in their original order.
    for (Operation *op : original)
      if (!scheduled.contains(op)) {
        scheduled.insert(op);
        order.push_back(op);
      }

    // Keep the new order only if it lowers the peak.
    SmallVector<Operation *> withTerminator(order), before(original);
    withTerminator.push_back(block.getTerminator());
    before.push_back(block.getTerminator());
    int64_t oldPeak = peakBytes(before), newPeak = peakBytes(withTerminator);
    if (newPeak >= oldPeak)
      return;
    for (Operation *op : order)
      op->moveBefore(block.getTerminator());
    peakBefore = oldPeak;
    peakAfter = newPeak;
  }
};

} // namespace
