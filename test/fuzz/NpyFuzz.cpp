//===- NpyFuzz.cpp - the runtime's .npy reader ---------------------------------===//
//
// One input is a .npy file: kiln_npy_read must read it or return an error status, never
// crash or read past what it allocated. A file it reads must write back (kiln_npy_write)
// and read again to the same dtype, shape and bytes.
//
//===----------------------------------------------------------------------------===//
#include "MemoryFile.h"

#include "kiln/runtime/npy.h"
#include "kiln/runtime/status.h"

#include <cstdio>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kiln_fuzz::MemoryFile file(data, size);
  kiln_npy_array_t array;
  kiln_status_t status = kiln_npy_read(file.path.c_str(), &array);
  if (status != nullptr) {
    if (kiln_status_code(status) == KILN_STATUS_OK || kiln_status_message(status)[0] == '\0')
      std::abort(); // an error must say what is wrong
    kiln_status_free(status);
    return 0;
  }
  kiln_fuzz::MemoryFile copy(nullptr, 0);
  status = kiln_npy_write(copy.path.c_str(), array.dtype, array.rank, array.dims, array.data);
  if (status != nullptr) {
    std::fprintf(stderr, "a .npy file read could not be written: %s\n",
                 kiln_status_message(status));
    std::abort();
  }
  kiln_npy_array_t again;
  status = kiln_npy_read(copy.path.c_str(), &again);
  if (status != nullptr || again.dtype != array.dtype || again.rank != array.rank ||
      again.byte_size != array.byte_size ||
      std::memcmp(again.dims, array.dims, sizeof(int64_t) * array.rank) != 0 ||
      (array.byte_size && std::memcmp(again.data, array.data, array.byte_size) != 0)) {
    std::fprintf(stderr, "a .npy file does not read back as written\n");
    std::abort();
  }
  kiln_npy_array_free(&again);
  kiln_npy_array_free(&array);
  return 0;
}
