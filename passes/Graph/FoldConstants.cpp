//===- FoldConstants.cpp - compile-time values become tf.Const ----------------===//
#include "passes/Graph/Passes.h"
#include "dialects/TF/TFOps.h"

namespace kiln::graph {
#define GEN_PASS_DEF_FOLDCONSTANTSPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace {

/// The constant attribute of `value` if a tf.Const defines it.
Attribute constantOf(Value value) {
  auto c = value.getDefiningOp<kiln::tf::ConstOp>();
  return c ? c.getValueAttr() : Attribute();
}

struct FoldConstantsPass : kiln::graph::impl::FoldConstantsPassBase<FoldConstantsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) {
      if (isa<kiln::tf::TFDialect>(op->getDialect()) && !isa<kiln::tf::ConstOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      SmallVector<Attribute> operands;
      for (Value v : op->getOperands())
        operands.push_back(constantOf(v));
      SmallVector<OpFoldResult> results;
      if (failed(op->fold(operands, results)) || results.empty())
        continue;
      OpBuilder b(op);
      SmallVector<Value> replacements;
      for (auto [result, folded] : llvm::zip(op->getResults(), results)) {
        if (auto value = dyn_cast<Value>(folded)) {
          replacements.push_back(value);
          continue;
        }
        auto elements = dyn_cast<ElementsAttr>(cast<Attribute>(folded));
        if (!elements || elements.getType() != result.getType())
          break;
        replacements.push_back(kiln::tf::ConstOp::create(
            b, op->getLoc(), elements.getType(), elements,
            TypeAttr::get(elements.getElementType()), ValueRange{}));
      }
      if (replacements.size() != op->getNumResults())
        continue;
      op->replaceAllUsesWith(replacements);
      op->erase();
      ++numFolded;
    }
  }
};

} // namespace
