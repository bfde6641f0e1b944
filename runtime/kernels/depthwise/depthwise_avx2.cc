// The depthwise convolution with AVX2 + FMA (the kernels' baseline ISA).
#include "depthwise_impl.h"

namespace kiln::kernels {

void depthwiseRowsAvx2(const DepthwiseArgs &a, int64_t begin, int64_t end) {
  Depthwise<simd::Avx2>::rowsOf(a, begin, end);
}

} // namespace kiln::kernels
