/*
 * kiln/kernels/pool.h - 2-D pooling kernels called by compiled models.
 *
 * Generated code calls kiln_kernel_max_pool2d_f32 for every f32 MaxPool
 * (kiln-lower-kernel-calls); its symbol name is in kiln/runtime/abi.h. It keeps no state
 * and is thread-safe.
 */
#ifndef KILN_KERNELS_POOL_H
#define KILN_KERNELS_POOL_H

#include <stdint.h>

#include "kiln/runtime/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * output[b, y, x, ch] = max over (i, k) of
 *     input[b, y * stride_h + i - pad_top, x * stride_w + k - pad_left, ch]
 * for i < kh, k < kw, over the positions inside the input only, with input NHWC
 * (n x h x w x c) and output n x oh x ow x c, both dense. The maximum is TensorFlow's: it
 * starts from the lowest finite float and takes each value greater than it, so NaNs are
 * passed over, and a window of NaNs, of -inf or with no position inside the input gives
 * -FLT_MAX. The output is written; the result does not depend on the thread budget.
 * Pointers are addresses, as generated code holds them.
 */
void kiln_kernel_max_pool2d_f32(uintptr_t input, uintptr_t output, int64_t n, int64_t h, int64_t w,
                                int64_t c, int64_t oh, int64_t ow, int64_t kh, int64_t kw,
                                int64_t stride_h, int64_t stride_w, int64_t pad_top,
                                int64_t pad_left);

#ifdef __cplusplus
}
#endif

#endif /* KILN_KERNELS_POOL_H */
