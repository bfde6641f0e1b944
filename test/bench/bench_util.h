/* Helpers the kernel benchmarks in test/bench share (each is a standalone C program). */
#ifndef KILN_TEST_BENCH_BENCH_UTIL_H
#define KILN_TEST_BENCH_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* qsort's comparison of two doubles, ascending (for medians of timings). */
static inline int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* n floats uniform in [-0.5, 0.5] from rand() (the caller frees them). */
static inline float *random_floats(long n) {
  float *p = malloc((size_t)n * sizeof(float));
  for (long i = 0; i < n; i++)
    p[i] = (float)rand() / (float)RAND_MAX - 0.5f;
  return p;
}

#endif /* KILN_TEST_BENCH_BENCH_UTIL_H */
