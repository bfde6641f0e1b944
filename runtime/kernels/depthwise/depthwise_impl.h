// The depthwise 2-D convolution behind kiln_kernel_depthwise_conv2d_f32, written once
// over a vector ISA (simd.h) and compiled for AVX2 (depthwise_avx2.cc) and AVX-512
// (depthwise_avx512.cc); depthwise.cc picks one and splits the output rows over threads.
//
// Channels are innermost (NHWC), so one vector holds one pixel's value of kLanes
// consecutive channels. Square 3x3, 5x5 and 7x7 windows with unit dilation, a stride of 1
// or 2 and a channel multiplier of 1 (MobileNet's, EfficientNet's and ConvNeXt's) take the
// fast path: per
// output row and vector of channels, the window's filter taps stay in registers while the
// row's pixels go past, kPixels at a time, and each input vector loaded serves every
// pixel whose window covers it (long rows go kPixels pixels at a time across all channels
// instead, which reads the input front to back). Pixels whose window leaves the input
// (the edges) skip the taps outside instead of reading a padded copy. Other windows take
// a plain loop.
//
// Every output element is one fused multiply-add chain over its taps, row by row and left
// to right within a row, starting from zero (or the old output when accumulating); both
// paths and both ISAs do exactly that, so results do not depend on the ISA, the path or
// the thread count.
#ifndef KILN_KERNELS_DEPTHWISE_IMPL_H
#define KILN_KERNELS_DEPTHWISE_IMPL_H

#include <math.h>
#include <stdint.h>

#include "../simd.h"

namespace kiln::kernels {

// The operands, as kiln/kernels/depthwise.h describes them.
struct DepthwiseArgs {
  const float *in, *filter;
  float *out;
  int64_t n, h, w, c, m, kh, kw, oh, ow, sh, sw, dh, dw, pt, pl;
  bool overwrite;
  const Epilogue *epi; // null: none
};

// Output rows [begin, end) of every image (row = image * oh + y), with AVX2 or AVX-512.
void depthwiseRowsAvx2(const DepthwiseArgs &a, int64_t begin, int64_t end);
void depthwiseRowsAvx512(const DepthwiseArgs &a, int64_t begin, int64_t end);

// The largest window side the fast path takes.
constexpr int kMaxFastWindow = 7;

// Whether the fast path takes the convolution: a square 3x3, 5x5 or 7x7 window, unit
// dilations, a stride of 1 or 2 along x and a channel multiplier of 1.
inline bool depthwiseFastPath(const DepthwiseArgs &a) {
  return a.m == 1 && a.kh == a.kw && (a.kh == 3 || a.kh == 5 || a.kh == 7) && a.dh == 1 &&
         a.dw == 1 && (a.sw == 1 || a.sw == 2);
}

// One output row (image * oh + y) of a convolution the fast path takes, from its window's
// input rows wherever they are: rows[i] is input row y * sh - pt + i of that image, null
// for rows outside the input (those outside [y0, y1)); a.in is not read.
void depthwiseRowAvx2(const DepthwiseArgs &a, const float *const *rows, int64_t row, int y0,
                      int y1);
void depthwiseRowAvx512(const DepthwiseArgs &a, const float *const *rows, int64_t row, int y0,
                        int y1);

namespace {

// The window taps [lo, hi) along one dimension that land inside the input.
inline void clipTaps(int64_t origin, int64_t dilation, int64_t taps, int64_t size, int &lo,
                     int &hi) {
  lo = 0;
  while (lo < taps && origin + lo * dilation < 0)
    ++lo;
  hi = int(taps);
  while (hi > lo && origin + (hi - 1) * dilation >= size)
    --hi;
}

template <class V> struct Depthwise {
  using Vec = typename V::Vec;
  using Mask = typename V::Mask;
  static constexpr int L = V::kLanes;
  // Output pixels per register block on the fast path: their accumulators and a 3x3
  // window's nine filter vectors fit the ISA's registers (16 ymm, 32 zmm).
  static constexpr int kPixels = L == 16 ? 8 : 4;

  template <bool Full> static Vec load(const float *p, Mask m) {
    return Full ? V::load(p) : V::loadMasked(p, m);
  }
  template <bool Full> static void store(float *p, Vec v, Mask m) {
    if (Full)
      V::store(p, v);
    else
      V::storeMasked(p, v, m);
  }

  // Channels [c0, c0 + L) (those in `m` unless Full) of output pixels x .. x + NP - 1 of
  // one row, at `out` (pixel x, channel c0). `rows[i]` is input row i of the window (null
  // for rows outside the input, which are those outside [y0, y1)); ix is pixel x's first
  // input column. With NP == 1 only the window columns [x0, x1) are inside the input;
  // with more pixels all are.
  template <int K, int S, int NP, bool Full>
  static inline __attribute__((always_inline)) void
  block(const DepthwiseArgs &a, const float *const *rows, const Vec (&f)[K][K], float *out,
        int64_t ix, int y0, int y1, int x0, int x1, int64_t c0, Mask m) {
    const int64_t c = a.c;
    Vec acc[NP];
#pragma GCC unroll 16
    for (int p = 0; p < NP; ++p)
      acc[p] = a.overwrite ? V::zero() : load<Full>(out + p * c, m);
#pragma GCC unroll 8
    for (int i = 0; i < K; ++i) {
      if (i < y0 || i >= y1)
        continue;
      const float *r = rows[i] + ix * c + c0;
      constexpr int kColumns = (NP - 1) * S + K; // input columns the NP windows cover
#pragma GCC unroll 32
      for (int q = 0; q < kColumns; ++q) {
        if (NP == 1 && (q < x0 || q >= x1))
          continue;
        Vec in = load<Full>(r + q * c, m);
#pragma GCC unroll 16
        for (int p = 0; p < NP; ++p) {
          int k = q - p * S; // this column is tap k of pixel p's window
          if (k >= 0 && k < K)
            acc[p] = V::fma(in, f[i][k], acc[p]);
        }
      }
    }
#pragma GCC unroll 16
    for (int p = 0; p < NP; ++p)
      store<Full>(out + p * c, a.epi ? simd::finish<V>(acc[p], *a.epi, c0, m) : acc[p], m);
  }

  // The window's filter taps for channels [c0, c0 + L) (those in `m` unless Full).
  template <int K, bool Full>
  static inline __attribute__((always_inline)) void loadTaps(const DepthwiseArgs &a, int64_t c0,
                                                             Mask m, Vec (&f)[K][K]) {
#pragma GCC unroll 8
    for (int i = 0; i < K; ++i)
#pragma GCC unroll 8
      for (int k = 0; k < K; ++k)
        f[i][k] = load<Full>(a.filter + (i * K + k) * a.c + c0, m);
  }

  // A number of pixels as a type, for the callables walkRow calls.
  template <int N> struct Pixels {
    static constexpr int value = N;
  };

  // Walks one output row as the fast path does: the edge pixels one at a time with their
  // window clipped, the pixels [xa, xb) whose window lies inside the input along x
  // kPixels at a time, then one at a time. Calls run(Pixels<NP>(), x, x0, x1) for pixels
  // x .. x + NP - 1, whose window columns [x0, x1) are inside the input.
  template <int K, int S, class Run>
  static inline __attribute__((always_inline)) void walkRow(const DepthwiseArgs &a, int64_t xa,
                                                            int64_t xb, Run run) {
    auto edge = [&](int64_t x) {
      int x0, x1;
      clipTaps(x * S - a.pl, 1, K, a.w, x0, x1);
      run(Pixels<1>(), x, x0, x1);
    };
    int64_t x = 0;
    for (; x < xa; ++x)
      edge(x);
    for (; x + kPixels <= xb; x += kPixels)
      run(Pixels<kPixels>(), x, 0, K);
    for (; x < xb; ++x)
      run(Pixels<1>(), x, 0, K);
    for (; x < a.ow; ++x)
      edge(x);
  }

  // Channels [c0, c0 + L) of one output row on the fast path, the taps loaded once.
  template <int K, int S, bool Full>
  static void rowFast(const DepthwiseArgs &a, const float *const *rows, float *outRow, int y0,
                      int y1, int64_t xa, int64_t xb, int64_t c0, Mask m) {
    Vec f[K][K];
    loadTaps<K, Full>(a, c0, m, f);
    walkRow<K, S>(a, xa, xb, [&](auto np, int64_t x, int x0, int x1) {
      block<K, S, decltype(np)::value, Full>(a, rows, f, outRow + x * a.c + c0, x * S - a.pl, y0,
                                             y1, x0, x1, c0, m);
    });
  }

  template <int K, int S>
  static void rowFastChannels(const DepthwiseArgs &a, const float *const *rows, float *outRow,
                              int y0, int y1, int64_t xa, int64_t xb) {
    int64_t c0 = 0;
    for (; c0 + L <= a.c; c0 += L)
      rowFast<K, S, true>(a, rows, outRow, y0, y1, xa, xb, c0, V::mask(L));
    if (c0 < a.c)
      rowFast<K, S, false>(a, rows, outRow, y0, y1, xa, xb, c0, V::mask(int(a.c - c0)));
  }

  // The same row with the loops the other way round: a few pixels at a time, every
  // channel each (the filter taps loaded again for each vector of channels). This reads
  // the input rows front to back, which the prefetchers follow better when rows are long
  // (MobileNetV2's 112- and 56-wide layers: 10-18% faster); on short rows reloading the
  // taps costs more (7x7x960: 1.7 times slower).
  template <int K, int S, int NP>
  static inline void pixels(const DepthwiseArgs &a, const float *const *rows, float *outRow, int y0,
                            int y1, int64_t x, int x0, int x1) {
    int64_t ix = x * S - a.pl;
    float *out = outRow + x * a.c;
    Vec f[K][K];
    int64_t c0 = 0;
    for (; c0 + L <= a.c; c0 += L) {
      loadTaps<K, true>(a, c0, V::mask(L), f);
      block<K, S, NP, true>(a, rows, f, out + c0, ix, y0, y1, x0, x1, c0, V::mask(L));
    }
    if (c0 < a.c) {
      Mask m = V::mask(int(a.c - c0));
      loadTaps<K, false>(a, c0, m, f);
      block<K, S, NP, false>(a, rows, f, out + c0, ix, y0, y1, x0, x1, c0, m);
    }
  }

  template <int K, int S>
  static void rowFastPixels(const DepthwiseArgs &a, const float *const *rows, float *outRow, int y0,
                            int y1, int64_t xa, int64_t xb) {
    walkRow<K, S>(a, xa, xb, [&](auto np, int64_t x, int x0, int x1) {
      pixels<K, S, decltype(np)::value>(a, rows, outRow, y0, y1, x, x0, x1);
    });
  }

  // Rows of at least this many output pixels go pixels first (rowFastPixels).
  static constexpr int64_t kLongRow = 16;

  template <int K, int S>
  static void rowFastAny(const DepthwiseArgs &a, const float *const *rows, float *outRow, int y0,
                         int y1, int64_t xa, int64_t xb) {
    if (a.ow >= kLongRow)
      rowFastPixels<K, S>(a, rows, outRow, y0, y1, xa, xb);
    else
      rowFastChannels<K, S>(a, rows, outRow, y0, y1, xa, xb);
  }

  // Any window, stride, dilation and multiplier: one pixel and one vector of channels at
  // a time (or one output channel at a time with a multiplier above 1).
  static void rowGeneric(const DepthwiseArgs &a, const float *image, float *outRow, int64_t iy,
                         int y0, int y1) {
    for (int64_t x = 0; x < a.ow; ++x) {
      int64_t ix = x * a.sw - a.pl;
      int x0, x1;
      clipTaps(ix, a.dw, a.kw, a.w, x0, x1);
      float *outPixel = outRow + x * a.c * a.m;
      if (a.m == 1) {
        for (int64_t c0 = 0; c0 < a.c; c0 += L) {
          Mask m = V::mask(a.c - c0 < L ? int(a.c - c0) : L);
          Vec acc = a.overwrite ? V::zero() : V::loadMasked(outPixel + c0, m);
          for (int i = y0; i < y1; ++i)
            for (int k = x0; k < x1; ++k)
              acc = V::fma(
                  V::loadMasked(image + ((iy + i * a.dh) * a.w + ix + k * a.dw) * a.c + c0, m),
                  V::loadMasked(a.filter + (i * a.kw + k) * a.c + c0, m), acc);
          V::storeMasked(outPixel + c0, a.epi ? simd::finish<V>(acc, *a.epi, c0, m) : acc, m);
        }
        continue;
      }
      for (int64_t ch = 0; ch < a.c; ++ch) {
        for (int64_t j = 0; j < a.m; ++j) {
          float acc = a.overwrite ? 0.0f : outPixel[ch * a.m + j];
          for (int i = y0; i < y1; ++i)
            for (int k = x0; k < x1; ++k)
              acc = fmaf(image[((iy + i * a.dh) * a.w + ix + k * a.dw) * a.c + ch],
                         a.filter[((i * a.kw + k) * a.c + ch) * a.m + j], acc);
          outPixel[ch * a.m + j] = a.epi ? a.epi->apply(acc, ch * a.m + j) : acc;
        }
      }
    }
  }

  // Output row `row` (image * oh + y) on the fast path, from the window's input rows:
  // rows[i] is input row y * sh - pt + i, or null outside the input ([y0, y1) are not).
  static void rowFromRows(const DepthwiseArgs &a, const float *const *rows, int64_t row, int y0,
                          int y1) {
    // The output columns whose window lies inside the input along x.
    int64_t xa = (a.pl + a.sw - 1) / a.sw, xb = 0;
    if (xa > a.ow)
      xa = a.ow;
    if (a.w - a.kw + a.pl >= 0)
      xb = (a.w - a.kw + a.pl) / a.sw + 1;
    if (xb > a.ow)
      xb = a.ow;
    if (xb < xa)
      xb = xa;
    float *outRow = a.out + row * a.ow * a.c;
    if (a.kh == 3)
      a.sw == 1 ? rowFastAny<3, 1>(a, rows, outRow, y0, y1, xa, xb)
                : rowFastAny<3, 2>(a, rows, outRow, y0, y1, xa, xb);
    else if (a.kh == 5)
      a.sw == 1 ? rowFastAny<5, 1>(a, rows, outRow, y0, y1, xa, xb)
                : rowFastAny<5, 2>(a, rows, outRow, y0, y1, xa, xb);
    else // a 7x7 window's 49 filter vectors do not fit the registers; they come from L1
      a.sw == 1 ? rowFastAny<7, 1>(a, rows, outRow, y0, y1, xa, xb)
                : rowFastAny<7, 2>(a, rows, outRow, y0, y1, xa, xb);
  }

  static void rowsOf(const DepthwiseArgs &a, int64_t begin, int64_t end) {
    bool fast = depthwiseFastPath(a);
    for (int64_t row = begin; row < end; ++row) {
      int64_t b = row / a.oh, y = row % a.oh;
      int64_t iy = y * a.sh - a.pt;
      int y0, y1;
      clipTaps(iy, a.dh, a.kh, a.h, y0, y1);
      const float *image = a.in + b * a.h * a.w * a.c;
      if (!fast) {
        rowGeneric(a, image, a.out + row * a.ow * a.c * a.m, iy, y0, y1);
        continue;
      }
      const float *rows[kMaxFastWindow];
      for (int i = 0; i < a.kh; ++i)
        rows[i] = i >= y0 && i < y1 ? image + (iy + i) * a.w * a.c : nullptr;
      rowFromRows(a, rows, row, y0, y1);
    }
  }
};

} // namespace
} // namespace kiln::kernels

#endif // KILN_KERNELS_DEPTHWISE_IMPL_H
