// Internal: the direct convolution's row loop, a template over the ISA's vector operations
// (simd.h). A register tile holds P output pixels of a row times two vectors of output
// channels; for each window tap and input channel, the two filter vectors are loaded once
// and each pixel's input value is broadcast into them (P * 2 fused multiply-adds), from
// the window's input rows copied with their zero padding (as the GEMM path's zero-padded
// patches). Each output element sums its kh * kw * c
// products in the order (i, k, ch), in one accumulator; windows of more than
// kDirectMaxTaps taps go in parts, each continuing from the sum the last one stored.
#ifndef KILN_KERNELS_DIRECT_DIRECT_IMPL_H
#define KILN_KERNELS_DIRECT_DIRECT_IMPL_H

#include "../simd.h"
#include "direct.h"
#include "kiln/runtime/parallel.h"

namespace kiln::kernels {
namespace {

// Where tap t's input pixel for pixel q of a register tile lies: tap[t] for pixel 0, the
// others `stride` floats apart.
struct Strided {
  const float *const *tap;
  int64_t stride;
};

template <class V> struct Direct {
  using Vec = typename V::Vec;
  using Mask = typename V::Mask;
  // Pixels per register tile: 2 * P accumulators, plus the two filter vectors and a
  // broadcast, in 32 (AVX-512) or 16 (AVX2) registers.
  static constexpr int P = V::kLanes == 16 ? 14 : 6;

  // The epilogue's operands for channels [j, j + 2 * lanes), loaded once per tile.
  struct Finish {
    bool scales, biases, swishes;
    Vec scale[2], bias[2], lo, hi;
    Finish(const Epilogue &e, int64_t j, Mask m0, Mask m1)
        : scales(e.scales()), biases(e.biases()), swishes(e.swishes()) {
      for (int h = 0; h < 2; ++h) {
        Mask m = h == 0 ? m0 : m1;
        int64_t col = j + h * V::kLanes;
        scale[h] = !scales   ? V::zero()
                   : e.scale ? V::loadMasked(e.scale + col, m)
                             : V::set1(e.scaleValue);
        bias[h] = !biases  ? V::zero()
                  : e.bias ? V::loadMasked(e.bias + col, m)
                           : V::set1(e.biasValue);
      }
      lo = V::set1(e.lo), hi = V::set1(e.hi);
    }
    // As simd::finish: max/min return their second operand when either is NaN, so a NaN
    // stays NaN.
    Vec operator()(Vec v, int h) const {
      if (scales)
        v = V::mul(v, scale[h]);
      if (biases)
        v = V::add(v, bias[h]);
      v = V::min(hi, V::max(lo, v));
      return swishes ? swish(v) : v;
    }
  };

  // Output pixels [0, Count) at out, channels [j, j + 2 * lanes) masked by m0 and m1 (all
  // of them when Full), over taps [t0, t0 + taps) (filter rows from t0 * c); p locates tap
  // t0 + t's input pixel for each pixel. `first` and `last` say whether this is
  // the window's first or last part: the sum starts from zero (overwriting) or from the
  // output, and the last applies the epilogue.
  template <int Count, bool Full>
  static void tile(const DirectArgs &a, const Strided &p, int64_t t0, int taps, float *out,
                   int64_t j, Mask m0, Mask m1, bool first, bool last) {
    // Locals, not a's fields: the compiler cannot tell that the stores leave them alone.
    const int64_t c = a.c, f = a.f;
    auto load = [&](const float *q, int h) {
      return Full ? V::load(q) : V::loadMasked(q, h == 0 ? m0 : m1);
    };
    Vec acc[Count][2];
    bool zero = first && a.overwrite;
#pragma GCC unroll 16
    for (int q = 0; q < Count; ++q)
      for (int h = 0; h < 2; ++h)
        acc[q][h] = zero ? V::zero() : load(out + q * f + j + h * V::kLanes, h);
    const float *g = a.filter + t0 * c * f + j;
    for (int t = 0; t < taps; ++t)
      for (int64_t ch = 0; ch < c; ++ch, g += f) {
        Vec w0 = load(g, 0), w1 = load(g + V::kLanes, 1);
        const float *r = p.tap[t] + ch; // pixel q's value, a stride apart
#pragma GCC unroll 16
        for (int q = 0; q < Count; ++q, r += p.stride) {
          Vec x = V::broadcast(r);
          acc[q][0] = V::fma(x, w0, acc[q][0]);
          acc[q][1] = V::fma(x, w1, acc[q][1]);
        }
      }
    if (last && a.epi) {
      Finish fin(*a.epi, j, m0, m1);
#pragma GCC unroll 16
      for (int q = 0; q < Count; ++q)
        for (int h = 0; h < 2; ++h)
          acc[q][h] = fin(acc[q][h], h);
    }
#pragma GCC unroll 16
    for (int q = 0; q < Count; ++q)
      for (int h = 0; h < 2; ++h) {
        float *o = out + q * f + j + h * V::kLanes;
        if (Full)
          V::store(o, acc[q][h]);
        else
          V::storeMasked(o, acc[q][h], h == 0 ? m0 : m1);
      }
  }

  template <int Count>
  static void tiles(const DirectArgs &a, const Strided &p, int64_t t0, int taps, float *out,
                    bool first, bool last) {
    int64_t j = 0;
    for (; j + 2 * V::kLanes <= a.f; j += 2 * V::kLanes)
      tile<Count, true>(a, p, t0, taps, out, j, V::mask(V::kLanes), V::mask(V::kLanes), first,
                        last);
    if (j < a.f)
      tile<Count, false>(a, p, t0, taps, out, j, V::mask(int(a.f - j)),
                         V::mask(int(a.f - j - V::kLanes)), first, last);
  }

  // A tile of `count` pixels (the tile is unrolled by its pixel count).
  template <int Count = P>
  static void tilesOf(int count, const DirectArgs &a, const Strided &p, int64_t t0, int taps,
                      float *out, bool first, bool last) {
    if constexpr (Count >= 1) {
      if (count == Count)
        return tiles<Count>(a, p, t0, taps, out, first, last);
      tilesOf<Count - 1>(count, a, p, t0, taps, out, first, last);
    }
  }

  // Each output row reads kh input rows, copied with their padding (zeros, also for rows
  // outside the input) into the thread's workspace first, so that every tap of every tile
  // reads pixels a stride apart. The workspace: kh padded rows, a row of zeros, with a.pool
  // two rows of the result, then each padded row's address and each tap's row and offset.
  struct Rows {
    const DirectArgs &a;
    int64_t taps, rowFloats, x0, x1;
    float *padded, *zeros, *result;
    const float **rowOf;
    const int64_t *tapRow, *tapCol;

    explicit Rows(const DirectArgs &args) : a(args), taps(a.kh * a.kw) {
      // Padded row width: every window position of the row, from -pad_left on; the input
      // columns land at [x0, x1) of it.
      const int64_t pw = (a.ow - 1) * a.sw + (a.kw - 1) * a.dw + 1;
      rowFloats = pw * a.c;
      x0 = a.pl < 0 ? 0 : a.pl, x1 = a.w + a.pl < pw ? a.w + a.pl : pw;
      int64_t floats = rowFloats * (a.kh + 1) + (a.pool ? 2 * a.ow * a.f : 0);
      padded = static_cast<float *>(kiln_parallel_workspace(
          int64_t(sizeof(float)) * floats + int64_t(sizeof(int64_t)) * (a.kh + 2 * taps)));
      if (padded == nullptr)
        return;
      zeros = padded + rowFloats * a.kh;
      result = zeros + rowFloats;
      for (int64_t e = 0; e < rowFloats; ++e)
        zeros[e] = 0.0f;
      rowOf = reinterpret_cast<const float **>(padded + floats);
      int64_t *row = reinterpret_cast<int64_t *>(rowOf + a.kh), *col = row + taps;
      for (int64_t t = 0; t < taps; ++t)
        row[t] = t / a.kw, col[t] = (t % a.kw) * a.dw * a.c;
      tapRow = row, tapCol = col;
    }

    // Output row (b, y) of the convolution, with its epilogue, into out (ow x f).
    void compute(int64_t b, int64_t y, float *out) {
      for (int64_t i = 0; i < a.kh; ++i) {
        int64_t iy = y * a.sh + i * a.dh - a.pt;
        if (iy < 0 || iy >= a.h || x0 >= x1) {
          rowOf[i] = zeros;
          continue;
        }
        float *r = padded + i * rowFloats;
        const float *src = a.in + ((b * a.h + iy) * a.w + (x0 - a.pl)) * a.c;
        __builtin_memset(r, 0, sizeof(float) * x0 * a.c);
        __builtin_memcpy(r + x0 * a.c, src, sizeof(float) * (x1 - x0) * a.c);
        __builtin_memset(r + x1 * a.c, 0, sizeof(float) * (rowFloats - x1 * a.c));
        rowOf[i] = r;
      }
      const float *tap[kDirectMaxTaps];
      for (int64_t xb = 0; xb < a.ow; xb += P) {
        int count = a.ow - xb < P ? int(a.ow - xb) : P;
        const int64_t start = xb * a.sw * a.c;
        // At least one part, so that an empty window still writes its outputs.
        for (int64_t t0 = 0; t0 == 0 || t0 < taps; t0 += kDirectMaxTaps) {
          int part = taps - t0 < kDirectMaxTaps ? int(taps - t0) : kDirectMaxTaps;
          for (int t = 0; t < part; ++t)
            tap[t] = rowOf[tapRow[t0 + t]] + start + tapCol[t0 + t];
          tilesOf(count, a, Strided{tap, a.sw * a.c}, t0, part, out + xb * a.f, t0 == 0,
                  t0 + part >= taps);
        }
      }
    }
  };

  // Output rows [begin, end) of every image (row = image * oh + y); with a.pool, rows of
  // the pooled output (image * (oh / 2) + y), each from two rows of the result.
  static void rows(const DirectArgs &a, int64_t begin, int64_t end) {
    Rows r(a);
    if (r.padded == nullptr)
      return directRowsScalar(a, begin, end);
    const int64_t ph = a.oh / 2, pw = a.ow / 2, f = a.f;
    for (int64_t row = begin; row < end; ++row) {
      if (!a.pool) {
        r.compute(row / a.oh, row % a.oh, a.out + row * a.ow * f);
        continue;
      }
      int64_t b = row / ph, y = row % ph;
      float *top = r.result, *bottom = r.result + a.ow * f;
      r.compute(b, 2 * y, top);
      r.compute(b, 2 * y + 1, bottom);
      float *out = a.out + row * pw * f;
      for (int64_t x = 0; x < pw; ++x) {
        const float *w[4] = {top + 2 * x * f, top + (2 * x + 1) * f, bottom + 2 * x * f,
                             bottom + (2 * x + 1) * f};
        int64_t j = 0;
        for (; j + V::kLanes <= f; j += V::kLanes) {
          // max_ps(v, m): m unless v > m, as TensorFlow's pool (NaNs passed over).
          Vec m = V::set1(-__FLT_MAX__);
          for (const float *p : w)
            m = V::max(V::load(p + j), m);
          V::store(out + x * f + j, m);
        }
        if (j < f) {
          Mask mk = V::mask(int(f - j));
          Vec m = V::set1(-__FLT_MAX__);
          for (const float *p : w)
            m = V::max(V::loadMasked(p + j, mk), m);
          V::storeMasked(out + x * f + j, m, mk);
        }
      }
    }
  }
};

} // namespace
} // namespace kiln::kernels

#endif // KILN_KERNELS_DIRECT_DIRECT_IMPL_H
