//===- Driver.cpp - `kiln compile` as a library -------------------------------===//
#include "compiler/Driver/Driver.h"

#include "codegen/Target/Constants.h"
#include "codegen/Target/ModelABI.h"
#include "codegen/Target/Object.h"
#include "compiler/Init/InitAll.h"
#include "compiler/Pipelines/Pipelines.h"
#include "dialects/TF/TFOps.h"
#include "passes/Graph/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <map>
#include <mutex>

using namespace mlir;

namespace kiln::driver {

bool parseEmitKind(StringRef text, EmitKind &kind) {
  auto k = llvm::StringSwitch<std::optional<EmitKind>>(text)
               .Case("exe", EmitKind::Exe)
               .Case("obj", EmitKind::Obj)
               .Case("mlir", EmitKind::Mlir)
               .Case("llvm", EmitKind::Llvm)
               .Case("asm", EmitKind::Asm)
               .Case("ptx", EmitKind::Ptx)
               .Default(std::nullopt);
  if (k)
    kind = *k;
  return k.has_value();
}

bool parseStage(StringRef text, Stage &stage) {
  auto s = llvm::StringSwitch<std::optional<Stage>>(text)
               .Case("import", Stage::Import)
               .Case("graph", Stage::Graph)
               .Case("lowered", Stage::Lowered)
               .Case("llvm", Stage::Llvm)
               .Default(std::nullopt);
  if (s)
    stage = *s;
  return s.has_value();
}

static std::string tensorNameHint() {
  return "(expected NAME or NAME:PORT, PORT from 0 to " + std::to_string(import::kMaxPort) +
         ")";
}

/// The DTYPE[DIMS] of a --feed (`text` whole, for messages).
static bool parseFeedType(StringRef spec, StringRef text, MLIRContext *ctx,
                          import::FeedSpec &feed, std::string &error) {
  size_t bracket = spec.find('[');
  StringRef dtype = spec.substr(0, bracket).trim();
  if (!dtype.empty()) {
    feed.elementType = import::parseDataType(dtype, ctx);
    if (!feed.elementType) {
      error = "unknown dtype '" + dtype.str() +
              "' (use f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 bool, float32, DT_FLOAT ...)";
      return false;
    }
  }
  if (bracket == StringRef::npos)
    return true;
  StringRef dims = spec.substr(bracket);
  if (!dims.consume_front("[") || !dims.consume_back("]")) {
    error = "bad dimensions '" + spec.substr(bracket).str() + "' (expected [D0,D1,...])";
    return false;
  }
  llvm::SmallVector<int64_t> shape;
  dims = dims.trim();
  if (!dims.empty()) {
    llvm::SmallVector<StringRef> parts;
    dims.split(parts, ',');
    for (StringRef part : parts) {
      int64_t d;
      if (part.trim().getAsInteger(10, d) || d < 0) {
        error = "bad dimension '" + part.trim().str() + "' in '" + text.str() +
                "' (dimensions are non-negative integers)";
        return false;
      }
      shape.push_back(d);
    }
  }
  feed.shape = shape;
  return true;
}

bool parseFeed(StringRef text, MLIRContext *ctx, import::FeedSpec &feed, std::string &error) {
  auto [name, spec] = text.split('=');
  if (name.empty() || spec.empty()) {
    error = "expected NAME[:PORT]=DTYPE[DIMS], got '" + text.str() + "'";
    return false;
  }
  auto id = import::parseTensorId(name);
  if (!id) {
    error = "bad tensor name '" + name.str() + "' " + tensorNameHint();
    return false;
  }
  feed.id = *id;
  return parseFeedType(spec, text, ctx, feed, error);
}

bool parseSignatureFeed(StringRef text, MLIRContext *ctx, import::FeedSpec &feed,
                        std::string &error) {
  auto [key, spec] = text.split('=');
  if (key.empty() || spec.empty()) {
    error = "expected KEY=DTYPE[DIMS] (KEY an input of the signature), got '" + text.str() + "'";
    return false;
  }
  feed.key = key.str();
  return parseFeedType(spec, text, ctx, feed, error);
}

namespace {

/// `text` with control characters, DEL and bytes that are not UTF-8 escaped as \xNN (a
/// corrupt graph's names may hold any byte; a message is one line of text).
std::string printable(StringRef text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t length = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = length > 0 && i + length <= text.size() && (length > 1 || (c >= 0x20 && c != 0x7f));
    for (size_t k = 1; ok && k < length; ++k)
      ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 2;
    if (ok) {
      out.append(text.data() + i, length);
      i += length;
      continue;
    }
    static const char hex[] = "0123456789abcdef";
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
    ++i;
  }
  return out;
}

/// Prints diagnostics as `kiln: error: GRAPH: node 'NAME': message`.
class DiagnosticPrinter {
public:
  DiagnosticPrinter(MLIRContext *ctx, StringRef graphPath, llvm::raw_ostream &os)
      : handler(ctx, [this](Diagnostic &d) { return print(d); }), graphPath(graphPath.str()),
        os(os) {}

  bool sawError() const { return errors > 0; }

private:
  LogicalResult print(Diagnostic &diag) {
    const char *severity = "error";
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error: severity = "error"; ++errors; break;
    case DiagnosticSeverity::Warning: severity = "warning"; break;
    case DiagnosticSeverity::Note: severity = "note"; break;
    case DiagnosticSeverity::Remark: severity = "remark"; break;
    }
    std::string message = diag.str();
    std::string file = graphPath, node;
    diag.getLocation()->walk([&](Location loc) {
      if (auto name = dyn_cast<NameLoc>(loc); name && node.empty())
        node = name.getName().str();
      if (auto flc = dyn_cast<FileLineColLoc>(loc))
        file = flc.getFilename().str();
      return WalkResult::advance();
    });
    os << "kiln: " << severity << ": " << printable(file) << ": ";
    if (!node.empty() && !StringRef(message).starts_with("node '"))
      os << "node '" << printable(node) << "': ";
    // A tool's log after upstream's "`ptxas` invocation failed. Log:" (the GPU kernels'
    // assembly; `fatbinary`'s likewise): a note a line. Any other newline is escaped like
    // every control character (a node name may hold one: it must not start a line).
    StringRef text = message, log;
    auto [first, after] = text.split('\n');
    StringRef tool = first;
    if (tool.consume_front("`") && tool.consume_back("` invocation failed. Log:") &&
        !tool.empty() && tool.find_first_of("` ") == StringRef::npos) {
      text = first;
      log = after;
    }
    os << printable(text) << "\n";
    while (!log.empty()) {
      auto [line, rest] = log.split('\n');
      if (!line.trim().empty())
        os << "kiln: note: " << printable(line.rtrim()) << "\n";
      log = rest;
    }
    for (Diagnostic &note : diag.getNotes())
      os << "kiln: note: " << printable(note.str()) << "\n";
    return success();
  }

  ScopedDiagnosticHandler handler;
  std::string graphPath;
  llvm::raw_ostream &os;
  int errors = 0;
};

class Compilation {
public:
  Compilation(const CompileOptions &options, llvm::raw_ostream &err)
      : options(options), err(err) {}

  int run();

private:
  template <typename... Args>
  int fail(Args &&...args) {
    err << "kiln: error: ";
    (err << ... << args);
    err << "\n";
    return 1;
  }
  /// Reports a finished step: always with --verbose, and on a terminal when it took more
  /// than a second, so a long compile (LLVM's optimisation of a large model) shows where
  /// it is without flooding logs.
  void progress(StringRef step) {
    auto now = std::chrono::steady_clock::now();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - last).count();
    if (options.verbose || (ms >= 1000 && llvm::sys::Process::StandardErrIsDisplayed()))
      err << "kiln: " << step << " (" << ms << " ms)\n";
    last = now;
  }
  LogicalResult runPipeline(ModuleOp module, function_ref<LogicalResult(OpPassManager &)> build,
                            StringRef stage);
  LogicalResult dumpStage(ModuleOp module, StringRef stage);
  LogicalResult writeText(StringRef path, function_ref<void(llvm::raw_ostream &)> write);
  LogicalResult writeOutput(StringRef path,
                            function_ref<LogicalResult(llvm::raw_pwrite_stream &)> write);
  LogicalResult checkOutputs();
  std::string defaultModelName() const;
  pipelines::PipelineOptions pipelineOptions() const {
    pipelines::PipelineOptions p;
    p.devices = options.devices;
    p.compressTransfers = options.compressTransfers;
    p.kernelCalls = !options.noKernels;
    p.runtimeChecks = options.runtimeChecks;
    p.strictFloat = options.strictFloat;
    p.allowTf32 = options.allowTf32;
    p.gpuEpilogues = options.gpuEpilogues;
    p.cublasltEpilogues = options.cublasltEpilogues;
    if (!options.gpuArch.empty()) {
      p.gpuArch = options.gpuArch;
      p.gpuAssemble = options.emit != EmitKind::Ptx;
    }
    // --emit ptx writes one module, which ptxas takes as it is.
    if (options.emit == EmitKind::Ptx)
      p.gpuModules = 1;
    return p;
  }
  std::string outputBase() const;
  int link(ArrayRef<std::string> objectPaths, StringRef exePath);
  int emitPartsAndLink(llvm::Module &module, llvm::TargetMachine &machine, unsigned threads,
                       ArrayRef<codegen::ObjectConstant> constants, StringRef modelName,
                       StringRef exePath);

  const CompileOptions &options;
  llvm::raw_ostream &err;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};

/// The ops of the graph under `root`: functions, their terminators and the calls of
/// partitions are structure, not ops.
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
    if (op->getName().getStringRef() != "tf._Send")
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
void printGpuTraffic(ModuleOp module, const codegen::EntryInterface &entry,
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
      if (call.getKernel() == "gpu_partition_recv")
        in += graph::tensorBytes(call.getOutputs()[0].getType());
      else if (call.getKernel() == "gpu_partition_send")
        out += graph::tensorBytes(call.getInputs()[0].getType());
      else
        ++libraryCalls[call.getKernel().str()];
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

/// Records the number of ops before and after each pass (for `--stats`). MLIR's own pass
/// statistics are compiled out of release builds of LLVM, so the driver counts itself.
struct OpCounts : PassInstrumentation {
  struct Record {
    std::string pass;
    size_t before = 0, after = 0;
  };
  std::mutex mutex;
  std::vector<Record> records;
  DenseMap<std::pair<Pass *, Operation *>, size_t> open;

  void runBeforePass(Pass *pass, Operation *op) override {
    if (pass->getArgument().empty()) // a pass manager running nested ones
      return;
    size_t n = countOps(op);
    std::lock_guard<std::mutex> lock(mutex);
    open[{pass, op}] = records.size();
    records.push_back({pass->getArgument().str(), n, n});
  }
  void runAfterPass(Pass *pass, Operation *op) override {
    if (pass->getArgument().empty()) // a pass manager running nested ones
      return;
    size_t n = countOps(op);
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = open.find({pass, op}); it != open.end())
      records[it->second].after = n;
  }
};

LogicalResult Compilation::runPipeline(ModuleOp module,
                                       function_ref<LogicalResult(OpPassManager &)> build,
                                       StringRef stage) {
  PassManager pm(module->getContext());
  if (failed(build(pm)))
    return failure();
  if (!options.dumpIrDir.empty()) {
    module->getContext()->disableMultithreading();
    pm.enableIRPrintingToFileTree(
        [](Pass *, Operation *) { return false; }, [](Pass *, Operation *) { return true; },
        /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false,
        /*printAfterOnlyOnFailure=*/false, options.dumpIrDir + "/" + stage.str());
  }
  OpCounts *counts = nullptr;
  if (options.stats) {
    auto owned = std::make_unique<OpCounts>();
    counts = owned.get();
    pm.addInstrumentation(std::move(owned));
  }
  if (failed(pm.run(module)))
    return failure();
  if (counts && stage == "graph")
    for (const OpCounts::Record &r : counts->records)
      llvm::outs() << "stats: " << r.pass << ": " << r.before << " -> " << r.after << " ops\n";
  return success();
}

/// Writes `path` ("-" is standard output) with `write`. A write that fails (a full disk,
/// /dev/full) is reported and the partial file removed; unchecked, LLVM's stream would
/// end the process with "IO failure on output stream".
LogicalResult Compilation::writeOutput(
    StringRef path, function_ref<LogicalResult(llvm::raw_pwrite_stream &)> write) {
  std::string error;
  auto file = openOutputFile(path, &error);
  if (!file) {
    err << "kiln: error: cannot write '" << path << "': " << error << "\n";
    return failure();
  }
  if (failed(write(file->os())))
    return failure();
  file->os().flush();
  if (std::error_code ec = file->os().error()) {
    file->os().clear_error();
    err << "kiln: error: cannot write '" << path << "': " << ec.message() << "\n";
    return failure();
  }
  file->keep();
  return success();
}

LogicalResult Compilation::writeText(StringRef path,
                                     function_ref<void(llvm::raw_ostream &)> write) {
  return writeOutput(path, [&](llvm::raw_pwrite_stream &os) {
    write(os);
    return success();
  });
}

/// Refuses outputs that are the graph or the config: `-o model.pb` with --emit obj
/// (model.pb.o, fine) is not, but `-o model.pbtxt --emit mlir` would overwrite the input.
LogicalResult Compilation::checkOutputs() {
  SmallVector<std::string> outputs;
  if (options.emit == EmitKind::Obj)
    outputs = {outputBase() + ".o", outputBase() + ".h"};
  else if (options.output != "-")
    outputs = {options.output};
  for (const std::string &out : outputs)
    for (StringRef input : {StringRef(options.graphPath), StringRef(options.configPath)})
      if (!input.empty() && llvm::sys::fs::equivalent(input, out)) {
        err << "kiln: error: the output '" << out << "' is the input '" << input
            << "'; give another file with -o\n";
        return failure();
      }
  return success();
}

LogicalResult Compilation::dumpStage(ModuleOp module, StringRef stage) {
  if (options.dumpIrDir.empty())
    return success();
  if (auto ec = llvm::sys::fs::create_directories(options.dumpIrDir)) {
    err << "kiln: error: cannot create '" << options.dumpIrDir << "': " << ec.message() << "\n";
    return failure();
  }
  return writeText(options.dumpIrDir + "/stage-" + stage.str() + ".mlir",
                   [&](llvm::raw_ostream &os) { module.print(os); });
}

std::string Compilation::outputBase() const {
  StringRef out = options.output;
  if (options.emit == EmitKind::Obj && out.ends_with(".o"))
    out = out.drop_back(2);
  return out.str();
}

std::string Compilation::defaultModelName() const {
  if (!options.modelName.empty())
    return options.modelName;
  if (options.output.empty() || options.output == "-")
    return llvm::sys::path::stem(options.graphPath).str();
  // The stem of a string that lives until the return (not of a temporary).
  std::string out = outputBase();
  return llvm::sys::path::stem(out).str();
}

/// Directory holding libkiln_runtime.a: $KILN_RUNTIME_LIB_DIR, or ../lib beside kiln.
std::string findRuntimeLibDir(StringRef executablePath) {
  if (const char *env = std::getenv("KILN_RUNTIME_LIB_DIR"))
    return env;
  SmallString<256> dir(llvm::sys::path::parent_path(executablePath));
  llvm::sys::path::append(dir, "..", "lib");
  return std::string(dir);
}

int Compilation::link(ArrayRef<std::string> objectPaths, StringRef exePath) {
  std::string libDir = findRuntimeLibDir(options.executablePath);
  for (const char *lib : {"libkiln_runtime.a", "libkiln_runner.a", "libkiln_kernels.a"}) {
    SmallString<256> path(libDir);
    llvm::sys::path::append(path, lib);
    if (!llvm::sys::fs::exists(path))
      return fail("cannot find ", lib, " in '", libDir,
                  "' (set KILN_RUNTIME_LIB_DIR to the directory holding it)");
  }
  std::string cxx;
  for (const char *candidate : {std::getenv("KILN_CXX"), std::getenv("CXX")}) {
    if (candidate && *candidate) {
      cxx = candidate;
      break;
    }
  }
  if (cxx.empty()) {
    for (const char *name : {"c++", "g++", "clang++"}) {
      if (auto found = llvm::sys::findProgramByName(name)) {
        cxx = *found;
        break;
      }
    }
  }
  if (cxx.empty())
    return fail("no C++ compiler driver found to link with (install g++ or set KILN_CXX)");
  if (!llvm::sys::path::is_absolute(cxx))
    if (auto found = llvm::sys::findProgramByName(cxx))
      cxx = *found;
  std::vector<std::string> args = {cxx, "-o", exePath.str()};
  args.insert(args.end(), objectPaths.begin(), objectPaths.end());
  args.push_back("-L" + libDir);
  for (const char *arg :
       {"-lkiln_runner", "-lkiln_kernels", "-lkiln_runtime", "-lm", "-pthread"})
    args.push_back(arg);
  // LLVM's linker where it is installed beside Kiln's LLVM: a model's weights are most of
  // its executable, which the GNU linker copies several times over (VGG16's 553 MB: 3.5 s
  // against 0.6 s). KILN_LDFLAGS can choose another (-fuse-ld=bfd; the last one counts).
  SmallString<256> lld(KILN_LLVM_TOOLS_DIR);
  llvm::sys::path::append(lld, "ld.lld");
  if (llvm::sys::fs::can_execute(lld)) {
    args.push_back("-B" + std::string(KILN_LLVM_TOOLS_DIR) + "/");
    args.push_back("-fuse-ld=lld");
  }
  // Flags a runtime built differently needs (-fsanitize=address,undefined for the
  // sanitized runtime scripts/test.sh builds).
  if (const char *extra = std::getenv("KILN_LDFLAGS")) {
    SmallVector<StringRef> flags;
    StringRef(extra).split(flags, ' ', -1, /*KeepEmpty=*/false);
    for (StringRef flag : flags)
      args.push_back(flag.str());
  }
  std::vector<StringRef> argRefs(args.begin(), args.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(cxx, argRefs, std::nullopt, {}, 0, 0, &message);
  if (rc != 0)
    return fail("linking '", exePath, "' with '", llvm::join(args, " "), "' failed",
                message.empty() ? "" : ": ", message);
  return 0;
}

int Compilation::run() {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  // -j: MLIR's passes on that many threads too (one: none of its own).
  std::unique_ptr<llvm::DefaultThreadPool> threadPool;
  if (options.jobs == 1) {
    context.disableMultithreading();
  } else if (options.jobs > 1) {
    threadPool = std::make_unique<llvm::DefaultThreadPool>(llvm::hardware_concurrency(options.jobs));
    context.disableMultithreading();
    context.setThreadPool(*threadPool);
  }
  context.loadAllAvailableDialects();
  // Errors name the node; the IR of the op or function adds nothing for a user.
  context.printOpOnDiagnostic(false);
  context.printStackTraceOnDiagnostic(false);
  DiagnosticPrinter diagnostics(&context, options.graphPath, err);

  // A SavedModel directory: its signatures can be listed, or one of them compiled.
  std::string savedModel = import::savedModelFile(options.graphPath);
  if (options.listSignatures) {
    if (savedModel.empty())
      return fail("--list-signatures: '", options.graphPath,
                  "' is not a SavedModel directory (no saved_model.pb or saved_model.pbtxt "
                  "in it)");
    return failed(import::listSavedModelSignatures(options.graphPath, llvm::outs(), &context))
               ? 1
               : 0;
  }
  bool isSavedModel = !savedModel.empty();
  if (!isSavedModel && (!options.tags.empty() || !options.signature.empty()))
    return fail("--tag and --signature apply to SavedModel directories; '", options.graphPath,
                "' is not one (no saved_model.pb or saved_model.pbtxt in it)");
  if (isSavedModel && (!options.fetches.empty() || !options.configPath.empty()))
    return fail("--fetch and --config apply to GraphDefs; the signature of SavedModel '",
                options.graphPath, "' names its outputs (choose one with --signature)");

  if (options.output.empty() && (options.emit == EmitKind::Exe || options.emit == EmitKind::Obj))
    return fail("give the output file with -o");
  std::string output = options.output.empty() ? "-" : options.output;
  if (output == "-" && (options.emit == EmitKind::Exe || options.emit == EmitKind::Obj))
    return fail("--emit ", options.emit == EmitKind::Exe ? "exe" : "obj",
                " cannot write to standard output; give a file with -o");
  if (failed(checkOutputs()))
    return 1;
  if (options.compressTransfers && options.devices.empty())
    return fail("--compress-transfers compresses the tensors that cross devices; give the "
                "devices with --devices (/cpu:0,/cpu:1)");
  if (!options.gpuArch.empty()) {
    StringRef arch = options.gpuArch;
    StringRef digits = arch.drop_front(3).rtrim("af");
    if (!arch.starts_with("sm_") || digits.size() < 2 || !llvm::all_of(digits, llvm::isDigit))
      return fail("--gpu-arch: '", options.gpuArch,
                  "' is not a GPU architecture (sm_80, sm_90, sm_90a, sm_100a, ...)");
    // A name of that form LLVM does not know would be compiled for a default (LLVM warns
    // once per kernel module) and then fail in ptxas.
    std::vector<std::string> known = pipelines::gpuArchitectures();
    if (!llvm::is_contained(known, options.gpuArch))
      return fail("--gpu-arch: '", options.gpuArch,
                  "' is not an architecture LLVM's NVPTX backend knows: ",
                  llvm::join(known, ", "));
  }

  std::string target_error;
  std::unique_ptr<llvm::TargetMachine> machine;
  if (options.emit != EmitKind::Mlir || options.stage == Stage::Llvm) {
    machine = codegen::createTargetMachine(options.cpu, target_error);
    if (!machine)
      return fail("--cpu ", options.cpu, ": ", target_error);
  }

  // Import. A model written as MLIR names its own feeds and fetches, in its kiln.model.
  bool isModule = StringRef(options.graphPath).ends_with(".mlir");
  if (isModule && (!options.feeds.empty() || !options.fetches.empty() ||
                   !options.configPath.empty()))
    return fail("--feed, --fetch and --config apply to GraphDefs; '", options.graphPath,
                "' is an MLIR module, whose kiln.model names its feeds and fetches");
  import::ImportOptions importOptions;
  importOptions.importAllWithoutFetches = false;
  if (!options.configPath.empty() &&
      failed(import::loadConfigFile(options.configPath, importOptions, &context)))
    return 1;
  import::SavedModelOptions savedModelOptions{options.tags, options.signature, {}};
  for (const std::string &text : options.feeds) {
    import::FeedSpec feed;
    std::string error;
    if (isSavedModel ? !parseSignatureFeed(text, &context, feed, error)
                     : !parseFeed(text, &context, feed, error))
      return fail("--feed: ", error);
    (isSavedModel ? savedModelOptions.feeds : importOptions.feeds).push_back(std::move(feed));
  }
  for (const std::string &text : options.fetches) {
    auto id = import::parseTensorId(text);
    if (!id)
      return fail("--fetch: bad tensor name '", text, "' ", tensorNameHint());
    importOptions.fetches.push_back(import::FetchSpec{*id, "", ""});
  }
  OwningOpRef<ModuleOp> module =
      isModule       ? import::importModuleFile(options.graphPath, &context)
      : isSavedModel ? import::importSavedModel(options.graphPath, savedModelOptions, &context)
                     : import::importGraphDefFile(options.graphPath, importOptions, &context);
  if (!module)
    return 1;
  progress("imported");
  // The model takes its name from --name or the output file (a module without a
  // kiln.model gets one when it is lowered).
  auto nameModel = [&] {
    for (auto model : module->getOps<kiln::dialect::ModelOp>())
      model.setName(codegen::sanitizeIdentifier(defaultModelName()));
  };
  nameModel();
  size_t importedOps = countOps(*module);
  if (failed(dumpStage(*module, "import")))
    return 1;
  if (options.emit == EmitKind::Mlir && options.stage == Stage::Import)
    return failed(writeText(output, [&](llvm::raw_ostream &os) { module->print(os); }));

  // Graph passes.
  auto graph = [&](OpPassManager &pm) {
    return pipelines::buildGraphPipeline(pm, pipelineOptions());
  };
  if (failed(runPipeline(*module, graph, "graph")))
    return 1;
  if (options.stats && !options.devices.empty())
    printPlacement(*module);
  progress("graph passes");
  if (failed(dumpStage(*module, "graph")))
    return 1;
  if (options.emit == EmitKind::Mlir && options.stage == Stage::Graph)
    return failed(writeText(output, [&](llvm::raw_ostream &os) { module->print(os); }));

  std::string modelName = codegen::sanitizeIdentifier(defaultModelName());
  size_t graphOps = countOps(*module);

  // Lowering and bufferization.
  auto lower = [&](OpPassManager &pm) {
    return pipelines::buildLowerPipeline(pm, pipelineOptions());
  };
  if (failed(runPipeline(*module, lower, "lower")))
    return 1;
  progress("lowered");
  if (failed(dumpStage(*module, "lowered")))
    return 1;
  // The interface, as the lowering left it in the kiln.model.
  nameModel();
  FailureOr<codegen::ModelInterface> model = codegen::readModel(*module);
  if (failed(model))
    return 1;
  if (options.stats) {
    llvm::outs() << "stats: ops after import: " << importedOps << "\n"
                 << "stats: ops after graph passes: " << graphOps << "\n";
    for (const codegen::EntryInterface &entry : model->entries) {
      // A model of several entry points says which one each line is about.
      std::string which =
          model->entries.size() > 1 ? " of entry point '" + entry.name + "'" : "";
      llvm::outs() << "stats: scratch arena" << which << ": " << entry.scratchBytes
                   << " bytes (buffers share memory by lifetime; naive total: "
                   << entry.naiveScratchBytes << " bytes, one slot per buffer)\n";
      if (entry.parts.size() > 1) {
        llvm::outs() << "stats: partitions run concurrently: " << entry.parts.size()
                     << " (arena";
        for (const codegen::EntryPart &part : entry.parts)
          llvm::outs() << " " << part.implName << " " << part.scratchBytes;
        llvm::outs() << ")\n";
      }
      int64_t io = 0;
      for (const auto &t : entry.inputs)
        io += t.byteSize;
      for (const auto &t : entry.outputs)
        io += t.byteSize;
      llvm::outs() << "stats: inputs + outputs" << which << ": " << io
                   << " bytes (caller-owned)\n";
      for (const codegen::EntryPart &part : entry.parts)
        if (part.gpu)
          printGpuTraffic(*module, entry, part);
    }
    if (!model->states.empty())
      llvm::outs() << "stats: state: " << model->stateBytes << " bytes in "
                   << model->states.size() << " tensors (caller-owned)\n";
  }
  if (options.emit == EmitKind::Mlir && options.stage == Stage::Lowered)
    return failed(writeText(output, [&](llvm::raw_ostream &os) { module->print(os); }));
  bool onGpu = llvm::any_of(module->getOps<func::FuncOp>(),
                            [](func::FuncOp f) { return kiln::dialect::isOnGpu(f); });
  if (!onGpu && options.emit == EmitKind::Ptx)
    return fail("--emit ptx: no op is placed on a GPU (place them with --devices /gpu:0)");

  // LLVM dialect.
  auto toLLVM = [&](OpPassManager &pm) {
    return pipelines::buildLLVMPipeline(pm, pipelineOptions());
  };
  if (failed(runPipeline(*module, toLLVM, "llvm")))
    return 1;
  progress("LLVM dialect");
  if (options.stats && onGpu) {
    // Each GPU partition's device arena: the size it asks the runtime for (kiln-gpu-host).
    module->walk([&](LLVM::CallOp call) {
      if (call.getCallee() != StringRef("kiln_mgpu_part_begin") || call.getNumOperands() != 2)
        return;
      auto bytes = call.getOperand(1).getDefiningOp<LLVM::ConstantOp>();
      auto value = bytes ? dyn_cast<IntegerAttr>(bytes.getValue()) : IntegerAttr();
      auto function = call->getParentOfType<LLVM::LLVMFuncOp>();
      if (value)
        llvm::outs() << "stats: GPU arena of " << function.getName() << ": " << value.getInt()
                     << " bytes of device memory (scratch, weights, inputs, outputs), "
                        "allocated on the first call\n";
    });
  }
  if (failed(dumpStage(*module, "llvm")))
    return 1;
  if (options.emit == EmitKind::Mlir)
    return failed(writeText(output, [&](llvm::raw_ostream &os) { module->print(os); }));
  if (options.emit == EmitKind::Ptx) {
    // Each gpu.binary (one per model: kiln-gpu-merge-modules) holds PTX text, with the
    // NUL the driver wants at its end.
    std::string ptx;
    module->walk([&](gpu::BinaryOp binary) {
      for (Attribute object : binary.getObjects())
        ptx += cast<gpu::ObjectAttr>(object).getObject().getValue().rtrim('\0');
    });
    if (ptx.empty())
      err << "kiln: note: --emit ptx: no kernels: the ops placed on the GPU are all library "
             "calls (cuBLAS, cuBLASLt, cuDNN); the PTX is empty (--no-kernels makes them "
             "kernels)\n";
    return failed(writeText(output, [&](llvm::raw_ostream &os) { os << ptx; }));
  }

  // Large constants go into the object file beside LLVM, not through it (an object file's
  // only; assembly and LLVM IR keep them).
  bool object = options.emit == EmitKind::Exe || options.emit == EmitKind::Obj;
  std::vector<codegen::ObjectConstant> constants;
  if (object)
    constants = codegen::takeLargeConstants(*module, modelName + "_");

  // LLVM IR and machine code.
  llvm::LLVMContext llvmContext;
  std::string error;
  auto llvmModule = codegen::translateToLLVMIR(*module, llvmContext, error);
  if (!llvmModule)
    return fail(error);
  if (failed(codegen::addEntryPoints(*llvmModule, *model, options.emit == EmitKind::Exe, error)))
    return fail(error);
  // A large executable's code in parts, on threads of their own (--emit obj writes one
  // object; --dump-ir the whole module's IR).
  unsigned threads = options.emit == EmitKind::Exe && options.dumpIrDir.empty()
                         ? codegen::codeThreads(*llvmModule, options.jobs)
                         : 1;
  if (threads > 1)
    return emitPartsAndLink(*llvmModule, *machine, threads, constants, modelName, output);
  codegen::optimize(*llvmModule, *machine, options.optLevel);
  progress("LLVM optimisation");
  if (!options.dumpIrDir.empty() &&
      failed(writeText(options.dumpIrDir + "/model.ll",
                       [&](llvm::raw_ostream &os) { llvmModule->print(os, nullptr); })))
    return 1;
  if (options.emit == EmitKind::Llvm)
    return failed(writeText(output, [&](llvm::raw_ostream &os) { llvmModule->print(os, nullptr); }));

  // Machine code, as assembly text or an object file.
  auto emitCode = [&](StringRef path, bool assembly) {
    return writeOutput(path, [&](llvm::raw_pwrite_stream &os) {
      std::string error;
      if (assembly) {
        if (succeeded(codegen::emitMachineCode(*llvmModule, *machine, os, true, error)))
          return success();
      } else {
        // The code's object, then the same with the constants added.
        SmallVector<char, 0> code;
        llvm::raw_svector_ostream codeStream(code);
        if (succeeded(codegen::emitMachineCode(*llvmModule, *machine, codeStream, false, error)) &&
            succeeded(codegen::writeObjectWithConstants(StringRef(code.data(), code.size()),
                                                        constants, os, error)))
          return success();
      }
      err << "kiln: error: " << error << "\n";
      return failure();
    });
  };
  if (options.emit == EmitKind::Asm)
    return failed(emitCode(output, /*assembly=*/true));

  std::string objectPath;
  SmallString<256> tempObject;
  if (options.emit == EmitKind::Obj) {
    objectPath = outputBase() + ".o";
  } else {
    if (auto ec = llvm::sys::fs::createTemporaryFile("kiln-" + modelName, "o", tempObject))
      return fail("cannot create a temporary object file: ", ec.message());
    objectPath = std::string(tempObject);
  }
  if (failed(emitCode(objectPath, /*assembly=*/false))) {
    if (options.emit == EmitKind::Exe)
      llvm::sys::fs::remove(objectPath);
    return 1;
  }
  progress("object emitted");

  if (options.emit == EmitKind::Obj) {
    std::string header = codegen::emitHeader(*model, llvm::sys::path::filename(options.graphPath));
    return failed(writeText(outputBase() + ".h", [&](llvm::raw_ostream &os) { os << header; }));
  }
  int rc = link({objectPath}, output);
  llvm::sys::fs::remove(objectPath);
  progress("linked");
  return rc;
}

/// An executable's code optimised and emitted in parts on `threads` threads, an object file
/// per part, its constants in one more, all linked into `exePath`.
int Compilation::emitPartsAndLink(llvm::Module &module, llvm::TargetMachine &machine,
                                  unsigned threads, ArrayRef<codegen::ObjectConstant> constants,
                                  StringRef modelName, StringRef exePath) {
  std::string error;
  std::vector<SmallVector<char, 0>> objects;
  if (failed(codegen::optimizeAndEmitParts(module, machine, options.cpu, options.optLevel,
                                           threads, objects, error)))
    return fail(error);
  progress("LLVM optimisation and machine code (" + std::to_string(objects.size()) +
           " parts on " + std::to_string(threads) + " threads)");
  std::vector<std::string> paths;
  llvm::scope_exit removeObjects([&] {
    for (const std::string &path : paths)
      llvm::sys::fs::remove(path);
  });
  // Writes one temporary object file.
  auto writeObject = [&](function_ref<LogicalResult(llvm::raw_ostream &)> write) {
    SmallString<256> path;
    int fd;
    if (auto ec = llvm::sys::fs::createTemporaryFile("kiln-" + modelName, "o", fd, path)) {
      error = "cannot create a temporary object file: " + ec.message();
      return failure();
    }
    paths.push_back(std::string(path));
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    if (failed(write(os)))
      return failure();
    os.close();
    if (os.has_error()) {
      error = "cannot write '" + std::string(path) + "': " + os.error().message();
      return failure();
    }
    return success();
  };
  for (const SmallVector<char, 0> &object : objects)
    if (failed(writeObject([&](llvm::raw_ostream &os) {
          os.write(object.data(), object.size());
          return success();
        })))
      return fail(error);
  if (!constants.empty() && failed(writeObject([&](llvm::raw_ostream &os) {
        return codegen::writeConstantsObject(constants, machine, os, error);
      })))
    return fail(error);
  progress("objects written");
  int rc = link(paths, exePath);
  progress("linked");
  return rc;
}

} // namespace

int compile(const CompileOptions &options, llvm::raw_ostream &err) {
  return Compilation(options, err).run();
}

} // namespace kiln::driver
