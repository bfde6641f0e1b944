/* Implementation of kiln/runtime/gpu_dnn.h: cuDNN's convolutions through dlopen. */
#define _GNU_SOURCE
#include "kiln/runtime/gpu_dnn.h"

#include "library.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cudnn_graph.h's, cudnn_ops.h's and cudnn_cnn.h's types and values (cuDNN 8 and 9). */
typedef int cudnnStatus_t;
typedef void *cudnnHandle_t;
typedef void *cudnnDesc_t; /* tensor, filter and convolution descriptors alike */
enum {
  CUDNN_STATUS_SUCCESS = 0,
  CUDNN_DATA_FLOAT = 0,
  CUDNN_TENSOR_NHWC = 1,
  CUDNN_CROSS_CORRELATION = 1,
  CUDNN_DEFAULT_MATH = 0,
  CUDNN_TENSOR_OP_MATH = 1,
  CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
  CUDNN_FMA_MATH = 3,
  CUDNN_ACTIVATION_RELU = 1,
  CUDNN_ACTIVATION_IDENTITY = 5,
  CUDNN_PROPAGATE_NAN = 1,
  /* The one algorithm the fused call takes without an activation. */
  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1,
};
typedef struct {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
} cudnnConvolutionFwdAlgoPerf_t;
enum { KILN_DNN_ALGOS = 8 }; /* cuDNN has 8 forward algorithms */

#define KILN_CUDNN_FUNCTIONS(X)                                                                    \
  X(create, "cudnnCreate", cudnnStatus_t, (cudnnHandle_t *))                                       \
  X(destroy, "cudnnDestroy", cudnnStatus_t, (cudnnHandle_t))                                       \
  X(setStream, "cudnnSetStream", cudnnStatus_t, (cudnnHandle_t, void *))                           \
  X(errorString, "cudnnGetErrorString", const char *, (cudnnStatus_t))                             \
  X(createTensor, "cudnnCreateTensorDescriptor", cudnnStatus_t, (cudnnDesc_t *))                   \
  X(setTensor4d, "cudnnSetTensor4dDescriptor", cudnnStatus_t,                                      \
    (cudnnDesc_t, int, int, int, int, int, int))                                                   \
  X(destroyTensor, "cudnnDestroyTensorDescriptor", cudnnStatus_t, (cudnnDesc_t))                   \
  X(createFilter, "cudnnCreateFilterDescriptor", cudnnStatus_t, (cudnnDesc_t *))                   \
  X(setFilter4d, "cudnnSetFilter4dDescriptor", cudnnStatus_t,                                      \
    (cudnnDesc_t, int, int, int, int, int, int))                                                   \
  X(destroyFilter, "cudnnDestroyFilterDescriptor", cudnnStatus_t, (cudnnDesc_t))                   \
  X(createConv, "cudnnCreateConvolutionDescriptor", cudnnStatus_t, (cudnnDesc_t *))                \
  X(setConv2d, "cudnnSetConvolution2dDescriptor", cudnnStatus_t,                                   \
    (cudnnDesc_t, int, int, int, int, int, int, int, int))                                         \
  X(setGroups, "cudnnSetConvolutionGroupCount", cudnnStatus_t, (cudnnDesc_t, int))                 \
  X(setMath, "cudnnSetConvolutionMathType", cudnnStatus_t, (cudnnDesc_t, int))                     \
  X(destroyConv, "cudnnDestroyConvolutionDescriptor", cudnnStatus_t, (cudnnDesc_t))                \
  X(outputDim, "cudnnGetConvolution2dForwardOutputDim", cudnnStatus_t,                             \
    (cudnnDesc_t, cudnnDesc_t, cudnnDesc_t, int *, int *, int *, int *))                           \
  X(algorithms, "cudnnGetConvolutionForwardAlgorithm_v7", cudnnStatus_t,                           \
    (cudnnHandle_t, cudnnDesc_t, cudnnDesc_t, cudnnDesc_t, cudnnDesc_t, int, int *,                \
     cudnnConvolutionFwdAlgoPerf_t *))                                                             \
  X(workspaceSize, "cudnnGetConvolutionForwardWorkspaceSize", cudnnStatus_t,                       \
    (cudnnHandle_t, cudnnDesc_t, cudnnDesc_t, cudnnDesc_t, cudnnDesc_t, int, size_t *))            \
  X(forward, "cudnnConvolutionForward", cudnnStatus_t,                                             \
    (cudnnHandle_t, const void *, cudnnDesc_t, const void *, cudnnDesc_t, const void *,            \
     cudnnDesc_t, int, void *, size_t, const void *, cudnnDesc_t, void *))                         \
  X(createActivation, "cudnnCreateActivationDescriptor", cudnnStatus_t, (cudnnDesc_t *))           \
  X(setActivation, "cudnnSetActivationDescriptor", cudnnStatus_t, (cudnnDesc_t, int, int, double)) \
  X(destroyActivation, "cudnnDestroyActivationDescriptor", cudnnStatus_t, (cudnnDesc_t))           \
  X(biasActivation, "cudnnConvolutionBiasActivationForward", cudnnStatus_t,                        \
    (cudnnHandle_t, const void *, cudnnDesc_t, const void *, cudnnDesc_t, const void *,            \
     cudnnDesc_t, int, void *, size_t, const void *, cudnnDesc_t, const void *, cudnnDesc_t,       \
     const void *, cudnnDesc_t, cudnnDesc_t, void *))                                              \
  X(addTensor, "cudnnAddTensor", cudnnStatus_t,                                                    \
    (cudnnHandle_t, const void *, cudnnDesc_t, const void *, const void *, cudnnDesc_t, void *))   \
  X(activationForward, "cudnnActivationForward", cudnnStatus_t,                                    \
    (cudnnHandle_t, cudnnDesc_t, const void *, cudnnDesc_t, const void *, const void *,            \
     cudnnDesc_t, void *))

struct kiln_cudnn {
#define KILN_CUDNN_MEMBER(member, symbol, result, params) result(*member) params;
  KILN_CUDNN_FUNCTIONS(KILN_CUDNN_MEMBER)
#undef KILN_CUDNN_MEMBER
};

static struct kiln_cudnn kiln_cudnn;
static char kiln_cudnn_load_error[512];
static pthread_once_t kiln_cudnn_once = PTHREAD_ONCE_INIT;

static void kiln_cudnn_load(void) {
  static const char *const candidates[] = {"libcudnn.so.9", "libcudnn.so"};
  const char *path = NULL;
  void *library = kiln_library_open("KILN_LIBCUDNN", candidates,
                                    sizeof(candidates) / sizeof(candidates[0]), "libcudnn.so.9",
                                    &path, kiln_cudnn_load_error, sizeof(kiln_cudnn_load_error));
  if (library == NULL)
    return;
  struct kiln_cudnn functions;
  static const char *const symbols[] = {KILN_CUDNN_FUNCTIONS(KILN_LIBRARY_SYMBOL)};
  void **const slots[] = {KILN_CUDNN_FUNCTIONS(KILN_LIBRARY_SLOT)};
  if (!kiln_library_bind(library, path, symbols, slots, sizeof(slots) / sizeof(slots[0]), "",
                         kiln_cudnn_load_error, sizeof(kiln_cudnn_load_error)))
    return;
  kiln_cudnn = functions;
}

/* "CALL: STRING (cuDNN status N)" for a cuDNN error. */
static kiln_status_t kiln_cudnn_error(cudnnStatus_t result, const char *call) {
  const char *text = kiln_cudnn.errorString(result);
  return kiln_status_create(KILN_STATUS_INTERNAL, "%s: %s (cuDNN status %d)", call,
                            text != NULL ? text : "error", result);
}

enum { KILN_CUDNN_MAX_DEVICES = 16 };

/* Per device: the handle and the workspace; and the plans of all devices. All under the
 * one lock, which serialises convolutions. */
static pthread_mutex_t kiln_cudnn_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  kiln_gpu_t *gpu;
  cudnnHandle_t handle;
  kiln_gpu_ptr_t workspace;
  size_t workspace_bytes;
} kiln_cudnn_devices[KILN_CUDNN_MAX_DEVICES];

/* What a plan's calls apply after the convolution: nothing, or an epilogue
 * (kiln_gpu_conv_epilogue_t) without or with a Relu. */
typedef enum { KILN_CUDNN_PLAIN, KILN_CUDNN_IDENTITY, KILN_CUDNN_RELU } kiln_cudnn_mode_t;

typedef struct {
  kiln_gpu_t *gpu; /* NULL: a free slot */
  kiln_gpu_conv2d_t conv;
  kiln_cudnn_mode_t mode;
  cudnnDesc_t input, filter, convolution, output;
  cudnnDesc_t bias, activation; /* with an epilogue: 1 x f x 1 x 1, and the Relu or none */
  int algo;
  int unfused; /* the epilogue's calls follow the convolution (no fused call for it) */
  size_t workspace_bytes;
} kiln_cudnn_plan_t;
static kiln_cudnn_plan_t kiln_cudnn_plans[KILN_GPU_DNN_MAX_PLANS];

static void kiln_cudnn_plan_release(kiln_cudnn_plan_t *plan) {
  if (plan->input != NULL)
    kiln_cudnn.destroyTensor(plan->input);
  if (plan->output != NULL)
    kiln_cudnn.destroyTensor(plan->output);
  if (plan->filter != NULL)
    kiln_cudnn.destroyFilter(plan->filter);
  if (plan->convolution != NULL)
    kiln_cudnn.destroyConv(plan->convolution);
  if (plan->bias != NULL)
    kiln_cudnn.destroyTensor(plan->bias);
  if (plan->activation != NULL)
    kiln_cudnn.destroyActivation(plan->activation);
  memset(plan, 0, sizeof(*plan));
}

/* Fills `plan` (descriptors, algorithm, workspace size) for `conv` on `handle`, with the
 * epilogue's descriptors for `plan->mode`. */
static kiln_status_t kiln_cudnn_plan(cudnnHandle_t handle, const kiln_gpu_conv2d_t *conv,
                                     kiln_cudnn_plan_t *plan) {
  const kiln_gpu_conv2d_t *p = conv;
  cudnnStatus_t r;
#define KILN_CUDNN_TRY(call, name)                                                                 \
  if ((r = (call)) != CUDNN_STATUS_SUCCESS)                                                        \
    return kiln_cudnn_error(r, name);
  KILN_CUDNN_TRY(kiln_cudnn.createTensor(&plan->input), "cudnnCreateTensorDescriptor");
  KILN_CUDNN_TRY(kiln_cudnn.createTensor(&plan->output), "cudnnCreateTensorDescriptor");
  KILN_CUDNN_TRY(kiln_cudnn.createFilter(&plan->filter), "cudnnCreateFilterDescriptor");
  KILN_CUDNN_TRY(kiln_cudnn.createConv(&plan->convolution), "cudnnCreateConvolutionDescriptor");
  KILN_CUDNN_TRY(kiln_cudnn.setTensor4d(plan->input, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, (int)p->n,
                                        (int)p->c, (int)p->h, (int)p->w),
                 "cudnnSetTensor4dDescriptor (input)");
  KILN_CUDNN_TRY(kiln_cudnn.setTensor4d(plan->output, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT,
                                        (int)p->n, (int)p->f, (int)p->oh, (int)p->ow),
                 "cudnnSetTensor4dDescriptor (output)");
  KILN_CUDNN_TRY(kiln_cudnn.setFilter4d(plan->filter, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC,
                                        (int)p->f, (int)(p->c / p->groups), (int)p->kh, (int)p->kw),
                 "cudnnSetFilter4dDescriptor");
  KILN_CUDNN_TRY(kiln_cudnn.setConv2d(plan->convolution, (int)p->pad_h, (int)p->pad_w,
                                      (int)p->stride_h, (int)p->stride_w, (int)p->dilation_h,
                                      (int)p->dilation_w, CUDNN_CROSS_CORRELATION,
                                      CUDNN_DATA_FLOAT),
                 "cudnnSetConvolution2dDescriptor");
  KILN_CUDNN_TRY(kiln_cudnn.setGroups(plan->convolution, (int)p->groups),
                 "cudnnSetConvolutionGroupCount");
  if (plan->mode != KILN_CUDNN_PLAIN) {
    KILN_CUDNN_TRY(kiln_cudnn.createTensor(&plan->bias), "cudnnCreateTensorDescriptor");
    KILN_CUDNN_TRY(
        kiln_cudnn.setTensor4d(plan->bias, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 1, (int)p->f, 1, 1),
        "cudnnSetTensor4dDescriptor (bias)");
    KILN_CUDNN_TRY(kiln_cudnn.createActivation(&plan->activation),
                   "cudnnCreateActivationDescriptor");
    /* A NaN stays NaN, as TensorFlow's Relu keeps it. */
    KILN_CUDNN_TRY(kiln_cudnn.setActivation(plan->activation,
                                            plan->mode == KILN_CUDNN_RELU
                                                ? CUDNN_ACTIVATION_RELU
                                                : CUDNN_ACTIVATION_IDENTITY,
                                            CUDNN_PROPAGATE_NAN, 0.0),
                   "cudnnSetActivationDescriptor");
  }
  /* Plain f32 FMA, unless TF32 tensor cores are allowed (the default math permits them
   * for f32 data on Ampere and later). */
  KILN_CUDNN_TRY(
      kiln_cudnn.setMath(plan->convolution, p->tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH),
      "cudnnSetConvolutionMathType");
  int dims[4];
  KILN_CUDNN_TRY(kiln_cudnn.outputDim(plan->convolution, plan->input, plan->filter, &dims[0],
                                      &dims[1], &dims[2], &dims[3]),
                 "cudnnGetConvolution2dForwardOutputDim");
  if (dims[0] != p->n || dims[1] != p->f || dims[2] != p->oh || dims[3] != p->ow)
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "cuDNN's convolution gives %d x %d x %d x %d, not %lld x %lld x "
                              "%lld x %lld (NCHW)",
                              dims[0], dims[1], dims[2], dims[3], (long long)p->n, (long long)p->f,
                              (long long)p->oh, (long long)p->ow);
  cudnnConvolutionFwdAlgoPerf_t perf[KILN_DNN_ALGOS];
  int count = 0;
  KILN_CUDNN_TRY(kiln_cudnn.algorithms(handle, plan->input, plan->filter, plan->convolution,
                                       plan->output, KILN_DNN_ALGOS, &count, perf),
                 "cudnnGetConvolutionForwardAlgorithm_v7");
  /* Without an activation the fused call takes implicit precomputed GEMM only: the first
   * pass looks for it; failing that, the epilogue's calls follow the convolution. */
  int precompOnly = plan->mode == KILN_CUDNN_IDENTITY;
  plan->unfused = 0;
again:
  for (int i = 0; i < count; ++i) {
    int tensorCores = perf[i].mathType == CUDNN_TENSOR_OP_MATH ||
                      perf[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    if (perf[i].status != CUDNN_STATUS_SUCCESS || (tensorCores && !p->tf32))
      continue;
    if (precompOnly && perf[i].algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
      continue;
    size_t bytes = 0;
    if (kiln_cudnn.workspaceSize(handle, plan->input, plan->filter, plan->convolution, plan->output,
                                 perf[i].algo, &bytes) != CUDNN_STATUS_SUCCESS ||
        bytes > (size_t)KILN_GPU_DNN_MAX_WORKSPACE)
      continue;
    /* The math the heuristics ranked this algorithm with (cuDNN's advice). */
    if (p->tf32)
      KILN_CUDNN_TRY(kiln_cudnn.setMath(plan->convolution, perf[i].mathType),
                     "cudnnSetConvolutionMathType");
    plan->algo = perf[i].algo;
    plan->workspace_bytes = bytes;
    return NULL;
  }
  if (precompOnly) {
    precompOnly = 0;
    plan->unfused = 1;
    goto again;
  }
#undef KILN_CUDNN_TRY
  return kiln_status_create(KILN_STATUS_UNIMPLEMENTED,
                            "cuDNN has no f32 algorithm for this convolution (of %d ranked) "
                            "within %lld bytes of workspace",
                            count, (long long)KILN_GPU_DNN_MAX_WORKSPACE);
}

static int kiln_cudnn_same(const kiln_gpu_conv2d_t *a, const kiln_gpu_conv2d_t *b) {
  return memcmp(a, b, sizeof(*a)) == 0;
}

static _Thread_local int kiln_cudnn_last_fused;

int kiln_gpu_dnn_last_fused(void) { return kiln_cudnn_last_fused; }

/* Whether `r` says cuDNN does not support the call (cuDNN 9's 3000 to 3999, cuDNN 8's 9). */
static int kiln_cudnn_unsupported(cudnnStatus_t r) { return r == 9 || (r >= 3000 && r < 4000); }

/* The convolution `plan` describes on `handle`, then `epilogue` (NULL: none; else the output
 * is overwritten): kiln_gpu_conv2d_fused_f32's calls. */
static kiln_status_t kiln_cudnn_run(cudnnHandle_t handle, kiln_cudnn_plan_t *plan, int overwrite,
                                    const kiln_gpu_conv_epilogue_t *epilogue, kiln_gpu_ptr_t input,
                                    kiln_gpu_ptr_t filter, kiln_gpu_ptr_t output, void *workspace) {
  const float one = 1.0f, zero = 0.0f, beta = overwrite ? 0.0f : 1.0f;
  const void *x = (const void *)(uintptr_t)input;
  const void *w = (const void *)(uintptr_t)filter;
  void *y = (void *)(uintptr_t)output;
  cudnnStatus_t r;
  kiln_cudnn_last_fused = 0;
  if (epilogue != NULL && epilogue->bias != 0 && !plan->unfused) {
    /* y = act(alpha * conv + alpha2 * z + bias): z is the residual, or y itself unread. */
    const float alpha2 = epilogue->residual != 0 ? 1.0f : 0.0f;
    const void *z = epilogue->residual != 0 ? (const void *)(uintptr_t)epilogue->residual : y;
    r = kiln_cudnn.biasActivation(
        handle, &epilogue->alpha, plan->input, x, plan->filter, w, plan->convolution, plan->algo,
        workspace, plan->workspace_bytes, &alpha2, plan->output, z, plan->bias,
        (const void *)(uintptr_t)epilogue->bias, plan->activation, plan->output, y);
    if (r == CUDNN_STATUS_SUCCESS) {
      kiln_cudnn_last_fused = 1;
      return NULL;
    }
    if (!kiln_cudnn_unsupported(r))
      return kiln_cudnn_error(r, "cudnnConvolutionBiasActivationForward");
    plan->unfused = 1; /* and the calls below, this time and from now on */
  }
  const float *alpha = epilogue != NULL ? &epilogue->alpha : &one;
  if ((r = kiln_cudnn.forward(handle, alpha, plan->input, x, plan->filter, w, plan->convolution,
                              plan->algo, workspace, plan->workspace_bytes,
                              epilogue != NULL ? &zero : &beta, plan->output, y)) !=
      CUDNN_STATUS_SUCCESS)
    return kiln_cudnn_error(r, "cudnnConvolutionForward");
  if (epilogue == NULL)
    return NULL;
  if (epilogue->residual != 0 &&
      (r = kiln_cudnn.addTensor(handle, &one, plan->output,
                                (const void *)(uintptr_t)epilogue->residual, &one, plan->output,
                                y)) != CUDNN_STATUS_SUCCESS)
    return kiln_cudnn_error(r, "cudnnAddTensor (residual)");
  if (epilogue->bias != 0 &&
      (r = kiln_cudnn.addTensor(handle, &one, plan->bias, (const void *)(uintptr_t)epilogue->bias,
                                &one, plan->output, y)) != CUDNN_STATUS_SUCCESS)
    return kiln_cudnn_error(r, "cudnnAddTensor (bias)");
  if (epilogue->relu &&
      (r = kiln_cudnn.activationForward(handle, plan->activation, &one, plan->output, y, &zero,
                                        plan->output, y)) != CUDNN_STATUS_SUCCESS)
    return kiln_cudnn_error(r, "cudnnActivationForward");
  return NULL;
}

static kiln_status_t kiln_cudnn_convolve(kiln_gpu_t *gpu, const kiln_gpu_conv2d_t *conv,
                                         int overwrite, const kiln_gpu_conv_epilogue_t *epilogue,
                                         kiln_gpu_ptr_t input, kiln_gpu_ptr_t filter,
                                         kiln_gpu_ptr_t output, kiln_gpu_stream_t stream) {
  const kiln_gpu_conv2d_t *p = conv;
  const int64_t sizes[] = {p->n,        p->h,          p->w,          p->c,     p->f,
                           p->kh,       p->kw,         p->oh,         p->ow,    p->stride_h,
                           p->stride_w, p->dilation_h, p->dilation_w, p->groups};
  const int64_t groups = p->groups > 0 ? p->groups : 1; /* divides; p->groups < 1 is bad */
  int bad = p->pad_h < 0 || p->pad_w < 0 || p->pad_h > INT_MAX || p->pad_w > INT_MAX ||
            p->c % groups != 0 || p->f % groups != 0 || (p->tf32 != 0 && p->tf32 != 1);
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i)
    bad |= sizes[i] < 1 || sizes[i] > INT_MAX;
  if (bad)
    return kiln_status_create(
        KILN_STATUS_INVALID_ARGUMENT,
        "a convolution of %lld x %lld x %lld x %lld by %lld x %lld x %lld x %lld (groups %lld, "
        "strides %lld,%lld, dilations %lld,%lld, padding %lld,%lld) to %lld x %lld is not one "
        "cuDNN takes",
        (long long)p->n, (long long)p->h, (long long)p->w, (long long)p->c, (long long)p->f,
        (long long)p->kh, (long long)p->kw, (long long)(p->c / groups), (long long)p->groups,
        (long long)p->stride_h, (long long)p->stride_w, (long long)p->dilation_h,
        (long long)p->dilation_w, (long long)p->pad_h, (long long)p->pad_w, (long long)p->oh,
        (long long)p->ow);
  pthread_once(&kiln_cudnn_once, kiln_cudnn_load);
  if (kiln_cudnn.forward == NULL)
    return kiln_status_create(KILN_STATUS_NOT_FOUND, "no cuDNN: %s", kiln_cudnn_load_error);
  kiln_status_t status = kiln_gpu_bind(gpu);
  if (status != NULL)
    return status;

  pthread_mutex_lock(&kiln_cudnn_lock);
  int device = -1;
  for (int i = 0; i < KILN_CUDNN_MAX_DEVICES && device < 0; ++i)
    if (kiln_cudnn_devices[i].gpu == gpu || kiln_cudnn_devices[i].gpu == NULL)
      device = i;
  if (device < 0) {
    status = kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED,
                                "cuDNN handles for more than %d devices", KILN_CUDNN_MAX_DEVICES);
    goto done;
  }
  if (kiln_cudnn_devices[device].gpu == NULL) {
    cudnnHandle_t handle = NULL;
    cudnnStatus_t r = kiln_cudnn.create(&handle);
    if (r != CUDNN_STATUS_SUCCESS) {
      status = kiln_cudnn_error(r, "cudnnCreate");
      goto done;
    }
    kiln_cudnn_devices[device].gpu = gpu;
    kiln_cudnn_devices[device].handle = handle;
  }
  cudnnHandle_t handle = kiln_cudnn_devices[device].handle;

  /* This convolution's plan: kept in the table, or (table full) made for this call. */
  kiln_cudnn_mode_t mode = epilogue == NULL ? KILN_CUDNN_PLAIN
                           : epilogue->relu ? KILN_CUDNN_RELU
                                            : KILN_CUDNN_IDENTITY;
  kiln_cudnn_plan_t *plan = NULL;
  kiln_cudnn_plan_t local;
  memset(&local, 0, sizeof(local));
  for (int i = 0; i < KILN_GPU_DNN_MAX_PLANS && plan == NULL; ++i) {
    kiln_cudnn_plan_t *slot = &kiln_cudnn_plans[i];
    if (slot->gpu == gpu && slot->mode == mode && kiln_cudnn_same(&slot->conv, conv))
      plan = slot;
  }
  if (plan == NULL) {
    for (int i = 0; i < KILN_GPU_DNN_MAX_PLANS && plan == NULL; ++i)
      if (kiln_cudnn_plans[i].gpu == NULL)
        plan = &kiln_cudnn_plans[i];
    if (plan == NULL)
      plan = &local;
    plan->mode = mode;
    status = kiln_cudnn_plan(handle, conv, plan);
    if (status != NULL) {
      kiln_cudnn_plan_release(plan);
      goto done;
    }
    plan->gpu = gpu;
    plan->conv = *conv;
  }

  /* The workspace grows to the plan's need. The old one is freed once the convolutions
   * queued on `stream` that use it have finished: callers need not wait for each call
   * (kiln/runtime/mgpu.h's KILN_GPU_STREAM=default does not). */
  if (plan->workspace_bytes > kiln_cudnn_devices[device].workspace_bytes) {
    if (kiln_cudnn_devices[device].workspace != 0) {
      status = kiln_gpu_stream_synchronize(gpu, stream);
      if (status != NULL)
        goto release;
      kiln_gpu_free(gpu, kiln_cudnn_devices[device].workspace);
    }
    kiln_cudnn_devices[device].workspace = 0;
    kiln_cudnn_devices[device].workspace_bytes = 0;
    status = kiln_gpu_alloc(gpu, plan->workspace_bytes, &kiln_cudnn_devices[device].workspace);
    if (status != NULL)
      goto release;
    kiln_cudnn_devices[device].workspace_bytes = plan->workspace_bytes;
  }
  cudnnStatus_t r = kiln_cudnn.setStream(handle, stream);
  if (r != CUDNN_STATUS_SUCCESS)
    status = kiln_cudnn_error(r, "cudnnSetStream");
  else
    status = kiln_cudnn_run(handle, plan, overwrite, epilogue, input, filter, output,
                            (void *)(uintptr_t)kiln_cudnn_devices[device].workspace);
release:
  if (plan == &local)
    kiln_cudnn_plan_release(plan);
done:
  pthread_mutex_unlock(&kiln_cudnn_lock);
  return status;
}

kiln_status_t kiln_gpu_conv2d_f32(kiln_gpu_t *gpu, const kiln_gpu_conv2d_t *conv, int overwrite,
                                  kiln_gpu_ptr_t input, kiln_gpu_ptr_t filter,
                                  kiln_gpu_ptr_t output, kiln_gpu_stream_t stream) {
  return kiln_cudnn_convolve(gpu, conv, overwrite, NULL, input, filter, output, stream);
}

kiln_status_t kiln_gpu_conv2d_fused_f32(kiln_gpu_t *gpu, const kiln_gpu_conv2d_t *conv,
                                        const kiln_gpu_conv_epilogue_t *epilogue,
                                        kiln_gpu_ptr_t input, kiln_gpu_ptr_t filter,
                                        kiln_gpu_ptr_t output, kiln_gpu_stream_t stream) {
  if (epilogue == NULL || (epilogue->relu != 0 && epilogue->relu != 1) ||
      (epilogue->residual != 0 && epilogue->residual == output))
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "a convolution's epilogue must be given, its relu 0 or 1 and its "
                              "residual apart from the output");
  return kiln_cudnn_convolve(gpu, conv, 1, epilogue, input, filter, output, stream);
}

void kiln_gpu_dnn_release(kiln_gpu_t *gpu) {
  if (gpu == NULL || kiln_cudnn.forward == NULL)
    return;
  pthread_mutex_lock(&kiln_cudnn_lock);
  for (int i = 0; i < KILN_GPU_DNN_MAX_PLANS; ++i)
    if (kiln_cudnn_plans[i].gpu == gpu)
      kiln_cudnn_plan_release(&kiln_cudnn_plans[i]);
  for (int i = 0; i < KILN_CUDNN_MAX_DEVICES; ++i) {
    if (kiln_cudnn_devices[i].gpu != gpu)
      continue;
    if (kiln_cudnn_devices[i].workspace != 0)
      kiln_gpu_free(gpu, kiln_cudnn_devices[i].workspace);
    kiln_cudnn.destroy(kiln_cudnn_devices[i].handle);
    memset(&kiln_cudnn_devices[i], 0, sizeof(kiln_cudnn_devices[i]));
  }
  pthread_mutex_unlock(&kiln_cudnn_lock);
}
