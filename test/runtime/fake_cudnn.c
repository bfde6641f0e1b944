/*
 * A stand-in for libcudnn.so for tests on machines without a GPU, to go with fake_cuda.c
 * (whose device memory is host memory): cudnnConvolutionForward computes the NHWC
 * convolution on the host in the order of a naive loop, so a model placed on a GPU whose
 * convolutions go to cuDNN can be run and checked here. Its heuristics rank a tensor-core
 * algorithm first (which Kiln must pass over for plain f32, and may take when TF32 is
 * allowed: it reads its operands rounded to TF32) and then algorithm 1, which
 * asks for a 1024-byte workspace (which Kiln must supply). Loaded by the runtime through
 * KILN_LIBCUDNN. FAKE_CUDA_LOG=1 prints each convolution to standard error.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int cudnnStatus_t;
enum { SUCCESS = 0, NOT_INITIALIZED = 1, BAD_PARAM = 3, NOT_SUPPORTED = 9 };
enum { FLOAT = 0, NHWC = 1, CROSS_CORRELATION = 1, TENSOR_OP_MATH = 1, FMA_MATH = 3 };
enum { WORKSPACE = 1024 };

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
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
} perf_t;

static int handle_storage;

static int logging(void) {
  const char* log = getenv("FAKE_CUDA_LOG");
  return log != NULL && log[0] == '1';
}

cudnnStatus_t cudnnCreate(void** handle) {
  *handle = &handle_storage;
  return SUCCESS;
}

cudnnStatus_t cudnnDestroy(void* handle) {
  return handle == &handle_storage ? SUCCESS : NOT_INITIALIZED;
}

cudnnStatus_t cudnnSetStream(void* handle, void* stream) {
  (void)stream;
  return handle == &handle_storage ? SUCCESS : NOT_INITIALIZED;
}

const char* cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
  case SUCCESS: return "CUDNN_STATUS_SUCCESS";
  case NOT_INITIALIZED: return "CUDNN_STATUS_NOT_INITIALIZED";
  case BAD_PARAM: return "CUDNN_STATUS_BAD_PARAM";
  case NOT_SUPPORTED: return "CUDNN_STATUS_NOT_SUPPORTED";
  }
  return "CUDNN_STATUS_UNKNOWN";
}

#define FAKE_CREATE(fn, type)                                                               \
  cudnnStatus_t fn(void** out) {                                                            \
    *out = calloc(1, sizeof(type));                                                         \
    return *out != NULL ? SUCCESS : NOT_SUPPORTED;                                          \
  }
#define FAKE_DESTROY(fn)                                                                    \
  cudnnStatus_t fn(void* desc) {                                                            \
    free(desc);                                                                             \
    return SUCCESS;                                                                         \
  }
FAKE_CREATE(cudnnCreateTensorDescriptor, tensor_t)
FAKE_CREATE(cudnnCreateFilterDescriptor, filter_t)
FAKE_CREATE(cudnnCreateConvolutionDescriptor, conv_t)
FAKE_DESTROY(cudnnDestroyTensorDescriptor)
FAKE_DESTROY(cudnnDestroyFilterDescriptor)
FAKE_DESTROY(cudnnDestroyConvolutionDescriptor)

cudnnStatus_t cudnnSetTensor4dDescriptor(tensor_t* t, int format, int type, int n, int c, int h,
                                         int w) {
  if (format != NHWC || type != FLOAT || n < 1 || c < 1 || h < 1 || w < 1) return BAD_PARAM;
  t->n = n, t->c = c, t->h = h, t->w = w;
  return SUCCESS;
}

cudnnStatus_t cudnnSetFilter4dDescriptor(filter_t* f, int type, int format, int k, int c, int h,
                                         int w) {
  if (format != NHWC || type != FLOAT || k < 1 || c < 1 || h < 1 || w < 1) return BAD_PARAM;
  f->k = k, f->c = c, f->h = h, f->w = w;
  return SUCCESS;
}

cudnnStatus_t cudnnSetConvolution2dDescriptor(conv_t* conv, int pad_h, int pad_w, int u, int v,
                                              int dil_h, int dil_w, int mode, int type) {
  if (pad_h < 0 || pad_w < 0 || u < 1 || v < 1 || dil_h < 1 || dil_w < 1 ||
      mode != CROSS_CORRELATION || type != FLOAT)
    return BAD_PARAM;
  conv->pad_h = pad_h, conv->pad_w = pad_w, conv->u = u, conv->v = v;
  conv->dil_h = dil_h, conv->dil_w = dil_w, conv->groups = 1;
  return SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionGroupCount(conv_t* conv, int groups) {
  if (groups < 1) return BAD_PARAM;
  conv->groups = groups;
  return SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionMathType(conv_t* conv, int math) {
  conv->math = math;
  return SUCCESS;
}

cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(const conv_t* conv, const tensor_t* x,
                                                    const filter_t* f, int* n, int* c, int* h,
                                                    int* w) {
  if (x->c != f->c * conv->groups || f->k % conv->groups != 0) return BAD_PARAM;
  *n = x->n;
  *c = f->k;
  *h = (x->h + 2 * conv->pad_h - ((f->h - 1) * conv->dil_h + 1)) / conv->u + 1;
  *w = (x->w + 2 * conv->pad_w - ((f->w - 1) * conv->dil_w + 1)) / conv->v + 1;
  return SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(void* handle, const tensor_t* x,
                                                     const filter_t* f, const conv_t* conv,
                                                     const tensor_t* y, int requested,
                                                     int* returned, perf_t* perf) {
  (void)x, (void)f, (void)y;
  if (handle != &handle_storage) return NOT_INITIALIZED;
  if (requested < 2) return BAD_PARAM;
  perf[0] = (perf_t){6, SUCCESS, -1.0f, 0, 0, TENSOR_OP_MATH, {0, 0, 0}};
  perf[1] = (perf_t){1, SUCCESS, -1.0f, WORKSPACE, 0, conv->math, {0, 0, 0}};
  *returned = 2;
  return SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(void* handle, const tensor_t* x,
                                                      const filter_t* f, const conv_t* conv,
                                                      const tensor_t* y, int algo,
                                                      size_t* bytes) {
  (void)x, (void)f, (void)conv, (void)y;
  if (handle != &handle_storage) return NOT_INITIALIZED;
  *bytes = algo == 1 ? WORKSPACE : 0;
  return SUCCESS;
}

/* `f` rounded to TF32 (10 mantissa bits, to nearest even) when `tf32`. */
static float round_tf32(float f, int tf32) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  if (tf32 && (bits & 0x7f800000u) != 0x7f800000u)
    bits = (bits + 0xfffu + ((bits >> 13) & 1)) & ~0x1fffu;
  memcpy(&f, &bits, 4);
  return f;
}

cudnnStatus_t cudnnConvolutionForward(void* handle, const float* alpha, const tensor_t* xd,
                                      const float* x, const filter_t* fd, const float* filter,
                                      const conv_t* conv, int algo, void* workspace,
                                      size_t workspace_bytes, const float* beta,
                                      const tensor_t* yd, float* y) {
  if (handle != &handle_storage) return NOT_INITIALIZED;
  /* Algorithm 1 computes in f32 (FMA math, with a workspace); 6 on "tensor cores" (tensor
   * op math), which read their operands rounded to TF32. */
  int tf32 = algo == 6 && conv->math == TENSOR_OP_MATH;
  if (!tf32 && (algo != 1 || conv->math != FMA_MATH)) return NOT_SUPPORTED;
  if (!tf32 && (workspace == NULL || workspace_bytes < WORKSPACE)) return BAD_PARAM;
  int oh = 0, ow = 0, on = 0, oc = 0;
  if (cudnnGetConvolution2dForwardOutputDim(conv, xd, fd, &on, &oc, &oh, &ow) != SUCCESS ||
      on != yd->n || oc != yd->c || oh != yd->h || ow != yd->w)
    return BAD_PARAM;
  if (logging())
    fprintf(stderr,
            "fake_cudnn: conv %dx%dx%dx%d by %dx%dx%dx%d groups %d strides %d,%d dilations "
            "%d,%d pad %d,%d to %dx%d%s%s\n",
            xd->n, xd->h, xd->w, xd->c, fd->k, fd->h, fd->w, fd->c, conv->groups, conv->u,
            conv->v, conv->dil_h, conv->dil_w, conv->pad_h, conv->pad_w, oh, ow,
            *beta == 0.0f ? "" : " (accumulating)", tf32 ? " tf32" : "");
  int per_group = fd->k / conv->groups;
  for (int b = 0; b < xd->n; ++b)
    for (int i = 0; i < oh; ++i)
      for (int j = 0; j < ow; ++j)
        for (int k = 0; k < fd->k; ++k) {
          int g = k / per_group;
          float sum = 0.0f;
          for (int r = 0; r < fd->h; ++r)
            for (int s = 0; s < fd->w; ++s) {
              int yy = i * conv->u - conv->pad_h + r * conv->dil_h;
              int xx = j * conv->v - conv->pad_w + s * conv->dil_w;
              if (yy < 0 || yy >= xd->h || xx < 0 || xx >= xd->w) continue;
              for (int c = 0; c < fd->c; ++c)
                sum += round_tf32(x[(((long)b * xd->h + yy) * xd->w + xx) * xd->c + g * fd->c +
                                    c],
                                  tf32) *
                       round_tf32(filter[(((long)k * fd->h + r) * fd->w + s) * fd->c + c], tf32);
            }
          float* out = &y[(((long)b * oh + i) * ow + j) * yd->c + k];
          *out = *beta == 0.0f ? *alpha * sum : *alpha * sum + *beta * *out;
        }
  return SUCCESS;
}
