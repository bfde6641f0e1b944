//===- OutlinePartitions.cpp - one function per device, run by kiln.partition --===//
//
// After kiln-graph-partition, the ops of each device only exchange data through
// _Send/_Recv pairs (and constants, copied per device), so each device's ops can move to a
// function of their own. The original function keeps its signature; its body becomes one
// kiln.partition per device, which run concurrently.
//
//===----------------------------------------------------------------------------===//
#include "dialects/Kiln/KilnDialect.h"
#include "dialects/TF/TFOps.h"
#include "passes/Graph/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

namespace kiln::graph {
#define GEN_PASS_DEF_OUTLINEPARTITIONSPASS
#include "passes/Graph/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;

namespace {

using kiln::graph::deviceOf;

/// "cpu1" for ".../device:CPU:1"; the full name made an identifier when it does not parse.
std::string shortName(StringRef device) {
  auto name = kiln::graph::DeviceName::parse(device);
  std::string text;
  if (name && name->type)
    text = StringRef(*name->type).lower() + (name->id ? std::to_string(*name->id) : "");
  else
    for (char c : device)
      if (llvm::isAlnum(c))
        text.push_back(static_cast<char>(llvm::toLower(c)));
  return text.empty() ? "device" : text;
}

struct OutlinePartitionsPass : kiln::graph::impl::OutlinePartitionsPassBase<OutlinePartitionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs)
      if (!func.isExternal() && failed(outline(func, symbols)))
        return signalPassFailure();
  }

  LogicalResult outline(func::FuncOp func, SymbolTable &symbols) {
    if (!func.getBody().hasOneBlock())
      return success();
    Block &body = func.getBody().front();
    // Partitions in the order of their device names, whatever the order of the ops.
    std::map<StringRef, SmallVector<Operation *>> byDevice;
    for (Operation &op : body.without_terminator()) {
      StringRef device = deviceOf(&op);
      if (device.empty())
        return success(); // not placed: nothing to outline
      byDevice[device].push_back(&op);
    }
    // A graph all on one CPU stays the entry's function; one on a GPU becomes a partition,
    // the unit that runs on a device other than the caller's.
    if (byDevice.empty() ||
        (byDevice.size() == 1 && !kiln::dialect::isGpuDevice(byDevice.begin()->first)))
      return success();

    // Control edges between devices go; any other value crossing devices is a data edge
    // kiln-graph-partition should have turned into a _Send/_Recv pair.
    for (auto &[device, ops] : byDevice)
      for (Operation *op : ops) {
        auto graphOp = dyn_cast<kiln::tf::GraphOpInterface>(op);
        if (graphOp) {
          SmallVector<Value> keep;
          bool dropped = false;
          for (Value v : graphOp.getControlInputs()) {
            Operation *def = v.getDefiningOp();
            if (def && deviceOf(def) != device)
              dropped = true;
            else
              keep.push_back(v);
          }
          if (dropped)
            graphOp.getControlInputsMutable().assign(keep);
        }
        for (Value v : op->getOperands())
          if (Operation *def = v.getDefiningOp(); def && deviceOf(def) != device)
            return op->emitError()
                   << "node '" << kiln::graph::nodeName(op) << "' on " << device << " reads node '"
                   << kiln::graph::nodeName(def) << "' on " << deviceOf(def)
                   << " without a _Recv; run kiln-graph-partition before outlining";
      }

    auto ret = cast<func::ReturnOp>(body.getTerminator());
    OpBuilder b(func);
    Operation *last = func;
    MLIRContext *ctx = func.getContext();
    // Which partition computes each result: the device of its producer; a result that is an
    // input of the function passes through the first partition.
    SmallVector<StringRef> resultDevice;
    for (Value v : ret.getOperands())
      resultDevice.push_back(v.getDefiningOp() ? deviceOf(v.getDefiningOp())
                                               : byDevice.begin()->first);
    SmallVector<Value> results(ret.getNumOperands());
    SmallVector<Operation *> partitionOps;
    for (auto &[device, ops] : byDevice) {
      // Inputs: the function's arguments the partition reads, in argument order.
      llvm::SetVector<BlockArgument> args;
      for (Operation *op : ops)
        op->walk([&](Operation *nested) {
          for (Value v : nested->getOperands())
            if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == &body)
              args.insert(arg);
        });
      SmallVector<unsigned> outputs;
      for (auto [i, d] : llvm::enumerate(resultDevice))
        if (d == device) {
          outputs.push_back(i);
          if (auto arg = dyn_cast<BlockArgument>(ret.getOperand(i)))
            args.insert(arg);
        }
      SmallVector<BlockArgument> sortedArgs(args.begin(), args.end());
      llvm::sort(sortedArgs, [](BlockArgument a, BlockArgument b) {
        return a.getArgNumber() < b.getArgNumber();
      });
      SmallVector<Type> argTypes, resultTypes;
      SmallVector<Value> operands;
      for (BlockArgument arg : sortedArgs) {
        argTypes.push_back(arg.getType());
        operands.push_back(arg);
      }
      for (unsigned i : outputs)
        resultTypes.push_back(ret.getOperand(i).getType());

      OpBuilder unlinked(ctx);
      auto callee = func::FuncOp::create(unlinked, func.getLoc(),
                                         (func.getSymName() + "." + shortName(device)).str(),
                                         b.getFunctionType(argTypes, resultTypes));
      callee.setPrivate();
      // After the function and its earlier partitions; renamed if the name is taken.
      symbols.insert(callee, std::next(Block::iterator(last)));
      last = callee;
      Block *entry = callee.addEntryBlock();
      IRMapping mapping;
      for (auto [arg, inner] : llvm::zip(sortedArgs, entry->getArguments()))
        mapping.map(arg, inner);
      for (Operation *op : ops) {
        op->remove();
        entry->push_back(op);
      }
      for (Operation *op : ops)
        for (OpOperand &use : op->getOpOperands())
          if (Value mapped = mapping.lookupOrNull(use.get()))
            use.set(mapped);
      OpBuilder eb = OpBuilder::atBlockEnd(entry);
      SmallVector<Value> returned;
      for (unsigned i : outputs)
        returned.push_back(mapping.lookupOrDefault(ret.getOperand(i)));
      func::ReturnOp::create(eb, ret.getLoc(), returned);

      OpBuilder pb(ret);
      auto partition = kiln::dialect::PartitionOp::create(
          pb, func.getLoc(), resultTypes, FlatSymbolRefAttr::get(callee.getSymNameAttr()),
          StringAttr::get(ctx, device), operands);
      for (auto [i, out] : llvm::enumerate(outputs))
        results[out] = partition.getResult(i);
      ++numPartitions;
    }
    ret->setOperands(results);
    return success();
  }
};

} // namespace
