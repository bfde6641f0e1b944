// The depthwise convolution with AVX2 + FMA (the kernels' baseline ISA).
#include "depthwise_impl.h"

namespace kiln::kernels {

void depthwiseRowsAvx2(const DepthwiseArgs &a, int64_t begin, int64_t end) {
  Depthwise<simd::Avx2>::rowsOf(a, begin, end);
}

void depthwiseRowAvx2(const DepthwiseArgs &a, const float *const *rows, int64_t row, int y0,
                      int y1) {
  Depthwise<simd::Avx2>::rowFromRows(a, rows, row, y0, y1);
}

} // namespace kiln::kernels
