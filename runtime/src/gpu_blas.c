/* Implementation of kiln/runtime/gpu_blas.h: cuBLAS through dlopen. */
#define _GNU_SOURCE
#include "kiln/runtime/gpu_blas.h"

#include "blas_abi.h"
#include "library.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* The ABI of cublas*_v2 is stable across versions (blas_abi.h). */
typedef void *cublasHandle_t;

#define KILN_CUBLAS_FUNCTIONS(X)                                                                   \
  X(create, "cublasCreate_v2", cublasStatus_t, (cublasHandle_t *))                                 \
  X(destroy, "cublasDestroy_v2", cublasStatus_t, (cublasHandle_t))                                 \
  X(setStream, "cublasSetStream_v2", cublasStatus_t, (cublasHandle_t, void *))                     \
  X(sgemm, "cublasSgemm_v2", cublasStatus_t,                                                       \
    (cublasHandle_t, int, int, int, int, int, const float *, const float *, int, const float *,    \
     int, const float *, float *, int))                                                            \
  X(sgemmBatched, "cublasSgemmStridedBatched", cublasStatus_t,                                     \
    (cublasHandle_t, int, int, int, int, int, const float *, const float *, int, long long,        \
     const float *, int, long long, const float *, float *, int, long long, int))                  \
  X(gemmEx, "cublasGemmStridedBatchedEx", cublasStatus_t,                                          \
    (cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, long long,     \
     const void *, int, int, long long, const void *, void *, int, int, long long, int, int, int))

struct kiln_cublas {
#define KILN_CUBLAS_MEMBER(member, symbol, result, params) result(*member) params;
  KILN_CUBLAS_FUNCTIONS(KILN_CUBLAS_MEMBER)
#undef KILN_CUBLAS_MEMBER
  /* cublasGetStatusString (CUDA 11.4 on), or NULL. */
  const char *(*statusString)(cublasStatus_t);
};

static struct kiln_cublas kiln_cublas;
static char kiln_cublas_load_error[512];
static pthread_once_t kiln_cublas_once = PTHREAD_ONCE_INIT;

static void kiln_cublas_load(void) {
  static const char *const candidates[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
  const char *path = NULL;
  void *library = kiln_library_open(
      "KILN_LIBCUBLAS", candidates, sizeof(candidates) / sizeof(candidates[0]),
      "libcublas.so.13 (or .12)", &path, kiln_cublas_load_error, sizeof(kiln_cublas_load_error));
  if (library == NULL)
    return;
  struct kiln_cublas functions;
  static const char *const symbols[] = {KILN_CUBLAS_FUNCTIONS(KILN_LIBRARY_SYMBOL)};
  void **const slots[] = {KILN_CUBLAS_FUNCTIONS(KILN_LIBRARY_SLOT)};
  if (!kiln_library_bind(library, path, symbols, slots, sizeof(slots) / sizeof(slots[0]), "",
                         kiln_cublas_load_error, sizeof(kiln_cublas_load_error)))
    return;
  *(void **)(&functions.statusString) = dlsym(library, "cublasGetStatusString");
  kiln_cublas = functions;
}

/* "CALL: STRING (number N)" for a cuBLAS error. */
static kiln_status_t kiln_cublas_error(cublasStatus_t result, const char *call) {
  const char *text = kiln_cublas.statusString != NULL ? kiln_cublas.statusString(result) : NULL;
  return kiln_status_create(
      result == CUBLAS_STATUS_ALLOC_FAILED ? KILN_STATUS_RESOURCE_EXHAUSTED : KILN_STATUS_INTERNAL,
      "%s: %s (cuBLAS status %d)", call, text != NULL ? text : "error", result);
}

enum { KILN_CUBLAS_MAX_DEVICES = 16 };

/* One handle per device, and the lock that serialises the device's products. */
static pthread_mutex_t kiln_cublas_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  kiln_gpu_t *gpu;
  cublasHandle_t handle;
} kiln_cublas_handles[KILN_CUBLAS_MAX_DEVICES];

/* The handle of `gpu` (created if need be) with the lock held, or a status (lock not held). */
static kiln_status_t kiln_cublas_acquire(kiln_gpu_t *gpu, cublasHandle_t *out) {
  pthread_once(&kiln_cublas_once, kiln_cublas_load);
  if (kiln_cublas.sgemm == NULL)
    return kiln_status_create(KILN_STATUS_NOT_FOUND, "no cuBLAS: %s", kiln_cublas_load_error);
  kiln_status_t bound = kiln_gpu_bind(gpu);
  if (bound != NULL)
    return bound;
  pthread_mutex_lock(&kiln_cublas_lock);
  int slot = -1;
  for (int i = 0; i < KILN_CUBLAS_MAX_DEVICES && slot < 0; ++i)
    if (kiln_cublas_handles[i].gpu == gpu || kiln_cublas_handles[i].gpu == NULL)
      slot = i;
  if (slot < 0) {
    pthread_mutex_unlock(&kiln_cublas_lock);
    return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED,
                              "cuBLAS handles for more than %d devices", KILN_CUBLAS_MAX_DEVICES);
  }
  if (kiln_cublas_handles[slot].gpu == NULL) {
    cublasHandle_t handle = NULL;
    cublasStatus_t result = kiln_cublas.create(&handle);
    if (result != CUBLAS_STATUS_SUCCESS) {
      pthread_mutex_unlock(&kiln_cublas_lock);
      return kiln_cublas_error(result, "cublasCreate");
    }
    kiln_cublas_handles[slot].gpu = gpu;
    kiln_cublas_handles[slot].handle = handle;
  }
  *out = kiln_cublas_handles[slot].handle;
  return NULL;
}

kiln_status_t kiln_gpu_gemm_batched(kiln_gpu_t *gpu, kiln_gpu_gemm_type_t type, int transpose_a,
                                    int transpose_b, int overwrite, int broadcast_a,
                                    int broadcast_b, int64_t batch, int64_t m, int64_t n, int64_t k,
                                    kiln_gpu_ptr_t a, kiln_gpu_ptr_t b, kiln_gpu_ptr_t c,
                                    kiln_gpu_stream_t stream) {
  if (batch < 0 || m < 0 || n < 0 || k < 0 || batch > INT_MAX || m > INT_MAX || n > INT_MAX ||
      k > INT_MAX)
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "%lld products of %lld x %lld x %lld do not fit cuBLAS's sizes",
                              (long long)batch, (long long)m, (long long)n, (long long)k);
  if (type != KILN_GPU_GEMM_F32 && type != KILN_GPU_GEMM_TF32 && type != KILN_GPU_GEMM_F16)
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT, "no cuBLAS product of type %d",
                              (int)type);
  /* Nothing to write; or nothing to add (with k == 0, cuBLAS's beta of 0 zeroes c). */
  if (batch == 0 || m == 0 || n == 0 || (k == 0 && !overwrite))
    return NULL;
  cublasHandle_t handle = NULL;
  kiln_status_t status = kiln_cublas_acquire(gpu, &handle);
  if (status != NULL)
    return status;
  /* Row-major c = op(a) op(b) is column-major c^T = op(b)^T op(a)^T: cuBLAS's (n x k) by
   * (k x m) product of b's and a's memory as they are, each transposed when stored so. */
  const float one = 1.0f, beta = overwrite ? 0.0f : 1.0f;
  int lda = (int)(transpose_a ? m : k), ldb = (int)(transpose_b ? k : n);
  if (lda < 1)
    lda = 1; /* cuBLAS wants leading dimensions of at least 1 */
  if (ldb < 1)
    ldb = 1;
  int opA = transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, opB = transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  long long strideA = broadcast_a ? 0 : (long long)(m * k);
  long long strideB = broadcast_b ? 0 : (long long)(k * n), strideC = (long long)(m * n);
  const char *call = "cublasSgemm";
  cublasStatus_t result = kiln_cublas.setStream(handle, stream);
  if (result != CUBLAS_STATUS_SUCCESS) {
    call = "cublasSetStream";
  } else if (type != KILN_GPU_GEMM_F32) {
    /* f16 operands are multiplied and summed in f32 (TensorFlow's choice on a GPU), the
     * result rounded once; TF32 rounds f32 operands to 10-bit mantissas for tensor cores. */
    int data = type == KILN_GPU_GEMM_F16 ? CUDA_R_16F : CUDA_R_32F;
    int compute = type == KILN_GPU_GEMM_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    call = "cublasGemmStridedBatchedEx";
    result = kiln_cublas.gemmEx(
        handle, opB, opA, (int)n, (int)m, (int)k, &one, (const void *)(uintptr_t)b, data, ldb,
        strideB, (const void *)(uintptr_t)a, data, lda, strideA, &beta, (void *)(uintptr_t)c, data,
        (int)n, strideC, (int)batch, compute, CUBLAS_GEMM_DEFAULT);
  } else if (batch == 1) {
    result = kiln_cublas.sgemm(handle, opB, opA, (int)n, (int)m, (int)k, &one,
                               (const float *)(uintptr_t)b, ldb, (const float *)(uintptr_t)a, lda,
                               &beta, (float *)(uintptr_t)c, (int)n);
  } else {
    call = "cublasSgemmStridedBatched";
    result = kiln_cublas.sgemmBatched(handle, opB, opA, (int)n, (int)m, (int)k, &one,
                                      (const float *)(uintptr_t)b, ldb, strideB,
                                      (const float *)(uintptr_t)a, lda, strideA, &beta,
                                      (float *)(uintptr_t)c, (int)n, strideC, (int)batch);
  }
  pthread_mutex_unlock(&kiln_cublas_lock);
  if (result != CUBLAS_STATUS_SUCCESS)
    return kiln_cublas_error(result, call);
  return NULL;
}

kiln_status_t kiln_gpu_sgemm_batched(kiln_gpu_t *gpu, int transpose_a, int transpose_b,
                                     int overwrite, int broadcast_a, int broadcast_b, int64_t batch,
                                     int64_t m, int64_t n, int64_t k, kiln_gpu_ptr_t a,
                                     kiln_gpu_ptr_t b, kiln_gpu_ptr_t c, kiln_gpu_stream_t stream) {
  return kiln_gpu_gemm_batched(gpu, KILN_GPU_GEMM_F32, transpose_a, transpose_b, overwrite,
                               broadcast_a, broadcast_b, batch, m, n, k, a, b, c, stream);
}

kiln_status_t kiln_gpu_sgemm(kiln_gpu_t *gpu, int transpose_a, int transpose_b, int overwrite,
                             int64_t m, int64_t n, int64_t k, kiln_gpu_ptr_t a, kiln_gpu_ptr_t b,
                             kiln_gpu_ptr_t c, kiln_gpu_stream_t stream) {
  return kiln_gpu_sgemm_batched(gpu, transpose_a, transpose_b, overwrite, 0, 0, 1, m, n, k, a, b, c,
                                stream);
}
