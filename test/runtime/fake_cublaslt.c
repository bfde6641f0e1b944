/*
 * A stand-in for libcublasLt.so for tests on machines without a GPU, to go with
 * fake_cuda.c (whose device memory is host memory): cublasLtMatmul computes the
 * column-major product of f32 data on the host, D = epilogue(alpha op(A) op(B) + beta C)
 * with the epilogues DEFAULT, RELU, BIAS and RELU_BIAS (the bias along D's rows, added after
 * beta C, the Relu last), as the library does; compute 32F_FAST_TF32 rounds the operands to
 * TF32 first. Loaded by the runtime through KILN_LIBCUBLASLT.
 *
 * Like the library, the heuristic picks an algorithm for the pointer alignments the
 * preference promises (256 bytes unless set), and cublasLtMatmul refuses pointers less
 * aligned than the algorithm was chosen for (CUBLAS_STATUS_NOT_SUPPORTED) and a workspace
 * smaller than the preference allowed. FAKE_CUDA_LOG=1 prints each heuristic and product to
 * standard error; FAKE_CUBLASLT_NO_ALGO=1 makes the heuristic find none.
 * fake_cublaslt_live() counts the handles, descriptors and preferences not destroyed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_tf32.h"

typedef int cublasStatus_t;
enum { SUCCESS = 0, NOT_INITIALIZED = 1, INVALID_VALUE = 7, NOT_SUPPORTED = 15 };
enum { R_32F = 0, COMPUTE_32F = 68, COMPUTE_32F_FAST_TF32 = 77 };
enum { EPI_DEFAULT = 1, EPI_RELU = 2, EPI_BIAS = 4 };

static long long live;
long long fake_cublaslt_live(void) { return live; }

static int logging(void) {
  const char *log = getenv("FAKE_CUDA_LOG");
  return log != NULL && log[0] == '1';
}

typedef struct {
  int compute, transa, transb;
  uint32_t epilogue;
  const float *bias;
} desc_t;

typedef struct {
  int type;
  uint64_t rows, cols;
  int64_t ld;
} layout_t;

typedef struct {
  uint64_t workspace;
  uint32_t align[4]; /* A, B, C, D */
} pref_t;

/* What the fake's algorithm records: the alignments it needs and the workspace it may use. */
typedef struct {
  uint64_t align[4];
  uint64_t workspace;
  uint64_t unused[3];
} algo_t;

typedef struct {
  algo_t algo;
  size_t workspace_size;
  cublasStatus_t state;
  float waves_count;
  int reserved[4];
} heuristic_t;

static int handle_storage;

cublasStatus_t cublasLtCreate(void **handle) {
  *handle = &handle_storage;
  ++live;
  return SUCCESS;
}

cublasStatus_t cublasLtDestroy(void *handle) {
  if (handle != &handle_storage)
    return NOT_INITIALIZED;
  --live;
  return SUCCESS;
}

const char *cublasLtGetStatusString(cublasStatus_t status) {
  switch (status) {
  case SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

cublasStatus_t cublasLtMatmulDescCreate(desc_t **desc, int compute, int scale) {
  if ((compute != COMPUTE_32F && compute != COMPUTE_32F_FAST_TF32) || scale != R_32F)
    return INVALID_VALUE;
  *desc = calloc(1, sizeof(desc_t));
  (*desc)->compute = compute;
  (*desc)->epilogue = EPI_DEFAULT;
  ++live;
  return SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(desc_t *desc) {
  free(desc);
  --live;
  return SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(desc_t *desc, int attribute, const void *buf,
                                              size_t size) {
  switch (attribute) {
  case 3: /* TRANSA */
  case 4: /* TRANSB */ {
    int32_t op;
    if (size != sizeof(op))
      return INVALID_VALUE;
    memcpy(&op, buf, sizeof(op));
    if (op != 0 && op != 1)
      return INVALID_VALUE;
    *(attribute == 3 ? &desc->transa : &desc->transb) = op;
    return SUCCESS;
  }
  case 7: /* EPILOGUE */
    if (size != sizeof(uint32_t))
      return INVALID_VALUE;
    memcpy(&desc->epilogue, buf, sizeof(uint32_t));
    return desc->epilogue == EPI_DEFAULT || desc->epilogue == EPI_RELU ||
                   desc->epilogue == EPI_BIAS || desc->epilogue == (EPI_RELU | EPI_BIAS)
               ? SUCCESS
               : INVALID_VALUE;
  case 8: /* BIAS_POINTER */
    if (size != sizeof(void *))
      return INVALID_VALUE;
    memcpy(&desc->bias, buf, sizeof(void *));
    return SUCCESS;
  }
  return INVALID_VALUE;
}

cublasStatus_t cublasLtMatrixLayoutCreate(layout_t **layout, int type, uint64_t rows, uint64_t cols,
                                          int64_t ld) {
  if (type != R_32F || ld < (int64_t)(rows > 1 ? rows : 1))
    return INVALID_VALUE;
  *layout = calloc(1, sizeof(layout_t));
  (*layout)->type = type;
  (*layout)->rows = rows, (*layout)->cols = cols, (*layout)->ld = ld;
  ++live;
  return SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(layout_t *layout) {
  free(layout);
  --live;
  return SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(pref_t **pref) {
  *pref = calloc(1, sizeof(pref_t));
  for (int i = 0; i < 4; ++i)
    (*pref)->align[i] = 256;
  ++live;
  return SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(pref_t *pref) {
  free(pref);
  --live;
  return SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(pref_t *pref, int attribute, const void *buf,
                                                    size_t size) {
  if (attribute == 1) { /* MAX_WORKSPACE_BYTES */
    if (size != sizeof(uint64_t))
      return INVALID_VALUE;
    memcpy(&pref->workspace, buf, size);
    return SUCCESS;
  }
  if (attribute >= 5 && attribute <= 8) { /* MIN_ALIGNMENT_{A,B,C,D}_BYTES */
    uint32_t align;
    if (size != sizeof(align))
      return INVALID_VALUE;
    memcpy(&align, buf, size);
    if (align == 0 || (align & (align - 1)) != 0)
      return INVALID_VALUE;
    pref->align[attribute - 5] = align;
    return SUCCESS;
  }
  return INVALID_VALUE;
}

/* The product's sizes from the layouts, or 0 when they do not fit together. */
static int sizes(const desc_t *d, const layout_t *a, const layout_t *b, const layout_t *c,
                 uint64_t *m, uint64_t *n, uint64_t *k) {
  *m = d->transa ? a->cols : a->rows;
  *k = d->transa ? a->rows : a->cols;
  *n = d->transb ? b->rows : b->cols;
  uint64_t kb = d->transb ? b->cols : b->rows;
  return kb == *k && c->rows == *m && c->cols == *n;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(void *handle, desc_t *desc, layout_t *a, layout_t *b,
                                              layout_t *c, layout_t *d, pref_t *pref, int requested,
                                              heuristic_t *results, int *found) {
  uint64_t m, n, k;
  if (handle != &handle_storage)
    return NOT_INITIALIZED;
  if (requested < 1 || !sizes(desc, a, b, d, &m, &n, &k) || c->rows != d->rows ||
      c->cols != d->cols || c->ld != d->ld)
    return INVALID_VALUE;
  if (logging())
    fprintf(stderr, "fake_cublaslt: heuristic %c %c %llu %llu %llu epilogue %u align %u %u %u %u\n",
            desc->transa ? 'T' : 'N', desc->transb ? 'T' : 'N', (unsigned long long)m,
            (unsigned long long)n, (unsigned long long)k, desc->epilogue, pref->align[0],
            pref->align[1], pref->align[2], pref->align[3]);
  const char *none = getenv("FAKE_CUBLASLT_NO_ALGO");
  if (none != NULL && none[0] == '1') {
    *found = 0;
    return NOT_SUPPORTED;
  }
  memset(&results[0], 0, sizeof(results[0]));
  for (int i = 0; i < 4; ++i)
    results[0].algo.align[i] = pref->align[i];
  results[0].algo.workspace = pref->workspace;
  results[0].workspace_size = pref->workspace < 1024 ? pref->workspace : 1024;
  *found = 1;
  return SUCCESS;
}

cublasStatus_t cublasLtMatmul(void *handle, desc_t *desc, const float *alpha, const float *a,
                              layout_t *adesc, const float *b, layout_t *bdesc, const float *beta,
                              const float *c, layout_t *cdesc, float *d, layout_t *ddesc,
                              const algo_t *algo, void *workspace, size_t workspace_bytes,
                              void *stream) {
  (void)stream;
  uint64_t m, n, k;
  if (handle != &handle_storage)
    return NOT_INITIALIZED;
  if (algo == NULL || !sizes(desc, adesc, bdesc, ddesc, &m, &n, &k) || cdesc->rows != ddesc->rows ||
      cdesc->cols != ddesc->cols || cdesc->ld != ddesc->ld)
    return INVALID_VALUE;
  const void *pointers[4] = {a, b, c, d};
  for (int i = 0; i < 4; ++i)
    if ((uintptr_t)pointers[i] % algo->align[i] != 0)
      return NOT_SUPPORTED;
  if (workspace_bytes < algo->workspace || (algo->workspace != 0 && workspace == NULL))
    return INVALID_VALUE;
  if ((desc->epilogue & EPI_BIAS) && desc->bias == NULL)
    return INVALID_VALUE;
  int tf32 = desc->compute == COMPUTE_32F_FAST_TF32;
  if (logging())
    fprintf(stderr, "fake_cublaslt: matmul%s %c %c %llu %llu %llu epilogue %u beta %g%s\n",
            tf32 ? " tf32" : "", desc->transa ? 'T' : 'N', desc->transb ? 'T' : 'N',
            (unsigned long long)m, (unsigned long long)n, (unsigned long long)k, desc->epilogue,
            (double)*beta, *beta != 0.0f && c == d ? " in place" : "");
  for (uint64_t j = 0; j < n; ++j)
    for (uint64_t i = 0; i < m; ++i) {
      float sum = 0.0f;
      for (uint64_t l = 0; l < k; ++l) {
        float x = desc->transa ? a[l + i * adesc->ld] : a[i + l * adesc->ld];
        float y = desc->transb ? b[j + l * bdesc->ld] : b[l + j * bdesc->ld];
        sum += tf32 ? to_tf32(x) * to_tf32(y) : x * y;
      }
      float out = *alpha * sum;
      if (*beta != 0.0f)
        out += *beta * c[i + j * cdesc->ld];
      if (desc->epilogue & EPI_BIAS)
        out += desc->bias[i];
      if ((desc->epilogue & EPI_RELU) && out < 0.0f)
        out = 0.0f;
      d[i + j * ddesc->ld] = out;
    }
  return SUCCESS;
}
