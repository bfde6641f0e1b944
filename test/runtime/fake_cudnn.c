/*
 * A stand-in for libcudnn.so for tests on machines without a GPU, to go with fake_cuda.c
 * (whose device memory is host memory): cudnnConvolutionForward computes the NHWC
 * convolution on the host in the order of a naive loop, so a model placed on a GPU whose
 * convolutions go to cuDNN can be run and checked here. Its heuristics rank a tensor-core
 * algorithm first (which Kiln must pass over for plain f32, and may take when TF32 is
 * allowed: it reads its operands rounded to TF32) and then algorithm 1, which
 * asks for a 1024-byte workspace (which Kiln must supply). Loaded by the runtime through
 * KILN_LIBCUDNN. FAKE_CUDA_LOG=1 prints each convolution to standard error.
 * cudnnConvolutionBiasActivationForward computes act(alpha1 * conv + alpha2 * z + bias) for
 * a Relu with any algorithm and for the identity with algorithm 1 only (implicit
 * precomputed GEMM), as cuDNN does, and says NOT_SUPPORTED otherwise, or always with
 * FAKE_CUDNN_FUSED=0 (to test the calls Kiln falls back to: cudnnAddTensor of a bias or a
 * tensor of the output's shape, and cudnnActivationForward's Relu).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_tf32.h"

typedef int cudnnStatus_t;
enum { SUCCESS = 0, NOT_INITIALIZED = 1001, BAD_PARAM = 2000, NOT_SUPPORTED = 3000 };
enum { FLOAT = 0, NHWC = 1, CROSS_CORRELATION = 1, TENSOR_OP_MATH = 1, FMA_MATH = 3 };
enum { WORKSPACE = 1024 };
enum { RELU = 1, IDENTITY = 5, PROPAGATE_NAN = 1 };

typedef struct {
  int n, c, h, w;
} tensor_t;
typedef struct {
  int k, c, h, w;
} filter_t;
typedef struct {
  int pad_h, pad_w, u, v, dil_h, dil_w, groups, math;
} conv_t;
typedef struct {
  int mode, nan;
} activation_t;
typedef struct {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
} perf_t;

static int handle_storage;
static long long fused_calls, epilogue_calls;

/* For tests: the fused calls made, and the cudnnAddTensor and cudnnActivationForward calls. */
long long fake_cudnn_fused_calls(void) { return fused_calls; }
long long fake_cudnn_epilogue_calls(void) { return epilogue_calls; }

static int logging(void) {
  const char *log = getenv("FAKE_CUDA_LOG");
  return log != NULL && log[0] == '1';
}

cudnnStatus_t cudnnCreate(void **handle) {
  *handle = &handle_storage;
  return SUCCESS;
}

cudnnStatus_t cudnnDestroy(void *handle) {
  return handle == &handle_storage ? SUCCESS : NOT_INITIALIZED;
}

cudnnStatus_t cudnnSetStream(void *handle, void *stream) {
  (void)stream;
  return handle == &handle_storage ? SUCCESS : NOT_INITIALIZED;
}

const char *cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
  case SUCCESS:
    return "CUDNN_STATUS_SUCCESS";
  case NOT_INITIALIZED:
    return "CUDNN_STATUS_NOT_INITIALIZED";
  case BAD_PARAM:
    return "CUDNN_STATUS_BAD_PARAM";
  case NOT_SUPPORTED:
    return "CUDNN_STATUS_NOT_SUPPORTED";
  case BAD_PARAM + 1:
    return "CUDNN_STATUS_BAD_PARAM_NULL_POINTER";
  }
  return "CUDNN_STATUS_UNKNOWN";
}

#define FAKE_CREATE(fn, type)                                                                      \
  cudnnStatus_t fn(void **out) {                                                                   \
    *out = calloc(1, sizeof(type));                                                                \
    return *out != NULL ? SUCCESS : NOT_SUPPORTED;                                                 \
  }
#define FAKE_DESTROY(fn)                                                                           \
  cudnnStatus_t fn(void *desc) {                                                                   \
    free(desc);                                                                                    \
    return SUCCESS;                                                                                \
  }
FAKE_CREATE(cudnnCreateTensorDescriptor, tensor_t)
FAKE_CREATE(cudnnCreateFilterDescriptor, filter_t)
FAKE_CREATE(cudnnCreateConvolutionDescriptor, conv_t)
FAKE_CREATE(cudnnCreateActivationDescriptor, activation_t)
FAKE_DESTROY(cudnnDestroyActivationDescriptor)
FAKE_DESTROY(cudnnDestroyTensorDescriptor)
FAKE_DESTROY(cudnnDestroyFilterDescriptor)
FAKE_DESTROY(cudnnDestroyConvolutionDescriptor)

cudnnStatus_t cudnnSetTensor4dDescriptor(tensor_t *t, int format, int type, int n, int c, int h,
                                         int w) {
  if (format != NHWC || type != FLOAT || n < 1 || c < 1 || h < 1 || w < 1)
    return BAD_PARAM;
  t->n = n, t->c = c, t->h = h, t->w = w;
  return SUCCESS;
}

cudnnStatus_t cudnnSetFilter4dDescriptor(filter_t *f, int type, int format, int k, int c, int h,
                                         int w) {
  if (format != NHWC || type != FLOAT || k < 1 || c < 1 || h < 1 || w < 1)
    return BAD_PARAM;
  f->k = k, f->c = c, f->h = h, f->w = w;
  return SUCCESS;
}

cudnnStatus_t cudnnSetConvolution2dDescriptor(conv_t *conv, int pad_h, int pad_w, int u, int v,
                                              int dil_h, int dil_w, int mode, int type) {
  if (pad_h < 0 || pad_w < 0 || u < 1 || v < 1 || dil_h < 1 || dil_w < 1 ||
      mode != CROSS_CORRELATION || type != FLOAT)
    return BAD_PARAM;
  conv->pad_h = pad_h, conv->pad_w = pad_w, conv->u = u, conv->v = v;
  conv->dil_h = dil_h, conv->dil_w = dil_w, conv->groups = 1;
  return SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionGroupCount(conv_t *conv, int groups) {
  if (groups < 1)
    return BAD_PARAM;
  conv->groups = groups;
  return SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionMathType(conv_t *conv, int math) {
  conv->math = math;
  return SUCCESS;
}

cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(const conv_t *conv, const tensor_t *x,
                                                    const filter_t *f, int *n, int *c, int *h,
                                                    int *w) {
  if (x->c != f->c * conv->groups || f->k % conv->groups != 0)
    return BAD_PARAM;
  *n = x->n;
  *c = f->k;
  *h = (x->h + 2 * conv->pad_h - ((f->h - 1) * conv->dil_h + 1)) / conv->u + 1;
  *w = (x->w + 2 * conv->pad_w - ((f->w - 1) * conv->dil_w + 1)) / conv->v + 1;
  return SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(void *handle, const tensor_t *x,
                                                     const filter_t *f, const conv_t *conv,
                                                     const tensor_t *y, int requested,
                                                     int *returned, perf_t *perf) {
  (void)x, (void)f, (void)y;
  if (handle != &handle_storage)
    return NOT_INITIALIZED;
  if (requested < 2)
    return BAD_PARAM;
  perf[0] = (perf_t){6, SUCCESS, -1.0f, 0, 0, TENSOR_OP_MATH, {0, 0, 0}};
  perf[1] = (perf_t){1, SUCCESS, -1.0f, WORKSPACE, 0, conv->math, {0, 0, 0}};
  *returned = 2;
  return SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(void *handle, const tensor_t *x,
                                                      const filter_t *f, const conv_t *conv,
                                                      const tensor_t *y, int algo, size_t *bytes) {
  (void)x, (void)f, (void)conv, (void)y;
  if (handle != &handle_storage)
    return NOT_INITIALIZED;
  *bytes = algo == 1 ? WORKSPACE : 0;
  return SUCCESS;
}

/* `f` rounded to TF32 when `tf32`. */
static float round_tf32(float f, int tf32) { return tf32 ? to_tf32(f) : f; }

cudnnStatus_t cudnnSetActivationDescriptor(activation_t *a, int mode, int nan, double coef) {
  (void)coef;
  if (mode != RELU && mode != IDENTITY)
    return NOT_SUPPORTED;
  a->mode = mode, a->nan = nan;
  return SUCCESS;
}

/* Checks a convolution's call as cuDNN would; its output sizes in *oh, *ow. */
static cudnnStatus_t check(void *handle, const tensor_t *xd, const filter_t *fd, const conv_t *conv,
                           int algo, void *workspace, size_t workspace_bytes, const tensor_t *yd,
                           int *tf32, int *oh, int *ow) {
  if (handle != &handle_storage)
    return NOT_INITIALIZED;
  /* Algorithm 1 computes in f32 (FMA math, with a workspace); 6 on "tensor cores" (tensor
   * op math), which read their operands rounded to TF32. */
  *tf32 = algo == 6 && conv->math == TENSOR_OP_MATH;
  if (!*tf32 && (algo != 1 || conv->math != FMA_MATH))
    return NOT_SUPPORTED;
  if (!*tf32 && (workspace == NULL || workspace_bytes < WORKSPACE))
    return BAD_PARAM;
  int on = 0, oc = 0;
  if (cudnnGetConvolution2dForwardOutputDim(conv, xd, fd, &on, &oc, oh, ow) != SUCCESS ||
      on != yd->n || oc != yd->c || *oh != yd->h || *ow != yd->w)
    return BAD_PARAM;
  return SUCCESS;
}

static void log_conv(const tensor_t *xd, const filter_t *fd, const conv_t *conv, int oh, int ow,
                     const char *what, int tf32) {
  if (logging())
    fprintf(stderr,
            "fake_cudnn: conv %dx%dx%dx%d by %dx%dx%dx%d groups %d strides %d,%d dilations "
            "%d,%d pad %d,%d to %dx%d%s%s\n",
            xd->n, xd->h, xd->w, xd->c, fd->k, fd->h, fd->w, fd->c, conv->groups, conv->u, conv->v,
            conv->dil_h, conv->dil_w, conv->pad_h, conv->pad_w, oh, ow, what, tf32 ? " tf32" : "");
}

/* The sum of output element (b, i, j, k) in the order of a naive loop. */
static float conv_sum(const tensor_t *xd, const float *x, const filter_t *fd, const float *filter,
                      const conv_t *conv, int tf32, int b, int i, int j, int k) {
  int g = k / (fd->k / conv->groups);
  float sum = 0.0f;
  for (int r = 0; r < fd->h; ++r)
    for (int s = 0; s < fd->w; ++s) {
      int yy = i * conv->u - conv->pad_h + r * conv->dil_h;
      int xx = j * conv->v - conv->pad_w + s * conv->dil_w;
      if (yy < 0 || yy >= xd->h || xx < 0 || xx >= xd->w)
        continue;
      for (int c = 0; c < fd->c; ++c)
        sum += round_tf32(x[(((long)b * xd->h + yy) * xd->w + xx) * xd->c + g * fd->c + c], tf32) *
               round_tf32(filter[(((long)k * fd->h + r) * fd->w + s) * fd->c + c], tf32);
    }
  return sum;
}

cudnnStatus_t cudnnConvolutionForward(void *handle, const float *alpha, const tensor_t *xd,
                                      const float *x, const filter_t *fd, const float *filter,
                                      const conv_t *conv, int algo, void *workspace,
                                      size_t workspace_bytes, const float *beta, const tensor_t *yd,
                                      float *y) {
  int tf32 = 0, oh = 0, ow = 0;
  cudnnStatus_t status =
      check(handle, xd, fd, conv, algo, workspace, workspace_bytes, yd, &tf32, &oh, &ow);
  if (status != SUCCESS)
    return status;
  log_conv(xd, fd, conv, oh, ow, *beta == 0.0f ? "" : " (accumulating)", tf32);
  for (int b = 0; b < xd->n; ++b)
    for (int i = 0; i < oh; ++i)
      for (int j = 0; j < ow; ++j)
        for (int k = 0; k < fd->k; ++k) {
          float sum = conv_sum(xd, x, fd, filter, conv, tf32, b, i, j, k);
          float *out = &y[(((long)b * oh + i) * ow + j) * yd->c + k];
          *out = *beta == 0.0f ? *alpha * sum : *alpha * sum + *beta * *out;
        }
  return SUCCESS;
}

static int fused_supported(void) {
  const char *fused = getenv("FAKE_CUDNN_FUSED");
  return fused == NULL || fused[0] != '0';
}

cudnnStatus_t cudnnConvolutionBiasActivationForward(
    void *handle, const float *alpha1, const tensor_t *xd, const float *x, const filter_t *fd,
    const float *filter, const conv_t *conv, int algo, void *workspace, size_t workspace_bytes,
    const float *alpha2, const tensor_t *zd, const float *z, const tensor_t *bd, const float *bias,
    const activation_t *act, const tensor_t *yd, float *y) {
  int tf32 = 0, oh = 0, ow = 0;
  cudnnStatus_t status =
      check(handle, xd, fd, conv, algo, workspace, workspace_bytes, yd, &tf32, &oh, &ow);
  if (status != SUCCESS)
    return status;
  if (!fused_supported() || (act->mode == IDENTITY && algo != 1))
    return NOT_SUPPORTED;
  if (bias == NULL || z == NULL)
    return BAD_PARAM + 1;
  if (zd->n != yd->n || zd->c != yd->c || zd->h != yd->h || zd->w != yd->w || bd->n != 1 ||
      bd->c != yd->c || bd->h != 1 || bd->w != 1 || act->nan != PROPAGATE_NAN)
    return BAD_PARAM;
  ++fused_calls;
  log_conv(xd, fd, conv, oh, ow,
           act->mode == RELU ? (*alpha2 != 0.0f ? " fused bias residual relu" : " fused bias relu")
                             : (*alpha2 != 0.0f ? " fused bias residual" : " fused bias"),
           tf32);
  for (int b = 0; b < xd->n; ++b)
    for (int i = 0; i < oh; ++i)
      for (int j = 0; j < ow; ++j)
        for (int k = 0; k < fd->k; ++k) {
          long at = (((long)b * oh + i) * ow + j) * yd->c + k;
          float v = *alpha1 * conv_sum(xd, x, fd, filter, conv, tf32, b, i, j, k);
          if (*alpha2 != 0.0f)
            v += *alpha2 * z[at];
          v += bias[k];
          y[at] = act->mode == RELU && v < 0.0f ? 0.0f : v;
        }
  return SUCCESS;
}

/* c = alpha * a + beta * c, a of c's shape or 1 x C x 1 x 1 (a bias). */
cudnnStatus_t cudnnAddTensor(void *handle, const float *alpha, const tensor_t *ad, const float *a,
                             const float *beta, const tensor_t *cd, float *c) {
  if (handle != &handle_storage)
    return NOT_INITIALIZED;
  int bias = ad->n == 1 && ad->h == 1 && ad->w == 1 && ad->c == cd->c;
  if (!bias && (ad->n != cd->n || ad->c != cd->c || ad->h != cd->h || ad->w != cd->w))
    return BAD_PARAM;
  ++epilogue_calls;
  if (logging())
    fprintf(stderr, "fake_cudnn: add %s\n", bias ? "bias" : "tensor");
  long count = (long)cd->n * cd->h * cd->w * cd->c;
  for (long i = 0; i < count; ++i)
    c[i] = *alpha * a[bias ? i % cd->c : i] + *beta * c[i];
  return SUCCESS;
}

/* y = alpha * act(x) + beta * y. */
cudnnStatus_t cudnnActivationForward(void *handle, const activation_t *act, const float *alpha,
                                     const tensor_t *xd, const float *x, const float *beta,
                                     const tensor_t *yd, float *y) {
  if (handle != &handle_storage)
    return NOT_INITIALIZED;
  if (xd->n != yd->n || xd->c != yd->c || xd->h != yd->h || xd->w != yd->w)
    return BAD_PARAM;
  ++epilogue_calls;
  if (logging())
    fprintf(stderr, "fake_cudnn: activation %s\n", act->mode == RELU ? "relu" : "identity");
  long count = (long)yd->n * yd->h * yd->w * yd->c;
  for (long i = 0; i < count; ++i) {
    float v = act->mode == RELU && x[i] < 0.0f ? 0.0f : x[i];
    y[i] = *alpha * v + (*beta != 0.0f ? *beta * y[i] : 0.0f);
  }
  return SUCCESS;
}
