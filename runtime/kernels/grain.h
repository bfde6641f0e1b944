// Internal: how many output rows the row-parallel kernels (depthwise, fused pointwise +
// depthwise, direct convolution) hand to a thread at least.
#ifndef KILN_KERNELS_GRAIN_H
#define KILN_KERNELS_GRAIN_H

#include <stdint.h>

namespace kiln::kernels {

// Fewest multiply-adds worth handing to another thread (a few microseconds of work).
constexpr int64_t kMinRowParallelWork = int64_t(1) << 18;

// Rows per chunk of kiln_parallel_for for rows of `rowWork` multiply-adds each: one when a
// row is enough work alone, else as many as make kMinRowParallelWork.
inline int64_t rowGrain(int64_t rowWork) {
  return rowWork >= kMinRowParallelWork ? 1 : kMinRowParallelWork / (rowWork > 0 ? rowWork : 1);
}

} // namespace kiln::kernels

#endif // KILN_KERNELS_GRAIN_H
