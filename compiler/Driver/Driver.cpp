//===- Driver.cpp - `kiln compile` as a library -------------------------------===//
//
// A compilation is the sequence of stages below, then machine code (Emit.cpp). Each stage
// is a method of Compilation in a file of its own; --stage and --dump-ir name them.
//
//===----------------------------------------------------------------------------===//
#include "compiler/Driver/Compilation.h"

#include "compiler/Import/Import.h"
#include "compiler/Init/InitAll.h"
#include "dialects/Kiln/KilnDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;

namespace kiln::driver {

namespace {
const StageInfo kStages[] = {
    {Stage::Import, "import", "imported", &Compilation::importGraph},
    {Stage::Graph, "graph", "graph passes", &Compilation::runGraphPasses},
    {Stage::Lowered, "lowered", "lowered", &Compilation::lower},
    {Stage::Llvm, "llvm", "LLVM dialect", &Compilation::lowerToLLVM},
};

DialectRegistry allDialects() {
  DialectRegistry registry;
  registerAllDialects(registry);
  return registry;
}
} // namespace

ArrayRef<StageInfo> stages() { return kStages; }

Compilation::Compilation(const CompileOptions &options, llvm::raw_ostream &err)
    : options(options), err(err), context(allDialects()),
      diagnostics(&context, options.graphPath, err) {
  // -j: MLIR's passes on that many threads too (one: none of its own).
  if (options.jobs == 1) {
    context.disableMultithreading();
  } else if (options.jobs > 1) {
    threadPool =
        std::make_unique<llvm::DefaultThreadPool>(llvm::hardware_concurrency(options.jobs));
    context.disableMultithreading();
    context.setThreadPool(*threadPool);
  }
  context.loadAllAvailableDialects();
  // Errors name the node; the IR of the op or function adds nothing for a user.
  context.printOpOnDiagnostic(false);
  context.printStackTraceOnDiagnostic(false);
}

int Compilation::run() {
  // A SavedModel directory: its signatures can be listed, or one of them compiled.
  savedModel = import::savedModelFile(options.graphPath);
  if (options.listSignatures)
    return listSignatures();
  if (failed(checkOptions()))
    return 1;
  for (const StageInfo &stage : stages()) {
    if (failed((this->*stage.run)()))
      return 1;
    progress(stage.done);
    if (failed(dumpStage(stage.name)))
      return 1;
    if (options.emit == EmitKind::Mlir && options.stage == stage.stage)
      return failed(writeModule());
  }
  return emit();
}

int Compilation::listSignatures() {
  if (savedModel.empty())
    return fail("--list-signatures: '", options.graphPath,
                "' is not a SavedModel directory (no saved_model.pb or saved_model.pbtxt in "
                "it)");
  return failed(import::listSavedModelSignatures(options.graphPath, llvm::outs(), &context)) ? 1
                                                                                             : 0;
}

LogicalResult Compilation::checkOptions() {
  bool isSavedModel = !savedModel.empty();
  if (!isSavedModel && (!options.tags.empty() || !options.signature.empty()))
    return error("--tag and --signature apply to SavedModel directories; '", options.graphPath,
                 "' is not one (no saved_model.pb or saved_model.pbtxt in it)");
  if (isSavedModel && (!options.fetches.empty() || !options.configPath.empty()))
    return error("--fetch and --config apply to GraphDefs; the signature of SavedModel '",
                 options.graphPath, "' names its outputs (choose one with --signature)");
  if (!isSavedModel && llvm::sys::fs::is_directory(options.graphPath))
    return error("'", options.graphPath,
                 "' is a directory but not a SavedModel (no saved_model.pb or "
                 "saved_model.pbtxt in it)");

  if (options.output.empty() && (options.emit == EmitKind::Exe || options.emit == EmitKind::Obj))
    return error("give the output file with -o");
  output = options.output.empty() ? "-" : options.output;
  if (output == "-" && (options.emit == EmitKind::Exe || options.emit == EmitKind::Obj))
    return error("--emit ", options.emit == EmitKind::Exe ? "exe" : "obj",
                 " cannot write to standard output; give a file with -o");
  if (failed(checkOutputs()))
    return failure();
  if (options.compressTransfers && options.devices.empty())
    return error("--compress-transfers compresses the tensors that cross devices; give the "
                 "devices with --devices (/cpu:0,/cpu:1)");
  if (!options.gpuArch.empty()) {
    StringRef arch = options.gpuArch;
    StringRef digits = arch.drop_front(3).rtrim("af");
    if (!arch.starts_with("sm_") || digits.size() < 2 || !llvm::all_of(digits, llvm::isDigit))
      return error("--gpu-arch: '", options.gpuArch,
                   "' is not a GPU architecture (sm_80, sm_90, sm_90a, sm_100a, ...)");
    // A name of that form LLVM does not know would be compiled for a default (LLVM warns
    // once per kernel module) and then fail in ptxas.
    std::vector<std::string> known = pipelines::gpuArchitectures();
    if (!llvm::is_contained(known, options.gpuArch))
      return error(
          "--gpu-arch: '", options.gpuArch,
          "' is not an architecture LLVM's NVPTX backend knows: ", llvm::join(known, ", "));
  }
  if (options.emit != EmitKind::Mlir || options.stage == Stage::Llvm) {
    std::string targetError;
    machine = codegen::createTargetMachine(options.cpu, targetError);
    if (!machine)
      return error("--cpu ", options.cpu, ": ", targetError);
  }
  modelName = codegen::sanitizeIdentifier(defaultModelName());
  return success();
}

void Compilation::nameModel() {
  for (auto model : module->getOps<dialect::ModelOp>())
    model.setName(modelName);
}

} // namespace kiln::driver

int kiln::driver::compile(const CompileOptions &options, llvm::raw_ostream &err) {
  return Compilation(options, err).run();
}

int kiln::driver::listOps(llvm::raw_ostream &out) {
  MLIRContext context(allDialects());
  context.loadAllAvailableDialects();
  for (const std::string &name : import::supportedOps(&context))
    out << name << "\n";
  return 0;
}
