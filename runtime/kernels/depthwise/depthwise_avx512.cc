// The depthwise convolution with AVX-512F (this file is compiled with -mavx512f; the
// dispatcher calls it only on CPUs that have it).
#include "depthwise_impl.h"

namespace kiln::kernels {

void depthwiseRowsAvx512(const DepthwiseArgs &a, int64_t begin, int64_t end) {
  Depthwise<simd::Avx512>::rowsOf(a, begin, end);
}

void depthwiseRowAvx512(const DepthwiseArgs &a, const float *const *rows, int64_t row, int y0,
                        int y1) {
  Depthwise<simd::Avx512>::rowFromRows(a, rows, row, y0, y1);
}

} // namespace kiln::kernels
