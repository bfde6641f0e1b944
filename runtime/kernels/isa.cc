// The kernels' choice of vector ISA (simd.h).
#include <stdlib.h>
#include <string.h>

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

} // namespace kiln::kernels::simd
