//===- MemoryFile.h - bytes as a file path, for readers that take a path -------===//
#ifndef KILN_TEST_FUZZ_MEMORYFILE_H
#define KILN_TEST_FUZZ_MEMORYFILE_H

#include <cstdint>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace kiln_fuzz {

/// `bytes` in an anonymous in-memory file (memfd, a regular file), named by its
/// /proc/self/fd path while this object lives; no disk is touched.
class MemoryFile {
public:
  MemoryFile(const uint8_t *data, size_t size) {
    fd = memfd_create("kiln-fuzz", 0);
    if (fd < 0)
      std::abort();
    for (size_t done = 0; done < size;) {
      ssize_t n = write(fd, data + done, size - done);
      if (n <= 0)
        std::abort();
      done += static_cast<size_t>(n);
    }
    path = "/proc/self/fd/" + std::to_string(fd);
  }
  ~MemoryFile() { close(fd); }
  MemoryFile(const MemoryFile &) = delete;
  MemoryFile &operator=(const MemoryFile &) = delete;

  std::string path;

private:
  int fd = -1;
};

} // namespace kiln_fuzz

#endif // KILN_TEST_FUZZ_MEMORYFILE_H
