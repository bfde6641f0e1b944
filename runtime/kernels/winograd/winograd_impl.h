// Internal: the Winograd kernel's input and output transforms and its tile loop, a template
// over the vector type W of the transforms (V8, eight lanes, in winograd.cc, compiled for
// AVX2; V16 in winograd_avx512.cc). Lanes left over after the W-wide ones go eight at a
// time, then one at a time, through the same code.
#ifndef KILN_KERNELS_WINOGRAD_WINOGRAD_IMPL_H
#define KILN_KERNELS_WINOGRAD_WINOGRAD_IMPL_H

#include "winograd.h"

#include "../matmul/gemm.h"
#include "kiln/runtime/parallel.h"

namespace kiln::kernels::winograd {
namespace {

// GCC's vector extension: eight or sixteen lanes, or one (float), with the same code.
typedef float V8 __attribute__((vector_size(32)));
typedef float V16 __attribute__((vector_size(64)));
template <class T> inline T load(const float *p) {
  T v;
  __builtin_memcpy(&v, p, sizeof(T));
  return v;
}
template <class T> inline void store(float *p, T v) { __builtin_memcpy(p, &v, sizeof(T)); }
template <class T> inline T splat(float x) { return T{} + x; }

// The lanes of a W-wide step (W is V8 or V16).
template <class W> constexpr int64_t kWide = sizeof(W) / sizeof(float);

// B^T x for a column (or row) x of 6: the input transform's 1-D step.
template <class T> inline void inputStep(const T (&x)[6], T (&y)[6]) {
  const T four = splat<T>(4.0f), five = splat<T>(5.0f), two = splat<T>(2.0f);
  y[0] = four * x[0] - five * x[2] + x[4];
  y[1] = (x[3] + x[4]) - four * (x[1] + x[2]);
  y[2] = (x[4] - x[3]) + four * (x[1] - x[2]);
  y[3] = (x[4] - x[2]) + two * (x[3] - x[1]);
  y[4] = (x[4] - x[2]) - two * (x[3] - x[1]);
  y[5] = four * x[1] - five * x[3] + x[5];
}

// Lanes [ch, ch + |T|) of the input transform B^T d B of one tile, d read through p.
template <class T>
inline void inputLanes(const float *const (&p)[kIn][kIn], int64_t ch, float *o, int64_t plane) {
  T s[kIn][kIn]; // B^T d, by columns
  for (int k = 0; k < kIn; ++k) {
    T d[kIn], y[kIn];
    for (int i = 0; i < kIn; ++i)
      d[i] = load<T>(p[i][k] + ch);
    inputStep<T>(d, y);
    for (int i = 0; i < kIn; ++i)
      s[i][k] = y[i];
  }
  for (int i = 0; i < kIn; ++i) { // (B^T d) B, by rows
    T y[kIn];
    inputStep<T>(s[i], y);
    for (int k = 0; k < kIn; ++k)
      store(o + (i * kIn + k) * plane + ch, y[k]);
  }
}

// V[k][t][ch] = (B^T d B)[k] for tiles [t0, t0 + count), with `zeros` (c floats of 0)
// standing in for input pixels outside the image. finite[t] says whether tile t's inputs
// are all finite: the transforms would turn an infinity into inf - inf = NaN in outputs
// whose direct sum is infinite, so such tiles are summed directly instead.
template <class W>
void transformInput(const Conv &v, int64_t t0, int64_t count, const float *zeros, float *out,
                    bool *finite) {
  const int64_t c = v.c, plane = count * c;
  for (int64_t t = 0; t < count; ++t) {
    int64_t tile = t0 + t;
    int64_t b = tile / (v.tilesH * v.tilesW), rest = tile % (v.tilesH * v.tilesW);
    int64_t y0 = (rest / v.tilesW) * kOut - v.pt, x0 = (rest % v.tilesW) * kOut - v.pl;
    const float *p[kIn][kIn];
    bool ok = true;
    for (int i = 0; i < kIn; ++i)
      for (int k = 0; k < kIn; ++k) {
        int64_t y = y0 + i, x = x0 + k;
        bool inside = y >= 0 && y < v.h && x >= 0 && x < v.w;
        int64_t pixel = (b * v.h + y) * v.w + x;
        p[i][k] = inside ? v.in + pixel * c : zeros;
        ok = ok && (!inside || !v.bad[pixel]);
      }
    finite[t] = ok;
    float *o = out + t * c;
    int64_t ch = 0;
    if constexpr (kWide<W> > 8)
      for (; ch + kWide<W> <= c; ch += kWide<W>)
        inputLanes<W>(p, ch, o, plane);
    for (; ch + 8 <= c; ch += 8)
      inputLanes<V8>(p, ch, o, plane);
    for (; ch < c; ++ch)
      inputLanes<float>(p, ch, o, plane);
  }
}

// A^T x for a column (or row) x of 6: the output transform's 1-D step.
template <class T> inline void outputStep(const T (&x)[kIn], T (&y)[kOut]) {
  T a = x[1] + x[2], b = x[1] - x[2], c = x[3] + x[4], d = x[3] - x[4];
  y[0] = x[0] + a + c;
  y[1] = b + splat<T>(2.0f) * d;
  y[2] = a + splat<T>(4.0f) * c;
  y[3] = b + splat<T>(8.0f) * d + x[5];
}

// Lanes [j, j + |T|) of the output transform A^T m A of one tile: y[i][k], 4 x 4.
template <class T> inline void outputTransform(const float *m, int64_t plane, T (&y)[kOut][kOut]) {
  T s[kOut][kIn]; // A^T m, by columns
  for (int k = 0; k < kIn; ++k) {
    T x[kIn], r[kOut];
    for (int i = 0; i < kIn; ++i)
      x[i] = load<T>(m + (i * kIn + k) * plane);
    outputStep<T>(x, r);
    for (int i = 0; i < kOut; ++i)
      s[i][k] = r[i];
  }
  for (int i = 0; i < kOut; ++i)
    outputStep<T>(s[i], y[i]); // (A^T m) A, by rows
}

// The epilogue on the lanes of T from channel j: as Epilogue::apply (a NaN stays NaN).
template <class T> inline T finish(T x, const Epilogue &e, int64_t j) {
  if (e.scales())
    x = x * (e.scale ? load<T>(e.scale + j) : splat<T>(e.scaleValue));
  if (e.biases())
    x = x + (e.bias ? load<T>(e.bias + j) : splat<T>(e.biasValue));
  T lo = splat<T>(e.lo), hi = splat<T>(e.hi);
  x = x < lo ? lo : x; // lanes compare false for NaN and keep x
  x = x > hi ? hi : x;
  return e.swishes() ? swish(x) : x;
}
template <> inline float finish(float x, const Epilogue &e, int64_t j) { return e.apply(x, j); }

// Lanes [j, j + |T|) of one tile's outputs from m, stored (or added) through q (null: outside
// the output) with the epilogue; with v.pool, q[i][k] for i, k < 2 are the pooled outputs of
// the tile's four 2x2 windows.
template <class T>
inline void outputLanes(const Conv &v, const float *m, int64_t plane, float *const (&q)[kOut][kOut],
                        int64_t j) {
  T y[kOut][kOut];
  outputTransform<T>(m, plane, y);
  if (v.pool) {
    for (int i = 0; i < kOut / 2; ++i)
      for (int k = 0; k < kOut / 2; ++k) {
        if (!q[i][k])
          continue;
        T r = splat<T>(-__FLT_MAX__);
        for (int di = 0; di < 2; ++di)
          for (int dk = 0; dk < 2; ++dk) {
            T x = y[2 * i + di][2 * k + dk];
            r = poolMax<T>(r, v.epi ? finish<T>(x, *v.epi, j) : x);
          }
        store<T>(q[i][k] + j, r);
      }
    return;
  }
  for (int i = 0; i < kOut; ++i)
    for (int k = 0; k < kOut; ++k) {
      if (!q[i][k])
        continue;
      T r = v.overwrite ? y[i][k] : load<T>(q[i][k] + j) + y[i][k];
      store<T>(q[i][k] + j, v.epi ? finish<T>(r, *v.epi, j) : r);
    }
}

// The 4x4 outputs A^T m A of tiles [t0, t0 + count), output channels [f0, f0 + fw), from
// M[k][t][j - f0], stored (or added) with the epilogue, clipped to the output; tiles with
// non-finite inputs are left out.
template <class W>
void transformOutput(const Conv &v, int64_t t0, int64_t count, const float *m, const bool *finite,
                     int64_t f0, int64_t fw) {
  const int64_t f = v.f, plane = count * fw;
  for (int64_t t = 0; t < count; ++t) {
    if (!finite[t])
      continue;
    int64_t tile = t0 + t;
    int64_t b = tile / (v.tilesH * v.tilesW), rest = tile % (v.tilesH * v.tilesW);
    int64_t y0 = (rest / v.tilesW) * kOut, x0 = (rest % v.tilesW) * kOut;
    float *q[kOut][kOut];
    if (v.pool) { // the pooled outputs (oh / 2 x ow / 2) of the tile's 2x2 windows
      int64_t ph = v.oh / 2, pw = v.ow / 2;
      for (int i = 0; i < kOut; ++i)
        for (int k = 0; k < kOut; ++k)
          q[i][k] = i < kOut / 2 && k < kOut / 2 && y0 / 2 + i < ph && x0 / 2 + k < pw
                        ? v.out + ((b * ph + y0 / 2 + i) * pw + x0 / 2 + k) * f
                        : nullptr;
    } else {
      for (int i = 0; i < kOut; ++i)
        for (int k = 0; k < kOut; ++k)
          q[i][k] = y0 + i < v.oh && x0 + k < v.ow
                        ? v.out + ((b * v.oh + y0 + i) * v.ow + x0 + k) * f
                        : nullptr;
    }
    const float *src = m + t * fw - f0; // src + j: channel j's value
    int64_t j = f0, end = f0 + fw;
    if constexpr (kWide<W> > 8)
      for (; j + kWide<W> <= end; j += kWide<W>)
        outputLanes<W>(v, src + j, plane, q, j);
    for (; j + 8 <= end; j += 8)
      outputLanes<V8>(v, src + j, plane, q, j);
    for (; j < end; ++j)
      outputLanes<float>(v, src + j, plane, q, j);
  }
}

template <class W> void runTiles(void *ctx, int64_t begin, int64_t end) {

  const Conv &v = *static_cast<const Conv *>(ctx);
  const int64_t c = v.c, f = v.f, block = v.block;
  // V (36 x block x c), M (36 x block x f) and a row of zeros for the padding.
  float *ws = static_cast<float *>(
      kiln_parallel_workspace(int64_t(sizeof(float)) * (kPositions * block * (c + f) + c)));
  // Item i is part i % fParts of block i / fParts. A block's first part alone computes
  // tiles by the direct sum, for all channels: the whole block when there is no memory
  // for the transforms, else the tiles with non-finite inputs.
  auto blockTiles = [&](int64_t item, int64_t &t0) {
    t0 = item / v.fParts * block;
    return v.tiles - t0 < block ? v.tiles - t0 : block;
  };
  if (ws == nullptr || v.u == nullptr) {
    for (int64_t item = begin; item < end; ++item) {
      int64_t t0, count = blockTiles(item, t0);
      if (item % v.fParts == 0)
        directTiles(v, t0, count);
    }
    return;
  }
  float *vbuf = ws, *mbuf = ws + kPositions * block * c, *zeros = mbuf + kPositions * block * f;
  for (int64_t ch = 0; ch < c; ++ch)
    zeros[ch] = 0.0f;
  for (int64_t item = begin; item < end; ++item) {
    // Each part transforms its block's input again: 36 x count x c additions, against
    // 36 x count x c x fw multiply-adds of its products.
    int64_t t0, count = blockTiles(item, t0);
    int64_t f0 = item % v.fParts * v.fStep, fw = f - f0 < v.fStep ? f - f0 : v.fStep;
    bool finite[kMaxBlock];
    transformInput<W>(v, t0, count, zeros, vbuf, finite);
    for (int k = 0; k < kPositions; ++k) {
      GemmArgs g;
      g.a = vbuf + k * count * c;
      g.b = v.u + k * c * f + f0;
      g.c = mbuf + k * count * fw;
      g.m = count;
      g.n = fw;
      g.k = c;
      g.ars = c;
      g.aks = 1;
      g.bks = f;
      g.bcs = 1;
      g.ldc = fw;
      g.overwrite = true;
      g.inPlace = true; // the workspace holds V and M
      kiln::kernels::gemmSerial(g);
    }
    transformOutput<W>(v, t0, count, mbuf, finite, f0, fw);
    if (f0 == 0)
      for (int64_t t = 0; t < count; ++t)
        if (!finite[t])
          directTiles(v, t0 + t, 1);
  }
}

} // namespace
} // namespace kiln::kernels::winograd

#endif // KILN_KERNELS_WINOGRAD_WINOGRAD_IMPL_H
