// kiln_kernel_conv2d_direct_f32: picks the ISA (simd.h), then splits the output rows across
// the calling thread's budget (kiln/runtime/parallel.h). The convolution itself is in
// direct_impl.h.
#include "kiln/kernels/conv2d.h"

#include "../grain.h"
#include "direct_impl.h"
#include "kiln/runtime/parallel.h"

namespace kiln::kernels {

void directRowsAvx2(const DirectArgs &a, int64_t begin, int64_t end) {
  Direct<simd::Avx2>::rows(a, begin, end);
}

namespace {

// Output (b, y, x)'s channel j of the convolution, with its epilogue.
float directOutput(const DirectArgs &a, int64_t b, int64_t y, int64_t x, int64_t j, float acc) {
  for (int64_t i = 0; i < a.kh; ++i)
    for (int64_t k = 0; k < a.kw; ++k) {
      int64_t iy = y * a.sh + i * a.dh - a.pt, ix = x * a.sw + k * a.dw - a.pl;
      if (iy < 0 || iy >= a.h || ix < 0 || ix >= a.w)
        continue;
      const float *in = a.in + ((b * a.h + iy) * a.w + ix) * a.c;
      const float *g = a.filter + (i * a.kw + k) * a.c * a.f + j;
      for (int64_t ch = 0; ch < a.c; ++ch)
        acc = __builtin_fmaf(in[ch], g[ch * a.f], acc);
    }
  return a.epi ? a.epi->apply(acc, j) : acc;
}

} // namespace

void directRowsScalar(const DirectArgs &a, int64_t begin, int64_t end) {
  if (a.pool) {
    int64_t ph = a.oh / 2, pw = a.ow / 2;
    for (int64_t row = begin; row < end; ++row) {
      int64_t b = row / ph, y = row % ph;
      for (int64_t x = 0; x < pw; ++x)
        for (int64_t j = 0; j < a.f; ++j) {
          float m = -__FLT_MAX__;
          for (int d = 0; d < 4; ++d) {
            float v = directOutput(a, b, 2 * y + d / 2, 2 * x + d % 2, j, 0.0f);
            m = v > m ? v : m;
          }
          a.out[((b * ph + y) * pw + x) * a.f + j] = m;
        }
    }
    return;
  }
  for (int64_t row = begin; row < end; ++row) {
    int64_t b = row / a.oh, y = row % a.oh;
    for (int64_t x = 0; x < a.ow; ++x) {
      float *o = a.out + ((b * a.oh + y) * a.ow + x) * a.f;
      for (int64_t j = 0; j < a.f; ++j)
        o[j] = directOutput(a, b, y, x, j, a.overwrite ? 0.0f : o[j]);
    }
  }
}

} // namespace kiln::kernels

namespace {

using kiln::kernels::DirectArgs;

void rows(void *ctx, int64_t begin, int64_t end) {
  const DirectArgs &a = *static_cast<const DirectArgs *>(ctx);
  if (kiln::kernels::simd::useAvx512())
    kiln::kernels::directRowsAvx512(a, begin, end);
  else
    kiln::kernels::directRowsAvx2(a, begin, end);
}

} // namespace

extern "C" void kiln_kernel_conv2d_direct_f32(
    uintptr_t input, uintptr_t filter, uintptr_t output, int64_t n, int64_t h, int64_t w, int64_t c,
    int64_t f, int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t stride_h, int64_t stride_w,
    int64_t dilation_h, int64_t dilation_w, int64_t pad_top, int64_t pad_left, int32_t flags,
    uintptr_t scale, float scale_value, uintptr_t bias, float bias_value, float lo, float hi,
    int32_t activation) {
  bool pool = flags & KILN_CONV2D_MAX_POOL; // implies overwriting
  int64_t rowCount = pool ? n * (oh / 2) : n * oh;
  if (rowCount <= 0 || ow <= 0 || f <= 0)
    return;
  kiln::kernels::Epilogue e{reinterpret_cast<const float *>(scale),
                            reinterpret_cast<const float *>(bias),
                            scale_value,
                            bias_value,
                            lo,
                            hi,
                            activation};
  DirectArgs a{reinterpret_cast<const float *>(input),
               reinterpret_cast<const float *>(filter),
               reinterpret_cast<float *>(output),
               n,
               h,
               w,
               c,
               f,
               kh,
               kw,
               oh,
               ow,
               stride_h,
               stride_w,
               dilation_h,
               dilation_w,
               pad_top,
               pad_left,
               pool || (flags & KILN_CONV2D_OVERWRITE) != 0,
               pool,
               (flags & KILN_CONV2D_EPILOGUE) ? &e : nullptr};
  int64_t rowWork = (pool ? 2 : 1) * ow * f * kh * kw * c;
  int64_t grain = kiln::kernels::rowGrain(rowWork);
  kiln_parallel_for(rowCount, grain, rows, &a);
}
