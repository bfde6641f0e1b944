/*
 * A stand-in for libcublas.so for tests on machines without a GPU, to go with
 * fake_cuda.c (whose device memory is host memory): cublasSgemm_v2 computes the
 * column-major product on the host, in the order of a naive loop, so a model placed on a
 * GPU whose matrix products go to cuBLAS can be run and checked here. Loaded by the runtime
 * through KILN_LIBCUBLAS. FAKE_CUDA_LOG=1 prints each product to standard error.
 */
#include <stdio.h>
#include <stdlib.h>

typedef int cublasStatus_t;
typedef void* cublasHandle_t;
enum { SUCCESS = 0, NOT_INITIALIZED = 1, INVALID_VALUE = 7 };

static int handle_storage;

static int logging(void) {
  const char* log = getenv("FAKE_CUDA_LOG");
  return log != NULL && log[0] == '1';
}

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  *handle = &handle_storage;
  return SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  return handle == &handle_storage ? SUCCESS : NOT_INITIALIZED;
}

/* The stream the last product was asked to run on (tests read it). */
static void* last_stream;
void* fake_cublas_last_stream(void) { return last_stream; }

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, void* stream) {
  last_stream = stream;
  return handle == &handle_storage ? SUCCESS : NOT_INITIALIZED;
}

const char* cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
  case SUCCESS: return "CUBLAS_STATUS_SUCCESS";
  case NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
  case INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

/* C (m x n, ldc) = alpha op(A) op(B) + beta C, column-major, op N (0) or T (1), with
 * cuBLAS's argument checks. */
cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, int transa, int transb, int m, int n,
                              int k, const float* alpha, const float* a, int lda,
                              const float* b, int ldb, const float* beta, float* c, int ldc) {
  if (handle != &handle_storage) return NOT_INITIALIZED;
  int rowsA = transa ? k : m, rowsB = transb ? n : k;
  if (m < 0 || n < 0 || k < 0 || lda < (rowsA > 1 ? rowsA : 1) ||
      ldb < (rowsB > 1 ? rowsB : 1) || ldc < (m > 1 ? m : 1) || transa < 0 || transa > 1 ||
      transb < 0 || transb > 1)
    return INVALID_VALUE;
  if (logging())
    fprintf(stderr, "fake_cublas: sgemm %c %c %d %d %d\n", transa ? 'T' : 'N',
            transb ? 'T' : 'N', m, n, k);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      float sum = 0.0f;
      for (int l = 0; l < k; ++l)
        sum += (transa ? a[l + (long)i * lda] : a[i + (long)l * lda]) *
               (transb ? b[j + (long)l * ldb] : b[l + (long)j * ldb]);
      float* out = &c[i + (long)j * ldc];
      *out = *beta == 0.0f ? *alpha * sum : *alpha * sum + *beta * *out;
    }
  return SUCCESS;
}

/* `batch` products of cublasSgemm_v2's, each operand `stride` floats after the last. */
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, int transa, int transb, int m,
                                         int n, int k, const float* alpha, const float* a,
                                         int lda, long long stride_a, const float* b, int ldb,
                                         long long stride_b, const float* beta, float* c,
                                         int ldc, long long stride_c, int batch) {
  if (batch < 0) return INVALID_VALUE;
  if (logging())
    fprintf(stderr, "fake_cublas: %d products, strides %lld %lld %lld\n", batch, stride_a,
            stride_b, stride_c);
  for (int i = 0; i < batch; ++i) {
    cublasStatus_t status = cublasSgemm_v2(handle, transa, transb, m, n, k, alpha,
                                           a + i * stride_a, lda, b + i * stride_b, ldb, beta,
                                           c + i * stride_c, ldc);
    if (status != SUCCESS) return status;
  }
  return SUCCESS;
}
