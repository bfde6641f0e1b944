//===- InferShapes.cpp - propagate static shapes through the graph ------------===//
#include "passes/Graph/Passes.h"

#include "dialects/TF/TFOps.h"

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

/// Re-infers `op`'s result types and refines them; false (after an error) on a conflict.
bool inferOp(InferTypeOpInterface op) {
  SmallVector<Type> inferred;
  Operation *raw = op.getOperation();
  if (failed(op.inferReturnTypes(raw->getContext(), raw->getLoc(), raw->getOperands(),
                                 raw->getAttrDictionary(), raw->getPropertiesStorage(),
                                 raw->getRegions(), inferred)))
    return false;
  for (auto [res, type] : llvm::zip(raw->getResults(), inferred)) {
    Type refined = refine(res.getType(), type);
    if (!refined) {
      raw->emitOpError() << "result type " << res.getType()
                         << " conflicts with the inferred type " << type;
      return false;
    }
    res.setType(refined);
  }
  return true;
}

/// The arguments of a control-flow op's regions take the types of the inputs they stand
/// for, before the regions' ops are inferred.
bool refineRegionArguments(Operation *op, ValueRange inputs) {
  for (Region &region : op->getRegions()) {
    if (region.empty() || region.front().getNumArguments() != inputs.size())
      continue; // the verifier reports it
    for (auto [arg, input] : llvm::zip(region.front().getArguments(), inputs)) {
      Type refined = refine(arg.getType(), input.getType());
      if (!refined) {
        op->emitOpError() << "a region argument of type " << arg.getType()
                          << " conflicts with its input's type " << input.getType();
        return false;
      }
      arg.setType(refined);
    }
  }
  return true;
}

/// Infers the ops of `block` in order, regions before the op that holds them.
bool inferBlock(Block &block) {
  for (Operation &op : block) {
    if (auto ifOp = dyn_cast<kiln::tf::IfOp>(op); ifOp && !refineRegionArguments(ifOp, ifOp.getInputs()))
      return false;
    if (auto caseOp = dyn_cast<kiln::tf::CaseOp>(op);
        caseOp && !refineRegionArguments(caseOp, caseOp.getInputs()))
      return false;
    if (auto whileOp = dyn_cast<kiln::tf::WhileOp>(op);
        whileOp && !refineRegionArguments(whileOp, whileOp.getInputs()))
      return false;
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        if (!inferBlock(inner))
          return false;
    if (auto infer = dyn_cast<InferTypeOpInterface>(op); infer && !inferOp(infer))
      return false;
  }
  return true;
}

struct InferShapesPass : kiln::graph::impl::InferShapesPassBase<InferShapesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (!inferBlock(func.getBody().front()))
      return signalPassFailure();
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                   ret.getOperandTypes()));
  }
};

} // namespace
