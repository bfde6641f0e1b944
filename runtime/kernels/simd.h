// Internal: the vector operations the kernels are written over, one struct per ISA, so
// that a kernel is a template compiled once per ISA (AVX2 + FMA, the library's baseline,
// and AVX-512F in files compiled with -mavx512f; the Avx512 struct exists only there).
// Also the per-channel epilogue on a vector of output channels.
#ifndef KILN_KERNELS_SIMD_H
#define KILN_KERNELS_SIMD_H

#include <immintrin.h>
#include <stdint.h>

#include "epilogue.h"

namespace kiln::kernels::simd {

// Whether the kernels run their AVX-512 code: the CPU has AVX-512F and KILN_KERNEL_ISA is
// not "avx2" (which forces the AVX2 code, for tests and comparisons). Decided once.
bool useAvx512();

// The data caches of the core the kernels run on, in bytes (L2 and L3 as one core sees
// them), read once from the C library (sysconf, which asks the CPU); where it cannot tell,
// 32 KiB, 512 KiB and 8 MiB, the smallest of the x86-64 CPUs the kernels tune for. The
// kernels' blocks are sized from these, not from one machine's constants.
struct Caches {
  int64_t l1, l2, l3;
};
const Caches &caches();

// Eight floats in a ymm register.
struct Avx2 {
  using Vec = __m256;
  using Mask = __m256i;
  static constexpr int kLanes = 8;
  static Vec zero() { return _mm256_setzero_ps(); }
  static Vec load(const float *p) { return _mm256_loadu_ps(p); }
  static void store(float *p, Vec v) { _mm256_storeu_ps(p, v); }
  static Vec broadcast(const float *p) { return _mm256_broadcast_ss(p); }
  static Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
  static Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
  static Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
  static Vec max(Vec a, Vec b) { return _mm256_max_ps(a, b); }
  static Vec min(Vec a, Vec b) { return _mm256_min_ps(a, b); }
  static Vec set1(float v) { return _mm256_set1_ps(v); }
  // The first n lanes (none for n <= 0, all for n >= kLanes).
  static Mask mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  // Lanes outside the mask read as zero and are neither read nor written in memory.
  static Vec loadMasked(const float *p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void storeMasked(float *p, Vec v, Mask m) { _mm256_maskstore_ps(p, m, v); }
};

#ifdef __AVX512F__
// Sixteen floats in a zmm register.
struct Avx512 {
  using Vec = __m512;
  using Mask = __mmask16;
  static constexpr int kLanes = 16;
  static Vec zero() { return _mm512_setzero_ps(); }
  static Vec load(const float *p) { return _mm512_loadu_ps(p); }
  static void store(float *p, Vec v) { _mm512_storeu_ps(p, v); }
  static Vec broadcast(const float *p) { return _mm512_set1_ps(*p); }
  static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  static Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
  static Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
  // The zero-masked forms: GCC 12 warns about the undefined source of the plain ones.
  static Vec max(Vec a, Vec b) { return _mm512_maskz_max_ps(0xFFFF, a, b); }
  static Vec min(Vec a, Vec b) { return _mm512_maskz_min_ps(0xFFFF, a, b); }
  static Vec set1(float v) { return _mm512_set1_ps(v); }
  static Mask mask(int n) {
    return n <= 0 ? Mask(0) : n >= kLanes ? Mask(0xFFFF) : Mask((1u << n) - 1);
  }
  static Vec loadMasked(const float *p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void storeMasked(float *p, Vec v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
};
#endif

// The epilogue (epilogue.h) on the lanes of output channels [col, col + kLanes); `m`
// masks the channels that exist; `at` is where the lanes go (read only with a residual).
// As Epilogue::apply: max/min return their second operand when either is NaN, so a NaN
// stays NaN.
template <class V>
inline typename V::Vec finish(typename V::Vec v, const Epilogue &e, int64_t col, typename V::Mask m,
                              const float *at = nullptr) {
  if (e.scales())
    v = V::mul(v, e.scale ? V::loadMasked(e.scale + col, m) : V::set1(e.scaleValue));
  if (e.biases())
    v = V::add(v, e.bias ? V::loadMasked(e.bias + col, m) : V::set1(e.biasValue));
  if (e.residual)
    v = V::add(v, V::loadMasked(at + e.residualOffset, m));
  v = V::min(V::set1(e.hi), V::max(V::set1(e.lo), v));
  return e.swishes() ? swish(v) : v;
}

} // namespace kiln::kernels::simd

#endif // KILN_KERNELS_SIMD_H
