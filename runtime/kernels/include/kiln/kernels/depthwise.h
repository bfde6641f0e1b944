/*
 * kiln/kernels/depthwise.h - depthwise 2-D convolution kernels called by compiled models.
 *
 * Generated code calls the first for every f32 DepthwiseConv2dNative
 * (kiln-lower-kernel-calls), and the second where a 1x1 convolution's result only feeds
 * one (kiln-lower-fuse-kernel-calls); their symbol names are in kiln/runtime/abi.h. They
 * keep no state and are thread-safe.
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
 *     input[b, y * stride_h + i * dilation_h - pad_top, x * stride_w + k * dilation_w - pad_left,
 * ch]
 *     * filter[i, k, ch, j]
 * with input NHWC (n x h x w x c), filter kh x kw x c x m, output n x oh x ow x (c * m), all
 * dense; positions outside the input count as zeros, so the input needs no padded copy.
 * With KILN_DEPTHWISE_OVERWRITE the output is written, else added to. With
 * KILN_DEPTHWISE_EPILOGUE, each output channel j then gets the epilogue of
 * kiln_kernel_matmul_epilogue_f32 (kiln/kernels/matmul.h): act(min(max(v * scale(j) +
 * bias(j), lo), hi)). Each output element is summed in one order (i, then k) with fused
 * multiply-adds, so the result does not depend on the thread budget or the CPU. Pointers are
 * addresses, as generated code holds them.
 */
void kiln_kernel_depthwise_conv2d_f32(uintptr_t input, uintptr_t filter, uintptr_t output,
                                      int64_t n, int64_t h, int64_t w, int64_t c, int64_t m,
                                      int64_t kh, int64_t kw, int64_t oh, int64_t ow,
                                      int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                                      int64_t dilation_w, int64_t pad_top, int64_t pad_left,
                                      int32_t flags, uintptr_t scale, float scale_value,
                                      uintptr_t bias, float bias_value, float lo, float hi,
                                      int32_t activation);

/*
 * A 1x1 convolution (a matrix product with its epilogue) and the depthwise convolution of
 * its result, without writing that result to memory:
 *     mid[b, y, x, :] = input[b, y, x, :] (cin channels) * weights (cin x c), then the
 *                       epilogue scale1/bias1/lo1/hi1/activation1 on each channel
 *     output (n x oh x ow x c) = the depthwise convolution of mid (n x h x w x c) by
 *                       filter (kh x kw x c x 1), as kiln_kernel_depthwise_conv2d_f32
 * The output is written (KILN_DEPTHWISE_OVERWRITE is implied); KILN_DEPTHWISE_EPILOGUE
 * applies the second epilogue (scale2 ...). The first always applies: scale 1, bias 0 and
 * the infinities as bounds make it none. Each thread computes the rows of mid its output
 * rows need, once each, into a few rows of its workspace, so the expanded tensor of an
 * inverted residual block (MobileNetV2) stays in cache. The result is, bit for bit, that of
 * kiln_kernel_matmul_epilogue_f32 (KILN_MATMUL_OVERWRITE) followed by
 * kiln_kernel_depthwise_conv2d_f32 on its result, for every thread budget.
 */
void kiln_kernel_pointwise_depthwise_f32(
    uintptr_t input, uintptr_t weights, uintptr_t filter, uintptr_t output, int64_t n, int64_t h,
    int64_t w, int64_t cin, int64_t c, int64_t kh, int64_t kw, int64_t oh, int64_t ow,
    int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w, int64_t pad_top,
    int64_t pad_left, int32_t flags, uintptr_t scale1, float scale1_value, uintptr_t bias1,
    float bias1_value, float lo1, float hi1, int32_t activation1, uintptr_t scale2,
    float scale2_value, uintptr_t bias2, float bias2_value, float lo2, float hi2,
    int32_t activation2);

#ifdef __cplusplus
}
#endif

#endif /* KILN_KERNELS_DEPTHWISE_H */
