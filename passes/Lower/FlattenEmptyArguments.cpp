//===- FlattenEmptyArguments.cpp - empty buffer arguments as memref<0xT> -------===//
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::lower {
#define GEN_PASS_DEF_FLATTENEMPTYARGUMENTSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

struct FlattenEmptyArgumentsPass
    : kiln::lower::impl::FlattenEmptyArgumentsPassBase<FlattenEmptyArgumentsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      Block &entry = func.getBody().front();
      OpBuilder b = OpBuilder::atBlockBegin(&entry);
      bool changed = false;
      for (BlockArgument arg : entry.getArguments()) {
        auto type = dyn_cast<MemRefType>(arg.getType());
        if (!type || type.getRank() < 2 || !type.hasStaticShape() || type.getNumElements() != 0 ||
            !type.getLayout().isIdentity())
          continue;
        auto flat = MemRefType::get({0}, type.getElementType(), MemRefLayoutAttrInterface(),
                                    type.getMemorySpace());
        arg.setType(flat);
        ReassociationIndices all;
        for (int64_t d = 0; d < type.getRank(); ++d)
          all.push_back(d);
        auto expanded = memref::ExpandShapeOp::create(b, func.getLoc(), type.getShape(), arg,
                                                      ArrayRef<ReassociationIndices>{all});
        arg.replaceAllUsesExcept(expanded.getResult(), expanded);
        changed = true;
      }
      if (changed)
        func.setType(
            FunctionType::get(&getContext(), entry.getArgumentTypes(), func.getResultTypes()));
    }
  }
};

} // namespace
