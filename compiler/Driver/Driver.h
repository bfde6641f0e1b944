//===- Driver.h - `kiln compile` as a library ------------------------*- C++ -*-===//
//
// The logic of the `kiln` tool, free of any command-line library so that tests and other
// front ends can call it: import a graph, run the pipelines, emit what was asked.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DRIVER_DRIVER_H
#define KILN_COMPILER_DRIVER_DRIVER_H

#include "compiler/Import/Import.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace kiln::driver {

enum class EmitKind { Exe, Obj, Mlir, Llvm, Asm, Ptx };
enum class Stage { Import, Graph, Lowered, Llvm };

struct CompileOptions {
  std::string graphPath;
  std::string output; // "-" is standard output (text kinds only)
  EmitKind emit = EmitKind::Exe;
  Stage stage = Stage::Graph;       // for EmitKind::Mlir
  std::vector<std::string> feeds;   // NAME[:PORT]=DTYPE[DIMS]
  std::vector<std::string> fetches; // NAME[:PORT]
  std::string configPath;           // tfcompile config (text tf2xla.Config)
  std::string cpu = "native";
  std::string modelName; // default: from the output file name
  std::string dumpIrDir;
  int optLevel = 3;
  unsigned jobs = 0; // threads for compiling; 0: one per core
  bool stats = false;
  bool verbose = false;
  bool noKernels = false;           // no runtime kernel calls: generated loops only
  bool runtimeChecks = true;        // check input values where TensorFlow reports errors
  bool strictFloat = false;         // no Winograd, no polynomial approximations
  bool allowTf32 = false;           // GPU f32 products and convolutions on TF32 tensor cores
  bool gpuEpilogues = false;        // GPU: epilogues in cuDNN's convolutions, 1x1 ones by cuDNN
  bool cublasltEpilogues = false;   // GPU: epilogues in cuBLASLt's products (1x1 convolutions')
  std::vector<std::string> devices; // --devices: place ops on these (kiln-graph-place)
  bool compressTransfers = false;   // f32 tensors cross devices as their upper 16 bits
  std::vector<std::string> bounds;  // --bound NODE=N: bounds of value-dependent sizes
  std::string gpuArch;              // --gpu-arch sm_XX: assemble the kernels (else PTX, sm_80)
  std::string executablePath;       // the running kiln, to find the runtime libraries
  bool listSignatures = false;      // print a SavedModel directory's signatures, compile nothing
  std::vector<std::string> tags;    // a SavedModel's MetaGraph tags (empty: serve)
  std::string signature;            // a SavedModel's signature (empty: serving_default)
};

/// Parses an emit kind or stage name; returns false if unknown.
bool parseEmitKind(llvm::StringRef text, EmitKind &kind);
bool parseStage(llvm::StringRef text, Stage &stage);

/// Parses `--feed NAME[:PORT]=DTYPE[DIMS]` (DTYPE f32, float32, DT_FLOAT ...; DIMS
/// comma-separated, `[]` for a scalar; DTYPE or [DIMS] may be left out to take them from
/// the graph). On failure returns false and sets `error`.
bool parseFeed(llvm::StringRef text, mlir::MLIRContext *context, import::FeedSpec &feed,
               std::string &error);

/// Parses `--feed KEY=DTYPE[DIMS]` for a SavedModel signature: KEY is the input's key
/// (FeedSpec::key), taken as it is.
bool parseSignatureFeed(llvm::StringRef text, mlir::MLIRContext *context, import::FeedSpec &feed,
                        std::string &error);

/// Runs `kiln compile`. Diagnostics go to `err`; returns the process exit code (0 on
/// success, 1 when the graph or the options are wrong).
int compile(const CompileOptions &options, llvm::raw_ostream &err);

/// Runs `kiln ops`: prints every TensorFlow op Kiln compiles, one name a line, sorted.
int listOps(llvm::raw_ostream &out);

} // namespace kiln::driver

#endif // KILN_COMPILER_DRIVER_DRIVER_H
