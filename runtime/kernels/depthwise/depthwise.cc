// kiln_kernel_depthwise_conv2d_f32: one output pixel at a time, channels innermost in
// vector registers, the window clipped to the input instead of reading a padded copy.
// Output rows are split across the calling thread's budget (kiln/runtime/parallel.h).
#include "kiln/kernels/depthwise.h"

#include <immintrin.h>
#include <math.h>

#include "kiln/runtime/parallel.h"
#include "../epilogue.h"

namespace {

using kiln::kernels::Epilogue;

// Eight floats: one AVX2 register (the library is built for x86-64-v3, which has FMA).
using Vec = __m256;
constexpr int64_t kLanes = 8;
constexpr int kBlock = 4; // registers of channels per pass over the window

inline Vec load(const float *p) { return _mm256_loadu_ps(p); }
inline void store(float *p, Vec v) { _mm256_storeu_ps(p, v); }

struct Conv {
  const float *in, *filter;
  float *out;
  int64_t n, h, w, c, m, kh, kw, oh, ow, sh, sw, dh, dw, pt, pl;
  bool overwrite;
  const Epilogue *epi; // null: none
};

// The epilogue on output channels [ch, ch + kLanes).
inline Vec finish(Vec v, const Epilogue &e, int64_t ch) {
  if (e.scales())
    v = _mm256_mul_ps(v, e.scale ? load(e.scale + ch) : _mm256_set1_ps(e.scaleValue));
  if (e.biases())
    v = _mm256_add_ps(v, e.bias ? load(e.bias + ch) : _mm256_set1_ps(e.biasValue));
  // max/min return their second operand when either is NaN: a NaN result stays NaN.
  return _mm256_min_ps(_mm256_set1_ps(e.hi), _mm256_max_ps(_mm256_set1_ps(e.lo), v));
}

// The window taps [lo, hi) along one dimension that land inside the input.
inline void clip(int64_t origin, int64_t dilation, int64_t taps, int64_t size, int64_t &lo,
                 int64_t &hi) {
  lo = 0;
  while (lo < taps && origin + lo * dilation < 0) ++lo;
  hi = taps;
  while (hi > lo && origin + (hi - 1) * dilation >= size) --hi;
}

// Channels [c0, c0 + Width * kLanes) of one output pixel (multiplier 1), accumulated in
// registers over the window taps [y0, y1) x [x0, x1) inside the input.
template <int Width>
inline void pixelBlock(const Conv &v, const float *image, float *outPixel, int64_t c0,
                       int64_t y0, int64_t y1, int64_t x0, int64_t x1, int64_t iy, int64_t ix) {
  Vec acc[Width];
  for (int j = 0; j < Width; ++j)
    acc[j] = v.overwrite ? _mm256_setzero_ps() : load(outPixel + c0 + j * kLanes);
  for (int64_t i = y0; i < y1; ++i) {
    for (int64_t k = x0; k < x1; ++k) {
      const float *src = image + ((iy + i * v.dh) * v.w + (ix + k * v.dw)) * v.c + c0;
      const float *f = v.filter + (i * v.kw + k) * v.c + c0;
      for (int j = 0; j < Width; ++j)
        acc[j] = _mm256_fmadd_ps(load(src + j * kLanes), load(f + j * kLanes), acc[j]);
    }
  }
  for (int j = 0; j < Width; ++j)
    store(outPixel + c0 + j * kLanes, v.epi ? finish(acc[j], *v.epi, c0 + j * kLanes) : acc[j]);
}

void rows(void *ctx, int64_t begin, int64_t end) {
  const Conv &v = *static_cast<const Conv *>(ctx);
  for (int64_t row = begin; row < end; ++row) {
    int64_t b = row / v.oh, y = row % v.oh;
    int64_t iy = y * v.sh - v.pt, y0, y1;
    clip(iy, v.dh, v.kh, v.h, y0, y1);
    const float *image = v.in + b * v.h * v.w * v.c;
    for (int64_t x = 0; x < v.ow; ++x) {
      int64_t ix = x * v.sw - v.pl, x0, x1;
      clip(ix, v.dw, v.kw, v.w, x0, x1);
      float *outPixel = v.out + (row * v.ow + x) * v.c * v.m;
      if (v.m == 1) {
        int64_t c0 = 0;
        for (; c0 + kBlock * kLanes <= v.c; c0 += kBlock * kLanes)
          pixelBlock<kBlock>(v, image, outPixel, c0, y0, y1, x0, x1, iy, ix);
        for (; c0 + kLanes <= v.c; c0 += kLanes)
          pixelBlock<1>(v, image, outPixel, c0, y0, y1, x0, x1, iy, ix);
        for (; c0 < v.c; ++c0) {
          float acc = v.overwrite ? 0.0f : outPixel[c0];
          for (int64_t i = y0; i < y1; ++i)
            for (int64_t k = x0; k < x1; ++k)
              acc = fmaf(image[((iy + i * v.dh) * v.w + (ix + k * v.dw)) * v.c + c0],
                         v.filter[(i * v.kw + k) * v.c + c0], acc);
          outPixel[c0] = v.epi ? v.epi->apply(acc, c0) : acc;
        }
        continue;
      }
      // Channel multipliers above 1 are rare: plain loops, the same summation order.
      for (int64_t ch = 0; ch < v.c; ++ch) {
        for (int64_t j = 0; j < v.m; ++j) {
          float acc = v.overwrite ? 0.0f : outPixel[ch * v.m + j];
          for (int64_t i = y0; i < y1; ++i)
            for (int64_t k = x0; k < x1; ++k)
              acc = fmaf(image[((iy + i * v.dh) * v.w + (ix + k * v.dw)) * v.c + ch],
                         v.filter[((i * v.kw + k) * v.c + ch) * v.m + j], acc);
          outPixel[ch * v.m + j] = v.epi ? v.epi->apply(acc, ch * v.m + j) : acc;
        }
      }
    }
  }
}

// Fewest multiply-adds worth handing to another thread (a few microseconds of work).
constexpr int64_t kMinParallelWork = int64_t(1) << 18;

} // namespace

extern "C" void kiln_kernel_depthwise_conv2d_f32(
    uintptr_t input, uintptr_t filter, uintptr_t output, int64_t n, int64_t h, int64_t w,
    int64_t c, int64_t m, int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t stride_h,
    int64_t stride_w, int64_t dilation_h, int64_t dilation_w, int64_t pad_top, int64_t pad_left,
    int32_t flags, uintptr_t scale, float scale_value, uintptr_t bias, float bias_value,
    float lo, float hi) {
  Epilogue e{reinterpret_cast<const float *>(scale), reinterpret_cast<const float *>(bias),
             scale_value, bias_value, lo, hi};
  Conv v{reinterpret_cast<const float *>(input), reinterpret_cast<const float *>(filter),
         reinterpret_cast<float *>(output), n, h, w, c, m, kh, kw, oh, ow, stride_h, stride_w,
         dilation_h, dilation_w, pad_top, pad_left, (flags & KILN_DEPTHWISE_OVERWRITE) != 0,
         (flags & KILN_DEPTHWISE_EPILOGUE) ? &e : nullptr};
  int64_t rowCount = n * oh;
  if (rowCount <= 0 || ow <= 0 || c * m <= 0) return;
  int64_t rowWork = ow * c * m * kh * kw;
  int64_t grain = rowWork >= kMinParallelWork ? 1 : kMinParallelWork / (rowWork > 0 ? rowWork : 1);
  kiln_parallel_for(rowCount, grain, rows, &v);
}
