//===- Constants.h - Large constants straight into the object file ---*- C++ -*-===//
//
// A model's weights are most of its object file: VGG16's are 553 MB. Through LLVM they were
// copied six times (the LLVM constant, its bytes, the machine-code fragment, ...), each copy
// into fresh pages, and the module that held them was slow to translate and optimise. Here
// the large constants leave the LLVM-dialect module before it is translated (declarations
// remain) and are written into the object file LLVM made for the code, from the MLIR
// attributes' own storage, as one more section.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_TARGET_CONSTANTS_H
#define KILN_CODEGEN_TARGET_CONSTANTS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <string>
#include <vector>

namespace kiln::codegen {

/// A constant whose bytes go into the object file outside LLVM.
struct ObjectConstant {
  std::string symbol;
  /// The attribute's storage (alive as long as its MLIRContext), in the target's byte order.
  llvm::ArrayRef<char> bytes;
  uint64_t alignment = 1;
};

/// The smallest constant (bytes) that leaves the module.
constexpr uint64_t kMinObjectConstantBytes = 4096;

/// Takes every large constant global of the LLVM-dialect `module` (an array of numbers of at
/// least kMinObjectConstantBytes, not a splat) out of it: the global becomes a hidden
/// declaration named `prefix` + its name, and its bytes and alignment are returned, for
/// writeObjectWithConstants. Takes nothing on a big-endian host (x86-64 targets only).
std::vector<ObjectConstant> takeLargeConstants(mlir::ModuleOp module, llvm::StringRef prefix);

/// Writes `object` (an ELF64 little-endian relocatable file, as LLVM wrote it for the module
/// takeLargeConstants left) to `os`, with each of `constants` that it refers to (an undefined
/// symbol of that name) defined in one more read-only section, .rodata.kiln_constants.
/// Fails, with `error` set, on an object it does not understand or an undefined constant.
llvm::LogicalResult writeObjectWithConstants(llvm::StringRef object,
                                             llvm::ArrayRef<ObjectConstant> constants,
                                             llvm::raw_ostream &os, std::string &error);

/// Writes an object file that defines `constants` and nothing else (writeObjectWithConstants
/// on an object that only refers to them), for a program whose code is in several objects.
llvm::LogicalResult writeConstantsObject(llvm::ArrayRef<ObjectConstant> constants,
                                         llvm::TargetMachine &machine, llvm::raw_ostream &os,
                                         std::string &error);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_TARGET_CONSTANTS_H
