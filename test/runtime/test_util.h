// Helpers shared by the runtime tests.
#ifndef KILN_TEST_RUNTIME_TEST_UTIL_H
#define KILN_TEST_RUNTIME_TEST_UTIL_H

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace kiln_test {

// A fresh directory under gtest's temp dir, removed with everything in it on destruction.
class ScopedTempDir {
public:
  ScopedTempDir() {
    std::string pattern = ::testing::TempDir() + "kiln_rt_XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp failed for " << pattern;
    }
    path_ = pattern;
  }
  ~ScopedTempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScopedTempDir(const ScopedTempDir &) = delete;
  ScopedTempDir &operator=(const ScopedTempDir &) = delete;

  const std::string &path() const { return path_; }
  std::string Join(const std::string &name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

inline std::string ReadFileBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void WriteFileBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

// A copy of `values` placed against a page that may not be read or written: its last
// element ends where the page begins (Side::kEnd), or its first element starts where the
// page ends (Side::kStart). A kernel touching one element past either end faults, without
// a sanitizer, where a heap buffer's slack would hide it.
template <class T> class GuardedBuffer {
public:
  enum class Side { kEnd, kStart };

  GuardedBuffer(const std::vector<T> &values, Side side) : count_(values.size()) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_t bytes = count_ * sizeof(T);
    size_t pages = (bytes + page_ - 1) / page_;
    mapped_ = (pages + 2) * page_;
    void *base = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
      ADD_FAILURE() << "mmap of " << mapped_ << " bytes failed";
      base_ = nullptr;
      return;
    }
    base_ = static_cast<char *>(base);
    mprotect(base_, page_, PROT_NONE);
    mprotect(base_ + (pages + 1) * page_, page_, PROT_NONE);
    char *at = side == Side::kEnd ? base_ + (pages + 1) * page_ - bytes : base_ + page_;
    data_ = reinterpret_cast<T *>(at);
    std::copy(values.begin(), values.end(), data_);
  }
  ~GuardedBuffer() {
    if (base_ != nullptr)
      munmap(base_, mapped_);
  }
  GuardedBuffer(const GuardedBuffer &) = delete;
  GuardedBuffer &operator=(const GuardedBuffer &) = delete;

  T *data() const { return data_; }
  // The address as the kernels' C ABI takes it (that of a guard page if empty).
  uintptr_t address() const { return reinterpret_cast<uintptr_t>(data_); }
  std::vector<T> values() const { return std::vector<T>(data_, data_ + count_); }

private:
  size_t count_ = 0, page_ = 0, mapped_ = 0;
  char *base_ = nullptr;
  T *data_ = nullptr;
};

} // namespace kiln_test

#endif // KILN_TEST_RUNTIME_TEST_UTIL_H
