// Internal: the per-channel epilogue the matrix-product and depthwise kernels apply to
// their results while they are in registers (bias, inference batch norm, Relu, Relu6).
#ifndef KILN_KERNELS_EPILOGUE_H
#define KILN_KERNELS_EPILOGUE_H

#include <stdint.h>

namespace kiln::kernels {

// What a kernel does to each element of output channel (column) j before storing it:
// v = min(max(v * scale(j) + bias(j), lo), hi), where scale(j) is scale[j], or scaleValue
// when scale is null (bias likewise). The multiplication is skipped for a scale of exactly
// one and the addition for a bias of exactly zero, so the arithmetic is that of the
// elementwise loop it replaces; a NaN stays NaN.
struct Epilogue {
  const float *scale, *bias;
  float scaleValue, biasValue, lo, hi;
  bool scales() const { return scale != nullptr || scaleValue != 1.0f; }
  bool biases() const { return bias != nullptr || biasValue != 0.0f; }
  float apply(float v, int64_t j) const {
    if (scales()) v *= scale ? scale[j] : scaleValue;
    if (biases()) v += bias ? bias[j] : biasValue;
    v = v < lo ? lo : v; // NaN stays NaN, as with arith.maximumf
    return v > hi ? hi : v;
  }
};

} // namespace kiln::kernels

#endif // KILN_KERNELS_EPILOGUE_H
