//===- Lifetimes.cpp - when each buffer of a bufferized function is live ------===//
#include "passes/Lower/Lifetimes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace kiln::lower {

SmallVector<Lifetime> computeLifetimes(func::FuncOp func, ArrayRef<Value> buffers) {
  Block &body = func.getBody().front();
  DenseMap<Operation *, int64_t> index;
  for (auto [i, op] : llvm::enumerate(body))
    index[&op] = static_cast<int64_t>(i);
  auto topIndex = [&](Operation *op) {
    while (op->getBlock() != &body)
      op = op->getParentOp();
    return index.lookup(op);
  };

  // Which buffers each value derives from (a small bit set per value).
  DenseMap<Value, llvm::SmallBitVector> derived;
  SmallVector<Lifetime> lifetimes(buffers.size());
  for (auto [i, buffer] : llvm::enumerate(buffers)) {
    llvm::SmallBitVector bits(buffers.size());
    bits.set(i);
    derived[buffer] = bits;
    int64_t at = topIndex(buffer.getDefiningOp());
    lifetimes[i] = {at, at};
  }
  // Ops run in body order and a value is defined before its uses, so one pass in order
  // propagates derivation (values defined in loop bodies are seen after the loop's operands).
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    llvm::SmallBitVector uses(buffers.size());
    for (Value operand : op->getOperands())
      if (auto it = derived.find(operand); it != derived.end())
        uses |= it->second;
    if (uses.none())
      return;
    int64_t at = topIndex(op);
    for (int i : uses.set_bits())
      lifetimes[i].last = std::max(lifetimes[i].last, at);
    for (Value result : op->getResults())
      derived[result] |= uses;
    // What a region's terminator passes on (scf.yield, scf.condition) is what its parent
    // (an scf.if or scf.while) returns: a buffer allocated inside a loop may live on
    // through the loop's results.
    if (op->hasTrait<OpTrait::IsTerminator>() && op->getParentOp() != func.getOperation())
      for (Value result : op->getParentOp()->getResults())
        derived[result] |= uses;
    // Values produced inside a region that uses a buffer (a loop's iteration arguments)
    // derive from it too.
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          derived[arg] |= uses;
  });
  return lifetimes;
}

} // namespace kiln::lower
