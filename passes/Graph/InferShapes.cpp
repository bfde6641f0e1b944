//===- InferShapes.cpp - propagate static shapes through the graph ------------===//
#include "passes/Graph/Passes.h"

#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace kiln::graph {
#define GEN_PASS_DEF_INFERSHAPESPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace {

/// The more precise of two compatible types, or null if they are not compatible.
Type refine(Type current, Type inferred) {
  if (current == inferred)
    return current;
  auto cur = dyn_cast<TensorType>(current);
  auto inf = dyn_cast<TensorType>(inferred);
  if (!cur || !inf || cur.getElementType() != inf.getElementType())
    return {};
  if (!inf.hasRank())
    return cur;
  if (!cur.hasRank())
    return inf;
  if (cur.getRank() != inf.getRank())
    return {};
  SmallVector<int64_t> dims;
  for (auto [c, i] : llvm::zip(cur.getShape(), inf.getShape())) {
    if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(i) && c != i)
      return {};
    dims.push_back(ShapedType::isDynamic(c) ? i : c);
  }
  return RankedTensorType::get(dims, cur.getElementType());
}

struct InferShapesPass : kiln::graph::impl::InferShapesPassBase<InferShapesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    WalkResult result = func.walk([&](InferTypeOpInterface op) {
      SmallVector<Type> inferred;
      Operation *raw = op.getOperation();
      if (failed(op.inferReturnTypes(raw->getContext(), raw->getLoc(), raw->getOperands(),
                                     raw->getAttrDictionary(), raw->getPropertiesStorage(),
                                     raw->getRegions(), inferred)))
        return WalkResult::interrupt();
      for (auto [res, type] : llvm::zip(raw->getResults(), inferred)) {
        Type refined = refine(res.getType(), type);
        if (!refined) {
          raw->emitOpError() << "result type " << res.getType()
                             << " conflicts with the inferred type " << type;
          return WalkResult::interrupt();
        }
        res.setType(refined);
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                   ret.getOperandTypes()));
  }
};

} // namespace
