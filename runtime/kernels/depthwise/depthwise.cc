// kiln_kernel_depthwise_conv2d_f32: picks the ISA (simd.h), then splits the output rows
// across the calling thread's budget (kiln/runtime/parallel.h). The convolution itself is
// in depthwise_impl.h.
#include "kiln/kernels/depthwise.h"

#include "../grain.h"
#include "depthwise_impl.h"
#include "kiln/runtime/parallel.h"

namespace {

using kiln::kernels::DepthwiseArgs;

void rows(void *ctx, int64_t begin, int64_t end) {
  const DepthwiseArgs &a = *static_cast<const DepthwiseArgs *>(ctx);
  if (kiln::kernels::simd::useAvx512())
    kiln::kernels::depthwiseRowsAvx512(a, begin, end);
  else
    kiln::kernels::depthwiseRowsAvx2(a, begin, end);
}

} // namespace

extern "C" void kiln_kernel_depthwise_conv2d_f32(
    uintptr_t input, uintptr_t filter, uintptr_t output, int64_t n, int64_t h, int64_t w, int64_t c,
    int64_t m, int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t stride_h, int64_t stride_w,
    int64_t dilation_h, int64_t dilation_w, int64_t pad_top, int64_t pad_left, int32_t flags,
    uintptr_t scale, float scale_value, uintptr_t bias, float bias_value, float lo, float hi,
    int32_t activation) {
  kiln::kernels::Epilogue e{reinterpret_cast<const float *>(scale),
                            reinterpret_cast<const float *>(bias),
                            scale_value,
                            bias_value,
                            lo,
                            hi,
                            activation};
  DepthwiseArgs a{reinterpret_cast<const float *>(input),
                  reinterpret_cast<const float *>(filter),
                  reinterpret_cast<float *>(output),
                  n,
                  h,
                  w,
                  c,
                  m,
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
                  (flags & KILN_DEPTHWISE_OVERWRITE) != 0,
                  (flags & KILN_DEPTHWISE_EPILOGUE) ? &e : nullptr};
  int64_t rowCount = n * oh;
  if (rowCount <= 0 || ow <= 0 || c * m <= 0)
    return;
  int64_t rowWork = ow * c * m * kh * kw;
  int64_t grain = kiln::kernels::rowGrain(rowWork);
  kiln_parallel_for(rowCount, grain, rows, &a);
}
