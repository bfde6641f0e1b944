//===- Object.h - LLVM IR, optimisation and machine code -------------*- C++ -*-===//
#ifndef KILN_CODEGEN_TARGET_OBJECT_H
#define KILN_CODEGEN_TARGET_OBJECT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::codegen {

/// A TargetMachine for x86-64 Linux. `cpu` is "native" (this machine's CPU and features),
/// a portable level (x86-64, x86-64-v2, x86-64-v3, x86-64-v4) or any CPU LLVM knows.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(llvm::StringRef cpu, std::string &error);

/// The CPU names `--cpu` accepts besides "native", for help texts.
llvm::StringRef portableCpuLevels();

/// Translates an LLVM-dialect module to LLVM IR.
std::unique_ptr<llvm::Module> translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &ctx,
                                                std::string &error);

/// Sets the module's target and runs LLVM's O3 (or `optLevel`) pipeline for it.
void optimize(llvm::Module &module, llvm::TargetMachine &machine, int optLevel);

/// How many threads optimizeAndEmitParts should use for `module`: `jobs` if set; otherwise
/// one per hardware thread (at most 8) for a large module, 1 (do not split) for a small one.
unsigned codeThreads(const llvm::Module &module, unsigned jobs = 0);

/// What optimize and emitMachineCode do, on `threads` threads: sets the module's target,
/// inlines its functions called from one place, splits it into parts (four per thread; local
/// symbols become hidden globals: the objects are for one executable, not for a library),
/// optimises each with the pipeline the whole module would get, and writes each one's
/// object file into `objects`. `machine` is the calling thread's; each thread makes one for
/// `cpu`. The module is left split.
llvm::LogicalResult optimizeAndEmitParts(llvm::Module &module, llvm::TargetMachine &machine,
                                         llvm::StringRef cpu, int optLevel, unsigned threads,
                                         std::vector<llvm::SmallVector<char, 0>> &objects,
                                         std::string &error);

/// Replaces the initializer of every large constant array of numbers by its bytes (an i8
/// array, the same memory): LLVM's code generator writes an array of bytes at once and
/// one of numbers element by element (VGG16's 553 MB of weights: 12 s). Assumes a
/// little-endian host and target; otherwise does nothing.
void constantsAsBytes(llvm::Module &module);

/// Writes an object file (or assembly when `assembly` is set), the constants as bytes.
llvm::LogicalResult emitMachineCode(llvm::Module &module, llvm::TargetMachine &machine,
                                    llvm::raw_pwrite_stream &os, bool assembly, std::string &error);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_TARGET_OBJECT_H
