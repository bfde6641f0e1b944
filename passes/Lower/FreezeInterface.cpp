//===- FreezeInterface.cpp - the model's interface gets its static types ------===//
#include "dialects/Kiln/ABI.h"
#include "dialects/Kiln/Model.h"
#include "dialects/TF/TFOps.h"
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::lower {
#define GEN_PASS_DEF_FREEZEINTERFACEPASS
#include "passes/Lower/Passes.h.inc"
} // namespace kiln::lower

using namespace mlir;
using namespace kiln;

/// The name of input `index` of `func`: the feed's, when an entry point of the model runs
/// the function, or "argument N".
static std::string inputName(ModuleOp module, func::FuncOp func, unsigned index) {
  if (auto model = dialect::getModel(module))
    for (auto entry : model.getBody().getOps<dialect::EntryOp>())
      if (entry.getFunction() == func.getSymName() && index < entry.getFeeds().size())
        return cast<dialect::TensorAttr>(entry.getFeeds()[index]).getName().str();
  return "argument " + std::to_string(index);
}

LogicalResult lower::checkLowerable(ModuleOp module) {
  // A feed without a static shape is the cause of every unknown shape downstream of it.
  bool ok = true;
  for (auto func : module.getOps<func::FuncOp>()) {
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      auto shaped = dyn_cast<ShapedType>(type);
      if (!shaped || shaped.hasStaticShape())
        continue;
      func.emitError() << "input '" << inputName(module, func, i) << "' has the shape "
                       << tf::describeType(type)
                       << "; give it a static shape (--feed NAME=DTYPE[DIMS])";
      ok = false;
    }
  }
  if (!ok)
    return failure();
  module.walk([&](Operation *op) {
    if (!isa<tf::TFDialect>(op->getDialect()))
      return;
    if (isa<tf::PlaceholderOp>(op)) {
      op->emitError() << "Placeholder is needed by a fetch but is not fed; give it with "
                         "--feed or in the config";
      ok = false;
      return;
    }
    for (Type t : op->getResultTypes()) {
      auto shaped = dyn_cast<ShapedType>(t);
      if (shaped && !shaped.hasStaticShape()) {
        op->emitError() << "its output has the shape " << tf::describeType(t)
                        << ", not fully known; give static shapes for the feeds";
        ok = false;
        return;
      }
    }
  });
  return success(ok);
}

namespace {

/// The feed or fetch `index` of a function without a kiln.model: input<i> or output<i>.
dialect::TensorAttr defaultTensor(func::FuncOp func, bool input, unsigned index) {
  return dialect::TensorAttr::get(func.getContext(),
                                  (input ? "input" : "output") + std::to_string(index),
                                  StringAttr(), RankedTensorType());
}

struct FreezeInterfacePass : lower::impl::FreezeInterfacePassBase<FreezeInterfacePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module.getOps<dialect::ModelOp>().empty() && failed(addDefaultModel(module)))
      return signalPassFailure();
    if (failed(lower::checkLowerable(module)))
      return signalPassFailure();
    bool ok = true;
    module.walk([&](dialect::EntryOp entry) {
      if (failed(freeze(module, entry)))
        ok = false;
    });
    if (!ok)
      signalPassFailure();
  }

  /// A module written by hand (kiln-opt) gets `kiln.model "main"` with one entry point
  /// running its first public function.
  LogicalResult addDefaultModel(ModuleOp module) {
    func::FuncOp main;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal()) {
        main = func;
        break;
      }
    if (!main)
      return success(); // nothing to run: no interface to freeze
    SmallVector<Attribute> feeds, fetches;
    for (unsigned i = 0; i < main.getNumArguments(); ++i)
      feeds.push_back(defaultTensor(main, true, i));
    for (unsigned i = 0; i < main.getNumResults(); ++i)
      fetches.push_back(defaultTensor(main, false, i));
    dialect::createSingleEntryModel(module, module.getLoc(), "main",
                                    FlatSymbolRefAttr::get(main.getSymNameAttr()), feeds, fetches);
    return success();
  }

  /// Writes each feed's and fetch's type, which must be static, of a dtype the C ABI has
  /// and of rank KILN_MAX_RANK or less.
  LogicalResult freeze(ModuleOp module, dialect::EntryOp entry) {
    if (!entry.getFunction())
      return success();
    auto func = module.lookupSymbol<func::FuncOp>(*entry.getFunction());
    if (!func)
      return success(); // the verifier reports it
    auto frozen = [&](ArrayAttr tensors, TypeRange types, StringRef what,
                      ArrayAttr &out) -> LogicalResult {
      SmallVector<Attribute> result;
      for (auto [attr, type] : llvm::zip(tensors.getAsRange<dialect::TensorAttr>(), types)) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        if (!tensor || !tensor.hasStaticShape())
          return func.emitError() << what << " '" << attr.getName() << "' has type " << type
                                  << "; give it a static shape (--feed NAME=DTYPE[DIMS])";
        if (!dialect::abi::dtypeOf(tensor.getElementType()))
          return func.emitError() << what << " '" << attr.getName()
                                  << "' has unsupported element type " << tensor.getElementType();
        if (tensor.getRank() > dialect::abi::maxRank())
          return func.emitError() << what << " '" << attr.getName() << "' has rank "
                                  << tensor.getRank() << "; at most " << dialect::abi::maxRank()
                                  << " is supported";
        result.push_back(dialect::TensorAttr::get(attr.getContext(), attr.getName(),
                                                  attr.getAlias(), tensor, attr.getShape()));
      }
      out = ArrayAttr::get(entry.getContext(), result);
      return success();
    };
    ArrayAttr feeds, fetches;
    if (failed(frozen(entry.getFeeds(), func.getArgumentTypes().take_front(entry.getFeeds().size()),
                      "input", feeds)) ||
        failed(frozen(entry.getFetches(), func.getResultTypes(), "output", fetches)))
      return failure();
    entry.setFeedsAttr(feeds);
    entry.setFetchesAttr(fetches);
    return success();
  }
};

} // namespace
