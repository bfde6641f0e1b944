/* Internal to the runtime: the parts of cuBLAS's and cuBLASLt's ABI (cublas_api.h,
 * cublasLt.h, library_types.h of CUDA 12 and 13) that gpu_blas.c and gpu_blaslt.c use,
 * declared here because nothing in the runtime includes CUDA's headers.
 * test/runtime/blas_abi_test.c checks every value and size against those headers where the
 * toolkit is installed. */
#ifndef KILN_RUNTIME_SRC_BLAS_ABI_H
#define KILN_RUNTIME_SRC_BLAS_ABI_H

#include <stddef.h>
#include <stdint.h>

/* cublasLtMatmulAlgo_t and cublasLtMatmulHeuristicResult_t. */
typedef struct {
  uint64_t data[8];
} kiln_lt_algo_t;

typedef struct {
  kiln_lt_algo_t algo;
  size_t workspace_size;
  int state; /* cublasStatus_t */
  float waves_count;
  int reserved[4];
} kiln_lt_heuristic_t;

typedef int cublasStatus_t;

enum {
  /* cublasStatus_t values the runtime tells apart */
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  /* cublasOperation_t */
  CUBLAS_OP_N = 0,
  CUBLAS_OP_T = 1,
  /* cudaDataType */
  CUDA_R_32F = 0,
  CUDA_R_16F = 2,
  /* cublasComputeType_t, and cublasGemmAlgo_t's default */
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
  CUBLAS_GEMM_DEFAULT = -1,
};

enum {
  /* cublasLtMatmulDescAttributes_t */
  KILN_LT_DESC_TRANSA = 3,       /* int32_t: CUBLAS_OP_N (0) or CUBLAS_OP_T (1) */
  KILN_LT_DESC_TRANSB = 4,       /* int32_t */
  KILN_LT_DESC_EPILOGUE = 7,     /* uint32_t: cublasLtEpilogue_t */
  KILN_LT_DESC_BIAS_POINTER = 8, /* const void* */
  /* cublasLtEpilogue_t */
  KILN_LT_EPILOGUE_DEFAULT = 1,
  KILN_LT_EPILOGUE_RELU = 2,
  KILN_LT_EPILOGUE_BIAS = 4,
  KILN_LT_EPILOGUE_RELU_BIAS = 6,
  /* cublasLtMatmulPreferenceAttributes_t */
  KILN_LT_PREF_MAX_WORKSPACE_BYTES = 1,   /* uint64_t */
  KILN_LT_PREF_MIN_ALIGNMENT_A_BYTES = 5, /* uint32_t each, default 256 */
  KILN_LT_PREF_MIN_ALIGNMENT_B_BYTES = 6,
  KILN_LT_PREF_MIN_ALIGNMENT_C_BYTES = 7,
  KILN_LT_PREF_MIN_ALIGNMENT_D_BYTES = 8,
};

#endif /* KILN_RUNTIME_SRC_BLAS_ABI_H */
