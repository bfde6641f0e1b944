// kiln_kernel_max_pool2d_f32: NHWC max pooling, vectorized over channels.
//
// Each output pixel takes the maximum of its window's pixels that lie inside the input,
// channels 8 at a time (AVX2; the kernel is memory-bound, so wider vectors would not pay),
// the last few masked. Output rows are split across the thread budget.
#include "kiln/kernels/pool.h"

#include "../simd.h"
#include "kiln/runtime/parallel.h"

namespace {

using V = kiln::kernels::simd::Avx2;

struct Pool {
  const float *in;
  float *out;
  int64_t n, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl;
};

// The maximum of `count` pixels at `pixels` (each c floats) into o, for B vectors of
// channels from ch (the last masked by m when !full), as TensorFlow takes it: from the
// lowest float, replaced by each value greater than it, so NaNs are passed over. That is
// max_ps(x, acc), which returns its second operand unless x > acc. The B running maxima
// are independent chains.
template <int B>
inline void maxPixels(const float *const *pixels, int count, int64_t ch, V::Mask m, bool full,
                      float *o) {
  V::Vec acc[B];
  for (int j = 0; j < B; ++j)
    acc[j] = V::set1(-__FLT_MAX__);
  for (int p = 0; p < count; ++p)
    for (int j = 0; j < B; ++j) {
      const float *q = pixels[p] + ch + j * V::kLanes;
      acc[j] = V::max(full || j + 1 < B ? V::load(q) : V::loadMasked(q, m), acc[j]);
    }
  for (int j = 0; j < B; ++j) {
    if (full || j + 1 < B)
      V::store(o + ch + j * V::kLanes, acc[j]);
    else
      V::storeMasked(o + ch + j * V::kLanes, acc[j], m);
  }
}

void poolRows(void *ctx, int64_t begin, int64_t end) {
  const Pool &v = *static_cast<const Pool *>(ctx);
  // Pixels taken at once; a larger window goes in parts, each after the first starting
  // from the output the parts before it left (so values are still taken in order).
  constexpr int kMaxPixels = 64;
  const float *pixels[kMaxPixels];
  for (int64_t row = begin; row < end; ++row) {
    int64_t b = row / v.oh, y = row % v.oh;
    int64_t y0 = y * v.sh - v.pt;
    int64_t i0 = y0 < 0 ? -y0 : 0, i1 = v.h - y0 < v.kh ? v.h - y0 : v.kh;
    for (int64_t x = 0; x < v.ow; ++x) {
      float *o = v.out + ((b * v.oh + y) * v.ow + x) * v.c;
      int64_t x0 = x * v.sw - v.pl;
      int64_t k0 = x0 < 0 ? -x0 : 0, k1 = v.w - x0 < v.kw ? v.w - x0 : v.kw;
      int count = 0;
      bool flushed = false;
      auto flush = [&] {
        int64_t ch = 0;
        for (; ch + 4 * V::kLanes <= v.c; ch += 4 * V::kLanes)
          maxPixels<4>(pixels, count, ch, V::mask(V::kLanes), true, o);
        for (; ch < v.c; ch += V::kLanes)
          maxPixels<1>(pixels, count, ch, V::mask(int(v.c - ch)), ch + V::kLanes <= v.c, o);
        pixels[0] = o;
        count = 1;
        flushed = true;
      };
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t k = k0; k < k1; ++k) {
          pixels[count++] = v.in + ((b * v.h + y0 + i) * v.w + x0 + k) * v.c;
          if (count == kMaxPixels)
            flush();
        }
      if (!flushed || count > 1) // an empty window writes the lowest float
        flush();
    }
  }
}

} // namespace

extern "C" void kiln_kernel_max_pool2d_f32(uintptr_t input, uintptr_t output, int64_t n, int64_t h,
                                           int64_t w, int64_t c, int64_t oh, int64_t ow, int64_t kh,
                                           int64_t kw, int64_t stride_h, int64_t stride_w,
                                           int64_t pad_top, int64_t pad_left) {
  if (n <= 0 || oh <= 0 || ow <= 0 || c <= 0)
    return;
  Pool v{reinterpret_cast<const float *>(input),
         reinterpret_cast<float *>(output),
         n,
         h,
         w,
         c,
         oh,
         ow,
         kh,
         kw,
         stride_h,
         stride_w,
         pad_top,
         pad_left};
  // About 64 KiB of input per chunk of rows.
  int64_t perRow = ow * kh * kw * c;
  int64_t grain = perRow > 0 ? (int64_t(16384) + perRow - 1) / perRow : 1;
  kiln_parallel_for(n * oh, grain, poolRows, &v);
}
