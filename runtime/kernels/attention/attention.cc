// kiln_kernel_attention_f32: per head and block of query rows, the scores' product into a
// buffer of the chunk's own, a softmax over each row there, and the product of the weights with v
// straight into the output (both products through the GEMM, gemm.h).
#include "kiln/kernels/attention.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "../matmul/gemm.h"
#include "kiln/runtime/parallel.h"

namespace kiln::kernels {
namespace {

// Floats of scores one work item holds: 64 KiB, in L2 beside the operands' rows (rows of
// more keys than that go one at a time). The buffer comes from malloc, once per chunk of
// work items: the calling thread's workspace holds the GEMM's packed operands, and a
// thread of an application that links the model may have a small stack.
constexpr int64_t kScoreFloats = 16384;
// Fewest multiply-adds worth handing to another thread (as matmul.cc's).
constexpr int64_t kMinParallelWork = int64_t(1) << 18;

// exp(x) for x <= 0 (a softmax's shifted scores), to about 2 ulp: x = n ln2 + r with
// |r| <= ln2/2, a degree-6 polynomial for exp(r), 2^n from the exponent bits. Inputs
// below -87.3 give 0 (TensorFlow's expf underflows there too); NaN stays NaN.
inline __m256 expNonPositive(__m256 x) {
  const __m256 lo = _mm256_set1_ps(-87.33654f);
  __m256 under = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);
  x = _mm256_max_ps(lo, x); // NaN: max returns its second operand
  __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  // 2^n for n in [-126, 0]: n + 127 in the exponent field (NaN's n converts to garbage,
  // but p is NaN then).
  __m256i e =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  __m256 y = _mm256_mul_ps(p, _mm256_castsi256_ps(e));
  return _mm256_andnot_ps(under, y);
}

// A row of `s` (n scores) becomes softmax(scale * s + mask) (no mask when `mask` is null):
// the maximum subtracted, exponentials, then multiplied by the reciprocal of their sum,
// each row in one order whatever the thread count.
void softmaxRow(float *s, int64_t n, float scale, const float *mask) {
  const __m256 vscale = _mm256_set1_ps(scale);
  const int64_t full = n / 8 * 8;
  const int tail = int(n - full);
  const __m256i tailMask =
      _mm256_cmpgt_epi32(_mm256_set1_epi32(tail), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256 vmax = _mm256_set1_ps(-__builtin_inff());
  for (int64_t j = 0; j < full; j += 8) {
    __m256 x = _mm256_mul_ps(_mm256_loadu_ps(s + j), vscale);
    if (mask)
      x = _mm256_add_ps(x, _mm256_loadu_ps(mask + j));
    _mm256_storeu_ps(s + j, x);
    vmax = _mm256_max_ps(x, vmax); // a NaN score stays NaN below
  }
  if (tail) {
    __m256 x = _mm256_mul_ps(_mm256_maskload_ps(s + full, tailMask), vscale);
    if (mask)
      x = _mm256_add_ps(x, _mm256_maskload_ps(mask + full, tailMask));
    _mm256_maskstore_ps(s + full, tailMask, x);
    x = _mm256_blendv_ps(_mm256_set1_ps(-__builtin_inff()), x, _mm256_castsi256_ps(tailMask));
    vmax = _mm256_max_ps(x, vmax);
  }
  float lanes[8];
  _mm256_storeu_ps(lanes, vmax);
  float m = lanes[0];
  for (int i = 1; i < 8; ++i)
    m = lanes[i] > m ? lanes[i] : m;
  const __m256 vm = _mm256_set1_ps(m);
  __m256 vsum = _mm256_setzero_ps();
  for (int64_t j = 0; j < full; j += 8) {
    __m256 e = expNonPositive(_mm256_sub_ps(_mm256_loadu_ps(s + j), vm));
    _mm256_storeu_ps(s + j, e);
    vsum = _mm256_add_ps(vsum, e);
  }
  if (tail) {
    __m256 e = expNonPositive(_mm256_sub_ps(_mm256_maskload_ps(s + full, tailMask), vm));
    e = _mm256_and_ps(e, _mm256_castsi256_ps(tailMask));
    _mm256_maskstore_ps(s + full, tailMask, e);
    vsum = _mm256_add_ps(vsum, e);
  }
  _mm256_storeu_ps(lanes, vsum);
  float sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
              ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  const __m256 inv = _mm256_set1_ps(1.0f / sum);
  for (int64_t j = 0; j < full; j += 8)
    _mm256_storeu_ps(s + j, _mm256_mul_ps(_mm256_loadu_ps(s + j), inv));
  if (tail)
    _mm256_maskstore_ps(s + full, tailMask,
                        _mm256_mul_ps(_mm256_maskload_ps(s + full, tailMask), inv));
}

// Where head (b, h)'s row 0 of an operand starts, and its row stride, in floats.
struct Operand {
  const float *base;
  int64_t batchStride, headStride, rowStride;
  Operand(uintptr_t p, bool seqMajor, int64_t heads, int64_t seq, int64_t width)
      : base(reinterpret_cast<const float *>(p)), batchStride(heads * seq * width),
        headStride(seqMajor ? width : seq * width), rowStride(seqMajor ? heads * width : width) {}
  const float *at(int64_t b, int64_t h, int64_t row) const {
    return base + b * batchStride + h * headStride + row * rowStride;
  }
};

struct Attention {
  Operand q, k, v, out;
  const float *mask; // null, or element (b, h, i, j) at b * maskStride[0] + ... + j
  int64_t maskStride[3];
  int64_t heads, sq, sk, d, dv, rows, blocks; // rows per block, blocks per head
  float scale;
};

void runItems(void *ctx, int64_t begin, int64_t end) {
  const Attention &a = *static_cast<const Attention *>(ctx);
  float *scores = static_cast<float *>(malloc(sizeof(float) * a.rows * a.sk));
  if (scores == nullptr) { // out of memory: NaN rather than a silent wrong answer
    for (int64_t item = begin; item < end; ++item) {
      int64_t head = item / a.blocks, r0 = item % a.blocks * a.rows;
      for (int64_t i = r0; i < r0 + a.rows && i < a.sq; ++i) {
        float *row = const_cast<float *>(a.out.at(head / a.heads, head % a.heads, i));
        for (int64_t j = 0; j < a.dv; ++j)
          row[j] = __builtin_nanf("");
      }
    }
    return;
  }
  for (int64_t item = begin; item < end; ++item) {
    int64_t head = item / a.blocks, r0 = item % a.blocks * a.rows;
    int64_t b = head / a.heads, h = head % a.heads;
    int64_t rows = a.sq - r0 < a.rows ? a.sq - r0 : a.rows;
    if (a.d > 0) {
      GemmArgs s; // scores = q k^T: op(b)(kk, j) = k[j][kk]
      s.a = a.q.at(b, h, r0);
      s.ars = a.q.rowStride;
      s.aks = 1;
      s.b = a.k.at(b, h, 0);
      s.bks = 1;
      s.bcs = a.k.rowStride;
      s.c = scores;
      s.ldc = a.sk;
      s.m = rows;
      s.n = a.sk;
      s.k = a.d;
      s.overwrite = true;
      gemmSerial(s);
    } else {
      memset(scores, 0, sizeof(float) * rows * a.sk);
    }
    for (int64_t i = 0; i < rows; ++i)
      softmaxRow(scores + i * a.sk, a.sk, a.scale,
                 a.mask ? a.mask + b * a.maskStride[0] + h * a.maskStride[1] +
                              (r0 + i) * a.maskStride[2]
                        : nullptr);
    GemmArgs o; // out = weights v
    o.a = scores;
    o.ars = a.sk;
    o.aks = 1;
    o.b = a.v.at(b, h, 0);
    o.bks = a.v.rowStride;
    o.bcs = 1;
    o.c = const_cast<float *>(a.out.at(b, h, r0));
    o.ldc = a.out.rowStride;
    o.m = rows;
    o.n = a.dv;
    o.k = a.sk;
    o.overwrite = true;
    gemmSerial(o);
  }
  free(scores);
}

} // namespace
} // namespace kiln::kernels

using namespace kiln::kernels;

namespace {

void attention(uintptr_t q, uintptr_t k, uintptr_t v, const float *mask,
               const int64_t maskStride[3], uintptr_t out, int64_t batch, int64_t heads, int64_t sq,
               int64_t sk, int64_t d, int64_t dv, float scale, int32_t flags) {
  if (batch <= 0 || heads <= 0 || sq <= 0 || dv <= 0)
    return;
  Operand o(out, flags & KILN_ATTENTION_OUT_SEQ_MAJOR, heads, sq, dv);
  if (sk <= 0) { // a weighted sum over no keys
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < sq; ++i)
          memset(const_cast<float *>(o.at(b, h, i)), 0, sizeof(float) * dv);
    return;
  }
  int64_t fit = kScoreFloats / sk > 0 ? kScoreFloats / sk : 1;
  int64_t rows = fit < sq ? fit : sq;
  int64_t blocks = (sq + rows - 1) / rows;
  Attention a{Operand(q, flags & KILN_ATTENTION_Q_SEQ_MAJOR, heads, sq, d),
              Operand(k, flags & KILN_ATTENTION_K_SEQ_MAJOR, heads, sk, d),
              Operand(v, flags & KILN_ATTENTION_V_SEQ_MAJOR, heads, sk, dv),
              o,
              mask,
              {maskStride[0], maskStride[1], maskStride[2]},
              heads,
              sq,
              sk,
              d,
              dv,
              rows,
              blocks,
              scale};
  int64_t work = rows * sk * (d + dv);
  kiln_parallel_for(batch * heads * blocks, (kMinParallelWork + work - 1) / work, runItems, &a);
}

} // namespace

extern "C" void kiln_kernel_attention_f32(uintptr_t q, uintptr_t k, uintptr_t v, uintptr_t out,
                                          int64_t batch, int64_t heads, int64_t sq, int64_t sk,
                                          int64_t d, int64_t dv, float scale, int32_t flags) {
  const int64_t none[3] = {0, 0, 0};
  attention(q, k, v, nullptr, none, out, batch, heads, sq, sk, d, dv, scale, flags);
}

extern "C" void kiln_kernel_attention_masked_f32(uintptr_t q, uintptr_t k, uintptr_t v,
                                                 uintptr_t mask, uintptr_t out, int64_t batch,
                                                 int64_t heads, int64_t sq, int64_t sk, int64_t d,
                                                 int64_t dv, float scale, int64_t mask_batch_stride,
                                                 int64_t mask_head_stride, int64_t mask_row_stride,
                                                 int32_t flags) {
  const int64_t strides[3] = {mask_batch_stride, mask_head_stride, mask_row_stride};
  attention(q, k, v, reinterpret_cast<const float *>(mask), strides, out, batch, heads, sq, sk, d,
            dv, scale, flags);
}
