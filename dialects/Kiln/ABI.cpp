//===- ABI.cpp - the facts of the runtime's ABI the compiler needs -------------===//
#include "dialects/Kiln/ABI.h"

#include "kiln/runtime/abi.h"

namespace kiln::dialect::abi {

int64_t maxRank() { return KILN_MAX_RANK; }

int64_t checkStatusWords() { return KILN_CHECK_STATUS_WORDS; }

int64_t scratchAlignment() { return KILN_SCRATCH_ALIGNMENT; }

std::string formatCheckMessage(llvm::StringRef message, llvm::ArrayRef<int64_t> dims,
                               bool isUnsigned, int64_t position, int64_t value) {
  std::string text = message.str(); // NUL-terminated for the C function
  kiln_check_info_t info{text.c_str(), static_cast<int32_t>(dims.size()), isUnsigned,
                         dims.data()};
  int64_t length = kiln_check_format(&info, position, value, nullptr, 0);
  std::string out(static_cast<size_t>(length) + 1, '\0');
  kiln_check_format(&info, position, value, out.data(), length + 1);
  out.resize(static_cast<size_t>(length));
  return out;
}

} // namespace kiln::dialect::abi
