// kiln_kernel_conv2d_3x3_f32: Winograd F(2x2, 3x3) over blocks of output tiles.
//
// With d a 4x4 input block, g a 3x3 filter and
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1],  G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1],
//   A^T = [1 1 1 0; 0 1 -1 -1],
// the 2x2 output block is A^T [(G g G^T) .* (B^T d B)] A. Summed over input channels, the
// elementwise products become, for each of the 16 positions, a matrix product
// (tiles x c) * (c x f): the filter is transformed once per call (U, 16 x c x f), then
// blocks of tiles are transformed (V, 16 x tiles x c), multiplied by the GEMM into M
// (16 x tiles x f) and transformed back, all in the calling thread's workspace. Transforms
// run over channels, innermost and contiguous, which the compiler vectorizes. Tiles are
// split across the thread budget; each tile's arithmetic is the same whatever the split.
#include "kiln/kernels/conv2d.h"

#include <stdlib.h>

#include "kiln/runtime/arena.h"
#include "kiln/runtime/parallel.h"
#include "../epilogue.h"
#include "../matmul/gemm.h"

namespace {

using kiln::kernels::Epilogue;
using kiln::kernels::GemmArgs;

constexpr int64_t kMaxBlock = 126; // tiles per block, at most

struct Conv {
  const float *in, *filter;
  float *out;
  int64_t n, h, w, c, f, oh, ow, pt, pl;
  bool overwrite;
  const Epilogue *epi; // null: none
  int64_t tilesH, tilesW, tiles; // 2x2 output tiles
  int64_t block;                 // tiles per block
  const float *u;                // transformed filter, 16 x c x f
};

// Eight lanes (one AVX2 register; GCC's vector extension) or one, with the same code.
typedef float V8 __attribute__((vector_size(32)));
template <class T> inline T load(const float *p) {
  T v;
  __builtin_memcpy(&v, p, sizeof(T));
  return v;
}
template <class T> inline void store(float *p, T v) { __builtin_memcpy(p, &v, sizeof(T)); }
template <class T> inline T splat(float x) { return T{} + x; }

// Lanes [j, j + |T|) of the filter transform: G g G^T from the 3x3 taps g[(i*3+k)*plane].
template <class T> inline void filterLanes(const float *g, float *u, int64_t plane) {
  T r[4][3];
  for (int k = 0; k < 3; ++k) {
    T g0 = load<T>(g + (0 * 3 + k) * plane), g1 = load<T>(g + (1 * 3 + k) * plane),
      g2 = load<T>(g + (2 * 3 + k) * plane);
    r[0][k] = g0;
    r[1][k] = splat<T>(0.5f) * (g0 + g1 + g2);
    r[2][k] = splat<T>(0.5f) * (g0 - g1 + g2);
    r[3][k] = g2;
  }
  for (int i = 0; i < 4; ++i) {
    float *row = u + (i * 4) * plane;
    store(row + 0 * plane, r[i][0]);
    store(row + 1 * plane, splat<T>(0.5f) * (r[i][0] + r[i][1] + r[i][2]));
    store(row + 2 * plane, splat<T>(0.5f) * (r[i][0] - r[i][1] + r[i][2]));
    store(row + 3 * plane, r[i][2]);
  }
}

// U[k][ch][j] = (G g G^T)[k] for every channel pair. Returns false, leaving U unfinished,
// when the filter holds an infinity or NaN (the transforms would mix it into every tap).
bool transformFilter(const Conv &v, float *u) {
  int bad = 0;
  for (int64_t i = 0; i < 9 * v.c * v.f; ++i)
    bad |= !(__builtin_fabsf(v.filter[i]) <= 3.40282347e38f);
  if (bad)
    return false;
  const int64_t c = v.c, f = v.f, plane = c * f;
  for (int64_t ch = 0; ch < c; ++ch) {
    int64_t j = 0;
    for (; j + 8 <= f; j += 8) filterLanes<V8>(v.filter + ch * f + j, u + ch * f + j, plane);
    for (; j < f; ++j) filterLanes<float>(v.filter + ch * f + j, u + ch * f + j, plane);
  }
  return true;
}

// Lanes [ch, ch + |T|) of the input transform B^T d B of one tile, d read through p.
template <class T>
inline void inputLanes(const float *const (&p)[4][4], int64_t ch, float *o, int64_t plane) {
  T d[4][4], s[4][4];
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 4; ++k) d[i][k] = load<T>(p[i][k] + ch);
  for (int k = 0; k < 4; ++k) { // B^T d
    s[0][k] = d[0][k] - d[2][k];
    s[1][k] = d[1][k] + d[2][k];
    s[2][k] = d[2][k] - d[1][k];
    s[3][k] = d[1][k] - d[3][k];
  }
  for (int i = 0; i < 4; ++i) { // (B^T d) B
    store(o + (i * 4 + 0) * plane + ch, s[i][0] - s[i][2]);
    store(o + (i * 4 + 1) * plane + ch, s[i][1] + s[i][2]);
    store(o + (i * 4 + 2) * plane + ch, s[i][2] - s[i][1]);
    store(o + (i * 4 + 3) * plane + ch, s[i][1] - s[i][3]);
  }
}

// Whether c floats at p are all finite.
inline bool allFinite(const float *p, int64_t c) {
  int bad = 0; // an integer or-reduction, which vectorizes (a float sum would not)
  for (int64_t ch = 0; ch < c; ++ch) bad |= !(__builtin_fabsf(p[ch]) <= 3.40282347e38f);
  return bad == 0;
}

// V[k][t][ch] = (B^T d B)[k] for tiles [t0, t0 + count), with `zeros` (c floats of 0)
// standing in for input pixels outside the image. finite[t] says whether tile t's inputs
// are all finite: the transforms would turn an infinity into inf - inf = NaN in outputs
// whose direct sum is infinite, so such tiles are summed directly instead.
void transformInput(const Conv &v, int64_t t0, int64_t count, const float *zeros, float *out,
                    bool *finite) {
  const int64_t c = v.c, plane = count * c;
  for (int64_t t = 0; t < count; ++t) {
    int64_t tile = t0 + t;
    int64_t b = tile / (v.tilesH * v.tilesW), rest = tile % (v.tilesH * v.tilesW);
    int64_t y0 = (rest / v.tilesW) * 2 - v.pt, x0 = (rest % v.tilesW) * 2 - v.pl;
    const float *p[4][4];
    bool ok = true;
    for (int i = 0; i < 4; ++i)
      for (int k = 0; k < 4; ++k) {
        int64_t y = y0 + i, x = x0 + k;
        bool inside = y >= 0 && y < v.h && x >= 0 && x < v.w;
        p[i][k] = inside ? v.in + ((b * v.h + y) * v.w + x) * c : zeros;
        // Each pixel is checked by the tiles that read it (up to four): cheap next to
        // the transform.
        ok = ok && (!inside || allFinite(p[i][k], c));
      }
    finite[t] = ok;
    float *o = out + t * c;
    int64_t ch = 0;
    for (; ch + 8 <= c; ch += 8) inputLanes<V8>(p, ch, o, plane);
    for (; ch < c; ++ch) inputLanes<float>(p, ch, o, plane);
  }
}

// Lanes [j, j + |T|) of the output transform A^T m A of one tile: y[i][k], 2 x 2.
template <class T> inline void outputLanes(const float *m, int64_t plane, T (&y)[2][2]) {
  T a[4][4], s[2][4];
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 4; ++k) a[i][k] = load<T>(m + (i * 4 + k) * plane);
  for (int k = 0; k < 4; ++k) { // A^T m
    s[0][k] = a[0][k] + a[1][k] + a[2][k];
    s[1][k] = a[1][k] - a[2][k] - a[3][k];
  }
  for (int i = 0; i < 2; ++i) { // (A^T m) A
    y[i][0] = s[i][0] + s[i][1] + s[i][2];
    y[i][1] = s[i][1] - s[i][2] - s[i][3];
  }
}

// The epilogue on lanes [j, j + 8): as Epilogue::apply (a NaN stays NaN).
inline V8 finish(V8 x, const Epilogue &e, int64_t j) {
  if (e.scales())
    x = x * (e.scale ? load<V8>(e.scale + j) : splat<V8>(e.scaleValue));
  if (e.biases())
    x = x + (e.bias ? load<V8>(e.bias + j) : splat<V8>(e.biasValue));
  V8 lo = splat<V8>(e.lo), hi = splat<V8>(e.hi);
  x = x < lo ? lo : x; // lanes compare false for NaN and keep x
  return x > hi ? hi : x;
}

// The 2x2 outputs A^T m A of tiles [t0, t0 + count) from M[k][t][j], stored (or added) with
// the epilogue, clipped to the output; tiles with non-finite inputs are left out.
void transformOutput(const Conv &v, int64_t t0, int64_t count, const float *m,
                     const bool *finite) {
  const int64_t f = v.f, plane = count * f;
  for (int64_t t = 0; t < count; ++t) {
    if (!finite[t])
      continue;
    int64_t tile = t0 + t;
    int64_t b = tile / (v.tilesH * v.tilesW), rest = tile % (v.tilesH * v.tilesW);
    int64_t y0 = (rest / v.tilesW) * 2, x0 = (rest % v.tilesW) * 2;
    float *q[2][2];
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 2; ++k)
        q[i][k] = y0 + i < v.oh && x0 + k < v.ow
                      ? v.out + ((b * v.oh + y0 + i) * v.ow + x0 + k) * f
                      : nullptr;
    const float *src = m + t * f;
    int64_t j = 0;
    for (; j + 8 <= f; j += 8) {
      V8 y[2][2];
      outputLanes<V8>(src + j, plane, y);
      for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 2; ++k) {
          if (!q[i][k]) continue;
          V8 r = v.overwrite ? y[i][k] : load<V8>(q[i][k] + j) + y[i][k];
          store(q[i][k] + j, v.epi ? finish(r, *v.epi, j) : r);
        }
    }
    for (; j < f; ++j) {
      float y[2][2];
      outputLanes<float>(src + j, plane, y);
      for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 2; ++k) {
          if (!q[i][k]) continue;
          float r = v.overwrite ? y[i][k] : q[i][k][j] + y[i][k];
          q[i][k][j] = v.epi ? v.epi->apply(r, j) : r;
        }
    }
  }
}

// The direct sum for one output pixel, for when no memory is to be had for the transforms.
void directPixel(const Conv &v, int64_t b, int64_t y, int64_t x) {
  float *o = v.out + ((b * v.oh + y) * v.ow + x) * v.f;
  for (int64_t j = 0; j < v.f; ++j) {
    float acc = 0.0f;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) {
        int64_t iy = y + i - v.pt, ix = x + k - v.pl;
        if (iy < 0 || iy >= v.h || ix < 0 || ix >= v.w) continue;
        const float *p = v.in + ((b * v.h + iy) * v.w + ix) * v.c;
        const float *g = v.filter + (i * 3 + k) * v.c * v.f + j;
        for (int64_t ch = 0; ch < v.c; ++ch) acc = __builtin_fmaf(p[ch], g[ch * v.f], acc);
      }
    float r = v.overwrite ? acc : o[j] + acc;
    o[j] = v.epi ? v.epi->apply(r, j) : r;
  }
}

// The outputs of tiles [t0, t0 + count) by the direct sum.
void directTiles(const Conv &v, int64_t t0, int64_t count) {
  for (int64_t tile = t0; tile < t0 + count; ++tile) {
    int64_t b = tile / (v.tilesH * v.tilesW), rest = tile % (v.tilesH * v.tilesW);
    int64_t y0 = (rest / v.tilesW) * 2, x0 = (rest % v.tilesW) * 2;
    for (int64_t y = y0; y < y0 + 2 && y < v.oh; ++y)
      for (int64_t x = x0; x < x0 + 2 && x < v.ow; ++x) directPixel(v, b, y, x);
  }
}

void runTiles(void *ctx, int64_t begin, int64_t end) {
  const Conv &v = *static_cast<const Conv *>(ctx);
  const int64_t c = v.c, f = v.f, block = v.block;
  // V (16 x block x c), M (16 x block x f) and a row of zeros for the padding.
  float *ws = static_cast<float *>(
      kiln_parallel_workspace(int64_t(sizeof(float)) * (16 * block * (c + f) + c)));
  if (ws == nullptr || v.u == nullptr) { // no memory for the transforms
    int64_t t0 = begin * block, t1 = end * block < v.tiles ? end * block : v.tiles;
    directTiles(v, t0, t1 - t0);
    return;
  }
  float *vbuf = ws, *mbuf = ws + 16 * block * c, *zeros = mbuf + 16 * block * f;
  for (int64_t ch = 0; ch < c; ++ch) zeros[ch] = 0.0f;
  for (int64_t b = begin; b < end; ++b) {
    int64_t t0 = b * block, count = v.tiles - t0 < block ? v.tiles - t0 : block;
    bool finite[kMaxBlock];
    transformInput(v, t0, count, zeros, vbuf, finite);
    for (int k = 0; k < 16; ++k) {
      GemmArgs g;
      g.a = vbuf + k * count * c;
      g.b = v.u + k * c * f;
      g.c = mbuf + k * count * f;
      g.m = count;
      g.n = f;
      g.k = c;
      g.ars = c;
      g.aks = 1;
      g.bks = f;
      g.bcs = 1;
      g.ldc = f;
      g.overwrite = true;
      g.inPlace = true; // the workspace holds V and M
      kiln::kernels::gemmSerial(g);
    }
    transformOutput(v, t0, count, mbuf, finite);
    for (int64_t t = 0; t < count; ++t)
      if (!finite[t])
        directTiles(v, t0 + t, 1);
  }
}

} // namespace

extern "C" void kiln_kernel_conv2d_3x3_f32(uintptr_t input, uintptr_t filter, uintptr_t output,
                                           int64_t n, int64_t h, int64_t w, int64_t c,
                                           int64_t f, int64_t oh, int64_t ow, int64_t pad_top,
                                           int64_t pad_left, int32_t flags, uintptr_t scale,
                                           float scale_value, uintptr_t bias, float bias_value,
                                           float lo, float hi) {
  if (n <= 0 || oh <= 0 || ow <= 0 || f <= 0) return;
  Epilogue e{reinterpret_cast<const float *>(scale), reinterpret_cast<const float *>(bias),
             scale_value, bias_value, lo, hi};
  Conv v;
  v.in = reinterpret_cast<const float *>(input);
  v.filter = reinterpret_cast<const float *>(filter);
  v.out = reinterpret_cast<float *>(output);
  v.n = n, v.h = h, v.w = w, v.c = c, v.f = f, v.oh = oh, v.ow = ow;
  v.pt = pad_top, v.pl = pad_left;
  v.overwrite = flags & KILN_CONV2D_OVERWRITE;
  v.epi = (flags & KILN_CONV2D_EPILOGUE) ? &e : nullptr;
  v.tilesH = (oh + 1) / 2, v.tilesW = (ow + 1) / 2;
  v.tiles = n * v.tilesH * v.tilesW;
  // Blocks of tiles whose V and M fit in about 768 KiB (L2), a multiple of the register
  // tiles' 14 (AVX-512) and 6 (AVX2) rows.
  int64_t block = (768 * 1024 / int64_t(sizeof(float)) / 16) / (c + f);
  block = block < 42 ? 42 : block > kMaxBlock ? kMaxBlock : block / 42 * 42;
  v.block = block;
  // An empty sum, no memory for the transformed filter or a non-finite filter: the direct
  // sum (threads that find no workspace fall back to it too).
  float *u = c > 0 ? static_cast<float *>(
                         kiln_aligned_alloc(int64_t(sizeof(float)) * 16 * c * f, 64))
                   : nullptr;
  v.u = u != nullptr && transformFilter(v, u) ? u : nullptr;
  int64_t blocks = (v.tiles + block - 1) / block;
  // At least about a million multiply-adds per chunk of blocks.
  int64_t perBlock = 16 * block * c * f;
  int64_t grain = ((int64_t(1) << 20) + perBlock - 1) / perBlock;
  kiln_parallel_for(blocks, grain, runTiles, &v);
  kiln_aligned_free(u);
}
