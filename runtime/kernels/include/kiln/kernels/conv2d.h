/*
 * kiln/kernels/conv2d.h - convolution kernels called by compiled models.
 *
 * Generated code calls the first (Winograd F(4x4, 3x3)) for f32 Conv2D with a 3x3 filter,
 * unit strides and dilations and enough channels, the second for f32 Conv2D whose window
 * depth (kh * kw * c) is small, and the third for the other f32 Conv2D but 1x1 ones with
 * unit strides, which are plain matrix products (kiln-lower-kernel-calls); their symbol
 * names are in kiln/runtime/abi.h. They keep no state and are thread-safe.
 */
#ifndef KILN_KERNELS_CONV2D_H
#define KILN_KERNELS_CONV2D_H

#include <stdint.h>

#include "kiln/runtime/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * output[b, y, x, j] (+)= sum over (i, k, ch) of
 *     input[b, y + i - pad_top, x + k - pad_left, ch] * filter[i, k, ch, j]
 * with input NHWC (n x h x w x c), filter 3 x 3 x c x f (HWIO), output n x oh x ow x f, all
 * dense; positions outside the input count as zeros, so the input needs no padded copy.
 * With KILN_CONV2D_OVERWRITE the output is written, else added to; with
 * KILN_CONV2D_EPILOGUE each output channel j then gets act(min(max(v * scale(j) + bias(j),
 * lo), hi)) as in kiln_kernel_matmul_epilogue_f32. With KILN_CONV2D_MAX_POOL (which implies
 * overwriting) the output is instead the 2x2, stride 2 VALID max pool of that result,
 * n x oh/2 x ow/2 x f, taken as TensorFlow's MaxPool (kiln/kernels/pool.h): each pooled
 * value from the four results it covers, none of which is written.
 *
 * It computes by Winograd's minimal filtering F(4x4, 3x3) (Lavin and Gray, 2016): each 4x4
 * block of outputs from a 6x6 block of inputs with 36 multiplications per channel pair
 * instead of 144, the multiplications being 36 matrix products that share the GEMM of
 * kiln_kernel_matmul_f32. The transforms scale by up to 8 and add rounding: results are
 * within about 100 ulp of the direct sum times the sum's magnitude (3e-6 measured), and do
 * not depend on the thread budget. Output tiles with an infinity or NaN among their inputs
 * are summed directly, so infinities stay infinities.
 */
void kiln_kernel_conv2d_3x3_f32(uintptr_t input, uintptr_t filter, uintptr_t output, int64_t n,
                                int64_t h, int64_t w, int64_t c, int64_t f, int64_t oh, int64_t ow,
                                int64_t pad_top, int64_t pad_left, int32_t flags, uintptr_t scale,
                                float scale_value, uintptr_t bias, float bias_value, float lo,
                                float hi, int32_t activation);

/*
 * kiln_kernel_conv2d_3x3_f32 for a filter that never changes (a model's constant weights):
 * `cache` is the address of a uintptr_t, zero before the first call, where the first call
 * keeps the transformed filter (36 x c x f floats from kiln_aligned_alloc, or 1 when the
 * filter holds an infinity or NaN) for every later call to use instead of transforming the
 * filter again; concurrent first calls agree on one. The results are the same, bit for bit,
 * as kiln_kernel_conv2d_3x3_f32's. The cache lives as long as the process (whoever owns the
 * slot may free a pointer other than 1 with kiln_aligned_free once no call can run).
 */
void kiln_kernel_conv2d_3x3_cached_f32(uintptr_t input, uintptr_t filter, uintptr_t cache,
                                       uintptr_t output, int64_t n, int64_t h, int64_t w, int64_t c,
                                       int64_t f, int64_t oh, int64_t ow, int64_t pad_top,
                                       int64_t pad_left, int32_t flags, uintptr_t scale,
                                       float scale_value, uintptr_t bias, float bias_value,
                                       float lo, float hi, int32_t activation);

/*
 * output[b, y, x, j] (+)= sum over (i, k, ch) of
 *     input[b, y * stride_h + i * dilation_h - pad_top, x * stride_w + k * dilation_w - pad_left,
 * ch]
 *     * filter[i, k, ch, j]
 * with input NHWC (n x h x w x c), filter kh x kw x c x f (HWIO), output n x oh x ow x f, all
 * dense; positions outside the input count as zeros. Flags (KILN_CONV2D_MAX_POOL too) and
 * epilogue as kiln_kernel_conv2d_3x3_f32. It computes directly, without a patches matrix: a
 * register tile of output pixels times output channels takes, for each window tap and input
 * channel, one load of the filter row and one broadcast of each pixel's input value, so it suits
 * windows of small depth (kh * kw * c, the first convolution of an image model: 9 or 27),
 * where a patches matrix would be as large as the output and the GEMM's depth too short to
 * pay for its loads and stores. Each output element is summed in the order (i, k, ch) with
 * fused multiply-adds; the result does not depend on the thread budget.
 */
void kiln_kernel_conv2d_direct_f32(uintptr_t input, uintptr_t filter, uintptr_t output, int64_t n,
                                   int64_t h, int64_t w, int64_t c, int64_t f, int64_t kh,
                                   int64_t kw, int64_t oh, int64_t ow, int64_t stride_h,
                                   int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                                   int64_t pad_top, int64_t pad_left, int32_t flags,
                                   uintptr_t scale, float scale_value, uintptr_t bias,
                                   float bias_value, float lo, float hi, int32_t activation);

/*
 * The convolution kiln_kernel_conv2d_direct_f32 computes (any window, strides, dilations
 * and padding; flags and epilogue as kiln_kernel_conv2d_3x3_f32, but no max pool), as the
 * matrix product of its windows (n*oh*ow x kh*kw*c) and its filter viewed as
 * (kh*kw*c) x f; with KILN_CONV2D_PACKED_FILTER the filter is that matrix in the packed
 * layout of KILN_MATMUL_PACKED_B. The product's packing gathers each block of windows
 * straight from the input (zeros outside it), so neither a padded copy of the input nor a
 * patches matrix is written: for windows too deep for the direct kernel and other than
 * 3x3 (1-D convolutions, 1x7 and 7x1, 5x5, strided ones). Each output element is the
 * kiln_kernel_matmul_f32 sum of the patches matrix's row and the filter's column, bit for
 * bit, for every thread budget.
 */
void kiln_kernel_conv2d_gemm_f32(uintptr_t input, uintptr_t filter, uintptr_t output, int64_t n,
                                 int64_t h, int64_t w, int64_t c, int64_t f, int64_t kh, int64_t kw,
                                 int64_t oh, int64_t ow, int64_t stride_h, int64_t stride_w,
                                 int64_t dilation_h, int64_t dilation_w, int64_t pad_top,
                                 int64_t pad_left, int32_t flags, uintptr_t scale,
                                 float scale_value, uintptr_t bias, float bias_value, float lo,
                                 float hi, int32_t activation);

#ifdef __cplusplus
}
#endif

#endif /* KILN_KERNELS_CONV2D_H */
