//===- TensorBundle.h - reading TensorFlow checkpoints -----------------*- C++ -*-===//
//
// A tensor bundle is how TensorFlow saves variables (a SavedModel's `variables/`, any
// checkpoint): PREFIX.index, an SSTable that maps each tensor's name to a BundleEntryProto,
// and PREFIX.data-NNNNN-of-NNNNN, the shards holding the tensors' bytes. Kiln reads both
// itself, checking every block's and tensor's crc32c, with no TensorFlow library.
//
//===----------------------------------------------------------------------------===//
#ifndef KILN_COMPILER_IMPORT_TENSORBUNDLE_H
#define KILN_COMPILER_IMPORT_TENSORBUNDLE_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>

namespace kiln::import {

/// crc32c (Castagnoli) of `data`, continuing from `crc` (0 to start).
uint32_t crc32c(llvm::StringRef data, uint32_t crc = 0);
/// The masked form TensorFlow and LevelDB store (a crc of data holding crcs stays useful).
uint32_t maskCrc32c(uint32_t crc);

class TensorBundle {
public:
  /// One saved tensor, as the index locates it.
  struct Entry {
    int dtype = 0; // TensorFlow's DataType enum
    llvm::SmallVector<int64_t> shape;
    int shard = 0;
    int64_t offset = 0, size = 0;
    uint32_t maskedCrc = 0;
    bool sliced = false; // a partitioned variable, saved in slices Kiln does not read yet
    /// The number of elements, INT64_MAX when the product of the dimensions exceeds it.
    int64_t elements() const {
      int64_t n = 1;
      for (int64_t d : shape)
        n = d != 0 && n > INT64_MAX / d ? INT64_MAX : n * d;
      return n;
    }
  };

  /// Reads and checks PREFIX.index (the SSTable's footer, its blocks and their checksums,
  /// the header entry, every entry). Errors name the file and what is wrong.
  static llvm::Expected<TensorBundle> open(llvm::StringRef prefix);

  const std::map<std::string, Entry> &entries() const { return table; }
  const Entry *find(llvm::StringRef key) const {
    auto it = table.find(key.str());
    return it == table.end() ? nullptr : &it->second;
  }
  int numShards() const { return shards; }
  /// The shard file holding shard `id`: PREFIX.data-0000i-of-0000n.
  std::string shardPath(int id) const;

  /// The bytes of tensor `key` as the shard holds them (numbers little-endian, in row-major
  /// order; strings as TensorFlow writes them: varint64 lengths, a masked crc32c of those,
  /// then the bytes), after checking them against the entry's crc32c (unless checkAll has
  /// checked every tensor).
  llvm::Expected<std::string> read(llvm::StringRef key) const;

  /// Checks every tensor's bytes against its crc32c (each shard read once), as TensorFlow
  /// does when it restores a checkpoint: a corrupt tensor is an error even where nothing
  /// reads it. The first mismatch's error names the shard and the tensor. Once it has
  /// succeeded, read() takes the bytes without computing their checksums again.
  llvm::Error checkAll();

  /// The elements of a string tensor of `count` elements whose bytes `read` returned.
  static llvm::Expected<std::vector<std::string>> decodeStrings(llvm::StringRef bytes,
                                                                int64_t count);
  /// The masked checksum TensorFlow stores for a string tensor of `count` elements: of its
  /// lengths as fixed-width numbers, their stored checksum, then the elements' bytes.
  static llvm::Expected<uint32_t> stringChecksum(llvm::StringRef bytes, int64_t count);

  /// TensorFlow's DT_STRING.
  static constexpr int kStringType = 7;

private:
  std::string prefix;
  int shards = 0;
  bool checked = false; // checkAll succeeded
  std::map<std::string, Entry> table;
};

} // namespace kiln::import

#endif // KILN_COMPILER_IMPORT_TENSORBUNDLE_H
