/* Peak single-core f32 FMA throughput: 12 independent FMA chains per iteration, in the
 * widest vectors the compiler targets (-march=native). Prints GFLOP/s. Used by bench.py. */
#include <stdio.h>
#include <time.h>

#if defined(__AVX512F__)
#include <immintrin.h>
typedef __m512 vec;
#define LANES 16
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#elif defined(__FMA__)
#include <immintrin.h>
typedef __m256 vec;
#define LANES 8
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#else
#error "needs FMA"
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void) {
  vec acc[12];
  vec b = SET1(0.5f), c = SET1(1e-7f);
  for (int i = 0; i < 12; i++) acc[i] = SET1((float)i);
  const long iters = 100000000;
  double best = 0;
  for (int r = 0; r < 3; r++) {
    double t = now();
    for (long it = 0; it < iters; it++) {
#pragma GCC unroll 12
      for (int i = 0; i < 12; i++) acc[i] = FMA(acc[i], b, c);
    }
    t = now() - t;
    double g = (double)iters * 12 * LANES * 2 / t / 1e9;
    if (g > best) best = g;
  }
  float sink = 0;
  for (int i = 0; i < 12; i++) sink += ((float*)&acc[i])[0];
  printf("%.1f GFLOP/s (%g)\n", best, sink);
  return 0;
}
