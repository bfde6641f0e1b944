/* kiln_kernel_conv2d_gemm_f32 against the path it replaced, on one convolution: a padded copy
 * of the input, the patches matrix (im2col) and kiln_kernel_matmul_f32 with the filter packed
 * ahead, then the epilogue (bias and Relu) as a separate pass. The two alternate in one
 * process, 11 pairs after one untimed call of each; it prints the median of each and the
 * median of the pairs' ratios (old / new: above 1, the kernel is faster). A 3x3 window with
 * unit strides and 16 or more channels each way also times kiln_kernel_conv2d_3x3_cached_f32
 * (Winograd, its transformed filter cached by the untimed first call) in the same turns:
 * the choice between the two kernels that kiln-lower-tf-to-linalg makes by output pixels.
 *
 *   cc -O2 -I runtime/include -I runtime/kernels/include test/bench/conv_gemm_bench.c \
 *      -L build/lib -lkiln_kernels -lkiln_runtime -lm -pthread -o /tmp/conv_gemm_bench
 *   /tmp/conv_gemm_bench N H W C F KH KW STRIDE PAD_BEFORE PAD_AFTER [THREADS]
 *   (SAME 1-D, the audio model's second layer at batch 8: 8 1 1000 128 128 1 3 1 1 1;
 *    padding applies to both dimensions of a 2-D window and to the width only when KH = 1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "kiln/kernels/conv2d.h"
#include "kiln/kernels/matmul.h"
#include "kiln/runtime/parallel.h"

int main(int argc, char **argv) {
  if (argc < 11) {
    fprintf(stderr, "usage: %s N H W C F KH KW STRIDE PAD_BEFORE PAD_AFTER [THREADS]\n", argv[0]);
    return 2;
  }
  long n = atol(argv[1]), h = atol(argv[2]), w = atol(argv[3]), c = atol(argv[4]);
  long f = atol(argv[5]), kh = atol(argv[6]), kw = atol(argv[7]), s = atol(argv[8]);
  long pb = atol(argv[9]), pa = atol(argv[10]);
  int threads = argc > 11 ? atoi(argv[11]) : 1;
  kiln_parallel_set_threads(threads);
  long pt = kh > 1 ? pb : 0, pbot = kh > 1 ? pa : 0;
  long hp = h + pt + pbot, wp = w + pb + pa;
  long oh = (hp - kh) / s + 1, ow = (wp - kw) / s + 1, m = n * oh * ow, k = kh * kw * c;
  float *in = random_floats(n * h * w * c), *filter = random_floats(k * f);
  float *bias = random_floats(f);
  float *packed = malloc(sizeof(float) * (size_t)k * kiln_matmul_packed_b_width(f));
  kiln_kernel_matmul_pack_b_f32((uintptr_t)filter, k, f, 0, (uintptr_t)packed);
  float *padded = calloc((size_t)(n * hp * wp * c), sizeof(float));
  float *patches = malloc(sizeof(float) * (size_t)(m * k));
  float *out = malloc(sizeof(float) * (size_t)(m * f));
  int winograd = kh == 3 && kw == 3 && s == 1 && c >= 16 && f >= 16;
  uintptr_t cache = 0;
  double old_ms[12], new_ms[12], ratio[12], wino_ms[12];
  for (int r = 0; r < 12; r++) {
    double t = now();
    for (long b = 0; b < n; b++)
      for (long y = 0; y < h; y++)
        memcpy(padded + ((b * hp + y + pt) * wp + pb) * c, in + (b * h + y) * w * c,
               sizeof(float) * (size_t)(w * c));
    for (long row = 0; row < m; row++) {
      long x = row % ow, y = row / ow % oh, b = row / (ow * oh);
      for (long i = 0; i < kh; i++)
        memcpy(patches + row * k + i * kw * c, padded + ((b * hp + y * s + i) * wp + x * s) * c,
               sizeof(float) * (size_t)(kw * c));
    }
    kiln_kernel_matmul_f32((uintptr_t)patches, (uintptr_t)packed, (uintptr_t)out, m, f, k,
                           KILN_MATMUL_OVERWRITE | KILN_MATMUL_PACKED_B);
    for (long i = 0; i < m * f; i++) {
      float v = out[i] + bias[i % f];
      out[i] = v > 0.0f ? v : 0.0f;
    }
    old_ms[r] = (now() - t) * 1e3;
    t = now();
    kiln_kernel_conv2d_gemm_f32(
        (uintptr_t)in, (uintptr_t)packed, (uintptr_t)out, n, h, w, c, f, kh, kw, oh, ow, s, s, 1, 1,
        pt, pb, KILN_CONV2D_OVERWRITE | KILN_CONV2D_EPILOGUE | KILN_CONV2D_PACKED_FILTER, 0, 1.0f,
        (uintptr_t)bias, 0.0f, 0.0f, 3.4e38f, 0);
    new_ms[r] = (now() - t) * 1e3;
    ratio[r] = old_ms[r] / new_ms[r];
    if (winograd) {
      t = now();
      kiln_kernel_conv2d_3x3_cached_f32((uintptr_t)in, (uintptr_t)filter, (uintptr_t)&cache,
                                        (uintptr_t)out, n, h, w, c, f, oh, ow, pt, pb,
                                        KILN_CONV2D_OVERWRITE | KILN_CONV2D_EPILOGUE, 0, 1.0f,
                                        (uintptr_t)bias, 0.0f, 0.0f, 3.4e38f, 0);
      wino_ms[r] = (now() - t) * 1e3;
    }
  }
  /* The first pair is the untimed warm-up. */
  qsort(old_ms + 1, 11, sizeof(double), compare_doubles);
  qsort(new_ms + 1, 11, sizeof(double), compare_doubles);
  qsort(ratio + 1, 11, sizeof(double), compare_doubles);
  qsort(wino_ms + 1, 11, sizeof(double), compare_doubles);
  printf("m=%ld n=%ld k=%ld threads=%d  im2col+gemm %.3f ms  conv2d_gemm %.3f ms  old/new %.2f "
         "(%.1f GFLOP/s)\n",
         m, f, k, threads, old_ms[6], new_ms[6], ratio[6], 2e-6 * m * f * k / new_ms[6]);
  if (winograd)
    printf("  winograd (filter cached) %.3f ms\n", wino_ms[6]);
  return 0;
}
