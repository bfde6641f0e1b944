/*
 * A stand-in for libcublas.so for tests on machines without a GPU, to go with
 * fake_cuda.c (whose device memory is host memory): cublasSgemm_v2 computes the
 * column-major product on the host, in the order of a naive loop, so a model placed on a
 * GPU whose matrix products go to cuBLAS can be run and checked here. Loaded by the runtime
 * through KILN_LIBCUBLAS. FAKE_CUDA_LOG=1 prints each product to standard error.
 * cublasGemmStridedBatchedEx takes f16 data (f32 sums) and TF32 compute (operands rounded
 * to TF32 first), as the library does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_tf32.h"

typedef int cublasStatus_t;
typedef void *cublasHandle_t;
enum { SUCCESS = 0, NOT_INITIALIZED = 1, INVALID_VALUE = 7 };

static int handle_storage;

static int logging(void) {
  const char *log = getenv("FAKE_CUDA_LOG");
  return log != NULL && log[0] == '1';
}

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle) {
  *handle = &handle_storage;
  return SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  return handle == &handle_storage ? SUCCESS : NOT_INITIALIZED;
}

/* The stream the last product was asked to run on (tests read it). */
static void *last_stream;
void *fake_cublas_last_stream(void) { return last_stream; }

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, void *stream) {
  last_stream = stream;
  return handle == &handle_storage ? SUCCESS : NOT_INITIALIZED;
}

const char *cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
  case SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

/* C (m x n, ldc) = alpha op(A) op(B) + beta C, column-major, op N (0) or T (1), with
 * cuBLAS's argument checks. */
cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, int transa, int transb, int m, int n, int k,
                              const float *alpha, const float *a, int lda, const float *b, int ldb,
                              const float *beta, float *c, int ldc) {
  if (handle != &handle_storage)
    return NOT_INITIALIZED;
  int rowsA = transa ? k : m, rowsB = transb ? n : k;
  if (m < 0 || n < 0 || k < 0 || lda < (rowsA > 1 ? rowsA : 1) || ldb < (rowsB > 1 ? rowsB : 1) ||
      ldc < (m > 1 ? m : 1) || transa < 0 || transa > 1 || transb < 0 || transb > 1)
    return INVALID_VALUE;
  if (logging())
    fprintf(stderr, "fake_cublas: sgemm %c %c %d %d %d\n", transa ? 'T' : 'N', transb ? 'T' : 'N',
            m, n, k);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      float sum = 0.0f;
      for (int l = 0; l < k; ++l)
        sum += (transa ? a[l + (long)i * lda] : a[i + (long)l * lda]) *
               (transb ? b[j + (long)l * ldb] : b[l + (long)j * ldb]);
      float *out = &c[i + (long)j * ldc];
      *out = *beta == 0.0f ? *alpha * sum : *alpha * sum + *beta * *out;
    }
  return SUCCESS;
}

/* `batch` products of cublasSgemm_v2's, each operand `stride` floats after the last. */
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, int transa, int transb, int m,
                                         int n, int k, const float *alpha, const float *a, int lda,
                                         long long stride_a, const float *b, int ldb,
                                         long long stride_b, const float *beta, float *c, int ldc,
                                         long long stride_c, int batch) {
  if (batch < 0)
    return INVALID_VALUE;
  if (logging())
    fprintf(stderr, "fake_cublas: %d products, strides %lld %lld %lld\n", batch, stride_a, stride_b,
            stride_c);
  for (int i = 0; i < batch; ++i) {
    cublasStatus_t status = cublasSgemm_v2(handle, transa, transb, m, n, k, alpha, a + i * stride_a,
                                           lda, b + i * stride_b, ldb, beta, c + i * stride_c, ldc);
    if (status != SUCCESS)
      return status;
  }
  return SUCCESS;
}

/* IEEE half <-> float (round to nearest even), for cublasGemmStridedBatchedEx's f16. */
static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else { /* subnormal: normalise */
    int e = -1;
    do {
      ++e;
      man <<= 1;
    } while ((man & 0x400u) == 0);
    bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ffu) << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static uint16_t float_to_half(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
  uint32_t exp = (bits >> 23) & 0xff, man = bits & 0x7fffffu;
  if (exp == 0xff)
    return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
  int e = (int)exp - 127 + 15;
  if (e >= 0x1f)
    return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) { /* subnormal or zero */
    if (e < -10)
      return sign;
    man |= 0x800000u;
    int shift = 14 - e;
    uint32_t half = man >> shift, rest = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    return (uint16_t)(sign | half);
  }
  uint32_t half = ((uint32_t)e << 10) | (man >> 13), rest = man & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
    ++half; /* may carry into exp */
  return (uint16_t)(sign | half);
}

enum { R_32F = 0, R_16F = 2, COMPUTE_32F = 68, COMPUTE_32F_FAST_TF32 = 77 };

static float load(const void *base, int type, long i, int tf32) {
  if (type == R_16F)
    return half_to_float(((const uint16_t *)base)[i]);
  float v = ((const float *)base)[i];
  return tf32 ? to_tf32(v) : v;
}

/* cublasSgemmStridedBatched's products on f32 (compute 32F, or 32F_FAST_TF32: operands
 * rounded to TF32) or f16 (compute 32F: f32 sums, the result rounded to f16 once) data. */
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, int transa, int transb, int m,
                                          int n, int k, const void *alpha, const void *a, int atype,
                                          int lda, long long stride_a, const void *b, int btype,
                                          int ldb, long long stride_b, const void *beta, void *c,
                                          int ctype, int ldc, long long stride_c, int batch,
                                          int compute, int algo) {
  if (handle != &handle_storage)
    return NOT_INITIALIZED;
  int rowsA = transa ? k : m, rowsB = transb ? n : k;
  int tf32 = compute == COMPUTE_32F_FAST_TF32;
  if (atype != btype || atype != ctype || (atype != R_32F && atype != R_16F) ||
      (compute != COMPUTE_32F && compute != COMPUTE_32F_FAST_TF32) || (tf32 && atype != R_32F) ||
      algo != -1 || m < 0 || n < 0 || k < 0 || batch < 0 || lda < (rowsA > 1 ? rowsA : 1) ||
      ldb < (rowsB > 1 ? rowsB : 1) || ldc < (m > 1 ? m : 1))
    return INVALID_VALUE;
  if (logging())
    fprintf(stderr, "fake_cublas: gemmEx %s compute %s %c %c %d %d %d batch %d\n",
            atype == R_16F ? "f16" : "f32", tf32 ? "32F_FAST_TF32" : "32F", transa ? 'T' : 'N',
            transb ? 'T' : 'N', m, n, k, batch);
  float al = *(const float *)alpha, be = *(const float *)beta;
  for (int p = 0; p < batch; ++p)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        float sum = 0.0f;
        for (int l = 0; l < k; ++l)
          sum +=
              load(a, atype, p * stride_a + (transa ? l + (long)i * lda : i + (long)l * lda),
                   tf32) *
              load(b, btype, p * stride_b + (transb ? j + (long)l * ldb : l + (long)j * ldb), tf32);
        long at = p * stride_c + i + (long)j * ldc;
        float old = be == 0.0f ? 0.0f : load(c, ctype, at, 0);
        float out = be == 0.0f ? al * sum : al * sum + be * old;
        if (ctype == R_16F)
          ((uint16_t *)c)[at] = float_to_half(out);
        else
          ((float *)c)[at] = out;
      }
  return SUCCESS;
}
