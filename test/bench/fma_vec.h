/* The widest f32 vector with fused multiply-add the compiler targets (-march=native), for
 * the peak-throughput loops of peak.c and kernels.c. */
#ifndef KILN_TEST_BENCH_FMA_VEC_H
#define KILN_TEST_BENCH_FMA_VEC_H

#include <immintrin.h>

#if defined(__AVX512F__)
typedef __m512 vec;
#define LANES 16
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#elif defined(__FMA__)
typedef __m256 vec;
#define LANES 8
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#else
#error "needs FMA: build with -march=native on a CPU that has it"
#endif

#endif /* KILN_TEST_BENCH_FMA_VEC_H */
