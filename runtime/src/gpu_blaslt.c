/* Implementation of kiln_gpu_gemm_epilogue (kiln/runtime/gpu_blas.h): cuBLASLt through
 * dlopen. */
#define _GNU_SOURCE
#include "kiln/runtime/gpu_blas.h"

#include "blas_abi.h"
#include "gpu_blaslt_check.h"
#include "library.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef void *kiln_lt_handle_t;
typedef void *kiln_lt_desc_t;
typedef void *kiln_lt_layout_t;
typedef void *kiln_lt_pref_t;

#define KILN_CUBLASLT_FUNCTIONS(X)                                                                 \
  X(create, "cublasLtCreate", cublasStatus_t, (kiln_lt_handle_t *))                                \
  X(destroy, "cublasLtDestroy", cublasStatus_t, (kiln_lt_handle_t))                                \
  X(descCreate, "cublasLtMatmulDescCreate", cublasStatus_t, (kiln_lt_desc_t *, int, int))          \
  X(descDestroy, "cublasLtMatmulDescDestroy", cublasStatus_t, (kiln_lt_desc_t))                    \
  X(descSet, "cublasLtMatmulDescSetAttribute", cublasStatus_t,                                     \
    (kiln_lt_desc_t, int, const void *, size_t))                                                   \
  X(layoutCreate, "cublasLtMatrixLayoutCreate", cublasStatus_t,                                    \
    (kiln_lt_layout_t *, int, uint64_t, uint64_t, int64_t))                                        \
  X(layoutDestroy, "cublasLtMatrixLayoutDestroy", cublasStatus_t, (kiln_lt_layout_t))              \
  X(prefCreate, "cublasLtMatmulPreferenceCreate", cublasStatus_t, (kiln_lt_pref_t *))              \
  X(prefDestroy, "cublasLtMatmulPreferenceDestroy", cublasStatus_t, (kiln_lt_pref_t))              \
  X(prefSet, "cublasLtMatmulPreferenceSetAttribute", cublasStatus_t,                               \
    (kiln_lt_pref_t, int, const void *, size_t))                                                   \
  X(heuristic, "cublasLtMatmulAlgoGetHeuristic", cublasStatus_t,                                   \
    (kiln_lt_handle_t, kiln_lt_desc_t, kiln_lt_layout_t, kiln_lt_layout_t, kiln_lt_layout_t,       \
     kiln_lt_layout_t, kiln_lt_pref_t, int, kiln_lt_heuristic_t *, int *))                         \
  X(matmul, "cublasLtMatmul", cublasStatus_t,                                                      \
    (kiln_lt_handle_t, kiln_lt_desc_t, const void *, const void *, kiln_lt_layout_t, const void *, \
     kiln_lt_layout_t, const void *, const void *, kiln_lt_layout_t, void *, kiln_lt_layout_t,     \
     const kiln_lt_algo_t *, void *, size_t, void *))

struct kiln_cublaslt {
#define KILN_CUBLASLT_MEMBER(member, symbol, result, params) result(*member) params;
  KILN_CUBLASLT_FUNCTIONS(KILN_CUBLASLT_MEMBER)
#undef KILN_CUBLASLT_MEMBER
  const char *(*statusString)(cublasStatus_t); /* cublasLtGetStatusString, or NULL */
};

static struct kiln_cublaslt kiln_lt;
static char kiln_lt_load_error[512];
static pthread_once_t kiln_lt_once = PTHREAD_ONCE_INIT;

static void kiln_lt_load(void) {
  static const char *const candidates[] = {"libcublasLt.so.13", "libcublasLt.so.12",
                                           "libcublasLt.so"};
  const char *path = NULL;
  void *library = kiln_library_open(
      "KILN_LIBCUBLASLT", candidates, sizeof(candidates) / sizeof(candidates[0]),
      "libcublasLt.so.13 (or .12)", &path, kiln_lt_load_error, sizeof(kiln_lt_load_error));
  if (library == NULL)
    return;
  struct kiln_cublaslt functions;
  static const char *const symbols[] = {KILN_CUBLASLT_FUNCTIONS(KILN_LIBRARY_SYMBOL)};
  void **const slots[] = {KILN_CUBLASLT_FUNCTIONS(KILN_LIBRARY_SLOT)};
  if (!kiln_library_bind(library, path, symbols, slots, sizeof(slots) / sizeof(slots[0]), "",
                         kiln_lt_load_error, sizeof(kiln_lt_load_error)))
    return;
  *(void **)(&functions.statusString) = dlsym(library, "cublasLtGetStatusString");
  kiln_lt = functions;
}

/* "CALL: STRING (cuBLASLt status N)". */
static kiln_status_t kiln_lt_error(cublasStatus_t result, const char *call) {
  const char *text = kiln_lt.statusString != NULL ? kiln_lt.statusString(result) : NULL;
  return kiln_status_create(
      result == CUBLAS_STATUS_ALLOC_FAILED ? KILN_STATUS_RESOURCE_EXHAUSTED : KILN_STATUS_INTERNAL,
      "%s: %s (cuBLASLt status %d)", call, text != NULL ? text : "error", result);
}

enum { KILN_LT_MAX_DEVICES = 16 };

/* What a plan is for: the call's shape, arithmetic, epilogue and the alignments of its
 * pointers (cuBLASLt's heuristic picks kernels for them). */
typedef struct {
  int type, transpose_a, transpose_b, epilogue, residual;
  int64_t m, n, k;
  uint32_t align_a, align_b, align_c, align_d, align_bias;
} kiln_lt_key_t;

typedef struct {
  kiln_gpu_t *gpu; /* NULL: a free slot */
  kiln_lt_key_t key;
  kiln_lt_desc_t desc;
  kiln_lt_layout_t a, b, d; /* cuBLASLt's A (Kiln's b), B (Kiln's a), and C = D */
  kiln_lt_algo_t algo;
} kiln_lt_plan_t;

/* Per device the handle and workspace; the plans of all devices. All under one lock,
 * which serialises the products (a handle's descriptors are changed per call). */
static pthread_mutex_t kiln_lt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  kiln_gpu_t *gpu;
  kiln_lt_handle_t handle;
  kiln_gpu_ptr_t workspace;
} kiln_lt_devices[KILN_LT_MAX_DEVICES];
static kiln_lt_plan_t kiln_lt_plans[KILN_GPU_BLASLT_MAX_PLANS];

static void kiln_lt_plan_release(kiln_lt_plan_t *plan) {
  if (plan->desc != NULL)
    kiln_lt.descDestroy(plan->desc);
  if (plan->a != NULL)
    kiln_lt.layoutDestroy(plan->a);
  if (plan->b != NULL)
    kiln_lt.layoutDestroy(plan->b);
  if (plan->d != NULL)
    kiln_lt.layoutDestroy(plan->d);
  memset(plan, 0, sizeof(*plan));
}

/* The largest power of two up to 256 that divides `address` (256 for 0). */
static uint32_t kiln_lt_alignment(kiln_gpu_ptr_t address) {
  uint32_t align = 256;
  while (align > 1 && address % align != 0)
    align /= 2;
  return align;
}

/* Fills `plan`'s descriptors for `key` (the bias pointer `bias` set, as the heuristic reads
 * its alignment); on an error the caller releases what was made. No device needed. */
static kiln_status_t kiln_lt_describe(const kiln_lt_key_t *key, kiln_gpu_ptr_t bias,
                                      kiln_lt_plan_t *plan) {
  /* Row-major c = op(a) op(b) is column-major c^T = op(b)^T op(a)^T: cuBLASLt's A is b's
   * memory (n x k column-major, stored k x n when transposed), its B a's (k x m, stored
   * m x k when transposed), D n x m; the bias runs along D's rows, Kiln's columns. */
  int compute = key->type == KILN_GPU_GEMM_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  int32_t opA = key->transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  int32_t opB = key->transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  uint32_t epilogue = (uint32_t)key->epilogue;
  const void *biasPointer = (const void *)(uintptr_t)bias;
  const char *call = "cublasLtMatmulDescCreate";
  cublasStatus_t r = kiln_lt.descCreate(&plan->desc, compute, CUDA_R_32F);
  if (r == CUBLAS_STATUS_SUCCESS) {
    call = "cublasLtMatmulDescSetAttribute";
    r = kiln_lt.descSet(plan->desc, KILN_LT_DESC_TRANSA, &opA, sizeof(opA));
  }
  if (r == CUBLAS_STATUS_SUCCESS)
    r = kiln_lt.descSet(plan->desc, KILN_LT_DESC_TRANSB, &opB, sizeof(opB));
  if (r == CUBLAS_STATUS_SUCCESS)
    r = kiln_lt.descSet(plan->desc, KILN_LT_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
  if (r == CUBLAS_STATUS_SUCCESS && bias != 0)
    r = kiln_lt.descSet(plan->desc, KILN_LT_DESC_BIAS_POINTER, &biasPointer, sizeof(biasPointer));
  int64_t m = key->m, n = key->n, k = key->k;
  if (r == CUBLAS_STATUS_SUCCESS) {
    call = "cublasLtMatrixLayoutCreate";
    r = key->transpose_b ? kiln_lt.layoutCreate(&plan->a, CUDA_R_32F, k, n, k)
                         : kiln_lt.layoutCreate(&plan->a, CUDA_R_32F, n, k, n);
  }
  if (r == CUBLAS_STATUS_SUCCESS)
    r = key->transpose_a ? kiln_lt.layoutCreate(&plan->b, CUDA_R_32F, m, k, m)
                         : kiln_lt.layoutCreate(&plan->b, CUDA_R_32F, k, m, k);
  if (r == CUBLAS_STATUS_SUCCESS)
    r = kiln_lt.layoutCreate(&plan->d, CUDA_R_32F, n, m, n);
  return r == CUBLAS_STATUS_SUCCESS ? NULL : kiln_lt_error(r, call);
}

/* The heuristic's preference for `key`: the workspace and the pointers' alignments. No
 * device needed. */
static kiln_status_t kiln_lt_preference(const kiln_lt_key_t *key, kiln_lt_pref_t *out) {
  kiln_lt_pref_t pref = NULL;
  cublasStatus_t r = kiln_lt.prefCreate(&pref);
  if (r != CUBLAS_STATUS_SUCCESS)
    return kiln_lt_error(r, "cublasLtMatmulPreferenceCreate");
  uint64_t workspace = KILN_GPU_BLASLT_WORKSPACE;
  /* cuBLASLt's A is Kiln's b and its B Kiln's a. */
  const struct {
    int attribute;
    uint32_t value;
  } alignments[] = {{KILN_LT_PREF_MIN_ALIGNMENT_A_BYTES, key->align_b},
                    {KILN_LT_PREF_MIN_ALIGNMENT_B_BYTES, key->align_a},
                    {KILN_LT_PREF_MIN_ALIGNMENT_C_BYTES, key->align_c},
                    {KILN_LT_PREF_MIN_ALIGNMENT_D_BYTES, key->align_d}};
  r = kiln_lt.prefSet(pref, KILN_LT_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace));
  for (size_t i = 0; i < sizeof(alignments) / sizeof(alignments[0]); ++i)
    if (r == CUBLAS_STATUS_SUCCESS)
      r = kiln_lt.prefSet(pref, alignments[i].attribute, &alignments[i].value,
                          sizeof(alignments[i].value));
  if (r != CUBLAS_STATUS_SUCCESS) {
    kiln_lt.prefDestroy(pref);
    return kiln_lt_error(r, "cublasLtMatmulPreferenceSetAttribute");
  }
  *out = pref;
  return NULL;
}

/* Fills `plan` for `key` on `handle`: descriptors and the heuristic's first algorithm. */
static kiln_status_t kiln_lt_plan(kiln_lt_handle_t handle, const kiln_lt_key_t *key,
                                  kiln_gpu_ptr_t bias, kiln_lt_plan_t *plan) {
  kiln_status_t status = kiln_lt_describe(key, bias, plan);
  kiln_lt_pref_t pref = NULL;
  if (status == NULL)
    status = kiln_lt_preference(key, &pref);
  if (status != NULL)
    return status;
  kiln_lt_heuristic_t result;
  memset(&result, 0, sizeof(result));
  int found = 0;
  cublasStatus_t r = kiln_lt.heuristic(handle, plan->desc, plan->a, plan->b, plan->d, plan->d, pref,
                                       1, &result, &found);
  kiln_lt.prefDestroy(pref);
  if (r != CUBLAS_STATUS_SUCCESS)
    return kiln_lt_error(r, "cublasLtMatmulAlgoGetHeuristic");
  if (found < 1 || result.state != CUBLAS_STATUS_SUCCESS)
    return kiln_status_create(
        KILN_STATUS_UNIMPLEMENTED,
        "cuBLASLt has no algorithm for a %lld x %lld x %lld product%s%s with epilogue %d%s "
        "(pointers aligned to %u, %u, %u bytes)",
        (long long)key->m, (long long)key->n, (long long)key->k,
        key->transpose_a ? ", a transposed" : "", key->transpose_b ? ", b transposed" : "",
        key->epilogue, key->residual ? " and a residual" : "", (unsigned)key->align_a,
        (unsigned)key->align_b, (unsigned)key->align_d);
  plan->algo = result.algo;
  return NULL;
}

kiln_status_t kiln_gpu_blaslt_check_descriptors(void) {
  pthread_once(&kiln_lt_once, kiln_lt_load);
  if (kiln_lt.matmul == NULL)
    return kiln_status_create(KILN_STATUS_NOT_FOUND, "no cuBLASLt: %s", kiln_lt_load_error);
  static const int epilogues[] = {KILN_LT_EPILOGUE_DEFAULT, KILN_LT_EPILOGUE_RELU,
                                  KILN_LT_EPILOGUE_BIAS, KILN_LT_EPILOGUE_RELU_BIAS};
  kiln_status_t status = NULL;
  for (int variant = 0; variant < 16 && status == NULL; ++variant) {
    kiln_lt_key_t key;
    memset(&key, 0, sizeof(key));
    key.type = (variant & 8) ? KILN_GPU_GEMM_TF32 : KILN_GPU_GEMM_F32;
    key.transpose_a = variant & 1, key.transpose_b = (variant >> 1) & 1;
    key.epilogue = epilogues[variant % 4];
    key.m = 33, key.n = 48, key.k = 40;
    key.align_a = 4, key.align_b = 16, key.align_c = 64, key.align_d = 256;
    kiln_lt_plan_t plan;
    memset(&plan, 0, sizeof(plan));
    status = kiln_lt_describe(&key, (key.epilogue & KILN_LT_EPILOGUE_BIAS) ? 4096 : 0, &plan);
    kiln_lt_pref_t pref = NULL;
    if (status == NULL)
      status = kiln_lt_preference(&key, &pref);
    if (pref != NULL)
      kiln_lt.prefDestroy(pref);
    kiln_lt_plan_release(&plan);
  }
  return status;
}

/* The device's slot (handle and workspace made if need be), or a status. With the lock. */
static kiln_status_t kiln_lt_device(kiln_gpu_t *gpu, int *out) {
  int slot = -1;
  for (int i = 0; i < KILN_LT_MAX_DEVICES && slot < 0; ++i)
    if (kiln_lt_devices[i].gpu == gpu)
      slot = i;
  for (int i = 0; i < KILN_LT_MAX_DEVICES && slot < 0; ++i)
    if (kiln_lt_devices[i].gpu == NULL)
      slot = i;
  if (slot < 0)
    return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED,
                              "cuBLASLt handles for more than %d devices", KILN_LT_MAX_DEVICES);
  if (kiln_lt_devices[slot].gpu == NULL) {
    kiln_lt_handle_t handle = NULL;
    cublasStatus_t r = kiln_lt.create(&handle);
    if (r != CUBLAS_STATUS_SUCCESS)
      return kiln_lt_error(r, "cublasLtCreate");
    kiln_gpu_ptr_t workspace = 0;
    kiln_status_t status = kiln_gpu_alloc(gpu, KILN_GPU_BLASLT_WORKSPACE, &workspace);
    if (status != NULL) {
      kiln_lt.destroy(handle);
      return status;
    }
    kiln_lt_devices[slot].gpu = gpu;
    kiln_lt_devices[slot].handle = handle;
    kiln_lt_devices[slot].workspace = workspace;
  }
  *out = slot;
  return NULL;
}

kiln_status_t kiln_gpu_gemm_epilogue(kiln_gpu_t *gpu, kiln_gpu_gemm_type_t type, int transpose_a,
                                     int transpose_b, int64_t m, int64_t n, int64_t k,
                                     const kiln_gpu_gemm_epilogue_t *epilogue, kiln_gpu_ptr_t a,
                                     kiln_gpu_ptr_t b, kiln_gpu_ptr_t c, kiln_gpu_stream_t stream) {
  if (m < 0 || n < 0 || k < 1 || m > INT_MAX || n > INT_MAX || k > INT_MAX)
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "a %lld x %lld x %lld product does not fit cuBLASLt's sizes "
                              "(k from 1)",
                              (long long)m, (long long)n, (long long)k);
  if (type != KILN_GPU_GEMM_F32 && type != KILN_GPU_GEMM_TF32)
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "no cuBLASLt product with an epilogue of type %d", (int)type);
  if (epilogue == NULL || (epilogue->relu != 0 && epilogue->relu != 1))
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "a product's epilogue must be given, its relu 0 or 1");
  if (m == 0 || n == 0)
    return NULL;
  pthread_once(&kiln_lt_once, kiln_lt_load);
  if (kiln_lt.matmul == NULL)
    return kiln_status_create(KILN_STATUS_NOT_FOUND, "no cuBLASLt: %s", kiln_lt_load_error);
  kiln_status_t status = kiln_gpu_bind(gpu);
  if (status != NULL)
    return status;

  kiln_gpu_ptr_t input = epilogue->residual != 0 ? epilogue->residual : c;
  kiln_lt_key_t key;
  memset(&key, 0, sizeof(key)); /* compared with memcmp */
  key.type = (int)type;
  key.transpose_a = transpose_a != 0;
  key.transpose_b = transpose_b != 0;
  key.epilogue = (epilogue->relu ? KILN_LT_EPILOGUE_RELU : 0) |
                 (epilogue->bias != 0 ? KILN_LT_EPILOGUE_BIAS : 0);
  if (key.epilogue == 0)
    key.epilogue = KILN_LT_EPILOGUE_DEFAULT;
  key.residual = epilogue->residual != 0;
  key.m = m, key.n = n, key.k = k;
  key.align_a = kiln_lt_alignment(a), key.align_b = kiln_lt_alignment(b);
  key.align_c = kiln_lt_alignment(input), key.align_d = kiln_lt_alignment(c);
  key.align_bias = kiln_lt_alignment(epilogue->bias);

  pthread_mutex_lock(&kiln_lt_lock);
  int device = -1;
  status = kiln_lt_device(gpu, &device);
  if (status != NULL)
    goto done;
  kiln_lt_plan_t *plan = NULL;
  kiln_lt_plan_t local;
  memset(&local, 0, sizeof(local));
  for (int i = 0; i < KILN_GPU_BLASLT_MAX_PLANS && plan == NULL; ++i)
    if (kiln_lt_plans[i].gpu == gpu && memcmp(&kiln_lt_plans[i].key, &key, sizeof(key)) == 0)
      plan = &kiln_lt_plans[i];
  if (plan == NULL) {
    for (int i = 0; i < KILN_GPU_BLASLT_MAX_PLANS && plan == NULL; ++i)
      if (kiln_lt_plans[i].gpu == NULL)
        plan = &kiln_lt_plans[i];
    if (plan == NULL)
      plan = &local;
    status = kiln_lt_plan(kiln_lt_devices[device].handle, &key, epilogue->bias, plan);
    if (status != NULL)
      goto release;
    plan->gpu = gpu;
    plan->key = key;
  }
  cublasStatus_t r = CUBLAS_STATUS_SUCCESS;
  if (epilogue->bias != 0) {
    /* This call's bias (the plan may have been made for another of the same alignment). */
    const void *bias = (const void *)(uintptr_t)epilogue->bias;
    r = kiln_lt.descSet(plan->desc, KILN_LT_DESC_BIAS_POINTER, &bias, sizeof(bias));
    if (r != CUBLAS_STATUS_SUCCESS) {
      status = kiln_lt_error(r, "cublasLtMatmulDescSetAttribute");
      goto release;
    }
  }
  const float beta = epilogue->residual != 0 ? 1.0f : 0.0f;
  r = kiln_lt.matmul(kiln_lt_devices[device].handle, plan->desc, &epilogue->alpha,
                     (const void *)(uintptr_t)b, plan->a, (const void *)(uintptr_t)a, plan->b,
                     &beta, (const void *)(uintptr_t)input, plan->d, (void *)(uintptr_t)c, plan->d,
                     &plan->algo, (void *)(uintptr_t)kiln_lt_devices[device].workspace,
                     KILN_GPU_BLASLT_WORKSPACE, stream);
  if (r != CUBLAS_STATUS_SUCCESS)
    status = kiln_lt_error(r, "cublasLtMatmul");
release:
  if (plan == &local || (status != NULL && plan->gpu == NULL))
    kiln_lt_plan_release(plan);
done:
  pthread_mutex_unlock(&kiln_lt_lock);
  return status;
}

void kiln_gpu_blaslt_release(kiln_gpu_t *gpu) {
  if (gpu == NULL || kiln_lt.matmul == NULL)
    return;
  pthread_mutex_lock(&kiln_lt_lock);
  for (int i = 0; i < KILN_GPU_BLASLT_MAX_PLANS; ++i)
    if (kiln_lt_plans[i].gpu == gpu)
      kiln_lt_plan_release(&kiln_lt_plans[i]);
  for (int i = 0; i < KILN_LT_MAX_DEVICES; ++i) {
    if (kiln_lt_devices[i].gpu != gpu)
      continue;
    kiln_gpu_free(gpu, kiln_lt_devices[i].workspace);
    kiln_lt.destroy(kiln_lt_devices[i].handle);
    memset(&kiln_lt_devices[i], 0, sizeof(kiln_lt_devices[i]));
  }
  pthread_mutex_unlock(&kiln_lt_lock);
}
