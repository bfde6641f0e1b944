// kiln_kernel_conv2d_gemm_f32: a convolution as the matrix product of its windows and its
// filter, the GEMM packing its A operand straight from the input (gatherWindows) instead
// of reading a patches matrix, and applying the epilogue as it stores C.
#include "kiln/kernels/conv2d.h"

#include <string.h>

#include "gemm.h"

namespace kiln::kernels {

void gatherWindows(const ConvWindows &win, int64_t row, int64_t p0, int64_t count, float *dst) {
  const int64_t x = row % win.ow, t = row / win.ow, y = t % win.oh, b = t / win.oh;
  const int64_t iy0 = y * win.sh - win.pt, ix0 = x * win.sw - win.pl;
  const int64_t rowDepth = win.kw * win.c, lineFloats = win.w * win.c;
  int64_t kk = p0;
  const int64_t end = p0 + count;
  while (kk < end) {
    const int64_t i = kk / rowDepth, rem = kk - i * rowDepth;
    const int64_t iy = iy0 + i * win.dh;
    const bool inside = iy >= 0 && iy < win.h;
    const float *line = inside ? win.in + (b * win.h + iy) * lineFloats : nullptr;
    int64_t run;
    if (win.dw == 1) {
      // The window row is kw * c consecutive floats of input line iy, from ix0 * c on: copy
      // the part of [rem, rem + run) that lies inside the line.
      run = rowDepth - rem < end - kk ? rowDepth - rem : end - kk;
      int64_t from = ix0 * win.c + rem, lo = 0, hi = run;
      if (!inside) {
        hi = 0;
      } else {
        if (from < 0)
          lo = -from < run ? -from : run;
        if (from + hi > lineFloats)
          hi = lineFloats - from > lo ? lineFloats - from : lo;
      }
      if (lo > 0)
        memset(dst, 0, sizeof(float) * lo);
      if (hi > lo)
        memcpy(dst + lo, line + from + lo, sizeof(float) * (hi - lo));
      if (run > hi)
        memset(dst + hi, 0, sizeof(float) * (run - hi));
    } else {
      // One tap: its channels [ch, c) at input column ix.
      const int64_t k = rem / win.c, ch = rem - k * win.c;
      const int64_t ix = ix0 + k * win.dw;
      run = win.c - ch < end - kk ? win.c - ch : end - kk;
      if (inside && ix >= 0 && ix < win.w)
        memcpy(dst, line + ix * win.c + ch, sizeof(float) * run);
      else
        memset(dst, 0, sizeof(float) * run);
    }
    dst += run;
    kk += run;
  }
}

} // namespace kiln::kernels

extern "C" void kiln_kernel_conv2d_gemm_f32(uintptr_t input, uintptr_t filter, uintptr_t output,
                                            int64_t n, int64_t h, int64_t w, int64_t c, int64_t f,
                                            int64_t kh, int64_t kw, int64_t oh, int64_t ow,
                                            int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                                            int64_t dilation_w, int64_t pad_top, int64_t pad_left,
                                            int32_t flags, uintptr_t scale, float scale_value,
                                            uintptr_t bias, float bias_value, float lo, float hi,
                                            int32_t activation) {
  using namespace kiln::kernels;
  Epilogue e{reinterpret_cast<const float *>(scale),
             reinterpret_cast<const float *>(bias),
             scale_value,
             bias_value,
             lo,
             hi,
             activation};
  ConvWindows win;
  win.in = reinterpret_cast<const float *>(input);
  win.h = h, win.w = w, win.c = c, win.kh = kh, win.kw = kw, win.oh = oh, win.ow = ow;
  win.sh = stride_h, win.sw = stride_w, win.dh = dilation_h, win.dw = dilation_w;
  win.pt = pad_top, win.pl = pad_left;
  // The product of the windows (n*oh*ow x kh*kw*c, standing for A) and the filter.
  int32_t product = ((flags & KILN_CONV2D_OVERWRITE) ? KILN_MATMUL_OVERWRITE : 0) |
                    ((flags & KILN_CONV2D_PACKED_FILTER) ? KILN_MATMUL_PACKED_B : 0);
  GemmArgs g = describeProduct(0, filter, output, n * oh * ow, f, kh * kw * c, product,
                               (flags & KILN_CONV2D_EPILOGUE) ? &e : nullptr);
  g.windows = &win;
  gemmParallel(g);
}
