// kiln_kernel_pointwise_depthwise_f32: a 1x1 convolution and the depthwise convolution of
// its result. Output rows are split across the calling thread's budget; each chunk keeps
// the rows of the 1x1 convolution's result its window needs in a ring of
// (kh - 1) * dilation_h + 1 rows in the thread's workspace, computing each once with the
// GEMM (kernels/matmul), and hands them to the depthwise kernel's row function
// (depthwise_impl.h). Both compute every element as they do alone, so the result is the
// same, bit for bit, as the two kernels called one after the other.
#include "kiln/kernels/depthwise.h"

#include <math.h>

#include "../grain.h"
#include "../matmul/gemm.h"
#include "depthwise_impl.h"
#include "kiln/runtime/parallel.h"

namespace {

using kiln::kernels::DepthwiseArgs;
using kiln::kernels::Epilogue;

struct Fused {
  DepthwiseArgs dw; // dw.in unused: the rows come from the ring
  const float *input, *weights;
  int64_t cin;
  Epilogue first;
};

// Element (b, r, x, ch) of the 1x1 convolution's result, with the GEMM's arithmetic (one
// fused multiply-add chain per depth slice, the slices added in order) and the epilogue.
float pointwise(const Fused &f, int64_t b, int64_t r, int64_t x, int64_t ch) {
  const DepthwiseArgs &a = f.dw;
  const float *in = f.input + ((b * a.h + r) * a.w + x) * f.cin;
  float out = 0.0f;
  kiln::kernels::forEachSlice(f.cin, [&](int64_t pc, int64_t kc) {
    float acc = 0.0f;
    for (int64_t j = pc; j < pc + kc; ++j)
      acc = fmaf(in[j], f.weights[j * a.c + ch], acc);
    out = pc == 0 ? acc : out + acc;
  });
  return f.first.apply(out, ch);
}

// Output rows [begin, end) one element at a time: for windows the depthwise kernel's fast
// path does not take, and when the workspace cannot be had.
void slowRows(const Fused &f, int64_t begin, int64_t end) {
  const DepthwiseArgs &a = f.dw;
  for (int64_t row = begin; row < end; ++row) {
    int64_t b = row / a.oh, iy = (row % a.oh) * a.sh - a.pt;
    for (int64_t x = 0; x < a.ow; ++x) {
      int64_t ix = x * a.sw - a.pl;
      for (int64_t ch = 0; ch < a.c; ++ch) {
        float acc = 0.0f;
        for (int64_t i = 0; i < a.kh; ++i) {
          int64_t r = iy + i * a.dh;
          if (r < 0 || r >= a.h)
            continue;
          for (int64_t k = 0; k < a.kw; ++k) {
            int64_t col = ix + k * a.dw;
            if (col < 0 || col >= a.w)
              continue;
            acc = fmaf(pointwise(f, b, r, col, ch), a.filter[(i * a.kw + k) * a.c + ch], acc);
          }
        }
        a.out[(row * a.ow + x) * a.c + ch] = a.epi ? a.epi->apply(acc, ch) : acc;
      }
    }
  }
}

void rows(void *ctx, int64_t begin, int64_t end) {
  const Fused &f = *static_cast<const Fused *>(ctx);
  const DepthwiseArgs &a = f.dw;
  int64_t slots = (a.kh - 1) * a.dh + 1, rowFloats = a.w * a.c;
  float *ring = nullptr;
  if (kiln::kernels::depthwiseFastPath(a) && f.cin > 0)
    ring =
        static_cast<float *>(kiln_parallel_workspace(slots * rowFloats * int64_t(sizeof(float))));
  if (ring == nullptr) {
    slowRows(f, begin, end);
    return;
  }
  int64_t held[kiln::kernels::kMaxFastWindow]; // the image row in each slot (b * h + r)
  for (int64_t &r : held)
    r = -1;
  bool avx512 = kiln::kernels::simd::useAvx512();
  for (int64_t row = begin; row < end; ++row) {
    int64_t b = row / a.oh, iy = (row % a.oh) * a.sh - a.pt;
    int y0, y1;
    kiln::kernels::clipTaps(iy, a.dh, a.kh, a.h, y0, y1);
    const float *window[kiln::kernels::kMaxFastWindow] = {};
    for (int i = y0; i < y1; ++i) {
      int64_t r = iy + i * a.dh, slot = r % slots;
      float *dst = ring + slot * rowFloats;
      if (held[slot] != b * a.h + r) {
        kiln::kernels::GemmArgs g;
        g.a = f.input + (b * a.h + r) * a.w * f.cin;
        g.b = f.weights;
        g.c = dst;
        g.m = a.w;
        g.n = a.c;
        g.k = f.cin;
        g.ars = f.cin;
        g.aks = 1;
        g.bks = a.c;
        g.bcs = 1;
        g.ldc = a.c;
        g.overwrite = true;
        g.epilogue = &f.first;
        g.inPlace = true; // the ring holds this thread's workspace
        kiln::kernels::gemmSerial(g);
        held[slot] = b * a.h + r;
      }
      window[i] = dst;
    }
    if (avx512)
      kiln::kernels::depthwiseRowAvx512(a, window, row, y0, y1);
    else
      kiln::kernels::depthwiseRowAvx2(a, window, row, y0, y1);
  }
}

// Fewest output rows per chunk (beside kiln::kernels::rowGrain's): a chunk recomputes the
// rows of the 1x1 convolution its first window shares with the previous chunk.
constexpr int64_t kMinRows = 4;

} // namespace

extern "C" void kiln_kernel_pointwise_depthwise_f32(
    uintptr_t input, uintptr_t weights, uintptr_t filter, uintptr_t output, int64_t n, int64_t h,
    int64_t w, int64_t cin, int64_t c, int64_t kh, int64_t kw, int64_t oh, int64_t ow,
    int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w, int64_t pad_top,
    int64_t pad_left, int32_t flags, uintptr_t scale1, float scale1_value, uintptr_t bias1,
    float bias1_value, float lo1, float hi1, int32_t activation1, uintptr_t scale2,
    float scale2_value, uintptr_t bias2, float bias2_value, float lo2, float hi2,
    int32_t activation2) {
  Epilogue second{reinterpret_cast<const float *>(scale2),
                  reinterpret_cast<const float *>(bias2),
                  scale2_value,
                  bias2_value,
                  lo2,
                  hi2,
                  activation2};
  Fused f{{nullptr,
           reinterpret_cast<const float *>(filter),
           reinterpret_cast<float *>(output),
           n,
           h,
           w,
           c,
           1,
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
           /*overwrite=*/true,
           (flags & KILN_DEPTHWISE_EPILOGUE) ? &second : nullptr},
          reinterpret_cast<const float *>(input),
          reinterpret_cast<const float *>(weights),
          cin,
          {reinterpret_cast<const float *>(scale1), reinterpret_cast<const float *>(bias1),
           scale1_value, bias1_value, lo1, hi1, activation1}};
  int64_t rowCount = n * oh;
  if (rowCount <= 0 || ow <= 0 || c <= 0)
    return;
  int64_t rowWork = ow * c * kh * kw + stride_h * w * c * cin;
  int64_t grain = kiln::kernels::rowGrain(rowWork);
  if (grain < kMinRows)
    grain = kMinRows;
  kiln_parallel_for(rowCount, grain, rows, &f);
}
