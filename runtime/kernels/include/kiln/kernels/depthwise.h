/*
 * kiln/kernels/depthwise.h - depthwise 2-D convolution kernel called by compiled models.
 *
 * Generated code calls it for every f32 DepthwiseConv2dNative (kiln-lower-kernel-calls);
 * its symbol name is in kiln/runtime/abi.h. It keeps no state and is thread-safe.
 */
#ifndef KILN_KERNELS_DEPTHWISE_H
#define KILN_KERNELS_DEPTHWISE_H

#include <stdint.h>

#include "kiln/runtime/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * output[b, y, x, ch * m + j] (+)= sum over (i, k) of
 *     input[b, y * stride_h + i * dilation_h - pad_top, x * stride_w + k * dilation_w - pad_left, ch]
 *     * filter[i, k, ch, j]
 * with input NHWC (n x h x w x c), filter kh x kw x c x m, output n x oh x ow x (c * m), all
 * dense; positions outside the input count as zeros, so the input needs no padded copy.
 * With KILN_DEPTHWISE_OVERWRITE the output is written, else added to. With
 * KILN_DEPTHWISE_EPILOGUE, each output channel j then gets the epilogue of
 * kiln_kernel_matmul_epilogue_f32 (kiln/kernels/matmul.h): min(max(v * scale(j) + bias(j),
 * lo), hi). Each output element is summed in one order (i, then k) with fused multiply-adds,
 * so the result does not depend on the thread budget or the CPU. Pointers are addresses, as
 * generated code holds them.
 */
void kiln_kernel_depthwise_conv2d_f32(uintptr_t input, uintptr_t filter, uintptr_t output,
                                      int64_t n, int64_t h, int64_t w, int64_t c, int64_t m,
                                      int64_t kh, int64_t kw, int64_t oh, int64_t ow,
                                      int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                                      int64_t dilation_w, int64_t pad_top, int64_t pad_left,
                                      int32_t flags, uintptr_t scale, float scale_value,
                                      uintptr_t bias, float bias_value, float lo, float hi);

#ifdef __cplusplus
}
#endif

#endif /* KILN_KERNELS_DEPTHWISE_H */
