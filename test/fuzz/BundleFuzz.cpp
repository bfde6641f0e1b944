//===- BundleFuzz.cpp - the tensor bundle (checkpoint) reader -------------------===//
//
// One input is a checkpoint: a little-endian uint32 n, then n bytes of PREFIX.index, then
// the data shard PREFIX.data-00000-of-00001 (the rest). TensorBundle::open must read the
// index or return an error that says what is wrong, and so must reading every tensor it
// lists, and decoding a string tensor's elements; never crash or read past the files.
//
//===----------------------------------------------------------------------------===//
#include "compiler/Import/TensorBundle.h"

#include "llvm/Support/Error.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

void writeFile(const std::string &path, const uint8_t *data, size_t size) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0)
    std::abort();
}

/// An error must carry a message.
void checkError(llvm::Error error) {
  if (llvm::toString(std::move(error)).empty())
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string dir = [] {
    char pattern[] = "/tmp/kiln-fuzz-bundle-XXXXXX";
    if (!mkdtemp(pattern))
      std::abort();
    return std::string(pattern);
  }();
  size_t split = 0;
  if (size >= 4) {
    uint32_t n;
    std::memcpy(&n, data, 4);
    split = n < size - 4 ? n : size - 4;
    data += 4;
    size -= 4;
  }
  writeFile(dir + "/ckpt.index", data, split);
  writeFile(dir + "/ckpt.data-00000-of-00001", data + split, size - split);
  auto bundle = kiln::import::TensorBundle::open(dir + "/ckpt");
  if (!bundle) {
    checkError(bundle.takeError());
    return 0;
  }
  for (const auto &[key, entry] : bundle->entries()) {
    auto bytes = bundle->read(key);
    if (!bytes) {
      checkError(bytes.takeError());
      continue;
    }
    if (entry.dtype != kiln::import::TensorBundle::kStringType)
      continue;
    auto strings = kiln::import::TensorBundle::decodeStrings(*bytes, entry.elements());
    if (!strings)
      checkError(strings.takeError());
  }
  return 0;
}
