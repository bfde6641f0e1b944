/* GFLOP/s of kiln_kernel_matmul_f32 on one shape, best of 15 calls (or REPS) after one untimed:
 *
 *   cc -O2 -I runtime/include -I runtime/kernels/include test/bench/gemm_bench.c \
 *      -L build/lib -lkiln_kernels -lkiln_runtime -lm -pthread -o /tmp/gemm_bench
 *   /tmp/gemm_bench [N [THREADS [M [K [FLAGS [REPS]]]]]]   (default 1024 1 N N 0 15: C[M x N] +=
 * op(A)[M x K] op(B)[K x N]; FLAGS as in kiln/runtime/abi.h, 1 = A stored K x M, 2 = B stored
 * N x K, 4 = overwrite C, 8 = B packed ahead, as for constant weights)
 *
 * test/bench/gemm_shapes.py runs it on the shapes of real models beside the peers.
 *
 * Compare with test/bench/peak.c run just before or after; the machine's noise shows as
 * differences between repeated runs. KILN_KERNEL_ISA=avx2 measures the AVX2 code. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "kiln/kernels/matmul.h"
#include "kiln/runtime/parallel.h"

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  int threads = argc > 2 ? atoi(argv[2]) : 1;
  int m = argc > 3 ? atoi(argv[3]) : n;
  int k = argc > 4 ? atoi(argv[4]) : n;
  int flags = argc > 5 ? atoi(argv[5]) : 0;
  int reps = argc > 6 ? atoi(argv[6]) : 15;
  kiln_parallel_set_threads(threads);
  float *a = random_floats((long)m * k), *b = random_floats((long)k * n);
  float *c = calloc((size_t)m * n, sizeof(float));
  if (flags & KILN_MATMUL_PACKED_B) { /* constant weights: packed once, outside the timing */
    float *packed = malloc(sizeof(float) * (size_t)k * kiln_matmul_packed_b_width(n));
    kiln_kernel_matmul_pack_b_f32((uintptr_t)b, k, n, flags, (uintptr_t)packed);
    free(b);
    b = packed;
  }
  /* One call untimed first: it starts the thread pool's workers (with THREADS > 1), which
     the first timed calls would otherwise include (2-thread figures of half the speed). */
  kiln_kernel_matmul_f32((uintptr_t)a, (uintptr_t)b, (uintptr_t)c, m, n, k, flags);
  double best = 1e9;
  for (int r = 0; r < reps; r++) {
    double t = now();
    kiln_kernel_matmul_f32((uintptr_t)a, (uintptr_t)b, (uintptr_t)c, m, n, k, flags);
    t = now() - t;
    if (t < best)
      best = t;
  }
  printf("m=%d n=%d k=%d threads=%d: %.1f GFLOP/s\n", m, n, k, threads,
         2.0 * m * n * k / best / 1e9);
  free(a);
  free(b);
  free(c);
  return 0;
}
