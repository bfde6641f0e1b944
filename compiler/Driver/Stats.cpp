//===- Stats.cpp - what `kiln compile --stats` reports ------------------------===//
#include "compiler/Driver/Stats.h"

#include "dialects/Kiln/KernelTable.h"
#include "dialects/Kiln/KilnDialect.h"
#include "dialects/TF/TFOps.h"
#include "passes/Graph/Passes.h"
#include "passes/Lower/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace mlir;

namespace kiln::driver {

size_t countOps(Operation *root) {
  size_t n = 0;
  root->walk([&](Operation *op) {
    n += op != root && !isa<FunctionOpInterface, kiln::dialect::PartitionOp>(op) &&
         !op->hasTrait<OpTrait::IsTerminator>();
  });
  return n;
}

/// The placement summary of `--stats`: ops per device, and what crosses devices: one
/// tensor per _Send that kiln-graph-partition inserted (one per tensor per destination),
/// a compressed one at two bytes a value.
void printPlacement(ModuleOp module) {
  llvm::MapVector<StringRef, int64_t> ops;
  int64_t bytes = 0, sends = 0;
  module.walk([&](Operation *op) {
    auto device = op->getAttrOfType<StringAttr>("device");
    if (!device)
      return;
    ++ops[device.getValue()];
    if (!isa<tf::SendOp>(op))
      return;
    ++sends;
    int64_t whole = graph::tensorBytes(op->getOperand(0).getType());
    bytes += op->hasAttr(kiln::tf::kCompressedAttr) ? whole / 2 : whole;
  });
  for (auto [device, count] : ops)
    llvm::outs() << "stats: placement: " << device << ": " << count << " ops\n";
  llvm::outs() << "stats: placement: " << sends << " tensors cross devices (_Send/_Recv pairs), "
               << bytes << " bytes\n";
}

/// What a GPU partition moves between host and device (`--stats`): per call, its inputs and
/// the tensors it receives in, its outputs and the tensors it sends out; its weights once.
static void printGpuTraffic(ModuleOp module, const codegen::EntryInterface &entry,
                            const codegen::EntryPart &part) {
  auto func = module.lookupSymbol<func::FuncOp>(part.implName);
  if (!func)
    return;
  int64_t in = 0, out = 0, weights = 0;
  for (int64_t i : part.inputs)
    in += entry.inputs[i].byteSize;
  for (int64_t i : part.outputs)
    out += entry.outputs[i].byteSize;
  llvm::StringSet<> globals;
  std::map<std::string, int64_t> libraryCalls; // by kernel, in name order
  func.walk([&](Operation *op) {
    if (auto call = dyn_cast<kiln::dialect::KernelCallOp>(op)) {
      // Kiln's own GPU layer's calls are the transfers: a receive writes what comes in, a
      // send reads what goes out. The rest are the libraries'.
      const dialect::KernelInfo *info = dialect::lookupKernel(call.getKernel());
      if (info && info->library == dialect::KernelLibrary::GpuRuntime) {
        for (Value received : call.getOutputs())
          in += graph::tensorBytes(received.getType());
        for (Value sent : call.getInputs())
          out += graph::tensorBytes(sent.getType());
      } else {
        ++libraryCalls[call.getKernel().str()];
      }
    } else if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
      if (globals.insert(get.getName()).second)
        weights += graph::tensorBytes(get.getType());
    }
  });
  llvm::outs() << "stats: GPU partition " << part.implName << ": " << in
               << " bytes to the device and " << out
               << " bytes back per call (inputs and received tensors; outputs and sent "
                  "tensors), "
               << weights << " bytes of weights copied on the first call only\n";
  if (libraryCalls.empty())
    return;
  // cuBLAS, cuBLASLt and cuDNN calls; each library's workspace is its own device memory.
  llvm::outs() << "stats: GPU partition " << part.implName << ": library calls per call:";
  const char *separator = " ";
  for (const auto &[kernel, count] : libraryCalls) {
    llvm::outs() << separator << kernel << " " << count;
    separator = ", ";
  }
  llvm::outs() << "\n";
  // Their workspaces: device memory of their own, outside the arena, one per device for
  // the process.
  std::map<StringRef, dialect::LibraryInfo> workspaces; // by library, in name order
  for (const auto &[kernel, count] : libraryCalls)
    if (std::optional<dialect::LibraryInfo> library = dialect::gpuLibraryOf(kernel))
      workspaces.emplace(library->name, *library);
  if (workspaces.empty())
    return;
  llvm::outs() << "stats: GPU partition " << part.implName
               << ": library workspaces outside the arena, one per device:";
  separator = " ";
  for (const auto &[name, library] : workspaces) {
    using W = dialect::LibraryInfo::Workspace;
    llvm::outs() << separator << name;
    switch (library.workspace) {
    case W::Fixed:
      llvm::outs() << " " << library.workspaceBytes << " bytes on its first call";
      break;
    case W::AtMost:
      llvm::outs() << " what its chosen algorithms ask, at most " << library.workspaceBytes
                   << " bytes, known on the first call";
      break;
    case W::Own:
      llvm::outs() << " its own (the size " << name << " chooses)";
      break;
    case W::None:
      llvm_unreachable("gpuLibraryOf returns libraries with a workspace");
    }
    separator = "; ";
  }
  llvm::outs() << "\n";
}

/// The kernels the CPU functions call, as kiln-lower-kernel-calls chose them from the shapes
/// (`--stats`): the calls of each of Kiln's kernels, and the matrix products by kernel, by
/// the few-row kernel and as generated loops.
static void printKernelChoices(ModuleOp module) {
  std::map<std::string, int64_t> calls; // by kernel, in name order
  int64_t products = 0, fewRows = 0, loops = 0;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (dialect::isOnGpu(func))
      continue;
    func.walk([&](Operation *op) {
      if (op->hasAttr(lower::kSmallProductAttr)) {
        ++loops;
        return;
      }
      auto call = dyn_cast<dialect::KernelCallOp>(op);
      const dialect::KernelInfo *info = call ? dialect::lookupKernel(call.getKernel()) : nullptr;
      if (!info || info->library != dialect::KernelLibrary::Kiln)
        return;
      ++calls[call.getKernel().str()];
      if (info->findParam("few_rows")) { // the single products' rows (not a batch's)
        ++products;
        fewRows += call.hasFlag("few_rows");
      }
    });
  }
  if (calls.empty() && loops == 0)
    return;
  llvm::outs() << "stats: kernel calls:";
  const char *separator = " ";
  for (const auto &[kernel, count] : calls) {
    llvm::outs() << separator << kernel << " " << count;
    separator = ", ";
  }
  if (calls.empty())
    llvm::outs() << " none";
  llvm::outs() << "\nstats: matrix products: " << products << " by the GEMM kernel (" << fewRows
               << " of them by its few-row kernel), " << loops
               << " as generated loops (too small for a call)\n";
}

void printModel(ModuleOp module, const codegen::ModelInterface &model, size_t importedOps,
                size_t graphOps) {
  llvm::outs() << "stats: ops after import: " << importedOps << "\n"
               << "stats: ops after graph passes: " << graphOps << "\n";
  printKernelChoices(module);
  for (const codegen::EntryInterface &entry : model.entries) {
    // A model of several entry points says which one each line is about.
    std::string which = model.entries.size() > 1 ? " of entry point '" + entry.name + "'" : "";
    llvm::outs() << "stats: scratch arena" << which << ": " << entry.scratchBytes
                 << " bytes (buffers share memory by lifetime; naive total: "
                 << entry.naiveScratchBytes << " bytes, one slot per buffer)\n";
    if (entry.parts.size() > 1) {
      llvm::outs() << "stats: partitions run concurrently: " << entry.parts.size() << " (arena";
      for (const codegen::EntryPart &part : entry.parts)
        llvm::outs() << " " << part.implName << " " << part.scratchBytes;
      llvm::outs() << ")\n";
    }
    int64_t io = 0;
    for (const auto &t : entry.inputs)
      io += t.byteSize;
    for (const auto &t : entry.outputs)
      io += t.byteSize;
    llvm::outs() << "stats: inputs + outputs" << which << ": " << io << " bytes (caller-owned)\n";
    for (const codegen::EntryPart &part : entry.parts)
      if (part.gpu)
        printGpuTraffic(module, entry, part);
  }
  if (!model.states.empty())
    llvm::outs() << "stats: state: " << model.stateBytes << " bytes in " << model.states.size()
                 << " tensors (caller-owned)\n";
}

void printGpuArenas(ModuleOp module) {
  module.walk([&](LLVM::LLVMFuncOp function) {
    if (auto bytes = function->getAttrOfType<IntegerAttr>(dialect::kGpuArenaBytesAttrName))
      llvm::outs() << "stats: GPU arena of " << function.getName() << ": " << bytes.getInt()
                   << " bytes of device memory (scratch, weights, inputs, outputs), "
                      "allocated on the first call\n";
  });
}

void OpCounts::runBeforePass(Pass *pass, Operation *op) {
  if (pass->getArgument().empty()) // a pass manager running nested ones
    return;
  size_t n = countOps(op);
  std::lock_guard<std::mutex> lock(mutex);
  open[{pass, op}] = records.size();
  records.push_back({pass->getArgument().str(), n, n});
}

void OpCounts::runAfterPass(Pass *pass, Operation *op) {
  if (pass->getArgument().empty()) // a pass manager running nested ones
    return;
  size_t n = countOps(op);
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = open.find({pass, op}); it != open.end())
    records[it->second].after = n;
}

void OpCounts::print() const {
  for (const Record &r : records)
    llvm::outs() << "stats: " << r.pass << ": " << r.before << " -> " << r.after << " ops\n";
}

} // namespace kiln::driver
