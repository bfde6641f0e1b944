//===- ABI.h - the facts of the runtime's ABI the compiler needs ----*- C++ -*-===//
//
// Passes and codegen read the runtime's C ABI (runtime/include/kiln/runtime/abi.h) through
// these functions: ABI.cpp is the only compiler file in the dialects and passes that
// includes the runtime's headers.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_KILN_ABI_H
#define KILN_DIALECTS_KILN_ABI_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace kiln::dialect::abi {

/// The most dimensions a tensor at a model's interface, or one a check reads, may have
/// (KILN_MAX_RANK).
int64_t maxRank();

/// The 64-bit words of the status a model's checks write (KILN_CHECK_STATUS_WORDS).
int64_t checkStatusWords();

/// The alignment, in bytes, of every buffer in the scratch arena (KILN_SCRATCH_ALIGNMENT).
int64_t scratchAlignment();

/// The activation argument of a kernel's epilogue (KILN_ACTIVATION_SWISH with `swish`, else
/// KILN_ACTIVATION_NONE).
int32_t epilogueActivation(bool swish);

/// The runtime's special function `name` ("lgamma") for float64 or float32 arguments:
/// KILN_SPECIAL_PREFIX name "_f64" or "_f32" (kiln/kernels/special.h).
std::string specialFunction(llvm::StringRef name, bool f64);

/// The kiln_dtype_t of a tf-level element type (f32, ui8, i1 ...), or 0 if it has none.
int dtypeOf(mlir::Type elementType);

/// A check's message with {index} and {value} filled in for the element at row-major
/// `position` of a tensor of `dims` holding `value`, exactly as the runtime reports it
/// (kiln_check_format).
std::string formatCheckMessage(llvm::StringRef message, llvm::ArrayRef<int64_t> dims,
                               bool isUnsigned, int64_t position, int64_t value);

} // namespace kiln::dialect::abi

#endif // KILN_DIALECTS_KILN_ABI_H
