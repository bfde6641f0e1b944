// Internal to the Winograd kernel (kiln_kernel_conv2d_3x3_f32): the problem, and the tile
// loop compiled once for AVX2 and once for AVX-512 (winograd_impl.h).
#ifndef KILN_KERNELS_WINOGRAD_WINOGRAD_H
#define KILN_KERNELS_WINOGRAD_WINOGRAD_H

#include <stdint.h>

#include "../epilogue.h"

namespace kiln::kernels::winograd {

constexpr int64_t kMaxBlock = 126;    // tiles per block, at most
constexpr int kOut = 4;               // F(4x4, 3x3): output tiles of 4x4 pixels,
constexpr int kIn = kOut + 2;         // computed from 6x6 input blocks,
constexpr int kPositions = kIn * kIn; // by 36 products, one per position in the block

struct Conv {
  const float *in, *filter;
  float *out;
  int64_t n, h, w, c, f, oh, ow, pt, pl;
  bool overwrite;
  bool pool;                     // write the 2x2/2 max pool of the result (KILN_CONV2D_MAX_POOL)
  const Epilogue *epi;           // null: none
  int64_t tilesH, tilesW, tiles; // 4x4 output tiles
  int64_t block;                 // tiles per block
  int64_t fParts, fStep;         // work items split each block's output channels in fParts of fStep
  const float *u;                // transformed filter, 36 x c x f
  const uint8_t *bad;            // per input pixel (n x h x w): 1 if it holds an inf or NaN
};

// The outputs of tiles [t0, t0 + count) by the direct sum.
void directTiles(const Conv &v, int64_t t0, int64_t count);

// TensorFlow's max of a pool window taken in order: the first value, then each later one
// greater than the maximum so far (NaNs are passed over; the pool starts from the lowest
// float, which no value of a window of four can be below except -inf and NaN).
template <class T> inline T poolMax(T m, T v) { return v > m ? v : m; }

// kiln_parallel_for bodies over work items, item i the output channels
// [(i % fParts) * fStep, + fStep) of block i / fParts: transforms, GEMMs and the direct sum
// where it is needed, with AVX2 or AVX-512 vectors.
void runTilesAvx2(void *ctx, int64_t begin, int64_t end);
void runTilesAvx512(void *ctx, int64_t begin, int64_t end);

} // namespace kiln::kernels::winograd

#endif // KILN_KERNELS_WINOGRAD_WINOGRAD_H
