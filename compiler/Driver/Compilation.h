//===- Compilation.h - one `kiln compile`, as a sequence of stages -----*- C++ -*-===//
//
// A compilation runs named stages in order (the table in Driver.cpp): each takes the module the
// stage before left and changes it in place, and `--stage NAME` and `--dump-ir`'s
// stage-NAME.mlir name them. After the last one, machine code is emitted and linked
// (Emit.cpp, Link.cpp). Each stage is a method of Compilation in a file of its own;
// adding one (a gradient stage, another front end) is a row of the table, the method's
// declaration below and its file.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DRIVER_COMPILATION_H
#define KILN_COMPILER_DRIVER_COMPILATION_H

#include "compiler/Driver/Diagnostics.h"
#include "compiler/Driver/Driver.h"

#include "codegen/Target/Constants.h"
#include "codegen/Target/ModelABI.h"
#include "codegen/Target/Object.h"
#include "compiler/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <memory>
#include <optional>

namespace kiln::driver {

class Compilation;

/// A stage: the Stage value and name `--stage` gives it (also `--dump-ir`'s
/// stage-NAME.mlir and the pass pipelines' IR dumps), the step its progress line names, and
/// the method that runs it.
struct StageInfo {
  Stage stage;
  llvm::StringLiteral name;
  llvm::StringLiteral done;
  mlir::LogicalResult (Compilation::*run)();
};

/// Every stage, in the order a compilation runs them.
llvm::ArrayRef<StageInfo> stages();

class Compilation {
public:
  Compilation(const CompileOptions &options, llvm::raw_ostream &err);

  /// Runs the stages, then emits what was asked; returns the process exit code.
  int run();

  // The stages (Driver.cpp's table lists them in order).
  /// The graph file (GraphDef, SavedModel, MLIR) as a module of the tf dialect
  /// (ImportStage.cpp).
  mlir::LogicalResult importGraph();
  /// The graph passes: pruning, shape inference, folding, CSE, placement, partitions
  /// (PipelineStages.cpp).
  mlir::LogicalResult runGraphPasses();
  /// tf to upstream dialects and the kiln dialect's buffers; reads the model's interface.
  mlir::LogicalResult lower();
  /// To the LLVM dialect, GPU kernels compiled to PTX or cubins on the way.
  mlir::LogicalResult lowerToLLVM();

private:
  template <typename... Args> int fail(Args &&...args) {
    err << "kiln: error: ";
    (err << ... << args);
    err << "\n";
    return 1;
  }
  /// The same, for a stage or step that returns a LogicalResult.
  template <typename... Args> mlir::LogicalResult error(Args &&...args) {
    fail(std::forward<Args>(args)...);
    return mlir::failure();
  }
  /// Reports a finished step: always with --verbose, and on a terminal when it took more
  /// than a second, so a long compile (LLVM's optimisation of a large model) shows where
  /// it is without flooding logs.
  void progress(llvm::StringRef step) {
    auto now = std::chrono::steady_clock::now();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - last).count();
    if (options.verbose || (ms >= 1000 && llvm::sys::Process::StandardErrIsDisplayed()))
      err << "kiln: " << step << " (" << ms << " ms)\n";
    last = now;
  }

  /// The checks of options that need no graph, before any stage (Driver.cpp).
  mlir::LogicalResult checkOptions();
  /// --list-signatures (Driver.cpp).
  int listSignatures();

  /// Runs the pass pipeline `build` makes on the module (its IR after each pass in
  /// --dump-ir's folder `folder`; with --stats and `countPasses`, the ops before and after
  /// each pass).
  mlir::LogicalResult
  runPipeline(llvm::function_ref<mlir::LogicalResult(mlir::OpPassManager &)> build,
              llvm::StringRef folder, bool countPasses = false);
  pipelines::PipelineOptions pipelineOptions() const;
  /// The model takes its name from --name or the output file.
  void nameModel();

  // Outputs (Emit.cpp).
  mlir::LogicalResult dumpStage(llvm::StringRef stage);
  mlir::LogicalResult writeModule();
  mlir::LogicalResult writeText(llvm::StringRef path,
                                llvm::function_ref<void(llvm::raw_ostream &)> write);
  mlir::LogicalResult
  writeOutput(llvm::StringRef path,
              llvm::function_ref<mlir::LogicalResult(llvm::raw_pwrite_stream &)> write);
  mlir::LogicalResult checkOutputs();
  std::string outputBase() const;
  std::string defaultModelName() const;
  /// After the stages: the PTX, LLVM IR, assembly, object or executable asked for.
  int emit();
  int writePtx();

  // Linking (Link.cpp).
  int link(llvm::ArrayRef<std::string> objectPaths, llvm::StringRef exePath);
  int emitPartsAndLink(llvm::Module &module, unsigned threads,
                       llvm::ArrayRef<codegen::ObjectConstant> constants, llvm::StringRef exePath);

  const CompileOptions &options;
  llvm::raw_ostream &err;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();

  // -j: MLIR's passes on that many threads too (one: none of its own).
  std::unique_ptr<llvm::DefaultThreadPool> threadPool;
  mlir::MLIRContext context;
  DiagnosticPrinter diagnostics;
  /// Where text output goes: -o, or "-" for standard output.
  std::string output;
  /// The SavedModel file in options.graphPath, "" when it is not a SavedModel directory.
  std::string savedModel;
  /// The target's machine, for everything but --emit mlir of an earlier stage than llvm.
  std::unique_ptr<llvm::TargetMachine> machine;
  std::string modelName;

  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The interface, as the lowering left it in the kiln.model (after `lower`).
  std::optional<codegen::ModelInterface> model;
  /// Whether a function is placed on a GPU (after `lower`).
  bool onGpu = false;
  size_t importedOps = 0, graphOps = 0;
};

} // namespace kiln::driver

#endif // KILN_COMPILER_DRIVER_COMPILATION_H
