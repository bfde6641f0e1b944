// The blocked f32 matrix product behind kiln_kernel_matmul_f32, written once over a vector
// ISA (see gemm_avx512.cc and gemm_avx2.cc, which include this file with their traits).
//
// Layout follows BLIS: C is computed in MR x NR register tiles; A is packed into MR-row
// panels and B into NR-column panels per KC-deep slice, so the micro-kernel streams both
// from contiguous memory. Products with B not transposed and few rows, or a short depth,
// read A and B in place instead (see kGemmDirectRows in gemm.h), a row tile at a time so
// that its rows of A stay in L1 while it meets every column.
//
// Every element of C gets the same arithmetic whatever the ISA, the blocking of M and N or
// the thread that computes it: for each KC slice in order, a fused multiply-add chain over
// the slice starting from zero, then one addition into C (a store, for the first slice of
// an overwriting product). So results do not depend on the thread count or on which path
// (packed or direct) ran.
#ifndef KILN_KERNELS_MATMUL_GEMM_IMPL_H
#define KILN_KERNELS_MATMUL_GEMM_IMPL_H

#include <stdint.h>

#include "../simd.h"
#include "gemm.h"

// A function called as is: not inlined, nor (GCC) specialized for its callers' constants.
#if defined(__clang__)
#define KILN_GEMM_OPAQUE __attribute__((noinline))
#else
#define KILN_GEMM_OPAQUE __attribute__((noipa))
#endif

namespace kiln::kernels {
namespace {

template <class V> struct Gemm {
  using Vec = typename V::Vec;
  using Mask = typename V::Mask;
  static constexpr int L = V::kLanes;
  static constexpr int MR = V::kRows;
  static constexpr int NR = 2 * L;
  static constexpr int64_t MC = V::kRowBlock; // multiple of MR
  static constexpr int64_t NC = V::kColBlock; // multiple of NR
  // Columns a row tile meets before the next row tile starts on them: a depth slice of B
  // over that many columns stays in half of L2 while the row tiles pass, where a block of NC
  // came from L3 for each. The largest power of two times KILN_MATMUL_PACK_COLS, up to NC,
  // whose full-depth slice fits half of L2 (simd::caches()): 256 with 1 MiB (Zen 4), 128
  // with 512 KiB (Zen 3), 512 with 2 MiB (Sapphire Rapids). gemm_bench, 1 thread, B packed
  // ahead, Zen 3, GFLOP/s NC -> 256 (with depth slices of 256): 128 x 768 x 768 (BERT)
  // 78-79 -> 85-86, 49 x 512 x 2048 (ResNet50 conv5) 76 -> 80-86, 1024^3 81-84 -> 87-88.
  static int64_t walk() {
    static const int64_t width = [] {
      const int64_t room = simd::caches().l2 / 2 / (kGemmDepth * int64_t(sizeof(float)));
      int64_t w = KILN_MATMUL_PACK_COLS;
      while (2 * w <= room && 2 * w <= NC)
        w *= 2;
      return w;
    }();
    return width;
  }
  static_assert(KILN_MATMUL_PACK_COLS % NR == 0 && NC % KILN_MATMUL_PACK_COLS == 0 &&
                    (NC & (NC - 1)) == 0,
                "a walk holds whole tiles and panels, and divides NC");

  // acc[i][*] = sum over kk < kc of a(i, kk) * b(kk, *); then C rows += acc.
  // a(i, kk) = a[i * ars + kk * aks], b(kk, j) = b[kk * bks + j]. With Half, the tile is
  // one vector wide (cols <= L): the second vector is neither computed nor touched (a
  // masked load from the next row's first columns, just stored, would stall on every row).
  // `epi`, if set, is applied as the tile is stored (the last depth slice); `col` is the
  // tile's first column in C, which indexes the epilogue's per-column vectors. Unpacked,
  // B's rows from `kcFull` on are read under the columns' mask: B read in place ends with
  // its last row, and a full vector from a narrow tile's last rows would read past it.
  template <int R, bool Packed, bool Half = false>
  static inline __attribute__((always_inline)) void
  micro(int64_t kc, const float *a, int64_t ars, int64_t aks, const float *b, int64_t bks, float *c,
        int64_t ldc, int rows, int cols, bool overwrite, const Epilogue *epi, int64_t col,
        int64_t kcFull) {
    if (Packed) { // A packed; B packed too, panels NR wide unless bks gives their width
      ars = 1;
      aks = MR;
      bks = bks ? bks : NR;
    }
    Vec acc[R][2];
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      acc[i][0] = acc[i][1] = V::zero();
      __builtin_prefetch(c + i * ldc, 1, 3);
      __builtin_prefetch(c + i * ldc + (Half ? L : NR) - 1, 1, 3);
    }
    // One depth: every row's product with B's row.
    auto depth = [&](Vec b0, Vec b1) __attribute__((always_inline)) {
#pragma GCC unroll 16
      for (int i = 0; i < R; ++i) {
        Vec ai = V::broadcast(a + i * ars);
        acc[i][0] = V::fma(ai, b0, acc[i][0]);
        if (!Half)
          acc[i][1] = V::fma(ai, b1, acc[i][1]);
      }
      a += aks;
      b += bks;
    };
    // B's panel (kc x NR, 64 KB at the full depth) does not fit L1 beside A's, so it is
    // prefetched 8 depths ahead (one line of the two each depth reads; the adjacent one
    // follows), packed or not. With the loop unrolled twice: 1024^3 +2 to 8% (median of
    // 15-20 paired gemm_bench runs, three series; 39 of 50 runs faster).
    const int64_t full = Packed ? kc : kcFull;
#pragma GCC unroll 2
    for (int64_t kk = 0; kk < full; ++kk) {
      __builtin_prefetch(b + 8 * bks, 0, 3);
      Vec b0 = V::load(b);
      depth(b0, Half ? b0 : V::load(b + L));
    }
    // The masks are made here, not live in registers across the loop above.
    Mask m0 = V::mask(cols), m1 = V::mask(cols - L);
    if (!Packed) {
#pragma GCC unroll 1
      for (int64_t kk = full; kk < kc; ++kk) {
        Vec b0 = V::loadMasked(b, m0);
        depth(b0, Half ? b0 : V::loadMasked(b + L, m1));
      }
    }
    if (!Half && rows == R && cols == NR) {
#pragma GCC unroll 16
      for (int i = 0; i < R; ++i) {
        float *row = c + i * ldc;
        Vec v0 = overwrite ? acc[i][0] : V::add(V::load(row), acc[i][0]);
        Vec v1 = overwrite ? acc[i][1] : V::add(V::load(row + L), acc[i][1]);
        if (epi) {
          v0 = simd::finish<V>(v0, *epi, col, m0, row);
          v1 = simd::finish<V>(v1, *epi, col + L, m1, row + L);
        }
        V::store(row, v0);
        V::store(row + L, v1);
      }
      return;
    }
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      if (i >= rows)
        break;
      float *row = c + i * ldc;
      Vec v0 = overwrite ? acc[i][0] : V::add(V::loadMasked(row, m0), acc[i][0]);
      if (epi)
        v0 = simd::finish<V>(v0, *epi, col, m0, row);
      V::storeMasked(row, v0, m0);
      if (!Half) {
        Vec v1 = overwrite ? acc[i][1] : V::add(V::loadMasked(row + L, m1), acc[i][1]);
        if (epi)
          v1 = simd::finish<V>(v1, *epi, col + L, m1, row + L);
        V::storeMasked(row + L, v1, m1);
      }
    }
  }

  // The unpacked micro-kernel for `rows` < MR rows, chosen at run time.
  template <int R>
  static void directRows(int rows, int64_t kc, const float *a, int64_t ars, int64_t aks,
                         const float *b, int64_t bks, float *c, int64_t ldc, int cols,
                         bool overwrite, const Epilogue *epi, int64_t col, int64_t kcFull) {
    if constexpr (R > 1) {
      if (rows < R)
        return directRows<R - 1>(rows, kc, a, ars, aks, b, bks, c, ldc, cols, overwrite, epi, col,
                                 kcFull);
    }
    if (cols <= L)
      micro<R, false, true>(kc, a, ars, aks, b, bks, c, ldc, R, cols, overwrite, epi, col, kcFull);
    else
      micro<R, false>(kc, a, ars, aks, b, bks, c, ldc, R, cols, overwrite, epi, col, kcFull);
  }

  // R rows (a few) times T full column tiles over kc depths: R x 2T accumulators, where one
  // tile's R x 2 chains of dependent FMAs leave the FMA units waiting on their latency (a
  // dense layer at batch 1 has two). Tile t's B is b[t], its rows bks apart, packed or in
  // place. Each element's arithmetic is micro's: one FMA chain over the slice, then the
  // addition into C (or the store, overwriting), the epilogue with the last slice.
  template <int R, int T>
  static inline __attribute__((always_inline)) void
  wide(int64_t kc, const float *a, int64_t ars, int64_t aks, const float *const *b, int64_t bks,
       float *c, int64_t ldc, bool overwrite, const Epilogue *epi, int64_t col) {
    Vec acc[R][2 * T];
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i)
#pragma GCC unroll 16
      for (int v = 0; v < 2 * T; ++v)
        acc[i][v] = V::zero();
#pragma GCC unroll 2
    for (int64_t kk = 0; kk < kc; ++kk) {
      Vec bv[2 * T];
#pragma GCC unroll 16
      for (int t = 0; t < T; ++t) {
        const float *row = b[t] + kk * bks;
        __builtin_prefetch(row + 8 * bks, 0, 3);
        bv[2 * t] = V::load(row);
        bv[2 * t + 1] = V::load(row + L);
      }
#pragma GCC unroll 16
      for (int i = 0; i < R; ++i) {
        Vec ai = V::broadcast(a + i * ars + kk * aks);
#pragma GCC unroll 16
        for (int v = 0; v < 2 * T; ++v)
          acc[i][v] = V::fma(ai, bv[v], acc[i][v]);
      }
    }
    const Mask all = V::mask(L);
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i)
#pragma GCC unroll 16
      for (int v = 0; v < 2 * T; ++v) {
        float *out = c + i * ldc + v * L;
        Vec x = overwrite ? acc[i][v] : V::add(V::load(out), acc[i][v]);
        if (epi)
          x = simd::finish<V>(x, *epi, col + v * L, all, out);
        V::store(out, x);
      }
  }

  // The few-row kernel (GemmArgs::fewRows, kiln-lower-kernel-calls's choice for products of
  // at most kGemmFewRows rows): rows [m0, m1) x columns [n0, n1), A in place, B packed ahead
  // or in place (not transposed), T tiles at a time (wide: 8 or more chains), the last
  // columns a tile at a time as sliceTiles takes them.
  template <int R> static void fewRowsOf(const GemmArgs &g, int64_t m0, int64_t n0, int64_t n1) {
    constexpr int T = fewRowsTiles(R);
    constexpr int64_t P = KILN_MATMUL_PACK_COLS;
    const int64_t width = kiln_matmul_packed_b_width(g.n);
    forEachSlice(g.k, [&](int64_t pc, int64_t kc) {
      const bool first = g.overwrite && pc == 0;
      const Epilogue *epi = pc + kc >= g.k ? g.epilogue : nullptr;
      const float *a = g.a + m0 * g.ars + pc * g.aks;
      const int64_t bks = g.bPacked ? P : g.bks;
      auto tile = [&](int64_t j) {
        return g.bPacked ? g.b + pc * width + j / P * kc * P + j % P : g.b + pc * g.bks + j;
      };
      float *c = g.c + m0 * g.ldc;
      int64_t j = n0;
      for (; j + T * NR <= n1; j += T * NR) {
        const float *tiles[T];
        for (int t = 0; t < T; ++t)
          tiles[t] = tile(j + t * NR);
        wide<R, T>(kc, a, g.ars, g.aks, tiles, bks, c + j, g.ldc, first, epi, j);
      }
      for (; j < n1; j += NR) {
        const int cols = n1 - j < NR ? int(n1 - j) : NR;
        directRows<R>(R, kc, a, g.ars, g.aks, tile(j), bks, c + j, g.ldc, cols, first, epi, j,
                      g.bPacked ? kc : fullDepths(g, pc, kc, j, cols));
      }
    });
  }

  static void fewRows(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    static_assert(kGemmFewRows == 3, "a kernel per row count");
    switch (m1 - m0) {
    case 1:
      return fewRowsOf<1>(g, m0, n0, n1);
    case 2:
      return fewRowsOf<2>(g, m0, n0, n1);
    default:
      return fewRowsOf<3>(g, m0, n0, n1);
    }
  }

  // With B read in place from depth `pc` on, how many of a tile's depths may read B's
  // full vectors: those whose row ends, for a tile `width` floats wide at column j, before
  // B's last element does. Only a narrow tile's last few rows need the mask.
  static int64_t fullDepths(const GemmArgs &g, int64_t pc, int64_t kc, int64_t j, int cols) {
    const int64_t width = cols <= L ? L : NR;
    if (cols == width)
      return kc;
    // Row r reads up to r * bks + j + width; B ends at (k - 1) * bks + n.
    const int64_t room = (g.k - 1) * g.bks + g.n - j - width;
    const int64_t firstMasked = room < 0 ? 0 : room / g.bks + 1;
    return firstMasked <= pc ? 0 : firstMasked - pc < kc ? firstMasked - pc : kc;
  }

  // Columns [j0, j1) of C over the depth slice [pc, pc + kc), A read in place, row tiles
  // outside column tiles; bTile(j) is B's tile for columns [j, j + NR), rows bks apart,
  // in B itself (InPlaceB) or in panels padded to whole tiles.
  template <bool InPlaceB, class BTile>
  static void sliceTiles(const GemmArgs &g, int64_t m0, int64_t m1, int64_t j0, int64_t j1,
                         int64_t pc, int64_t kc, int64_t bks, BTile bTile) {
    const int64_t W = walk();
    for (int64_t jw = j0; jw < j1; jw += W) {
      const int64_t jend = j1 - jw < W ? j1 : jw + W;
      for (int64_t i = m0; i < m1; i += MR) {
        int rows = m1 - i < MR ? int(m1 - i) : MR;
        for (int64_t j = jw; j < jend; j += NR) {
          int cols = jend - j < NR ? int(jend - j) : NR;
          directRows<MR>(rows, kc, g.a + i * g.ars + pc * g.aks, g.ars, g.aks, bTile(j), bks,
                         g.c + i * g.ldc + j, g.ldc, cols, g.overwrite && pc == 0,
                         pc + kc >= g.k ? g.epilogue : nullptr, j,
                         InPlaceB ? fullDepths(g, pc, kc, j, cols) : kc);
        }
      }
    }
  }

  // B not transposed, and few rows or few columns: read A in place, and B in place too
  // when `bp` is null; otherwise each depth slice of B is packed into NR-column panels at
  // `bp` first (kGemmDepth x NC floats), so that a panel is contiguous and stays in L1
  // while the row tiles stream past it (B's rows in place, a power-of-two stride apart,
  // map onto a fraction of L1's sets).
  static void direct(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1, float *bp) {
    if (bp) {
      for (int64_t jc = n0; jc < n1; jc += NC) {
        int64_t nc = n1 - jc < NC ? n1 - jc : NC;
        for (int64_t pc = 0, step = gemmSliceDepth(g.k); pc < g.k; pc += step) {
          int64_t kc = g.k - pc < step ? g.k - pc : step;
          packB(g, pc, kc, jc, nc, bp);
          sliceTiles<false>(g, m0, m1, jc, jc + nc, pc, kc, NR,
                            [&](int64_t j) { return bp + (j - jc) / NR * kc * NR; });
        }
      }
      return;
    }
    for (int64_t pc = 0, step = gemmSliceDepth(g.k); pc < g.k; pc += step) {
      int64_t kc = g.k - pc < step ? g.k - pc : step;
      sliceTiles<true>(g, m0, m1, n0, n1, pc, kc, g.bks,
                       [&](int64_t j) { return g.b + pc * g.bks + j; });
    }
  }

  // B packed ahead of time (GemmArgs::bPacked), A read in place (many rows of a wide
  // product pack A instead: packed(), kGemmPackABFloats), like the direct path, a panel of
  // KILN_MATMUL_PACK_COLS columns standing for B's rows (two tiles of AVX2's 16), in blocks
  // of NC columns like the direct path's packed B, walked W columns at a time (see
  // sliceTiles) so that a depth slice of them stays in L2 while every row tile passes. (Over
  // all the columns at once, 1024^3 streamed a 2 MB slice from memory for every row tile:
  // 22 to 24 ms in a busy spell, 15.5 to 16.7 in a quiet one; with the blocks and B's
  // prefetch in the unpacked micro-kernel, 20.5 to 22.5 and 14 to 15.)
  static void prepacked(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    constexpr int64_t P = KILN_MATMUL_PACK_COLS;
    static_assert(P % NR == 0 && NC % P == 0, "a tile lies within one panel, a panel in a block");
    int64_t width = kiln_matmul_packed_b_width(g.n);
    const int64_t l2 = simd::caches().l2, step = gemmSliceDepth(g.k);
    for (int64_t jc = n0; jc < n1; jc = (jc / NC + 1) * NC) {
      int64_t jend = (jc / NC + 1) * NC < n1 ? (jc / NC + 1) * NC : n1;
      // With more than one depth slice and B's block small enough to stay in half of L2,
      // groups of rows (their A in a quarter of L2) meet every slice in turn, so that A
      // comes from memory once rather than once per slice. gemm_bench, 1 thread, B packed
      // ahead, Zen 4, medians of 7 interleaved runs, GFLOP/s: see docs/performance-log.md.
      int64_t group = m1 - m0;
      if (g.k > step && g.k * (jend - jc) * int64_t(sizeof(float)) <= l2 / 2) {
        group = l2 / 4 / (g.k * int64_t(sizeof(float))) / MR * MR;
        group = group < MR ? MR : group;
      }
      for (int64_t ib = m0; ib < m1; ib += group) {
        const int64_t iend = m1 - ib < group ? m1 : ib + group;
        for (int64_t pc = 0; pc < g.k; pc += step) {
          int64_t kc = g.k - pc < step ? g.k - pc : step;
          const float *slice = g.b + pc * width;
          sliceTiles<false>(g, ib, iend, jc, jend, pc, kc, P,
                            [&](int64_t j) { return slice + j / P * kc * P + j % P; });
        }
      }
    }
  }

  // Packs rows [i0, i0 + mc) x depth [p0, p0 + kc) of op(a) into MR-row panels.
  static void packA(const GemmArgs &g, int64_t i0, int64_t mc, int64_t p0, int64_t kc, float *out) {
    if (g.windows) {
      packWindows(*g.windows, i0, mc, p0, kc, out);
      return;
    }
    for (int64_t q = 0; q < mc; q += MR) {
      int rows = mc - q < MR ? int(mc - q) : MR;
      const float *src = g.a + (i0 + q) * g.ars + p0 * g.aks;
      int64_t kk = 0;
      if (g.aks == 1) { // row-major A: transposed in registers, 16 (AVX2: 8) depths at a time
        kk = rows == MR ? V::transpose(src, g.ars, MR, kc, out, MR, MR)
                        : V::transpose(src, g.ars, rows, kc, out, MR, MR);
        out += kk * MR;
      } else if (g.ars == 1) { // A stored transposed: each depth's rows are contiguous
        const Mask load = V::mask(rows), store = V::mask(MR);
        for (; kk < kc; ++kk, out += MR)
          V::storeMasked(out, V::loadMasked(src + kk * g.aks, load), store);
      }
      for (; kk < kc; ++kk, out += MR) {
        for (int i = 0; i < rows; ++i)
          out[i] = src[i * g.ars + kk * g.aks];
        for (int i = rows; i < MR; ++i)
          out[i] = 0.0f;
      }
    }
  }

  // packA for a convolution's windows: each panel's rows gathered into a row-major block
  // (in L1: MR x kGemmDepth floats), then packed from it as a full panel of A is.
  static void packWindows(const ConvWindows &win, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                          float *out) {
    alignas(64) float rowsOf[MR * kGemmDepth];
    for (int64_t q = 0; q < mc; q += MR) {
      int rows = mc - q < MR ? int(mc - q) : MR;
      for (int i = 0; i < rows; ++i)
        gatherWindows(win, i0 + q + i, p0, kc, rowsOf + i * kc);
      int64_t kk = V::transpose(rowsOf, kc, rows, kc, out, MR, MR);
      out += kk * MR;
      for (; kk < kc; ++kk, out += MR) {
        for (int i = 0; i < rows; ++i)
          out[i] = rowsOf[i * kc + kk];
        for (int i = rows; i < MR; ++i)
          out[i] = 0.0f;
      }
    }
  }

  // Packs depth [p0, p0 + kc) x columns [j0, j0 + nc) of op(b) into NR-column panels.
  static void packB(const GemmArgs &g, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float *out) {
    if (g.bcs == 1) {
      // Row by row, so that B is read front to back (a panel at a time would read
      // 2 * L floats of every row, a row stride apart, which defeats the prefetchers).
      for (int64_t kk = 0; kk < kc; ++kk) {
        const float *src = g.b + (p0 + kk) * g.bks + j0;
        float *dst = out + kk * NR;
        int64_t q = 0;
        for (; q + NR <= nc; q += NR, dst += kc * NR) {
          V::store(dst, V::load(src + q));
          V::store(dst + L, V::load(src + q + L));
        }
        if (q < nc) {
          int cols = int(nc - q);
          V::store(dst, V::loadMasked(src + q, V::mask(cols)));
          V::store(dst + L, V::loadMasked(src + q + L, V::mask(cols - L)));
        }
      }
      return;
    }
    for (int64_t q = 0; q < nc; q += NR) {
      int cols = nc - q < NR ? int(nc - q) : NR;
      // b stored transposed (n x k): column j of op(b) is contiguous in depth, and each
      // vector's columns are transposed in registers (absent columns as zeros).
      int64_t done = kc;
      if (g.bks == 1)
        for (int h = 0; h < 2; ++h) {
          const int count = cols - h * L < 0 ? 0 : cols - h * L > L ? L : cols - h * L;
          const float *src = g.b + (j0 + q + h * L) * g.bcs + p0;
          int64_t got = V::transpose(src, g.bcs, count, kc, out + h * L, NR, L);
          done = got < done ? got : done;
        }
      else
        done = 0;
      for (int j = 0; j < cols; ++j) {
        const float *src = g.b + (j0 + q + j) * g.bcs + p0 * g.bks;
        for (int64_t kk = done; kk < kc; ++kk)
          out[kk * NR + j] = src[kk * g.bks];
      }
      for (int64_t kk = done; kk < kc; ++kk)
        for (int j = cols; j < NR; ++j)
          out[kk * NR + j] = 0.0f;
      out += kc * NR;
    }
  }

  static int64_t workspaceFloats() { return kGemmDepth * (NC + MC); }

  // directRows for a packed panel's last rows, called without inlining it or specializing
  // it for the caller's constant arguments: either copies its chain of kernels (70 KiB).
  static KILN_GEMM_OPAQUE void lastRows(int rows, int64_t kc, const float *a, int64_t ars,
                                        int64_t aks, const float *b, int64_t bks, float *c,
                                        int64_t ldc, int cols, bool overwrite, const Epilogue *epi,
                                        int64_t col) {
    directRows<MR>(rows, kc, a, ars, aks, b, bks, c, ldc, cols, overwrite, epi, col, kc);
  }

  // Rows [ic, ic + mc) x columns [j0, j1) of C over the depth slice [pc, pc + kc), A's
  // rows packed at `ap` into MR-row panels, B's in panels of `w` columns from column `b0`
  // on at `bp` (w x kc floats each, rows w apart). Row tiles outside column tiles, W
  // columns at a time: A's panel (MR x kc floats) stays in L1 while B's W columns stream
  // past from L2, instead of both coming from L2. The last rows, fewer than MR, take the
  // kernel of their own height rather than a full tile of zeros (1024 rows with AVX-512:
  // 73 tiles of 14 and one of 2, not 74 of 14).
  static void block(const GemmArgs &g, const float *ap, int64_t ic, int64_t mc, int64_t j0,
                    int64_t j1, int64_t pc, int64_t kc, const float *bp, int64_t b0, int64_t w) {
    const bool first = g.overwrite && pc == 0;
    const Epilogue *epi = pc + kc >= g.k ? g.epilogue : nullptr;
    const int64_t W = walk();
    for (int64_t jw = j0; jw < j1; jw += W) {
      const int64_t jend = j1 - jw < W ? j1 : jw + W;
      for (int64_t ir = 0; ir < mc; ir += MR) {
        int rows = mc - ir < MR ? int(mc - ir) : MR;
        const float *apanel = ap + ir * kc;
        for (int64_t j = jw; j < jend; j += NR) {
          int cols = jend - j < NR ? int(jend - j) : NR;
          const float *btile = bp + (j - b0) / w * kc * w + (j - b0) % w;
          float *ctile = g.c + (ic + ir) * g.ldc + j;
          if (rows < MR)
            lastRows(rows, kc, apanel, 1, MR, btile, w, ctile, g.ldc, cols, first, epi, j);
          else if (cols <= L)
            micro<MR, true, true>(kc, apanel, 0, 0, btile, w, ctile, g.ldc, rows, cols, first, epi,
                                  j, kc);
          else
            micro<MR, true>(kc, apanel, 0, 0, btile, w, ctile, g.ldc, rows, cols, first, epi, j,
                            kc);
        }
      }
    }
  }

  // C[m0:m1, n0:n1] += op(a) op(b) over the whole depth, packing into `ws`.
  static void packed(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1, float *ws) {
    float *bp = ws, *ap = ws + kGemmDepth * NC;
    if (g.bPacked) {
      // B packed ahead of time, its panels read where they are (KILN_MATMUL_PACK_COLS
      // columns wide): each block of A's rows is packed once per depth slice and meets
      // every column block in turn. (Column blocks outside row blocks, as B packed here
      // needs, pack A once per column block. With block()'s order and last rows too,
      // 1024^3 took 81% -> 86% of the same FMA work's time at peak just before it, in a
      // busy spell, median of 60 pairs; the compiled graph 4% less time, median of 20
      // alternated pairs.)
      constexpr int64_t P = KILN_MATMUL_PACK_COLS;
      static_assert(P % NR == 0, "a tile lies within one panel");
      const int64_t width = kiln_matmul_packed_b_width(g.n);
      for (int64_t pc = 0, step = gemmSliceDepth(g.k); pc < g.k; pc += step) {
        int64_t kc = g.k - pc < step ? g.k - pc : step;
        const float *slice = g.b + pc * width;
        for (int64_t ic = m0; ic < m1; ic += MC) {
          int64_t mc = m1 - ic < MC ? m1 - ic : MC;
          packA(g, ic, mc, pc, kc, ap);
          for (int64_t jc = n0; jc < n1; jc += NC) {
            int64_t jend = n1 - jc < NC ? n1 : jc + NC;
            block(g, ap, ic, mc, jc, jend, pc, kc, slice, 0, P);
          }
        }
      }
      return;
    }
    for (int64_t jc = n0; jc < n1; jc += NC) {
      int64_t nc = n1 - jc < NC ? n1 - jc : NC;
      for (int64_t pc = 0, step = gemmSliceDepth(g.k); pc < g.k; pc += step) {
        int64_t kc = g.k - pc < step ? g.k - pc : step;
        packB(g, pc, kc, jc, nc, bp);
        for (int64_t ic = m0; ic < m1; ic += MC) {
          int64_t mc = m1 - ic < MC ? m1 - ic : MC;
          packA(g, ic, mc, pc, kc, ap);
          block(g, ap, ic, mc, jc, jc + nc, pc, kc, bp, jc, NR);
        }
      }
    }
  }

  // Whether `rows` rows of A, read in place, would miss L1 at every depth step: rows a
  // multiple of 4 KiB apart (a depth of 1024 or 2048 floats) map to the same set of L1, and
  // a full row tile (MR rows; with AVX-512, more than the set's ways) does not fit in it.
  static bool aliasedTiles(const GemmArgs &g, int64_t rows) {
    return MR > kGemmL1Ways && rows >= MR && g.aks == 1 && g.ars % kGemmAliasStride == 0;
  }

  // A convolution's windows where a product with B packed ahead would read A in place
  // (prepacked): blocks of rows gathered row-major into the workspace (at most 256 rows
  // and 256 KiB, in L2), each multiplied as prepacked multiplies A in place. Narrow products
  // lose more to packing A than they gain (see kGemmPackARows); ConvNeXt's 2x2 stride-2
  // convolutions (784 x 192 x 384 at batch 1) took 1-3% longer packed. Returns false,
  // doing nothing, without memory for the block.
  static bool gatheredRows(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    // Rows a multiple of 4 KiB apart would share a set of L1 (aliasedTiles): one more
    // vector between them.
    const int64_t stride = g.k % kGemmAliasStride == 0 ? g.k + 16 : g.k;
    int64_t rows = (int64_t(1) << 16) / stride / MR * MR;
    rows = rows < MR ? MR : rows > 256 / MR * MR ? 256 / MR * MR : rows;
    float *block =
        static_cast<float *>(kiln_parallel_workspace(rows * stride * int64_t(sizeof(float))));
    if (block == nullptr)
      return false;
    for (int64_t i = m0; i < m1; i += rows) {
      const int64_t count = m1 - i < rows ? m1 - i : rows;
      for (int64_t r = 0; r < count; ++r)
        gatherWindows(*g.windows, i + r, 0, g.k, block + r * stride);
      GemmArgs h = g;
      h.windows = nullptr;
      h.a = block;
      h.ars = stride;
      h.aks = 1;
      h.m = count;
      h.c = g.c + i * g.ldc;
      prepacked(h, 0, count, n0, n1);
    }
    return true;
  }

  // Whether a product with B packed ahead is wide enough to pack A: more rows than
  // kGemmPackARows and a depth slice of its columns over kGemmPackABFloats (else prepacked
  // reads A in place).
  static bool packsA(const GemmArgs &g, int64_t rows, int64_t cols) {
    const int64_t depth = gemmSliceDepth(g.k);
    return rows > kGemmPackARows && depth * cols > kGemmPackABFloats;
  }

  static void run(const GemmArgs &g, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    if (g.windows) { // no A to read in place: gathered rows or packed from the windows
      if (g.bPacked && !packsA(g, m1 - m0, n1 - n0) && gatheredRows(g, m0, m1, n0, n1))
        return;
      if (float *ws = static_cast<float *>(
              kiln_parallel_workspace(workspaceFloats() * int64_t(sizeof(float)))))
        packed(g, m0, m1, n0, n1, ws);
      else
        referenceGemm(g, m0, m1, n0, n1);
      return;
    }
    if (g.fewRows && m1 - m0 <= kGemmFewRows && (g.bPacked || g.bcs == 1)) {
      fewRows(g, m0, m1, n0, n1);
      return;
    }
    if (g.bPacked) {
      if (packsA(g, m1 - m0, n1 - n0) || aliasedTiles(g, m1 - m0))
        if (float *ws = static_cast<float *>(
                kiln_parallel_workspace(workspaceFloats() * int64_t(sizeof(float))))) {
          packed(g, m0, m1, n0, n1, ws);
          return;
        }
      prepacked(g, m0, m1, n0, n1);
      return;
    }
    int64_t rows = m1 - m0, cols = n1 - n0;
    // (One row tile packing all of B lost: 14 x 1024 x 700 79 -> 64-70.)
    const bool aliased = rows > MR && aliasedTiles(g, rows);
    if (g.bcs == 1 && (g.inPlace || rows <= kGemmDirectRows ||
                       (g.k <= kGemmDirectDepth && !aliased &&
                        (cols <= kGemmDirectCols || rows <= kGemmDirectFewRows)))) {
      float *bp = nullptr;
      if (!g.inPlace &&
          (rows > kGemmDirectPackBRows || (rows > MR && g.k * cols > kGemmDirectPackBFloats)))
        bp =
            static_cast<float *>(kiln_parallel_workspace(kGemmDepth * NC * int64_t(sizeof(float))));
      direct(g, m0, m1, n0, n1, bp);
      return;
    }
    float *ws =
        static_cast<float *>(kiln_parallel_workspace(workspaceFloats() * int64_t(sizeof(float))));
    if (ws == nullptr) { // out of memory: the unpacked path needs none
      referenceGemm(g, m0, m1, n0, n1);
      return;
    }
    packed(g, m0, m1, n0, n1, ws);
  }
};

} // namespace
} // namespace kiln::kernels

#endif // KILN_KERNELS_MATMUL_GEMM_IMPL_H
