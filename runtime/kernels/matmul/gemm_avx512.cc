// The f32 matrix product with AVX-512F (this file is compiled with -mavx512f; the
// dispatcher calls it only on CPUs that have it).
#include <immintrin.h>

#include "gemm_impl.h"

namespace kiln::kernels {
namespace {

struct Avx512 {
  using Vec = __m512;
  using Mask = __mmask16;
  static constexpr int kLanes = 16;
  static constexpr int kRows = kAvx512TileRows;
  static constexpr int64_t kRowBlock = 4 * kAvx512TileRows;
  static constexpr int64_t kColBlock = 16 * kAvx512TileCols;
  static Vec zero() { return _mm512_setzero_ps(); }
  static Vec load(const float *p) { return _mm512_loadu_ps(p); }
  static void store(float *p, Vec v) { _mm512_storeu_ps(p, v); }
  static Vec broadcast(const float *p) { return _mm512_set1_ps(*p); }
  static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  static Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
  static Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
  // The zero-masked forms: GCC 12 warns about the undefined source of the plain ones.
  static Vec max(Vec a, Vec b) { return _mm512_maskz_max_ps(0xFFFF, a, b); }
  static Vec min(Vec a, Vec b) { return _mm512_maskz_min_ps(0xFFFF, a, b); }
  static Vec set1(float v) { return _mm512_set1_ps(v); }
  static Mask mask(int n) {
    return n <= 0 ? Mask(0) : n >= kLanes ? Mask(0xFFFF) : Mask((1u << n) - 1);
  }
  static Vec loadMasked(const float *p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void storeMasked(float *p, Vec v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
};
static_assert(Gemm<Avx512>::NR == kAvx512TileCols, "tile width");

} // namespace

void gemmAvx512(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  Gemm<Avx512>::run(g, m0, m1, n0, n1);
}

} // namespace kiln::kernels
