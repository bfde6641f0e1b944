// Internal: the per-channel epilogue the matrix-product and depthwise kernels apply to
// their results while they are in registers (bias, inference batch norm, Relu, Relu6,
// Swish).
#ifndef KILN_KERNELS_EPILOGUE_H
#define KILN_KERNELS_EPILOGUE_H

#include <immintrin.h>
#include <stdint.h>

#include "kiln/runtime/abi.h"

namespace kiln::kernels {

// The unsigned integer lanes of a float or of a GCC vector of floats (__m256 and __m512 are
// ones), for bit arithmetic that wraps (a NaN's bits shifted overflow a signed lane).
template <class T> struct UIntLanes {
  typedef uint32_t Type __attribute__((vector_size(sizeof(T))));
};
template <> struct UIntLanes<float> {
  using Type = uint32_t;
};

// max(lo, t) and min(hi, t) lane by lane as x86's max and min instructions compute them:
// t where either is NaN, so a NaN stays NaN. The vector types use the instructions
// themselves: GCC 12 makes the conditional form a compare and a blend, which cost Swish
// (below) 12% more (a standalone loop of it on Zen 4).
template <class T> inline T atLeast(T lo, T t) { return lo > t ? lo : t; }
template <class T> inline T atMost(T hi, T t) { return hi < t ? hi : t; }
#ifdef __AVX__
inline __m256 atLeast(__m256 lo, __m256 t) { return _mm256_max_ps(lo, t); }
inline __m256 atMost(__m256 hi, __m256 t) { return _mm256_min_ps(hi, t); }
#endif
#ifdef __AVX512F__
inline __m512 atLeast(__m512 lo, __m512 t) { return _mm512_maskz_max_ps(0xFFFF, lo, t); }
inline __m512 atMost(__m512 hi, __m512 t) { return _mm512_maskz_min_ps(0xFFFF, hi, t); }
#endif

// swish(x) = x / (1 + exp(-x)) on each lane of T (a float or a GCC vector of floats), to
// within a few ulp of the exact value. exp(-x) is 2^n * p(r) with -x = n ln2 + r,
// |r| <= ln2 / 2 and p of degree 7 (Cephes' expf); -x is first clamped to +-87.34, so that
// 2^n is a normal float. Below x = -87.34, where the exact result is under 1e-36 in
// magnitude, it is x * 0: -0, and NaN for -inf, as x * sigmoid(x) gives in TensorFlow and
// in Kiln's loops (exp(inf) * 0). NaN stays NaN, +inf stays +inf. The same operations in
// the same order on every lane type, so that a scalar tail and a vector body agree bit for
// bit.
template <class T> inline T swish(T x) {
  using U = typename UIntLanes<T>::Type;
  const T zero{};
  T t = atMost(zero + 87.33654f, atLeast(zero - 87.33654f, zero - x));
  // n = round(t / ln2) by the shifter 1.5 * 2^23, whose last mantissa bits then hold n.
  T shifted = t * 1.44269504088896341f + 12582912.0f;
  T n = shifted - 12582912.0f;
  T r = t - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  T p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + (r + 1.0f);
  // 2^n for n in [-126, 126]: n + 127 in the exponent field.
  U bits;
  __builtin_memcpy(&bits, &shifted, sizeof bits);
  bits = (bits - (0x4B400000u - 127u)) << 23;
  T scale;
  __builtin_memcpy(&scale, &bits, sizeof scale);
  T y = x / (p * scale + 1.0f);
  return x < zero - 87.33654f ? x * 0.0f : y;
}

// What a kernel does to each element of output channel (column) j before storing it:
// v = act(min(max(v * scale(j) + bias(j) + residual, lo), hi)), where scale(j) is
// scale[j], or scaleValue when scale is null (bias likewise), and act is the activation
// (KILN_ACTIVATION_*; swish above). The multiplication is skipped for a scale of exactly
// one and the addition for a bias of exactly zero, so the arithmetic is that of the
// elementwise loop it replaces; a NaN stays NaN. With `residual` (only the matrix product
// takes one: kiln_kernel_matmul_residual_f32), the value stored at address p also gets
// p[residualOffset] added, after the bias: a residual connection's addition. The offset
// may be 0 (the residual is the output itself) when each element is stored once.
struct Epilogue {
  const float *scale, *bias;
  float scaleValue, biasValue, lo, hi;
  int32_t activation;
  bool residual = false;
  int64_t residualOffset = 0; // in floats, from an output element to its residual
  bool scales() const { return scale != nullptr || scaleValue != 1.0f; }
  bool biases() const { return bias != nullptr || biasValue != 0.0f; }
  bool swishes() const { return activation == KILN_ACTIVATION_SWISH; }
  // `at` is where the value goes (read only with a residual).
  float apply(float v, int64_t j, const float *at = nullptr) const {
    if (scales())
      v *= scale ? scale[j] : scaleValue;
    if (biases())
      v += bias ? bias[j] : biasValue;
    if (residual)
      v += at[residualOffset];
    v = v < lo ? lo : v; // NaN stays NaN, as with arith.maximumf
    v = v > hi ? hi : v;
    return swishes() ? swish(v) : v;
  }
};

} // namespace kiln::kernels

#endif // KILN_KERNELS_EPILOGUE_H
