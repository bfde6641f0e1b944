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
    for (Operation *op : ops)
      if (kiln::graph::foldConstantOp(op))
        ++numFolded;
  }
};

} // namespace

std::optional<SmallVector<Value>> kiln::graph::foldConstantOp(Operation *op) {
  // The budget: a result too large to compute here is left to run time (a Range of
  // 2^31 constants ran for minutes and ran out of memory).
  if (llvm::any_of(op->getResultTypes(), [](Type t) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        return tensor && tensor.hasStaticShape() &&
               tensor.getNumElements() > kiln::tf::kMaxFoldedElements;
      }))
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value v : op->getOperands())
    operands.push_back(constantOf(v));
  SmallVector<OpFoldResult> results;
  if (failed(op->fold(operands, results)) || results.empty())
    return std::nullopt;
  OpBuilder b(op);
  SmallVector<Value> replacements;
  SmallVector<Operation *> constants;
  for (auto [result, folded] : llvm::zip(op->getResults(), results)) {
    if (auto value = dyn_cast<Value>(folded)) {
      replacements.push_back(value);
      continue;
    }
    // A tf.Const (TFDialect::materializeConstant), if the value is a tensor's elements.
    Operation *constant = op->getDialect()->materializeConstant(
        b, cast<Attribute>(folded), result.getType(), op->getLoc());
    if (!constant)
      break;
    constants.push_back(constant);
    replacements.push_back(constant->getResult(0));
  }
  if (replacements.size() != op->getNumResults()) {
    for (Operation *constant : constants)
      constant->erase();
    return std::nullopt;
  }
  op->replaceAllUsesWith(replacements);
  op->erase();
  return replacements;
}
