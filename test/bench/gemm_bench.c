/* GFLOP/s of kiln_kernel_matmul_f32 on one shape, best of 15 calls (or REPS) after one untimed:
 *
 *   cc -O2 -I runtime/include -I runtime/kernels/include test/bench/gemm_bench.c \
 *      -L build/lib -lkiln_kernels -lkiln_runtime -lm -pthread -ldl -lstdc++ -o /tmp/gemm_bench
 *   /tmp/gemm_bench [N [THREADS [M [K [FLAGS [REPS]]]]]]   (default 1024 1 N N 0 15: C[M x N] +=
 * op(A)[M x K] op(B)[K x N]; FLAGS as in kiln/runtime/abi.h, 1 = A stored K x M, 2 = B stored
 * N x K, 4 = overwrite C, 8 = B packed ahead, as for constant weights)
 *
 * test/bench/gemm_shapes.py runs it on the shapes of real models beside the peers.
 *
 * Compare with test/bench/peak.c run just before or after; the machine's noise shows as
 * differences between repeated runs. KILN_KERNEL_ISA=avx2 measures the AVX2 code.
 *
 * GEMM_BENCH_CBLAS=LIBRARY times that library's cblas_sgemm on the same operands instead (a
 * BLAS from Debian, loaded at run time: libopenblas.so.0, libblis.so.4; its own thread count
 * from OPENBLAS_NUM_THREADS or BLIS_NUM_THREADS): the flags' transposes and overwrite as
 * cblas_sgemm's, FLAGS 8 ignored (cblas_sgemm packs B on every call). Add -ldl when linking. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "kiln/kernels/matmul.h"
#include "kiln/runtime/parallel.h"

/* cblas_sgemm's signature and the enum values of cblas.h (row major, transposes). */
typedef void (*sgemm_fn)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                         const float *a, int lda, const float *b, int ldb, float beta, float *c,
                         int ldc);
enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112 };

static sgemm_fn cblas;

/* One product, by Kiln or by the library GEMM_BENCH_CBLAS names. */
static void product(const float *a, const float *b, float *c, int m, int n, int k, int flags) {
  if (!cblas) {
    kiln_kernel_matmul_f32((uintptr_t)a, (uintptr_t)b, (uintptr_t)c, m, n, k, flags);
    return;
  }
  int ta = flags & KILN_MATMUL_TRANSPOSE_A, tb = flags & KILN_MATMUL_TRANSPOSE_B;
  cblas(ROW_MAJOR, ta ? TRANS : NO_TRANS, tb ? TRANS : NO_TRANS, m, n, k, 1.0f, a, ta ? m : k, b,
        tb ? k : n, flags & KILN_MATMUL_OVERWRITE ? 0.0f : 1.0f, c, n);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  int threads = argc > 2 ? atoi(argv[2]) : 1;
  int m = argc > 3 ? atoi(argv[3]) : n;
  int k = argc > 4 ? atoi(argv[4]) : n;
  int flags = argc > 5 ? atoi(argv[5]) : 0;
  int reps = argc > 6 ? atoi(argv[6]) : 15;
  kiln_parallel_set_threads(threads);
  const char *library = getenv("GEMM_BENCH_CBLAS");
  if (library && *library) {
    void *handle = dlopen(library, RTLD_NOW);
    cblas = handle ? (sgemm_fn)dlsym(handle, "cblas_sgemm") : NULL;
    if (!cblas) {
      fprintf(stderr, "gemm_bench: no cblas_sgemm in %s: %s\n", library, dlerror());
      return 1;
    }
    flags &= ~KILN_MATMUL_PACKED_B;
  }
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
  product(a, b, c, m, n, k, flags);
  double best = 1e9;
  for (int r = 0; r < reps; r++) {
    double t = now();
    product(a, b, c, m, n, k, flags);
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
