// The f32 matrix product with AVX2 + FMA (the kernels' baseline ISA).
#include <immintrin.h>

#include "gemm_impl.h"

namespace kiln::kernels {
namespace {

struct Avx2 {
  using Vec = __m256;
  using Mask = __m256i;
  static constexpr int kLanes = 8;
  static constexpr int kRows = kAvx2TileRows;
  static constexpr int64_t kRowBlock = 24 * kAvx2TileRows;
  static constexpr int64_t kColBlock = 64 * kAvx2TileCols;
  static Vec zero() { return _mm256_setzero_ps(); }
  static Vec load(const float *p) { return _mm256_loadu_ps(p); }
  static void store(float *p, Vec v) { _mm256_storeu_ps(p, v); }
  static Vec broadcast(const float *p) { return _mm256_broadcast_ss(p); }
  static Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
  static Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
  static Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
  static Vec max(Vec a, Vec b) { return _mm256_max_ps(a, b); }
  static Vec min(Vec a, Vec b) { return _mm256_min_ps(a, b); }
  static Vec set1(float v) { return _mm256_set1_ps(v); }
  static Mask mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static Vec loadMasked(const float *p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void storeMasked(float *p, Vec v, Mask m) { _mm256_maskstore_ps(p, m, v); }
  // No vector packing of A here: the scalar loop packs every depth.
  static int64_t packRows(const float *, int64_t, int64_t, float *) { return 0; }
};
static_assert(Gemm<Avx2>::NR == kAvx2TileCols, "tile width");

} // namespace

void gemmAvx2(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  Gemm<Avx2>::run(g, m0, m1, n0, n1);
}

} // namespace kiln::kernels
