// The f32 matrix product with AVX2 + FMA (the kernels' baseline ISA).
#include "gemm_impl.h"

namespace kiln::kernels {
namespace {

struct Avx2 : simd::Avx2 {
  static constexpr int kRows = kAvx2TileRows;
  static constexpr int64_t kRowBlock = 24 * kAvx2TileRows;
  static constexpr int64_t kColBlock = 64 * kAvx2TileCols;
  // transpose() as gemm_avx512.cc's, 8 rows by 8 depths at a time.
  static int64_t transpose(const float *src, int64_t stride, int rows, int64_t kc, float *out,
                           int64_t outStride, int lanes) {
    int64_t kk = 0;
    const Mask store = mask(lanes);
    for (; kk + 8 <= kc; kk += 8, out += 8 * outStride) {
      __m256 r[8], t[8];
      for (int i = 0; i < 8; ++i)
        r[i] = i < rows ? _mm256_loadu_ps(src + i * stride + kk) : _mm256_setzero_ps();
      for (int i = 0; i < 4; ++i) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
      }
      // Within each 128-bit half h, r[4g + c] holds depth 4h + c of rows 4g..4g+3.
      for (int g = 0; g < 2; ++g) {
        r[4 * g + 0] = _mm256_shuffle_ps(t[4 * g + 0], t[4 * g + 2], 0x44);
        r[4 * g + 1] = _mm256_shuffle_ps(t[4 * g + 0], t[4 * g + 2], 0xEE);
        r[4 * g + 2] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0x44);
        r[4 * g + 3] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], 0xEE);
      }
      for (int c = 0; c < 4; ++c) {
        storeMasked(out + c * outStride, _mm256_permute2f128_ps(r[c], r[4 + c], 0x20), store);
        storeMasked(out + (4 + c) * outStride, _mm256_permute2f128_ps(r[c], r[4 + c], 0x31), store);
      }
    }
    return kk;
  }
};
static_assert(Gemm<Avx2>::NR == kAvx2TileCols, "tile width");

} // namespace

void gemmAvx2(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  Gemm<Avx2>::run(g, m0, m1, n0, n1);
}

} // namespace kiln::kernels
