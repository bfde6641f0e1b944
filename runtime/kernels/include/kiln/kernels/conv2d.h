/*
 * kiln/kernels/conv2d.h - 3x3 convolution kernel (Winograd F(4x4, 3x3)) called by compiled
 * models.
 *
 * Generated code calls it for f32 Conv2D with a 3x3 filter, unit strides and dilations and
 * enough channels (kiln-lower-kernel-calls); its symbol name is in kiln/runtime/abi.h. It
 * keeps no state and is thread-safe.
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
 * KILN_CONV2D_EPILOGUE each output channel j then gets min(max(v * scale(j) + bias(j), lo),
 * hi) as in kiln_kernel_matmul_epilogue_f32.
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
                                int64_t h, int64_t w, int64_t c, int64_t f, int64_t oh,
                                int64_t ow, int64_t pad_top, int64_t pad_left, int32_t flags,
                                uintptr_t scale, float scale_value, uintptr_t bias,
                                float bias_value, float lo, float hi);

#ifdef __cplusplus
}
#endif

#endif /* KILN_KERNELS_CONV2D_H */
