// kiln_kernel_conv2d_3x3_f32: Winograd F(4x4, 3x3) over blocks of output tiles.
//
// With d a 6x6 input block, g a 3x3 filter and (Lavin and Gray's points 0, +-1, +-2)
//   B^T = [4  0 -5  0 1 0;  0 -4 -4  1 1 0;  0  4 -4 -1 1 0;
//          0 -2 -1  2 1 0;  0  2 -1 -2 1 0;  0  4  0 -5 0 1],
//   G   = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1],
//   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1],
// the 4x4 output block is A^T [(G g G^T) .* (B^T d B)] A: 36 products for 16 outputs
// instead of 144. Summed over input channels, the elementwise products become, for each of
// the 36 positions, a matrix product (tiles x c) * (c x f): the filter is transformed once
// per call (U, 36 x c x f; once per process for a constant filter, into its cache), then
// blocks of tiles are transformed (V, 36 x tiles x c), multiplied by the GEMM into M
// (36 x tiles x f) and transformed back, all in the calling thread's workspace. Transforms run over
// channels, innermost and contiguous, in vectors of 8 (AVX2) or 16 (AVX-512) lanes
// (winograd_impl.h). Tiles are split across the thread budget; each tile's arithmetic is the same
// whatever the split.
#include "kiln/kernels/conv2d.h"

#include <stdlib.h>

#include "../simd.h"
#include "kiln/runtime/arena.h"
#include "winograd_impl.h"

namespace kiln::kernels::winograd {
namespace {

// G x for a column (or row) x of 3: the filter transform's 1-D step.
template <class T> inline void filterStep(const T (&x)[3], T (&y)[kIn]) {
  T outer = x[0] + x[2];
  y[0] = splat<T>(0.25f) * x[0];
  y[1] = splat<T>(-1.0f / 6.0f) * (outer + x[1]);
  y[2] = splat<T>(-1.0f / 6.0f) * (outer - x[1]);
  T quarter = splat<T>(1.0f / 24.0f) * x[0] + splat<T>(1.0f / 6.0f) * x[2];
  y[3] = quarter + splat<T>(1.0f / 12.0f) * x[1];
  y[4] = quarter - splat<T>(1.0f / 12.0f) * x[1];
  y[5] = x[2];
}

// Lanes [j, j + |T|) of the filter transform: G g G^T from the 3x3 taps g[(i*3+k)*plane].
template <class T> inline void filterLanes(const float *g, float *u, int64_t plane) {
  T s[kIn][3]; // G g, by columns
  for (int k = 0; k < 3; ++k) {
    T x[3] = {load<T>(g + (0 * 3 + k) * plane), load<T>(g + (1 * 3 + k) * plane),
              load<T>(g + (2 * 3 + k) * plane)};
    T y[kIn];
    filterStep<T>(x, y);
    for (int i = 0; i < kIn; ++i)
      s[i][k] = y[i];
  }
  for (int i = 0; i < kIn; ++i) { // (G g) G^T, by rows
    T y[kIn];
    filterStep<T>(s[i], y);
    for (int k = 0; k < kIn; ++k)
      store(u + (i * kIn + k) * plane, y[k]);
  }
}

struct FilterJob {
  const Conv *v;
  float *u;
  int bad; // set (atomically) when a filter value is an infinity or NaN
};

// U[k][ch][j] = (G g G^T)[k] for the input channels [begin, end) and every output channel,
// unless one of their filter values is an infinity or NaN.
void transformChannels(void *ctx, int64_t begin, int64_t end) {
  FilterJob &job = *static_cast<FilterJob *>(ctx);
  const Conv &v = *job.v;
  const int64_t f = v.f, plane = v.c * f;
  int bad = 0;
  for (int64_t tap = 0; tap < 9; ++tap)
    for (int64_t i = begin * f; i < end * f; ++i)
      bad |= !(__builtin_fabsf(v.filter[tap * plane + i]) <= 3.40282347e38f);
  if (bad) {
    __atomic_fetch_or(&job.bad, 1, __ATOMIC_RELAXED);
    return;
  }
  for (int64_t ch = begin; ch < end; ++ch) {
    int64_t j = 0;
    for (; j + 8 <= f; j += 8)
      filterLanes<V8>(v.filter + ch * f + j, job.u + ch * f + j, plane);
    for (; j < f; ++j)
      filterLanes<float>(v.filter + ch * f + j, job.u + ch * f + j, plane);
  }
}

// U for every channel pair, on the thread budget (36 planes of c x f written at every call:
// 37.7 MB for 512 x 512 channels). Returns false, leaving U unfinished, when the filter
// holds an infinity or NaN (the transforms would mix it into every tap).
bool transformFilter(const Conv &v, float *u) {
  FilterJob job{&v, u, 0};
  const int64_t perChannel = (9 + kPositions) * v.f; // floats read and written
  kiln_parallel_for(v.c, ((int64_t(1) << 16) + perChannel - 1) / perChannel, transformChannels,
                    &job);
  return __atomic_load_n(&job.bad, __ATOMIC_RELAXED) == 0;
}

// Whether c floats at p are all finite.
inline bool allFinite(const float *p, int64_t c) {
  int bad = 0; // an integer or-reduction, which vectorizes (a float sum would not)
  for (int64_t ch = 0; ch < c; ++ch)
    bad |= !(__builtin_fabsf(p[ch]) <= 3.40282347e38f);
  return bad == 0;
}

// bad[pixel] for the pixel rows [begin, end) (of n x h).
void markPixels(void *ctx, int64_t begin, int64_t end) {
  const Conv &v = *static_cast<const Conv *>(ctx);
  uint8_t *bad = const_cast<uint8_t *>(v.bad);
  for (int64_t pixel = begin * v.w; pixel < end * v.w; ++pixel)
    bad[pixel] = !allFinite(v.in + pixel * v.c, v.c);
}

// The direct sum for one output pixel, for when no memory is to be had for the transforms.
// The direct sum for output (b, y, x) and channel j, before the epilogue.
float directSum(const Conv &v, int64_t b, int64_t y, int64_t x, int64_t j) {
  float acc = 0.0f;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) {
      int64_t iy = y + i - v.pt, ix = x + k - v.pl;
      if (iy < 0 || iy >= v.h || ix < 0 || ix >= v.w)
        continue;
      const float *p = v.in + ((b * v.h + iy) * v.w + ix) * v.c;
      const float *g = v.filter + (i * 3 + k) * v.c * v.f + j;
      for (int64_t ch = 0; ch < v.c; ++ch)
        acc = __builtin_fmaf(p[ch], g[ch * v.f], acc);
    }
  return acc;
}

void directPixel(const Conv &v, int64_t b, int64_t y, int64_t x) {
  float *o = v.out + ((b * v.oh + y) * v.ow + x) * v.f;
  for (int64_t j = 0; j < v.f; ++j) {
    float acc = directSum(v, b, y, x, j);
    float r = v.overwrite ? acc : o[j] + acc;
    o[j] = v.epi ? v.epi->apply(r, j) : r;
  }
}

// With v.pool: the pooled output (b, y, x) (of oh / 2 x ow / 2) by the direct sum.
void directPooledPixel(const Conv &v, int64_t b, int64_t y, int64_t x) {
  float *o = v.out + ((b * (v.oh / 2) + y) * (v.ow / 2) + x) * v.f;
  for (int64_t j = 0; j < v.f; ++j) {
    float r = -__FLT_MAX__;
    for (int di = 0; di < 2; ++di)
      for (int dk = 0; dk < 2; ++dk) {
        float s = directSum(v, b, 2 * y + di, 2 * x + dk, j);
        r = poolMax(r, v.epi ? v.epi->apply(s, j) : s);
      }
    o[j] = r;
  }
}

} // namespace

void directTiles(const Conv &v, int64_t t0, int64_t count) {
  for (int64_t tile = t0; tile < t0 + count; ++tile) {
    int64_t b = tile / (v.tilesH * v.tilesW), rest = tile % (v.tilesH * v.tilesW);
    int64_t y0 = (rest / v.tilesW) * kOut, x0 = (rest % v.tilesW) * kOut;
    if (v.pool) {
      for (int64_t y = y0 / 2; y < (y0 + kOut) / 2 && y < v.oh / 2; ++y)
        for (int64_t x = x0 / 2; x < (x0 + kOut) / 2 && x < v.ow / 2; ++x)
          directPooledPixel(v, b, y, x);
      continue;
    }
    for (int64_t y = y0; y < y0 + kOut && y < v.oh; ++y)
      for (int64_t x = x0; x < x0 + kOut && x < v.ow; ++x)
        directPixel(v, b, y, x);
  }
}

void runTilesAvx2(void *ctx, int64_t begin, int64_t end) { runTiles<V8>(ctx, begin, end); }

} // namespace kiln::kernels::winograd

using kiln::kernels::Epilogue;
using namespace kiln::kernels::winograd;

namespace {

// What a filter cache holds once its filter is known to have an infinity or NaN: its
// convolutions are direct sums.
constexpr uintptr_t kNonFiniteFilter = 1;

// The transformed filter a cache slot holds, computing and publishing it first if the slot
// is empty (a thread that loses the race frees its copy and takes the winner's). Null for a
// non-finite filter, or when memory is short (the caller transforms into its workspace).
const float *cachedFilter(const Conv &v, uintptr_t *slot, bool *nonFinite) {
  uintptr_t have = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (have == 0) {
    float *u = static_cast<float *>(
        kiln_aligned_alloc(int64_t(sizeof(float)) * kPositions * v.c * v.f, 64));
    if (u == nullptr)
      return nullptr;
    uintptr_t value = reinterpret_cast<uintptr_t>(u);
    if (!transformFilter(v, u)) {
      kiln_aligned_free(u);
      value = kNonFiniteFilter;
    }
    uintptr_t expected = 0;
    if (!__atomic_compare_exchange_n(slot, &expected, value, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
      if (value != kNonFiniteFilter)
        kiln_aligned_free(reinterpret_cast<void *>(value));
      value = expected;
    }
    have = value;
  }
  *nonFinite = have == kNonFiniteFilter;
  return *nonFinite ? nullptr : reinterpret_cast<const float *>(have);
}

void conv3x3(uintptr_t input, uintptr_t filter, uintptr_t *cache, uintptr_t output, int64_t n,
             int64_t h, int64_t w, int64_t c, int64_t f, int64_t oh, int64_t ow, int64_t pad_top,
             int64_t pad_left, int32_t flags, uintptr_t scale, float scale_value, uintptr_t bias,
             float bias_value, float lo, float hi, int32_t activation) {
  if (n <= 0 || oh <= 0 || ow <= 0 || f <= 0)
    return;
  Epilogue e{reinterpret_cast<const float *>(scale),
             reinterpret_cast<const float *>(bias),
             scale_value,
             bias_value,
             lo,
             hi,
             activation};
  Conv v;
  v.in = reinterpret_cast<const float *>(input);
  v.filter = reinterpret_cast<const float *>(filter);
  v.out = reinterpret_cast<float *>(output);
  v.n = n, v.h = h, v.w = w, v.c = c, v.f = f, v.oh = oh, v.ow = ow;
  v.pt = pad_top, v.pl = pad_left;
  v.pool = flags & KILN_CONV2D_MAX_POOL; // implies overwriting
  v.overwrite = v.pool || (flags & KILN_CONV2D_OVERWRITE);
  v.epi = (flags & KILN_CONV2D_EPILOGUE) ? &e : nullptr;
  v.tilesH = (oh + kOut - 1) / kOut, v.tilesW = (ow + kOut - 1) / kOut;
  v.tiles = n * v.tilesH * v.tilesW;
  // Blocks of tiles whose V and M fit in about 768 KiB (L2), a multiple of the register
  // tiles' 14 (AVX-512) and 6 (AVX2) rows.
  int64_t block = (768 * 1024 / int64_t(sizeof(float)) / kPositions) / (c + f);
  block = block < 42 ? 42 : block > kMaxBlock ? kMaxBlock : block / 42 * 42;
  v.block = block;
  // An empty sum, no memory for the transformed filter or a non-finite filter: the direct
  // sum (threads that find no workspace fall back to it too).
  // The calling thread's own workspace for it, kept from one call to the next (the tiles'
  // products use its first workspace meanwhile). Allocated per call, a 512-channel layer's
  // 37.7 MB came from fresh pages every time (mmap, then the kernel clearing each page at
  // its first write): ResNet50 at batch 8, whose 16 3x3 convolutions all take this kernel,
  // spent 6% of its time in page faults.
  // A constant filter's transform is computed once and kept in its cache slot.
  bool nonFinite = false;
  const float *ready = c > 0 && cache != nullptr ? cachedFilter(v, cache, &nonFinite) : nullptr;
  float *u = c > 0 && ready == nullptr && !nonFinite
                 ? static_cast<float *>(kiln_parallel_workspace_n(
                       KILN_WORKSPACE_FILTER, int64_t(sizeof(float)) * kPositions * c * f))
                 : nullptr;
  // Which input pixels hold an infinity or NaN, checked once each (a tile reads up to four
  // times as many).
  uint8_t *bad = static_cast<uint8_t *>(kiln_aligned_alloc(n * h * w, 64));
  v.bad = bad;
  if (bad == nullptr || nonFinite)
    v.u = nullptr;
  else
    v.u = ready != nullptr ? ready : u != nullptr && transformFilter(v, u) ? u : nullptr;
  if (v.u != nullptr) {
    int64_t perRow = w * c > 0 ? w * c : 1;
    kiln_parallel_for(n * h, ((int64_t(1) << 16) + perRow - 1) / perRow, markPixels, &v);
  }
  int64_t blocks = (v.tiles + block - 1) / block;
  // Fewer blocks than threads (a deep layer's few tiles): split each block's output
  // channels too, in steps of 16 (a vector) of at least 64 channels. Each channel's value
  // is computed the same way whatever the split, so results do not depend on threads.
  int64_t threads = kiln_parallel_threads();
  v.fParts = 1, v.fStep = f;
  if (blocks < threads && f >= 128) {
    int64_t parts = (threads + blocks - 1) / blocks;
    int64_t step = ((f + parts - 1) / parts + 15) / 16 * 16;
    v.fStep = step < 64 ? 64 : step;
    v.fParts = (f + v.fStep - 1) / v.fStep;
  }
  // At least about a million multiply-adds per chunk of work items.
  int64_t perItem = kPositions * block * c * v.fStep;
  int64_t grain = ((int64_t(1) << 20) + perItem - 1) / perItem;
  kiln_parallel_for(blocks * v.fParts, grain,
                    kiln::kernels::simd::useAvx512() ? runTilesAvx512 : runTilesAvx2, &v);
  kiln_aligned_free(bad);
}

} // namespace

extern "C" void kiln_kernel_conv2d_3x3_f32(uintptr_t input, uintptr_t filter, uintptr_t output,
                                           int64_t n, int64_t h, int64_t w, int64_t c, int64_t f,
                                           int64_t oh, int64_t ow, int64_t pad_top,
                                           int64_t pad_left, int32_t flags, uintptr_t scale,
                                           float scale_value, uintptr_t bias, float bias_value,
                                           float lo, float hi, int32_t activation) {
  conv3x3(input, filter, nullptr, output, n, h, w, c, f, oh, ow, pad_top, pad_left, flags, scale,
          scale_value, bias, bias_value, lo, hi, activation);
}

extern "C" void kiln_kernel_conv2d_3x3_cached_f32(
    uintptr_t input, uintptr_t filter, uintptr_t cache, uintptr_t output, int64_t n, int64_t h,
    int64_t w, int64_t c, int64_t f, int64_t oh, int64_t ow, int64_t pad_top, int64_t pad_left,
    int32_t flags, uintptr_t scale, float scale_value, uintptr_t bias, float bias_value, float lo,
    float hi, int32_t activation) {
  conv3x3(input, filter, reinterpret_cast<uintptr_t *>(cache), output, n, h, w, c, f, oh, ow,
          pad_top, pad_left, flags, scale, scale_value, bias, bias_value, lo, hi, activation);
}
