//===- kiln.cpp - the Kiln driver ---------------------------------------------===//
//
// `kiln compile GRAPH ...` compiles a TensorFlow graph to an executable, an object file
// with a C header, or IR at any stage. The work happens in compiler/Driver; this file only
// reads the command line.
//
//===----------------------------------------------------------------------------===//
#include "compiler/Driver/Driver.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <cctype>
#include <cstring>
#include <unistd.h>

using namespace kiln::driver;

/// Allocation failures (a graph too large for the machine's memory) end the compilation
/// with a message and exit code 1, not LLVM's "LLVM ERROR: out of memory" and an abort.
/// Called with the heap exhausted, so it writes with write(2) and allocates nothing.
static void outOfMemory(void *, const char *reason, bool) {
  static const char prefix[] = "kiln: error: out of memory (";
  static const char suffix[] = "); the graph needs more memory than this machine gives\n";
  (void)!::write(2, prefix, sizeof prefix - 1);
  (void)!::write(2, reason, std::strlen(reason));
  (void)!::write(2, suffix, sizeof suffix - 1);
  ::_exit(1);
}

/// An option's value must not be the next option: `--fetch --emit mlir` would otherwise
/// fetch a node called "--emit". "-" (standard output) and negative numbers are values.
static const CLI::Validator kNotAnOption(
    [](std::string &value) -> std::string {
      if (value.size() > 1 && value[0] == '-' &&
          !std::isdigit(static_cast<unsigned char>(value[1])))
        return "'" + value + "' is an option, not a value; give the value first";
      return "";
    },
    "");

/// Appends the comma-separated items of option `option`'s value `list` to `out`; an empty
/// item is an error (`what` names an item, `example` shows a good value).
static bool splitList(llvm::StringRef list, llvm::StringRef option, llvm::StringRef what,
                      llvm::StringRef example, std::vector<std::string> &out) {
  llvm::SmallVector<llvm::StringRef> items;
  list.split(items, ',');
  for (llvm::StringRef item : items) {
    if (item.trim().empty()) {
      llvm::errs() << "kiln: error: " << option << ": '" << list << "' has an empty " << what
                   << " (give " << example << " ...)\n";
      return false;
    }
    out.push_back(item.trim().str());
  }
  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::install_bad_alloc_error_handler(outOfMemory);
  // One subcommand; a mistyped one is named rather than reported as missing.
  if (argc < 2) {
    llvm::errs() << "kiln: error: give a subcommand: kiln compile GRAPH ... or kiln ops (see "
                    "kiln --help)\n";
    return 1;
  }
  if (argv[1][0] != '-' && std::strcmp(argv[1], "compile") != 0 &&
      std::strcmp(argv[1], "ops") != 0) {
    llvm::errs() << "kiln: error: unknown subcommand '" << argv[1]
                 << "'; the subcommands are 'compile' and 'ops' (see kiln --help)\n";
    return 1;
  }
  CLI::App app{"Kiln: an ahead-of-time compiler for TensorFlow dataflow graphs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kiln 0.1.0 (LLVM/MLIR 22)");

  CompileOptions options;
  std::string emit = "exe", stage = "graph";
  CLI::App *compile = app.add_subcommand(
      "compile", "Compile a GraphDef (.pb binary or .pbtxt text) to native code");
  compile
      ->add_option("graph", options.graphPath,
                   "The graph file (.pb or .pbtxt), a SavedModel directory (holding "
                   "saved_model.pb and variables/), or a model written as MLIR (.mlir)")
      ->required();
  std::string tags;
  compile->add_option("--tag", tags,
                      "SavedModel: the tags of the MetaGraph to compile, comma-separated "
                      "(all of them, e.g. serve,gpu; default serve)");
  compile->add_option("--signature", options.signature,
                      "SavedModel: the signature to compile (default serving_default). Its "
                      "input keys are the executable's inputs (--input KEY=FILE.npy) and its "
                      "output keys its outputs (DIR/KEY.npy); its variables become constants");
  compile->add_flag("--list-signatures", options.listSignatures,
                    "Print the signatures of the SavedModel directory given as the graph "
                    "(each MetaGraph's tags, each signature's inputs and outputs by key, with "
                    "dtype, shape and graph tensor) and compile nothing");
  compile->add_option("-o,--output", options.output,
                      "Output file; '-' is standard output for mlir, llvm and asm. With "
                      "--emit obj, OUT.o and OUT.h are written");
  compile
      ->add_option("--emit", emit,
                   "What to produce: exe (an executable reading and writing .npy files), "
                   "obj (object file + C header), mlir (IR at --stage), llvm (LLVM IR), asm, "
                   "ptx (the GPU kernels of what --devices placed on a GPU)")
      ->check(kNotAnOption & CLI::IsMember({"exe", "obj", "mlir", "llvm", "asm", "ptx"}))
      ->capture_default_str();
  compile
      ->add_option("--stage", stage,
                   "IR stage for --emit mlir: import (tf dialect as read), graph (after shape "
                   "inference and pruning), lowered (bufferized linalg with the scratch "
                   "arena), llvm (LLVM dialect)")
      ->check(kNotAnOption & CLI::IsMember({"import", "graph", "lowered", "llvm"}))
      ->capture_default_str();
  compile->add_option(
      "--feed", options.feeds,
      "A tensor to feed, NAME[:PORT]=DTYPE[DIMS], e.g. X=f32[4,784] or "
      "x:0=int32[] (repeatable). DTYPE: f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 "
      "bool, or TensorFlow's float32 / DT_FLOAT; DTYPE or [DIMS] may be left "
      "out to take them from the graph. Without feeds, every needed "
      "Placeholder is fed with its declared shape. Feeding a Const turns it "
      "into an input. For a SavedModel, KEY=DTYPE[DIMS] gives the shape of a signature "
      "input whose dimensions are unknown");
  compile->add_option("--fetch", options.fetches,
                      "A tensor to compute, NAME[:PORT] (repeatable). Only what the fetches "
                      "need is compiled. Without fetches, the graph's unconsumed outputs are "
                      "fetched");
  compile->add_option("--config", options.configPath,
                      "A tfcompile config (text tensorflow.tf2xla.Config with feed and fetch "
                      "entries); its feeds and fetches come before --feed/--fetch ones");
  compile
      ->add_option("--cpu", options.cpu,
                   "Target CPU: native (this machine), x86-64, x86-64-v2, x86-64-v3, "
                   "x86-64-v4, or any CPU name LLVM knows (e.g. znver4)")
      ->capture_default_str();
  compile->add_option("--name", options.modelName,
                      "Model name: the prefix of the exported symbols NAME_run and NAME_info "
                      "(default: the output file name)");
  compile->add_option("-O", options.optLevel, "LLVM optimisation level, 0 to 3")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  compile
      ->add_option("-j,--jobs", options.jobs,
                   "Threads for compiling: MLIR's passes, and LLVM's optimisation and "
                   "code generation of an executable, in parts linked together (default: "
                   "one per core; LLVM's only for a large model, at most 8). --emit obj "
                   "and --dump-ir keep one part")
      ->check(CLI::Range(1, 256));
  compile->add_option("--dump-ir", options.dumpIrDir,
                      "Write the IR after every pass and at every stage into this directory");
  compile->add_flag("--stats", options.stats,
                    "Print op counts before and after each graph pass, the placement summary "
                    "with --devices, and the scratch arena next to its naive total");
  compile->add_flag("-v,--verbose", options.verbose,
                    "Print each compilation step and its time (on a terminal, steps over a "
                    "second are printed anyway)");
  std::vector<std::string> deviceLists;
  compile->add_option("--devices", deviceLists,
                      "Devices to place the graph's ops on, comma-separated: /cpu:0,/cpu:1 or "
                      "full names /job:J/replica:R/task:T/device:TYPE:N. Each device's ops "
                      "become a partition that runs on a thread of its own, handing tensors "
                      "to the others by _Send/_Recv; the placement and the partitions show in "
                      "--emit mlir --stage graph, and --stats sums them up. Ops placed on a "
                      "GPU (/gpu:0) become PTX kernels (--emit ptx) the program loads through "
                      "the CUDA driver, beside the CPU partitions; one GPU per model for now");
  compile
      ->add_option("--bound", options.bounds,
                   "NODE=N: the most rows the value-dependent result of node NODE (Where, "
                   "Unique, a non-max suppression, TopKV2 with a fed k) may have, below "
                   "its natural bound (the input's size, max_output_size): its buffers "
                   "shrink to N rows, and a call whose result would have more fails with "
                   "an error naming the node. Repeatable")
      ->type_name("NODE=N");
  compile->add_flag("--compress-transfers", options.compressTransfers,
                    "With --devices: send f32 tensors across devices as their upper 16 bits "
                    "(bfloat16 by truncation, as the TensorFlow paper's lossy compression: "
                    "each value's relative error below 2^-7, NaNs stay NaNs), restored with "
                    "zeros on receipt; half the bytes. Other types cross whole");
  compile
      ->add_option("--gpu-arch", options.gpuArch,
                   "GPU architecture of the kernels, sm_XX (default sm_80: PTX every "
                   "later GPU's driver compiles). Given, the kernels are also assembled "
                   "with ptxas from the CUDA toolkit ($CUDA_HOME or /usr/local/cuda) into "
                   "a fatbin, so the driver does not compile them when the model loads. "
                   "sm_90a (H100/H200 only) also computes large f16 products Kiln "
                   "generates (--no-kernels) with Hopper's wgmma, fed by TMA")
      ->check(kNotAnOption);
  bool noRuntimeChecks = false;
  compile->add_flag("--no-runtime-checks", noRuntimeChecks,
                    "Do not check input values where TensorFlow reports errors (integer "
                    "division by zero, indices out of range, integers to negative powers): "
                    "such values then give unspecified results, never a crash. Constants "
                    "are still checked at compile time");
  compile->add_flag("--strict-float", options.strictFloat,
                    "Strict float semantics: no Winograd convolutions (their transforms round "
                    "differently from a direct sum) and tanh, exp, expm1, log1p and erf from "
                    "libm instead of vectorized polynomials; slower, closer to exact");
  compile->add_flag("--allow-tf32", options.allowTf32,
                    "On a GPU, let f32 matrix products (cuBLAS) and convolutions (cuDNN) "
                    "round their operands to TF32 (10 mantissa bits) on tensor cores: "
                    "several times faster on NVIDIA Ampere and later, with relative errors "
                    "near 1e-3 instead of 1e-7 (PyTorch and TensorFlow's own switch)");
  std::string gpuEpilogues;
  compile
      ->add_flag("--gpu-epilogues{all}", gpuEpilogues,
                 "On a GPU, apply the bias, batch norm, shortcut and Relu after a library "
                 "call in the call itself instead of generated kernels after it: "
                 "=cublaslt for f32 matrix products (1x1 convolutions' too) by cuBLASLt "
                 "(unmeasured on a GPU so far), =cudnn for convolutions by cuDNN's fused "
                 "call, and 1x1 ones with a Relu by cuDNN (measured slower on an H200 with "
                 "cuDNN 9.14), =all (the flag alone) for both, 1x1 convolutions by cuBLASLt")
      ->check(CLI::IsMember({"all", "cudnn", "cublaslt"}).description(""))
      ->type_name("[=all|cudnn|cublaslt]");
  compile->add_flag("--no-kernels", options.noKernels,
                    "Compute matrix products and convolutions in generated loops "
                    "instead of calling the runtime's kernels (for testing and comparison)");

  CLI::App *ops = app.add_subcommand(
      "ops", "Print every TensorFlow op Kiln compiles, one name a line (docs/ops.md says how "
             "far each goes: dtypes, attributes, limits)");

  // Every option that takes a value refuses another option as its value.
  for (CLI::Option *option : compile->get_options())
    if (option->get_type_size() != 0 && !option->get_positional())
      option->check(kNotAnOption);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    // Command-line mistakes are bad input like any other: one message, exit code 1.
    llvm::errs() << "kiln: error: " << e.what() << " (see kiln compile --help)\n";
    return 1;
  }

  if (ops->parsed()) {
    kiln::driver::listOps(llvm::outs());
    llvm::outs().flush();
    return 0;
  }
  if (!parseEmitKind(emit, options.emit) || !parseStage(stage, options.stage))
    return 2;
  options.runtimeChecks = !noRuntimeChecks;
  options.gpuEpilogues = gpuEpilogues == "all" || gpuEpilogues == "cudnn";
  options.cublasltEpilogues = gpuEpilogues == "all" || gpuEpilogues == "cublaslt";
  if (!tags.empty() && !splitList(tags, "--tag", "tag", "serve or serve,gpu", options.tags))
    return 1;
  for (const std::string &list : deviceLists)
    if (!splitList(list, "--devices", "device name", "/cpu:0,/cpu:1", options.devices))
      return 1;
  options.executablePath =
      llvm::sys::fs::getMainExecutable(argv[0], reinterpret_cast<void *>(&main));
  int rc = kiln::driver::compile(options, llvm::errs());
  llvm::outs().flush();
  return rc;
}
