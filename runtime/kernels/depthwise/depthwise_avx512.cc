// The depthwise convolution with AVX-512F (this file is compiled with -mavx512f; the
// dispatcher calls it only on CPUs that have it).
#include "depthwise_impl.h"

namespace kiln::kernels {

void depthwiseRowsAvx512(const DepthwiseArgs &a, int64_t begin, int64_t end) {
  Depthwise<simd::Avx512>::rowsOf(a, begin, end);
}

} // namespace kiln::kernels
