// Internal to the direct convolution kernel (kiln_kernel_conv2d_direct_f32): the problem,
// and its row loop compiled once for AVX2 and once for AVX-512 (direct_impl.h).
#ifndef KILN_KERNELS_DIRECT_DIRECT_H
#define KILN_KERNELS_DIRECT_DIRECT_H

#include <stdint.h>

#include "../epilogue.h"

namespace kiln::kernels {

struct DirectArgs {
  const float *in, *filter;
  float *out;
  int64_t n, h, w, c, f, kh, kw, oh, ow, sh, sw, dh, dw, pt, pl;
  bool overwrite;
  bool pool;           // write the 2x2/2 max pool of the result (KILN_CONV2D_MAX_POOL)
  const Epilogue *epi; // null: none
};

// Output rows [begin, end) of every image (row = image * oh + y), with AVX2 or AVX-512.
void directRowsAvx2(const DirectArgs &a, int64_t begin, int64_t end);
void directRowsAvx512(const DirectArgs &a, int64_t begin, int64_t end);

// Window taps a register tile takes at once; larger windows go in parts.
constexpr int kDirectMaxTaps = 64;

// Output rows [begin, end) one element at a time (pooled rows with a.pool), skipping window
// positions outside the input: for when no memory is to be had for the padded rows.
void directRowsScalar(const DirectArgs &a, int64_t begin, int64_t end);

} // namespace kiln::kernels

#endif // KILN_KERNELS_DIRECT_DIRECT_H
