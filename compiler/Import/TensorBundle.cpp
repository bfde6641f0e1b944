//===- TensorBundle.cpp - reading TensorFlow checkpoints ----------------------===//
//
// The index is an SSTable in TensorFlow's (LevelDB's) table format:
//   data blocks | meta index block | index block | footer (48 bytes)
// The footer holds two block handles (varint64 offset, varint64 size: the meta index and
// the index), zero padding to 40 bytes, then the magic number 0xdb4775248b80fb57 (fixed64).
// Every block is followed by a 5-byte trailer: its compression type (0: none; 1: Snappy,
// which TensorFlow 1 used) and the masked crc32c of the block as stored and that byte. A block is a
// run of entries (varint32 bytes shared with the previous key, varint32 bytes of key that follow,
// varint32 value size, the key's tail, the value), then the restart offsets (fixed32 each) and
// their count (fixed32). The index block maps the last key of each data block to its handle; the
// data blocks map tensor names to BundleEntryProtos, the empty name to the BundleHeaderProto.
//
//===----------------------------------------------------------------------------===//
#include "compiler/Import/TensorBundle.h"

#include "tensor_bundle.pb.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <array>
#include <optional>

namespace kiln::import {

namespace {

std::array<uint32_t, 256> makeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k)
      c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    table[i] = c;
  }
  return table;
}

constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr size_t kFooterSize = 48, kTrailerSize = 5;

uint32_t fixed32(const char *p) {
  const auto *u = reinterpret_cast<const unsigned char *>(p);
  return uint32_t(u[0]) | uint32_t(u[1]) << 8 | uint32_t(u[2]) << 16 | uint32_t(u[3]) << 24;
}

uint64_t fixed64(const char *p) { return uint64_t(fixed32(p)) | uint64_t(fixed32(p + 4)) << 32; }

/// Reads a varint of at most `maxBytes` bytes from `in`, advancing it; false if it runs
/// past the end or is too long.
bool varint(llvm::StringRef &in, uint64_t &value, int maxBytes = 10) {
  value = 0;
  for (int i = 0; i < maxBytes && i < int(in.size()); ++i) {
    auto byte = static_cast<unsigned char>(in[i]);
    value |= uint64_t(byte & 0x7f) << (7 * i);
    if (!(byte & 0x80)) {
      in = in.drop_front(i + 1);
      return true;
    }
  }
  return false;
}

struct BlockHandle {
  uint64_t offset = 0, size = 0;
};

llvm::Error fail(llvm::StringRef file, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), file + ": " + what);
}

/// Snappy's decompression (the format of github.com/google/snappy's format_description):
/// the uncompressed length as a varint, then literals and back-references. Empty on
/// malformed input, with `ok` false.
std::string unsnappy(llvm::StringRef in, bool &ok) {
  ok = false;
  uint64_t length;
  if (!varint(in, length, 5) || length > (uint64_t(1) << 32))
    return {};
  std::string out;
  out.reserve(length);
  while (!in.empty()) {
    auto tag = static_cast<unsigned char>(in[0]);
    in = in.drop_front();
    if ((tag & 3) == 0) { // a literal
      uint64_t size = tag >> 2;
      if (size >= 60) {
        unsigned bytes = unsigned(size) - 59;
        if (in.size() < bytes)
          return {};
        size = 0;
        for (unsigned b = 0; b < bytes; ++b)
          size |= uint64_t(static_cast<unsigned char>(in[b])) << (8 * b);
        in = in.drop_front(bytes);
      }
      ++size;
      if (size > in.size() || size > length - out.size())
        return {};
      out.append(in.data(), size);
      in = in.drop_front(size);
      continue;
    }
    uint64_t size, offset;
    unsigned extra = (tag & 3) == 1 ? 1 : (tag & 3) == 2 ? 2 : 4;
    if (in.size() < extra)
      return {};
    if ((tag & 3) == 1) {
      size = ((tag >> 2) & 7) + 4;
      offset = uint64_t(tag >> 5) << 8 | static_cast<unsigned char>(in[0]);
    } else {
      size = (tag >> 2) + 1;
      offset = 0;
      for (unsigned b = 0; b < extra; ++b)
        offset |= uint64_t(static_cast<unsigned char>(in[b])) << (8 * b);
    }
    in = in.drop_front(extra);
    if (offset == 0 || offset > out.size() || size > length - out.size())
      return {};
    for (uint64_t i = 0; i < size; ++i) // may overlap what it copies
      out.push_back(out[out.size() - offset]);
  }
  if (out.size() != length)
    return {};
  ok = true;
  return out;
}

/// The contents of the block at `handle` of `file`, its trailer checked and, if it is
/// Snappy-compressed (as TensorFlow 1 wrote them), decompressed into `storage`.
llvm::Expected<llvm::StringRef> readBlock(llvm::StringRef file, llvm::StringRef data,
                                          BlockHandle handle, llvm::StringRef what,
                                          std::string &storage) {
  if (handle.offset > data.size() || handle.size > data.size() - handle.offset ||
      kTrailerSize > data.size() - handle.offset - handle.size)
    return fail(file, llvm::formatv("the {0} block (offset {1}, {2} bytes) lies past the end "
                                    "of the file ({3} bytes): truncated or corrupt",
                                    what, handle.offset, handle.size, data.size()));
  llvm::StringRef block = data.substr(handle.offset, handle.size);
  const char *trailer = block.data() + block.size();
  uint32_t expected = fixed32(trailer + 1);
  uint32_t actual = maskCrc32c(crc32c(llvm::StringRef(trailer, 1), crc32c(block)));
  if (expected != actual)
    return fail(file, llvm::formatv("checksum mismatch in the {0} block at offset {1} "
                                    "(stored {2:x8}, computed {3:x8}): the file is corrupt",
                                    what, handle.offset, expected, actual));
  switch (trailer[0]) {
  case 0:
    return block;
  case 1: {
    bool ok;
    storage = unsnappy(block, ok);
    if (!ok)
      return fail(file, llvm::formatv("the {0} block at offset {1} is not valid Snappy data", what,
                                      handle.offset));
    return llvm::StringRef(storage);
  }
  default:
    return fail(file, llvm::formatv("the {0} block is compressed in a way Kiln does not "
                                    "read (type {1}; it reads none and Snappy)",
                                    what, int(static_cast<unsigned char>(trailer[0]))));
  }
}

/// Calls `each(key, value)` for every entry of a block, in order.
llvm::Error forEachEntry(llvm::StringRef file, llvm::StringRef block, llvm::StringRef what,
                         llvm::function_ref<llvm::Error(llvm::StringRef, llvm::StringRef)> each) {
  auto corrupt = [&](const llvm::Twine &why) {
    return fail(file, "corrupt " + what + " block: " + why);
  };
  if (block.size() < 4)
    return corrupt("shorter than its restart count");
  uint32_t restarts = fixed32(block.data() + block.size() - 4);
  if (restarts > (block.size() - 4) / 4)
    return corrupt(
        llvm::formatv("{0} restart points do not fit in {1} bytes", restarts, block.size()));
  llvm::StringRef entries = block.drop_back(4 + 4 * uint64_t(restarts));
  std::string key;
  while (!entries.empty()) {
    uint64_t shared, tail, size;
    if (!varint(entries, shared, 5) || !varint(entries, tail, 5) || !varint(entries, size, 5))
      return corrupt("an entry's lengths run past the block");
    if (shared > key.size())
      return corrupt(
          llvm::formatv("an entry shares {0} bytes with a {1}-byte key", shared, key.size()));
    if (tail > entries.size() || size > entries.size() - tail)
      return corrupt("an entry runs past the block");
    key.resize(shared);
    key.append(entries.data(), tail);
    llvm::StringRef value = entries.substr(tail, size);
    entries = entries.drop_front(tail + size);
    if (llvm::Error error = each(key, value))
      return error;
  }
  return llvm::Error::success();
}

bool decodeHandle(llvm::StringRef &in, BlockHandle &handle) {
  return varint(in, handle.offset) && varint(in, handle.size);
}

} // namespace

uint32_t crc32c(llvm::StringRef data, uint32_t crc) {
  static const std::array<uint32_t, 256> table = makeCrcTable();
  crc = ~crc;
  for (char c : data)
    crc = table[(crc ^ static_cast<unsigned char>(c)) & 0xff] ^ (crc >> 8);
  return ~crc;
}

uint32_t maskCrc32c(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

std::string TensorBundle::shardPath(int id) const {
  return llvm::formatv("{0}.data-{1:d5}-of-{2:d5}", prefix, id, shards).str();
}

llvm::Expected<TensorBundle> TensorBundle::open(llvm::StringRef prefix) {
  std::string file = (prefix + ".index").str();
  auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail(file, "cannot read the checkpoint index: " + buffer.getError().message());
  llvm::StringRef data = (*buffer)->getBuffer();
  if (data.size() < kFooterSize)
    return fail(file, llvm::formatv("{0} bytes, shorter than a table's footer (48): not a "
                                    "checkpoint index, or truncated",
                                    data.size()));
  llvm::StringRef footer = data.take_back(kFooterSize);
  if (fixed64(footer.data() + 40) != kTableMagic)
    return fail(file, "no table magic number at the end: not a checkpoint index, or truncated");
  BlockHandle metaHandle, indexHandle;
  if (!decodeHandle(footer, metaHandle) || !decodeHandle(footer, indexHandle))
    return fail(file, "corrupt footer: its block handles do not decode");
  std::string indexStorage;
  llvm::Expected<llvm::StringRef> index = readBlock(file, data, indexHandle, "index", indexStorage);
  if (!index)
    return index.takeError();

  TensorBundle bundle;
  bundle.prefix = prefix.str();
  bool sawHeader = false;
  std::optional<std::string> lastKey;
  auto entry = [&](llvm::StringRef key, llvm::StringRef value) -> llvm::Error {
    if (lastKey && key <= *lastKey)
      return fail(file, "corrupt table: its keys are not in increasing order");
    lastKey = key.str();
    if (key.empty()) {
      tensorflow::BundleHeaderProto header;
      if (!header.ParseFromArray(value.data(), int(value.size())))
        return fail(file, "the header entry is not a valid BundleHeaderProto");
      if (header.endianness() != tensorflow::BundleHeaderProto::LITTLE)
        return fail(file, "the bundle is big-endian; Kiln reads little-endian bundles");
      if (header.num_shards() < 1)
        return fail(file, llvm::formatv("the header gives {0} data shards", header.num_shards()));
      bundle.shards = header.num_shards();
      sawHeader = true;
      return llvm::Error::success();
    }
    tensorflow::BundleEntryProto proto;
    if (!proto.ParseFromArray(value.data(), int(value.size())))
      return fail(file, "the entry of '" + key + "' is not a valid BundleEntryProto");
    Entry e;
    e.dtype = proto.dtype();
    for (const auto &dim : proto.shape().dim()) {
      if (dim.size() < 0)
        return fail(file, "tensor '" + key + "' has a negative dimension");
      e.shape.push_back(dim.size());
    }
    e.shard = proto.shard_id();
    e.offset = proto.offset();
    e.size = proto.size();
    e.maskedCrc = proto.crc32c();
    e.sliced = proto.slices_size() > 0;
    if (e.offset < 0 || e.size < 0)
      return fail(file, "tensor '" + key + "' has a negative offset or size");
    bundle.table.emplace(key.str(), std::move(e));
    return llvm::Error::success();
  };
  llvm::Error walked =
      forEachEntry(file, *index, "index", [&](llvm::StringRef, llvm::StringRef value) {
        BlockHandle handle;
        if (!decodeHandle(value, handle))
          return fail(file, "corrupt index block: a block handle does not decode");
        std::string storage;
        llvm::Expected<llvm::StringRef> block = readBlock(file, data, handle, "data", storage);
        if (!block)
          return block.takeError();
        return forEachEntry(file, *block, "data", entry);
      });
  if (walked)
    return std::move(walked);
  if (!sawHeader)
    return fail(file, "no header entry: not a tensor bundle's index");
  for (const auto &[key, e] : bundle.table)
    if (e.shard < 0 || e.shard >= bundle.shards)
      return fail(
          file, llvm::formatv("tensor '{0}' is in shard {1} of {2}", key, e.shard, bundle.shards));
  return bundle;
}

/// Tensor `key`'s bytes in shard `path` (`data`, the whole file), checked against its
/// entry's crc32c with `verify`.
static llvm::Expected<llvm::StringRef> checkedTensor(llvm::StringRef path, llvm::StringRef key,
                                                     const TensorBundle::Entry &e,
                                                     llvm::StringRef data, bool verify) {
  if (uint64_t(e.offset) > data.size() || uint64_t(e.size) > data.size() - uint64_t(e.offset))
    return fail(path, llvm::formatv("tensor '{0}' ({1} bytes at offset {2}) lies past the end "
                                    "of the shard ({3} bytes): truncated",
                                    key, e.size, e.offset, data.size()));
  llvm::StringRef bytes = data.substr(e.offset, e.size);
  if (!verify)
    return bytes;
  uint32_t actual;
  if (e.dtype == TensorBundle::kStringType) {
    // A string tensor's checksum covers its lengths as fixed-width numbers, not as the
    // varints stored (decodeStrings).
    llvm::Expected<uint32_t> crc = TensorBundle::stringChecksum(bytes, e.elements());
    if (!crc)
      return fail(path, "tensor '" + key + "': " + llvm::toString(crc.takeError()));
    actual = *crc;
  } else {
    actual = maskCrc32c(crc32c(bytes));
  }
  if (actual != e.maskedCrc)
    return fail(path, llvm::formatv("checksum mismatch in tensor '{0}' (stored {1:x8}, "
                                    "computed {2:x8}): the shard is corrupt",
                                    key, e.maskedCrc, actual));
  return bytes;
}

/// Shard `path`, whole, for reading tensor `key`.
static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readShard(llvm::StringRef path,
                                                                     llvm::StringRef key) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return fail(path,
                "cannot read the data shard of tensor '" + key + "': " + file.getError().message());
  return std::move(*file);
}

llvm::Expected<std::string> TensorBundle::read(llvm::StringRef key) const {
  const Entry *e = find(key);
  if (!e)
    return fail(prefix + ".index", "no tensor named '" + key + "'");
  if (e->sliced)
    return fail(prefix + ".index", "tensor '" + key +
                                       "' is saved in slices (a partitioned variable), "
                                       "which Kiln does not read yet");
  std::string path = shardPath(e->shard);
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file = readShard(path, key);
  if (!file)
    return file.takeError();
  llvm::Expected<llvm::StringRef> bytes =
      checkedTensor(path, key, *e, (*file)->getBuffer(), /*verify=*/!checked);
  if (!bytes)
    return bytes.takeError();
  return bytes->str();
}

llvm::Error TensorBundle::checkAll() {
  for (int shard = 0; shard < shards; ++shard) {
    std::string path = shardPath(shard);
    std::unique_ptr<llvm::MemoryBuffer> file; // read for its first tensor
    for (const auto &[key, e] : table) {
      if (e.shard != shard || e.sliced)
        continue;
      if (!file) {
        llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> read = readShard(path, key);
        if (!read)
          return read.takeError();
        file = std::move(*read);
      }
      if (llvm::Expected<llvm::StringRef> bytes =
              checkedTensor(path, key, e, file->getBuffer(), /*verify=*/true);
          !bytes)
        return bytes.takeError();
    }
  }
  checked = true;
  return llvm::Error::success();
}

namespace {

/// A string tensor's parts: `count` varint64 lengths, the masked crc32c of the lengths
/// (each as 4 little-endian bytes, or 8 past 2^32), then the elements' bytes.
struct StringLayout {
  std::vector<uint64_t> lengths;
  uint32_t lengthsCrc = 0;   // computed, unmasked
  llvm::StringRef storedCrc; // the 4 bytes after the lengths
  llvm::StringRef elements;
};

llvm::Expected<StringLayout> splitStrings(llvm::StringRef bytes, int64_t count) {
  auto corrupt = [](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "corrupt string tensor: " + why);
  };
  StringLayout layout;
  llvm::StringRef in = bytes;
  for (int64_t i = 0; i < count; ++i) {
    uint64_t length;
    if (!varint(in, length))
      return corrupt("its lengths run past its bytes");
    layout.lengths.push_back(length);
    char wide[8];
    for (int b = 0; b < 8; ++b)
      wide[b] = char(length >> (8 * b));
    layout.lengthsCrc =
        crc32c(llvm::StringRef(wide, length > 0xffffffffu ? 8 : 4), layout.lengthsCrc);
  }
  if (in.size() < 4)
    return corrupt("no checksum after its lengths");
  layout.storedCrc = in.take_front(4);
  if (maskCrc32c(layout.lengthsCrc) != fixed32(in.data()))
    return corrupt("its lengths' checksum does not match");
  layout.elements = in.drop_front(4);
  uint64_t total = 0;
  for (uint64_t length : layout.lengths) {
    if (length > layout.elements.size() - total)
      return corrupt("an element runs past its bytes");
    total += length;
  }
  return layout;
}

} // namespace

llvm::Expected<uint32_t> TensorBundle::stringChecksum(llvm::StringRef bytes, int64_t count) {
  llvm::Expected<StringLayout> layout = splitStrings(bytes, count);
  if (!layout)
    return layout.takeError();
  return maskCrc32c(crc32c(layout->elements, crc32c(layout->storedCrc, layout->lengthsCrc)));
}

llvm::Expected<std::vector<std::string>> TensorBundle::decodeStrings(llvm::StringRef bytes,
                                                                     int64_t count) {
  llvm::Expected<StringLayout> layout = splitStrings(bytes, count);
  if (!layout)
    return layout.takeError();
  std::vector<std::string> out;
  llvm::StringRef in = layout->elements;
  for (uint64_t length : layout->lengths) {
    out.push_back(in.take_front(length).str());
    in = in.drop_front(length);
  }
  return out;
}

} // namespace kiln::import
