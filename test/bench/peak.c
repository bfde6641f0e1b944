/* Peak single-core f32 FMA throughput: 12 independent FMA chains per iteration, in the
 * widest vectors the compiler targets (-march=native). Used by bench.py.
 *
 *   peak            best of 3 runs of 38.4 GFLOP; prints GFLOP/s
 *   peak RUNS FLOP  RUNS runs of FLOP each (rounded to whole iterations); prints the median
 *                   run's GFLOP/s and milliseconds, to be timed beside a kernel doing that
 *                   much work the same number of times */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fma_vec.h"

#define CHAINS 12
#define FLOP_PER_ITER (CHAINS * LANES * 2)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static vec acc[CHAINS];

/* Seconds for `iters` iterations of CHAINS dependent-chain FMAs. */
static double run(long iters) {
  vec b = SET1(0.5f), c = SET1(1e-7f), a[CHAINS];
  for (int i = 0; i < CHAINS; i++)
    a[i] = acc[i];
  double t = now();
  for (long it = 0; it < iters; it++) {
#pragma GCC unroll 12
    for (int i = 0; i < CHAINS; i++)
      a[i] = FMA(a[i], b, c);
  }
  t = now() - t;
  for (int i = 0; i < CHAINS; i++)
    acc[i] = a[i];
  return t;
}

static int compare(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

int main(int argc, char **argv) {
  for (int i = 0; i < CHAINS; i++)
    acc[i] = SET1((float)i);
  int runs = argc > 2 ? atoi(argv[1]) : 0;
  double flop = argc > 2 ? atof(argv[2]) : 0;
  if (runs > 0 && flop > 0) {
    long iters = (long)(flop / FLOP_PER_ITER + 0.5);
    double *t = malloc(sizeof(double) * (size_t)runs);
    run(iters); /* warm-up, as the kernels' --bench has */
    for (int r = 0; r < runs; r++)
      t[r] = run(iters);
    qsort(t, (size_t)runs, sizeof(double), compare);
    double median = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
    printf("%.1f GFLOP/s %.4f ms (%g)\n", (double)iters * FLOP_PER_ITER / median / 1e9,
           median * 1e3, ((float *)&acc[0])[0]);
    free(t);
    return 0;
  }
  const long iters = 100000000;
  double best = 0;
  for (int r = 0; r < 3; r++) {
    double g = (double)iters * FLOP_PER_ITER / run(iters) / 1e9;
    if (g > best)
      best = g;
  }
  printf("%.1f GFLOP/s (%g)\n", best, ((float *)&acc[0])[0]);
  return 0;
}
