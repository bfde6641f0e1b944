/* kiln_kernel_matmul_residual_f32 against what it replaced, on one 1x1 convolution at the end
 * of a residual block: kiln_kernel_matmul_epilogue_f32 (B packed ahead, the batch norm's scale
 * and shift as its epilogue) into a buffer of its own, then the shortcut's addition and the
 * Relu as a separate pass written over the shortcut (the loop generated code runs, here in
 * C), against the residual kernel doing all of it in one pass, reading the shortcut where
 * it writes (in place, as bufferization leaves ResNet's additions). The two alternate in one
 * process, 21 pairs after one untimed call of each; it prints the median of each and the
 * median of the pairs' ratios (old / new: above 1, the kernel is faster).
 *
 *   cc -O3 -march=native -I runtime/include -I runtime/kernels/include \
 *      test/bench/residual_bench.c -L build/lib -lkiln_kernels -lkiln_runtime -lm -pthread \
 *      -o /tmp/residual_bench
 *   /tmp/residual_bench M N K [THREADS]
 *   (ResNet50's first stage at batch 1: 3136 256 64; MobileNetV2's 14x14 projection:
 *    196 64 384)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "kiln/kernels/matmul.h"
#include "kiln/runtime/parallel.h"

enum { kPairs = 21 };

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s M N K [THREADS]\n", argv[0]);
    return 2;
  }
  long m = atol(argv[1]), n = atol(argv[2]), k = atol(argv[3]);
  int threads = argc > 4 ? atoi(argv[4]) : 1;
  if (m <= 0 || n <= 0 || k <= 0 || k > KILN_MATMUL_PACK_DEPTH) {
    fprintf(stderr, "M, N and K must be positive, K at most %d (one depth slice)\n",
            KILN_MATMUL_PACK_DEPTH);
    return 2;
  }
  kiln_parallel_set_threads(threads);
  float *a = random_floats(m * k), *b = random_floats(k * n), *shortcut = random_floats(m * n);
  float *scale = random_floats(n), *shift = random_floats(n);
  float *packed = malloc(sizeof(float) * kiln_matmul_packed_b_width(n) * k);
  float *y = malloc(sizeof(float) * m * n), *r = malloc(sizeof(float) * m * n);
  kiln_kernel_matmul_pack_b_f32((uintptr_t)b, k, n, 0, (uintptr_t)packed);
  const int32_t flags = KILN_MATMUL_OVERWRITE | KILN_MATMUL_PACKED_B;
  double old_ms[kPairs], new_ms[kPairs], ratio[kPairs];
  for (int t = -1; t < kPairs; t++) {
    memcpy(r, shortcut, sizeof(float) * m * n);
    double start = now();
    kiln_kernel_matmul_epilogue_f32((uintptr_t)a, (uintptr_t)packed, (uintptr_t)y, m, n, k, flags,
                                    (uintptr_t)scale, 1.0f, (uintptr_t)shift, 0.0f,
                                    -__builtin_inff(), __builtin_inff(), KILN_ACTIVATION_NONE);
    for (long i = 0; i < m * n; i++) {
      float v = r[i] + y[i];
      r[i] = v < 0.0f ? 0.0f : v;
    }
    double old_t = (now() - start) * 1e3;
    float check = r[m * n / 2];
    memcpy(r, shortcut, sizeof(float) * m * n);
    start = now();
    kiln_kernel_matmul_residual_f32((uintptr_t)a, (uintptr_t)packed, (uintptr_t)r, m, n, k, flags,
                                    (uintptr_t)scale, 1.0f, (uintptr_t)shift, 0.0f, 0.0f,
                                    __builtin_inff(), KILN_ACTIVATION_NONE, (uintptr_t)r);
    double new_t = (now() - start) * 1e3;
    if (r[m * n / 2] != check) {
      fprintf(stderr, "the two paths disagree: %g against %g\n", r[m * n / 2], check);
      return 1;
    }
    if (t < 0)
      continue;
    old_ms[t] = old_t;
    new_ms[t] = new_t;
    ratio[t] = old_t / new_t;
  }
  qsort(old_ms, kPairs, sizeof(double), compare_doubles);
  qsort(new_ms, kPairs, sizeof(double), compare_doubles);
  qsort(ratio, kPairs, sizeof(double), compare_doubles);
  printf("%ldx%ldx%ld threads %d: epilogue + pass %.4f ms, residual kernel %.4f ms, "
         "old/new %.3f (median of %d pairs)\n",
         m, n, k, threads, old_ms[kPairs / 2], new_ms[kPairs / 2], ratio[kPairs / 2], kPairs);
  return 0;
}
