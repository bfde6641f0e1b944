// The f32 matrix product with AVX-512F (this file is compiled with -mavx512f; the
// dispatcher calls it only on CPUs that have it).
#include "gemm_impl.h"

namespace kiln::kernels {
namespace {

struct Avx512 : simd::Avx512 {
  static constexpr int kRows = kAvx512TileRows;
  static constexpr int64_t kRowBlock = 4 * kAvx512TileRows;
  static constexpr int64_t kColBlock = 16 * kAvx512TileCols;

  // Transposes `rows` (at most 16) rows of `kc` floats, `stride` apart, into
  // out[kk * outStride + i], 16 depths at a time through a 16x16 register transpose, storing
  // `lanes` lanes of each depth (rows past `rows` as zeros); the rest of the depth is left to
  // the caller, and the number of depths done is returned.
  static int64_t transpose(const float *src, int64_t stride, int rows, int64_t kc, float *out,
                           int64_t outStride, int lanes) {
    int64_t kk = 0;
    const Mask store = mask(lanes);
    for (; kk + 16 <= kc; kk += 16, out += 16 * outStride) {
      __m512 r[16], t[16];
      for (int i = 0; i < 16; ++i)
        r[i] = i < rows ? _mm512_loadu_ps(src + i * stride + kk) : _mm512_setzero_ps();
      for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm512_maskz_unpacklo_ps(0xFFFF, r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_maskz_unpackhi_ps(0xFFFF, r[2 * i], r[2 * i + 1]);
      }
      // Within each 128-bit lane j, r[4g + c] now holds depth 4j + c of rows 4g..4g+3.
      // (The zero-masked forms throughout: GCC 12 warns about the plain ones.)
      for (int g = 0; g < 4; ++g) {
        r[4 * g + 0] = _mm512_maskz_shuffle_ps(0xFFFF, t[4 * g + 0], t[4 * g + 2], 0x44);
        r[4 * g + 1] = _mm512_maskz_shuffle_ps(0xFFFF, t[4 * g + 0], t[4 * g + 2], 0xEE);
        r[4 * g + 2] = _mm512_maskz_shuffle_ps(0xFFFF, t[4 * g + 1], t[4 * g + 3], 0x44);
        r[4 * g + 3] = _mm512_maskz_shuffle_ps(0xFFFF, t[4 * g + 1], t[4 * g + 3], 0xEE);
      }
      for (int c = 0; c < 4; ++c) {
        // Lanes (0, 2) and (1, 3) of row groups 0-1 and 2-3, then gathered by depth.
        __m512 a02 = _mm512_maskz_shuffle_f32x4(0xFFFF, r[c], r[4 + c], 0x88);
        __m512 a13 = _mm512_maskz_shuffle_f32x4(0xFFFF, r[c], r[4 + c], 0xDD);
        __m512 b02 = _mm512_maskz_shuffle_f32x4(0xFFFF, r[8 + c], r[12 + c], 0x88);
        __m512 b13 = _mm512_maskz_shuffle_f32x4(0xFFFF, r[8 + c], r[12 + c], 0xDD);
        t[c] = _mm512_maskz_shuffle_f32x4(0xFFFF, a02, b02, 0x88);      // depth c
        t[8 + c] = _mm512_maskz_shuffle_f32x4(0xFFFF, a02, b02, 0xDD);  // depth 8 + c
        t[4 + c] = _mm512_maskz_shuffle_f32x4(0xFFFF, a13, b13, 0x88);  // depth 4 + c
        t[12 + c] = _mm512_maskz_shuffle_f32x4(0xFFFF, a13, b13, 0xDD); // depth 12 + c
      }
      for (int d = 0; d < 16; ++d)
        _mm512_mask_storeu_ps(out + d * outStride, store, t[d]);
    }
    return kk;
  }
};
static_assert(Gemm<Avx512>::NR == kAvx512TileCols, "tile width");

} // namespace

void gemmAvx512(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  Gemm<Avx512>::run(g, m0, m1, n0, n1);
}

} // namespace kiln::kernels
