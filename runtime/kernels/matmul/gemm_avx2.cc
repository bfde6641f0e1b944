// The f32 matrix product with AVX2 + FMA (the kernels' baseline ISA).
#include "gemm_impl.h"

namespace kiln::kernels {
namespace {

struct Avx2 : simd::Avx2 {
  static constexpr int kRows = kAvx2TileRows;
  static constexpr int64_t kRowBlock = 24 * kAvx2TileRows;
  static constexpr int64_t kColBlock = 64 * kAvx2TileCols;
  // No vector packing of A here: the scalar loop packs every depth.
  static int64_t packRows(const float *, int64_t, int64_t, float *) { return 0; }
};
static_assert(Gemm<Avx2>::NR == kAvx2TileCols, "tile width");

} // namespace

void gemmAvx2(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  Gemm<Avx2>::run(g, m0, m1, n0, n1);
}

} // namespace kiln::kernels
