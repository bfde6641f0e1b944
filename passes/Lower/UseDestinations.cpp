//===- UseDestinations.cpp - outputs become caller-owned buffers --------------===//
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::lower {
#define GEN_PASS_DEF_USEDESTINATIONSPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;

namespace {

struct UseDestinationsPass : kiln::lower::impl::UseDestinationsPassBase<UseDestinationsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.isPublic() || func.getNumResults() == 0)
        continue;
      if (failed(convert(func)))
        return signalPassFailure();
    }
  }

  LogicalResult convert(func::FuncOp func) {
    Block &body = func.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    SmallVector<Type> argTypes(func.getArgumentTypes());
    OpBuilder b(ret);
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type || !type.hasStaticShape())
        return func.emitError() << "result " << i << " has type " << value.getType()
                                << "; outputs need static shapes";
      auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
      BlockArgument out = body.addArgument(memrefType, ret.getLoc());
      argTypes.push_back(memrefType);
      bufferization::MaterializeInDestinationOp::create(b, ret.getLoc(), TypeRange{}, value, out,
                                                        /*restrict=*/true, /*writable=*/true);
    }
    func::ReturnOp::create(b, ret.getLoc());
    ret.erase();
    func.setType(FunctionType::get(func.getContext(), argTypes, {}));
    return success();
  }
};

} // namespace
