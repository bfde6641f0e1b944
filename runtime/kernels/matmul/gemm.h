// Internal interface of the f32 matrix product: the operand description shared by the
// ISA-specific implementations (gemm_avx512.cc, gemm_avx2.cc) and the dispatcher
// (matmul.cc).
#ifndef KILN_KERNELS_MATMUL_GEMM_H
#define KILN_KERNELS_MATMUL_GEMM_H

#include <stdint.h>

#include "../epilogue.h"
#include "kiln/runtime/abi.h"
#include "kiln/runtime/parallel.h"

namespace kiln::kernels {

// A convolution's windows standing for op(a) (kiln_kernel_conv2d_gemm_f32): row i is output
// pixel i of n x oh x ow, depth kk the window position kk of kh x kw x c (the HWIO filter's
// rows), the value the NHWC input's element under it, zero outside the input. The GEMM
// packs A from it (gatherWindows), so no padded copy or patches matrix is ever written.
struct ConvWindows {
  const float *in = nullptr;
  int64_t h = 0, w = 0, c = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pl = 0;
};

// Writes op(a)(row, p0 .. p0 + count) of `win` to dst[0 .. count): runs of channels (of
// whole window rows with unit dilation) copied, positions outside the input zeros.
void gatherWindows(const ConvWindows &win, int64_t row, int64_t p0, int64_t count, float *dst);

// C (m x n, row stride ldc) += op(a) (m x k) * op(b) (k x n), where
// op(a)(i, kk) = a[i * ars + kk * aks] and op(b)(kk, j) = b[kk * bks + j * bcs].
// Every field has a default, so that one left unset reads as nothing rather than garbage.
struct GemmArgs {
  const float *a = nullptr;
  const float *b = nullptr;
  float *c = nullptr;
  int64_t m = 0, n = 0, k = 0;
  int64_t ars = 0, aks = 0;
  int64_t bks = 0, bcs = 0;
  int64_t ldc = 0;
  bool overwrite = false;             // C = op(a) op(b): C's old values are never read
  const Epilogue *epilogue = nullptr; // applied after the last depth slice, if set
  bool inPlace = false; // read A and B in place, never packing: the caller holds the workspace
  bool bPacked = false; // b is op(b) packed as abi.h's kiln_matmul_packed_b_index says
  // At most kGemmFewRows rows: several column tiles at a time (KILN_MATMUL_FEW_ROWS).
  bool fewRows = false;
  const ConvWindows *windows = nullptr; // op(a) is a convolution's windows (a is unused)
};

// op(a)(i, kk), from a or from the windows.
inline float aAt(const GemmArgs &g, int64_t i, int64_t kk) {
  if (!g.windows)
    return g.a[i * g.ars + kk * g.aks];
  float v;
  gatherWindows(*g.windows, i, kk, 1, &v);
  return v;
}

// op(b)(kk, j), from b as it is stored or packed.
inline float bAt(const GemmArgs &g, int64_t kk, int64_t j) {
  return g.bPacked ? g.b[kiln_matmul_packed_b_index(kk, j, g.k, g.n)] : g.b[kk * g.bks + j * g.bcs];
}

// Depth of the sum's slices (kiln_matmul_depth_slice in abi.h): at most kGemmDepth, an
// even share of k. Fixed for every ISA and thread count: it is part of the order of the
// floating-point operations, so changing it changes results in the last bits. 512 since
// 2026-12-07, from 256: C is read and written once per slice, and a micro-kernel call's
// fixed cost (loading and storing its tile of C) is spread over twice the depth.
// gemm_bench, 1 thread, B packed ahead, Zen 4 (AVX-512, 1 MiB L2, peak 115 GFLOP/s),
// medians of 7 interleaved runs: 1024^3 104.4 -> 107.8 GFLOP/s; the model shapes are in
// docs/performance-log.md. (256 had been chosen on Zen 3 with AVX2, where a row tile's A
// and a column tile's B fitted L1 together; the micro-kernel streams B from L2 as fast.)
constexpr int64_t kGemmDepth = KILN_MATMUL_PACK_DEPTH;
inline int64_t gemmSliceDepth(int64_t k) { return kiln_matmul_depth_slice(k); }
// for (pc, kc) over the depth slices of a product k deep: body(pc, kc). (The GEMM's own
// paths keep their loops over the slices written out: through this lambda, GCC 12 compiled
// them 10-30% slower, 196 x 1024 x 256 and 3136 x 256 x 64 with B packed ahead, 2026-12-08.)
template <class Body> inline void forEachSlice(int64_t k, Body body) {
  const int64_t step = gemmSliceDepth(k);
  for (int64_t pc = 0; pc < k; pc += step)
    body(pc, k - pc < step ? k - pc : step);
}

// Products with B not transposed read the operands in place (no packing) when they have at
// most kGemmDirectRows rows, or a depth of at most kGemmDirectDepth and at most
// kGemmDirectCols columns or kGemmDirectFewRows rows. Measured with test/bench/gemm_bench.c
// on the convolutions of MobileNetV2 and the small CNN of test/bench (m = pixels, k and n
// = channels, or window x channels): packing A costs more than it saves unless B is both
// long and wide and A tall (1024 x 1024 x 256: 138 GFLOP/s packed, 109 direct).
constexpr int64_t kGemmDirectRows = 4;
constexpr int64_t kGemmDirectDepth = 1024;
constexpr int64_t kGemmDirectCols = 640;
constexpr int64_t kGemmDirectFewRows = 256;
// With more rows than kGemmDirectPackBRows, the direct path still packs B (each depth slice
// once, into NR-column panels, reading B's rows front to back): B's rows in place are a
// power-of-two stride apart and share a fraction of L1's sets. Best of 6 interleaved
// gemm_bench runs: 3136 x 24 x 144 (MobileNetV2) 39 -> 70 GFLOP/s, 3136 x 64 x 288 (small
// CNN) 82 -> 96, 64 x 256 x 784 (MLP) 85 -> 95.
constexpr int64_t kGemmDirectPackBRows = 64;
// It also packs B for more than one row tile when B has more than kGemmDirectPackBFloats
// elements (64 KiB): a model's weights are rarely in cache, and each row tile reading a
// column strip of B a row stride apart from memory defeats the prefetchers. Best of 6
// alternated runs of test/bench/mobilenet_layers.c (MobileNetV2's layers in sequence, each
// with weights of its own): 49 x 160 x 960 0.46 -> 0.18 ms, 49 x 320 x 1280 1.48 -> 0.48 ms,
// all layers 12.0 -> 7.9 ms (with a 1 MiB threshold instead: 10.3 ms).
constexpr int64_t kGemmDirectPackBFloats = int64_t(1) << 14;
// With B packed ahead of time, more rows than kGemmPackARows pack A too, in blocks of rows
// (the GEMM's packed path, without packing B), when a depth slice of B's columns holds more
// than kGemmPackABFloats (a quarter of Zen 3's 512 KiB L2; a row tile of A read in place
// stays in L1 while it meets them all, but such a slice comes from L3 for every row tile).
// Narrower products read A in place: each element of A then meets only a few column tiles,
// and packing it cost more than it saved. gemm_bench, 1 thread, B packed ahead, best of 12,
// GFLOP/s packing A -> in place: 12544 x 16 x 32 28.9 -> 86.2, 3136 x 24 x 144 36.8 ->
// 78.8, 784 x 32 x 192 46.8 -> 96.8, 784 x 64 x 384 40.3 -> 75.3, 21904 x 128 x 64 45.0 ->
// 53.3, 784 x 128 x 512 51.1 -> 67.4; wider ones keep packing A (1369 x 728 x 256: 78.4
// packed, 69.2 in place; 3136 x 256 x 2304: 71.0, 65.8).
constexpr int64_t kGemmPackARows = 256;
constexpr int64_t kGemmPackABFloats = int64_t(1) << 16;
// Whatever its size, a product packs A (and B, unless packed ahead) when A's rows are a
// multiple of kGemmAliasStride floats (4 KiB) apart, it has a full row tile, and the tile has
// more rows than L1 has ways (AVX-512's 14; AVX2's 6 fit): read in place, its rows all fall in
// one set of L1 (64 sets of 64 bytes: addresses 4 KiB apart share a set), and every depth
// step misses. gemm_bench, 1 thread, B packed ahead, GFLOP/s in place -> packed, Zen 4
// (peak about 115): 196 x 1024 x 256 (ResNet50's conv4 1x1) 65-66 -> 108-110, 49 x 2048 x
// 512 (conv5) 63-68 -> 102-109, 49 x 1024 x 1024 (MobileNet) 64-68 -> 105-107, 64 x 2048 x
// 320 (InceptionV3) 66 -> 107-111, 128 x 3072 x 768 (BERT's FFN) 60 -> 95-97; with fewer
// rows than a tile, packing lost (9 x 2048 x 64: 113 -> 73). B not packed ahead (the direct
// path's depths up to kGemmDirectDepth), from two row tiles on: 196 x 1024 x 256 63-83 ->
// 106-108, 300 x 1024 x 300 62-80 -> 103, 28 x 1024 x 700 52-72 -> 88, 128 x 1024 x 64
// 62-86 -> 92-94.
// Products of at most kGemmFewRows rows flagged KILN_MATMUL_FEW_ROWS (a dense layer at batch
// 1 or 2, an RNN's step), B packed ahead or in place and not transposed, compute several
// column tiles at once: one tile of one row is two chains of dependent FMAs, which leave
// the FMA units idle for most of their latency (4 cycles, one or two issued a cycle). See
// docs/performance.md for what it gains.
constexpr int64_t kGemmFewRows = KILN_MATMUL_FEW_ROWS_MAX;
// The column tiles it computes at once for `rows` rows: 8 or more chains (4 x 2 for one row,
// 2 x 2 x 2 for two, 2 x 2 x 3 for three); two threads split the columns in such groups.
constexpr int fewRowsTiles(int64_t rows) { return rows == 1 ? 4 : 2; }
constexpr int64_t kGemmAliasStride = 1024;
constexpr int64_t kGemmL1Ways = 8;

// Scalar form of the same arithmetic (one FMA chain per depth slice, then one addition,
// or a store for the first slice when overwriting).
inline void referenceGemm(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  forEachSlice(g.k, [&](int64_t pc, int64_t kc) {
    for (int64_t i = m0; i < m1; ++i)
      for (int64_t j = n0; j < n1; ++j) {
        float acc = 0.0f;
        for (int64_t kk = pc; kk < pc + kc; ++kk)
          acc = __builtin_fmaf(aAt(g, i, kk), bAt(g, kk, j), acc);
        float &out = g.c[i * g.ldc + j];
        out = g.overwrite && pc == 0 ? acc : out + acc;
        if (g.epilogue && pc + kc >= g.k)
          out = g.epilogue->apply(out, j, &out);
      }
  });
}

// C[m0:m1, n0:n1] += (op(a) op(b))[m0:m1, n0:n1] with AVX-512 (only on CPUs that have
// AVX-512F) or AVX2 + FMA.
void gemmAvx512(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1);
void gemmAvx2(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1);

// The whole product on the calling thread, with the ISA kiln_kernel_matmul_f32 chose (for
// kernels built on it).
void gemmSerial(const GemmArgs &g);

// The operands of c = op(a) op(b) (m x n, depth k) as KILN_MATMUL_* `flags` describe them.
GemmArgs describeProduct(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n, int64_t k,
                         int32_t flags, const Epilogue *epilogue);

// The whole product split over the calling thread's budget as kiln_kernel_matmul_f32
// splits it (an empty sum, k <= 0, overwrites with zeros and applies the epilogue).
void gemmParallel(const GemmArgs &g);

// Register tile of each implementation (rows x columns), for the dispatcher's splits.
constexpr int64_t kAvx512TileRows = 14, kAvx512TileCols = 32;
constexpr int64_t kAvx2TileRows = 6, kAvx2TileCols = 16;

} // namespace kiln::kernels

#endif // KILN_KERNELS_MATMUL_GEMM_H
