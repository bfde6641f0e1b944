// The direct convolution with AVX-512F (this file is compiled with -mavx512f; the
// dispatcher calls it only on CPUs that have it).
#include "direct_impl.h"

namespace kiln::kernels {

void directRowsAvx512(const DirectArgs &a, int64_t begin, int64_t end) {
  Direct<simd::Avx512>::rows(a, begin, end);
}

} // namespace kiln::kernels
