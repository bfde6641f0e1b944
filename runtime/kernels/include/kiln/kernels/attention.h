/*
 * kiln/kernels/attention.h - scaled dot-product attention in one kernel.
 *
 * Generated code calls it where a graph computes softmax(scale * Q K^T) V
 * (kiln-lower-fuse-attention); its symbol name is in kiln/runtime/abi.h. The scores of a
 * block of query rows live in a 64 KiB buffer (from malloc, one per chunk of work), from
 * the product that makes them to the product that consumes them (rows of more than 16384
 * keys one at a time); if malloc fails, the rows it cannot compute are NaN. It keeps no
 * state and is thread-safe.
 */
#ifndef KILN_KERNELS_ATTENTION_H
#define KILN_KERNELS_ATTENTION_H

#include <stdint.h>

#include "kiln/runtime/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * out = softmax(scale * q k^T) v for each of `batch` x `heads` heads, where q is sq x d,
 * k is sk x d, v is sk x dv and out sq x dv per head, the softmax over each row of sk
 * scores (its maximum subtracted first, as TensorFlow's Softmax does). Each operand is
 * dense, [batch, heads, seq, x], or [batch, seq, heads, x] with its
 * KILN_ATTENTION_*_SEQ_MAJOR flag; with no keys (sk = 0) out is zeros. The work is
 * split over heads and blocks of query rows, across the calling thread's budget; the
 * result is the same, bit for bit, for every budget.
 */
void kiln_kernel_attention_f32(uintptr_t q, uintptr_t k, uintptr_t v, uintptr_t out, int64_t batch,
                               int64_t heads, int64_t sq, int64_t sk, int64_t d, int64_t dv,
                               float scale, int32_t flags);

/*
 * The same with an additive mask: out = softmax(scale * q k^T + mask) v, where the mask's
 * element for head (b, h), query row i and key j is
 *     mask[b * mask_batch_stride + h * mask_head_stride + i * mask_row_stride + j]
 * (a stride of 0 broadcasts a dimension: BERT's mask [batch, 1, 1, sk] has
 * mask_batch_stride = sk and the others 0). The sum is rounded after the scaling, as
 * TensorFlow's Mul then AddV2 round it; a row masked whole with -inf gives NaN, as there.
 */
void kiln_kernel_attention_masked_f32(uintptr_t q, uintptr_t k, uintptr_t v, uintptr_t mask,
                                      uintptr_t out, int64_t batch, int64_t heads, int64_t sq,
                                      int64_t sk, int64_t d, int64_t dv, float scale,
                                      int64_t mask_batch_stride, int64_t mask_head_stride,
                                      int64_t mask_row_stride, int32_t flags);

#ifdef __cplusplus
}
#endif

#endif /* KILN_KERNELS_ATTENTION_H */
