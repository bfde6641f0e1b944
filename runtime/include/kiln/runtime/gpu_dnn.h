/*
 * kiln/runtime/gpu_dnn.h - convolutions on an NVIDIA GPU through cuDNN, loaded on first
 * use. Like the driver (kiln/runtime/gpu.h) and cuBLAS (gpu_blas.h), cuDNN is opened with
 * dlopen: the library the environment variable KILN_LIBCUDNN names, else libcudnn.so.9,
 * else libcudnn.so. Nothing links against it, so a program that never convolves on a GPU
 * never looks for it; when it is missing, a convolution fails with KILN_STATUS_NOT_FOUND
 * and "no cuDNN: " followed by the reason.
 *
 * One cuDNN handle per device, created on the device's first convolution and kept for the
 * life of the process, with a workspace in device memory that grows to what the largest
 * algorithm chosen asks for (at most KILN_GPU_DNN_MAX_WORKSPACE bytes). Each distinct
 * convolution (its sizes, strides, padding, dilations and groups) is planned once: its
 * descriptors and the algorithm cuDNN's heuristics rank first among those computing in
 * plain f32 (CUDNN_FMA_MATH: no TF32 tensor cores; any, tensor cores included, for a
 * convolution with `tf32`) are kept in a table of
 * KILN_GPU_DNN_MAX_PLANS plans; more distinct convolutions than that are planned on each
 * call. Thread-safety: any thread may call; convolutions on one device are serialised.
 */
#ifndef KILN_RUNTIME_GPU_DNN_H
#define KILN_RUNTIME_GPU_DNN_H

#include <stdint.h>

#include "kiln/runtime/abi.h"
#include "kiln/runtime/gpu.h"
#include "kiln/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KILN_GPU_DNN_MAX_PLANS = 256 };

/* A 2-D convolution, NHWC: input n x h x w x c, filter f x kh x kw x (c / groups) (cuDNN's
 * NHWC filter layout, "KRSC"), output n x oh x ow x f; output channel j reads the input
 * channels of group j / (f / groups). Zero padding pad_h rows above and below and pad_w
 * columns left and right (cuDNN pads symmetrically), cross-correlation as TensorFlow's
 * Conv2D computes it. */
typedef struct kiln_gpu_conv2d {
  int64_t n, h, w, c, f, kh, kw, oh, ow;
  int64_t stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w, groups;
  int64_t tf32; /* 1: algorithms on TF32 tensor cores may be chosen; 0: plain f32 only */
} kiln_gpu_conv2d_t;

/*
 * output = conv(input, filter) (+ output unless `overwrite`), f32 in device memory, by
 * cudnnConvolutionForward on `stream` (NULL: the default stream). Sizes that are not
 * positive, do not fit cuDNN's int, or do not give oh x ow are an error naming them.
 */
kiln_status_t kiln_gpu_conv2d_f32(kiln_gpu_t *gpu, const kiln_gpu_conv2d_t *conv, int overwrite,
                                  kiln_gpu_ptr_t input, kiln_gpu_ptr_t filter,
                                  kiln_gpu_ptr_t output, kiln_gpu_stream_t stream);

/* What a convolution's output becomes in the same call (kiln_gpu_conv2d_fused_f32):
 *     output = act(alpha * conv(input, filter) + residual + bias[j])
 * at output channel j, act the identity or, with `relu`, max(x, 0). This is a convolution
 * followed by its bias (or an inference batch normalisation whose scale the filter holds),
 * a ResNet block's shortcut and its Relu. */
typedef struct kiln_gpu_conv_epilogue {
  float alpha;
  kiln_gpu_ptr_t bias;     /* f floats in device memory, or 0: none */
  kiln_gpu_ptr_t residual; /* n x oh x ow x f floats (NHWC) not overlapping output, or 0 */
  int32_t relu;            /* 1: max(x, 0) after the sums; 0: none */
} kiln_gpu_conv_epilogue_t;

/*
 * The convolution with `epilogue` applied, output overwritten. With a bias it is one
 * cudnnConvolutionBiasActivationForward (the algorithm restricted to implicit precomputed
 * GEMM without a Relu, as cuDNN requires); without one, or where cuDNN does not support the
 * fused call for this convolution (it says so on the first call, which is then kept in the
 * plan), cudnnConvolutionForward followed by cudnnAddTensor for the residual and the bias
 * and cudnnActivationForward for the Relu, all on `stream`. The result is the same up to
 * the order of the additions.
 */
kiln_status_t kiln_gpu_conv2d_fused_f32(kiln_gpu_t *gpu, const kiln_gpu_conv2d_t *conv,
                                        const kiln_gpu_conv_epilogue_t *epilogue,
                                        kiln_gpu_ptr_t input, kiln_gpu_ptr_t filter,
                                        kiln_gpu_ptr_t output, kiln_gpu_stream_t stream);

/* Whether the calling thread's last kiln_gpu_conv2d_fused_f32 applied its epilogue in
 * cuDNN's fused call (1) or by the separate calls after the convolution (0): what
 * KILN_GPU_PROFILE's table says of each convolution with an epilogue. */
int kiln_gpu_dnn_last_fused(void);

/* Releases `gpu`'s cuDNN handle, plans and workspace (before closing the device; the next
 * convolution makes them again). NULL, or a device without them, is ignored. */
void kiln_gpu_dnn_release(kiln_gpu_t *gpu);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_RUNTIME_GPU_DNN_H */
