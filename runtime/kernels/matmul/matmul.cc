// kiln_kernel_matmul_f32: picks the ISA once, then splits C into column (or row) blocks
// across the calling thread's budget (kiln/runtime/parallel.h).
#include "kiln/kernels/matmul.h"

#include <stdlib.h>
#include <string.h>

#include "../simd.h"
#include "gemm.h"

namespace kiln::kernels {
namespace {

// One implementation of the product and its register tile.
struct Impl {
  void (*gemm)(const GemmArgs &, int64_t, int64_t, int64_t, int64_t);
  int64_t tileRows, tileCols;
};

constexpr Impl kAvx512 = {gemmAvx512, kAvx512TileRows, kAvx512TileCols};
constexpr Impl kAvx2 = {gemmAvx2, kAvx2TileRows, kAvx2TileCols};

const Impl &chosenImpl() { return simd::useAvx512() ? kAvx512 : kAvx2; }

// Fewest multiply-adds worth handing to another thread: 2^18, some 5 to 10 microseconds
// of work, against the 1 or 2 a spinning worker takes to join. Products of 2^18 to 2^21
// (an LSTM step's, MobileNet's 1x1 convolutions on 14x14 and 28x28 images, attention's
// per-head products) gain 1.1 to 1.45x from a second thread (test/bench/gemm_bench.c,
// medians of 5; docs/performance-log.md).
constexpr int64_t kMinParallelWork = int64_t(1) << 18;

// The share of `threads` busy over `count` items split into `threads` near-equal chunks:
// 1 when the count divides evenly, 3 columns on 2 threads 0.75.
double balance(int64_t count, int64_t threads) {
  int64_t most = (count + threads - 1) / threads;
  return double(count) / double(most * threads);
}

// Row tiles per thread from which a product with B packed ahead splits its rows.
constexpr int64_t kMinRowTilesPerThread = 4;

struct Split {
  const GemmArgs *args;
  const Impl *impl;
  bool byColumns;
  int64_t unit; // columns or rows per work item
};

void runBlock(void *ctx, int64_t begin, int64_t end) {
  const Split &s = *static_cast<const Split *>(ctx);
  const GemmArgs &g = *s.args;
  int64_t m0 = 0, m1 = g.m, n0 = 0, n1 = g.n;
  int64_t &lo = s.byColumns ? n0 : m0, &hi = s.byColumns ? n1 : m1;
  int64_t limit = hi;
  lo = begin * s.unit;
  hi = end * s.unit < limit ? end * s.unit : limit;
  s.impl->gemm(g, m0, m1, n0, n1);
}

} // namespace

void gemmSerial(const GemmArgs &g) { chosenImpl().gemm(g, 0, g.m, 0, g.n); }

void gemmParallel(const GemmArgs &g) {
  if (g.m <= 0 || g.n <= 0)
    return;
  if (g.k <= 0) { // an empty sum
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        float &out = g.c[i * g.ldc + j];
        if (g.overwrite)
          out = 0.0f;
        if (g.epilogue)
          out = g.epilogue->apply(out, j, &out);
      }
    return;
  }
  Split s;
  s.args = &g;
  s.impl = &chosenImpl();
  int64_t tileRows = s.impl->tileRows, tileCols = s.impl->tileCols;
  int64_t colTiles = (g.n + tileCols - 1) / tileCols, rowTiles = (g.m + tileRows - 1) / tileRows;
  const int64_t threads = kiln_parallel_threads();
  // Each thread packs the part of A its rows need and, unless B was packed ahead, the part
  // of B its columns need: split by columns, every thread packs all of A. With B packed
  // ahead, rows split nothing that is packed twice, and win when there are enough row tiles
  // to share evenly. gemm_bench, 2 threads, B packed ahead, Zen 4, medians of 5 interleaved
  // runs, GFLOP/s columns -> rows: 1024^3 201.7 -> 204.6, 196 x 1024 x 256 209.8 -> 213.1,
  // 3136 x 64 x 576 185.0 -> 191.1, 1024 x 2304 x 768 201.6 -> 205.3; with 4 row tiles
  // (49 x 2048 x 512) columns stay ahead, 216.9 against 194.3.
  if (g.bPacked && rowTiles >= kMinRowTilesPerThread * threads)
    s.byColumns = false;
  else
    s.byColumns = colTiles >= rowTiles ||
                  (colTiles >= threads && balance(colTiles, threads) >= balance(rowTiles, threads));
  s.unit = s.byColumns ? tileCols : tileRows;
  int64_t count = s.byColumns ? colTiles : rowTiles;
  if (g.fewRows && g.m <= kGemmFewRows && s.byColumns) { // whole groups of the few-row kernel
    s.unit *= fewRowsTiles(g.m);
    count = (g.n + s.unit - 1) / s.unit;
  }
  int64_t workPerItem = (s.byColumns ? g.m : g.n) * g.k * s.unit;
  int64_t grain = (kMinParallelWork + workPerItem - 1) / workPerItem;
  kiln_parallel_for(count, grain, runBlock, &s);
}

} // namespace kiln::kernels

using namespace kiln::kernels;

GemmArgs kiln::kernels::describeProduct(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n,
                                        int64_t k, int32_t flags, const Epilogue *epilogue) {
  GemmArgs g;
  g.epilogue = epilogue;
  g.a = reinterpret_cast<const float *>(a);
  g.b = reinterpret_cast<const float *>(b);
  g.c = reinterpret_cast<float *>(c);
  g.m = m;
  g.n = n;
  g.k = k;
  if (flags & KILN_MATMUL_TRANSPOSE_A) { // a is k x m
    g.ars = 1;
    g.aks = m;
  } else {
    g.ars = k;
    g.aks = 1;
  }
  if (flags & KILN_MATMUL_PACKED_B) { // op(b) packed (abi.h)
    g.bPacked = true;
    g.bks = 0;
    g.bcs = 0;
  } else if (flags & KILN_MATMUL_TRANSPOSE_B) { // b is n x k
    g.bks = 1;
    g.bcs = k;
  } else {
    g.bks = n;
    g.bcs = 1;
  }
  g.ldc = n;
  g.overwrite = flags & KILN_MATMUL_OVERWRITE;
  g.fewRows = flags & KILN_MATMUL_FEW_ROWS;
  return g;
}

namespace {

void matmul(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n, int64_t k, int32_t flags,
            const Epilogue *epilogue) {
  gemmParallel(describeProduct(a, b, c, m, n, k, flags, epilogue));
}

// A batch split one product per work item: each item's product on its thread alone.
struct BatchSplit {
  GemmArgs args;               // the first product
  int64_t aStep, bStep, cStep; // floats from one product's operand to the next
};

void runProducts(void *ctx, int64_t begin, int64_t end) {
  const BatchSplit &s = *static_cast<const BatchSplit *>(ctx);
  for (int64_t i = begin; i < end; ++i) {
    GemmArgs g = s.args;
    g.a += i * s.aStep;
    g.b += i * s.bStep;
    g.c += i * s.cStep;
    gemmSerial(g);
  }
}

void batchMatmul(uintptr_t a, uintptr_t b, uintptr_t c, int64_t batch, int64_t m, int64_t n,
                 int64_t k, int32_t flags) {
  flags &= ~KILN_MATMUL_PACKED_B;
  int64_t aStep = flags & KILN_MATMUL_BROADCAST_A ? 0 : m * k;
  int64_t bStep = flags & KILN_MATMUL_BROADCAST_B ? 0 : k * n;
  if (batch <= 0 || m <= 0 || n <= 0)
    return;
  if (k <= 0 || batch < kiln_parallel_threads()) {
    for (int64_t i = 0; i < batch; ++i)
      matmul(a + uintptr_t(i * aStep) * sizeof(float), b + uintptr_t(i * bStep) * sizeof(float),
             c + uintptr_t(i * m * n) * sizeof(float), m, n, k, flags, nullptr);
    return;
  }
  BatchSplit s{describeProduct(a, b, c, m, n, k, flags, nullptr), aStep, bStep, m * n};
  int64_t work = m * n * k;
  kiln_parallel_for(batch, (kMinParallelWork + work - 1) / work, runProducts, &s);
}

} // namespace

extern "C" void kiln_kernel_matmul_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n,
                                       int64_t k, int32_t flags) {
  matmul(a, b, c, m, n, k, flags, nullptr);
}

extern "C" void kiln_kernel_matmul_epilogue_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m,
                                                int64_t n, int64_t k, int32_t flags,
                                                uintptr_t scale, float scale_value, uintptr_t bias,
                                                float bias_value, float lo, float hi,
                                                int32_t activation) {
  Epilogue e{reinterpret_cast<const float *>(scale),
             reinterpret_cast<const float *>(bias),
             scale_value,
             bias_value,
             lo,
             hi,
             activation};
  matmul(a, b, c, m, n, k, flags, &e);
}

extern "C" void kiln_kernel_matmul_residual_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m,
                                                int64_t n, int64_t k, int32_t flags,
                                                uintptr_t scale, float scale_value, uintptr_t bias,
                                                float bias_value, float lo, float hi,
                                                int32_t activation, uintptr_t residual) {
  Epilogue e{reinterpret_cast<const float *>(scale),
             reinterpret_cast<const float *>(bias),
             scale_value,
             bias_value,
             lo,
             hi,
             activation};
  e.residual = true;
  // The residual read in place is c itself only while c holds no partial sums: one depth
  // slice, overwritten. Otherwise the product reads a copy of it (kiln-lower-kernel-calls
  // does not fuse such a residual; a caller may).
  float *copy = nullptr;
  if (residual == c && !((flags & KILN_MATMUL_OVERWRITE) && gemmSliceDepth(k) >= k) && m > 0 &&
      n > 0) {
    copy = static_cast<float *>(malloc(sizeof(float) * m * n));
    float *out = reinterpret_cast<float *>(c);
    if (copy == nullptr) { // out of memory: NaN rather than a silent wrong answer
      for (int64_t i = 0; i < m * n; ++i)
        out[i] = __builtin_nanf("");
      return;
    }
    memcpy(copy, out, sizeof(float) * m * n);
    residual = reinterpret_cast<uintptr_t>(copy);
  }
  e.residualOffset = (static_cast<intptr_t>(residual) - static_cast<intptr_t>(c)) /
                     static_cast<intptr_t>(sizeof(float));
  matmul(a, b, c, m, n, k, flags, &e);
  free(copy);
}

extern "C" void kiln_kernel_batch_matmul_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t batch,
                                             int64_t m, int64_t n, int64_t k, int32_t flags) {
  batchMatmul(a, b, c, batch, m, n, k, flags);
}

extern "C" void kiln_kernel_matmul_pack_b_f32(uintptr_t b, int64_t k, int64_t n, int32_t flags,
                                              uintptr_t out) {
  const float *in = reinterpret_cast<const float *>(b);
  float *packed = reinterpret_cast<float *>(out);
  int64_t width = kiln_matmul_packed_b_width(n);
  for (int64_t i = 0; i < k * width; ++i)
    packed[i] = 0.0f;
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j)
      packed[kiln_matmul_packed_b_index(kk, j, k, n)] =
          flags & KILN_MATMUL_TRANSPOSE_B ? in[j * k + kk] : in[kk * n + j];
}
