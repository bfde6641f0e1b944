/* For the fake libraries (fake_cublas.c, fake_cublaslt.c): f32 rounded to TF32 (10 mantissa
 * bits, to nearest even), as tensor cores read it. */
#ifndef KILN_TEST_RUNTIME_FAKE_TF32_H
#define KILN_TEST_RUNTIME_FAKE_TF32_H

#include <stdint.h>
#include <string.h>

static inline float to_tf32(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  if ((bits & 0x7f800000u) != 0x7f800000u)
    bits = (bits + 0xfffu + ((bits >> 13) & 1)) & ~0x1fffu;
  memcpy(&f, &bits, 4);
  return f;
}

#endif /* KILN_TEST_RUNTIME_FAKE_TF32_H */
