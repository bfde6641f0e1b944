// The kernels' choice of vector ISA (simd.h).
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simd.h"

namespace kiln::kernels::simd {

bool useAvx512() {
  static int chosen = -1; // every thread computes the same value
  int known = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
  if (known >= 0)
    return known != 0;
  int found = __builtin_cpu_supports("avx512f") ? 1 : 0;
  const char *forced = getenv("KILN_KERNEL_ISA");
  if (forced != nullptr && strcmp(forced, "avx2") == 0)
    found = 0;
  __atomic_store_n(&chosen, found, __ATOMIC_RELAXED);
  return found != 0;
}

namespace {

int64_t cacheSize(int name, int64_t otherwise) {
  long bytes = sysconf(name);
  return bytes > 0 ? int64_t(bytes) : otherwise;
}

} // namespace

const Caches &caches() {
  static const Caches found = {cacheSize(_SC_LEVEL1_DCACHE_SIZE, int64_t(32) << 10),
                               cacheSize(_SC_LEVEL2_CACHE_SIZE, int64_t(512) << 10),
                               cacheSize(_SC_LEVEL3_CACHE_SIZE, int64_t(8) << 20)};
  return found;
}

} // namespace kiln::kernels::simd
