//===- OutlineLoops.cpp - each generated loop nest in a function of its own ---===//
#include "passes/Lower/Outline.h"
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/RegionUtils.h"

namespace kiln::lower {
#define GEN_PASS_DEF_OUTLINELOOPSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

struct OutlineLoopsPass : kiln::lower::impl::OutlineLoopsPassBase<OutlineLoopsPass> {
  using OutlineLoopsPassBase::OutlineLoopsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal() || func->hasAttr(kiln::lower::kOutlinedAttr))
        continue;
      SmallVector<linalg::LinalgOp> ops;
      func.walk([&](linalg::LinalgOp op) {
        if (op.hasPureBufferSemantics() && !op->getParentOfType<linalg::LinalgOp>())
          ops.push_back(op);
      });
      unsigned count = 0;
      Operation *last = func;
      for (linalg::LinalgOp op : ops) {
        if (reassociateReductions)
          if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
            kiln::lower::reassociateReductions(generic);
        if (succeeded(outline(func, op, count, last)))
          ++numOutlined;
      }
    }
  }

  /// Moves `op` into a function of its own, created after `last` (then the new one).
  LogicalResult outline(func::FuncOp func, linalg::LinalgOp op, unsigned &count, Operation *&last) {
    llvm::SetVector<Value> used(op->operand_begin(), op->operand_end());
    for (Region &region : op->getRegions())
      getUsedValuesDefinedAbove(region, used);
    FailureOr<kiln::lower::OutlinedOperands> operands =
        kiln::lower::collectOutlinedOperands(used.getArrayRef());
    if (failed(operands))
      return failure();
    OpBuilder b(op.getContext());
    std::string name = (func.getName() + ".loop" + Twine(count++)).str();
    IRMapping map;
    func::FuncOp body =
        kiln::lower::createOutlinedFunction(b, last, op.getLoc(), name, {}, *operands, map);
    last = body;
    b.clone(*op, map);
    func::ReturnOp::create(b, op.getLoc());
    b.setInsertionPoint(op);
    func::CallOp::create(b, op.getLoc(), body, operands->arguments);
    op->erase();
    return success();
  }
};

} // namespace
