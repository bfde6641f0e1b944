//===- ABI.cpp - the facts of the runtime's ABI the compiler needs -------------===//
#include "dialects/Kiln/ABI.h"

#include "kiln/runtime/abi.h"

#include "mlir/IR/BuiltinTypes.h"

namespace kiln::dialect::abi {

int64_t maxRank() { return KILN_MAX_RANK; }

int dtypeOf(mlir::Type t) {
  if (t.isF32())
    return KILN_DTYPE_F32;
  if (t.isF64())
    return KILN_DTYPE_F64;
  if (t.isF16())
    return KILN_DTYPE_F16;
  if (t.isBF16())
    return KILN_DTYPE_BF16;
  if (t.isInteger(1))
    return KILN_DTYPE_BOOL;
  auto i = mlir::dyn_cast<mlir::IntegerType>(t);
  if (!i)
    return 0;
  bool u = i.isUnsigned();
  switch (i.getWidth()) {
  case 8:
    return u ? KILN_DTYPE_U8 : KILN_DTYPE_I8;
  case 16:
    return u ? KILN_DTYPE_U16 : KILN_DTYPE_I16;
  case 32:
    return u ? KILN_DTYPE_U32 : KILN_DTYPE_I32;
  case 64:
    return u ? KILN_DTYPE_U64 : KILN_DTYPE_I64;
  default:
    return 0;
  }
}

int64_t checkStatusWords() { return KILN_CHECK_STATUS_WORDS; }

int64_t scratchAlignment() { return KILN_SCRATCH_ALIGNMENT; }

std::string formatCheckMessage(llvm::StringRef message, llvm::ArrayRef<int64_t> dims,
                               bool isUnsigned, int64_t position, int64_t value) {
  std::string text = message.str(); // NUL-terminated for the C function
  kiln_check_info_t info{text.c_str(), static_cast<int32_t>(dims.size()), isUnsigned, dims.data()};
  int64_t length = kiln_check_format(&info, position, value, nullptr, 0);
  std::string out(static_cast<size_t>(length) + 1, '\0');
  kiln_check_format(&info, position, value, out.data(), length + 1);
  out.resize(static_cast<size_t>(length));
  return out;
}

int32_t epilogueActivation(bool swish) {
  return swish ? KILN_ACTIVATION_SWISH : KILN_ACTIVATION_NONE;
}

std::string specialFunction(llvm::StringRef name, bool f64) {
  return (KILN_SPECIAL_PREFIX + name + (f64 ? "_f64" : "_f32")).str();
}

} // namespace kiln::dialect::abi
