/*
 * The runtime's copy of cuBLAS's and cuBLASLt's ABI (runtime/src/blas_abi.h) against the
 * CUDA toolkit's own headers. This file is compiled twice: once with KILN_ABI_FROM_CUDA
 * (cublasLt.h's values) and once without (blas_abi.h's); the second has main(), which
 * compares the two lists entry by entry.
 */
#include <stddef.h>
#include <stdio.h>

/* Each entry: Kiln's name, the toolkit's. */
#define KILN_BLAS_ABI(X)                                                                           \
  X(CUBLAS_STATUS_SUCCESS, CUBLAS_STATUS_SUCCESS)                                                  \
  X(CUBLAS_STATUS_ALLOC_FAILED, CUBLAS_STATUS_ALLOC_FAILED)                                        \
  X(CUBLAS_OP_N, CUBLAS_OP_N)                                                                      \
  X(CUBLAS_OP_T, CUBLAS_OP_T)                                                                      \
  X(CUDA_R_32F, CUDA_R_32F)                                                                        \
  X(CUDA_R_16F, CUDA_R_16F)                                                                        \
  X(CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F)                                                        \
  X(CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_COMPUTE_32F_FAST_TF32)                                    \
  X(CUBLAS_GEMM_DEFAULT, CUBLAS_GEMM_DEFAULT)                                                      \
  X(KILN_LT_DESC_TRANSA, CUBLASLT_MATMUL_DESC_TRANSA)                                              \
  X(KILN_LT_DESC_TRANSB, CUBLASLT_MATMUL_DESC_TRANSB)                                              \
  X(KILN_LT_DESC_EPILOGUE, CUBLASLT_MATMUL_DESC_EPILOGUE)                                          \
  X(KILN_LT_DESC_BIAS_POINTER, CUBLASLT_MATMUL_DESC_BIAS_POINTER)                                  \
  X(KILN_LT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_DEFAULT)                                           \
  X(KILN_LT_EPILOGUE_RELU, CUBLASLT_EPILOGUE_RELU)                                                 \
  X(KILN_LT_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_BIAS)                                                 \
  X(KILN_LT_EPILOGUE_RELU_BIAS, CUBLASLT_EPILOGUE_RELU_BIAS)                                       \
  X(KILN_LT_PREF_MAX_WORKSPACE_BYTES, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES)                    \
  X(KILN_LT_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES)                \
  X(KILN_LT_PREF_MIN_ALIGNMENT_B_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES)                \
  X(KILN_LT_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES)                \
  X(KILN_LT_PREF_MIN_ALIGNMENT_D_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES)                \
  X(sizeof(kiln_lt_algo_t), sizeof(cublasLtMatmulAlgo_t))                                          \
  X(sizeof(kiln_lt_heuristic_t), sizeof(cublasLtMatmulHeuristicResult_t))                          \
  X(offsetof(kiln_lt_heuristic_t, workspace_size),                                                 \
    offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize))                                      \
  X(offsetof(kiln_lt_heuristic_t, state), offsetof(cublasLtMatmulHeuristicResult_t, state))

#ifdef KILN_ABI_FROM_CUDA
#include <cublasLt.h>
#define KILN_ABI_VALUE(kiln, cuda) (long long)(cuda),
const long long kiln_blas_abi_cuda[] = {KILN_BLAS_ABI(KILN_ABI_VALUE)};
#else
#include "blas_abi.h"
#define KILN_ABI_VALUE(kiln, cuda) (long long)(kiln),
#define KILN_ABI_NAME(kiln, cuda) #cuda,
extern const long long kiln_blas_abi_cuda[];
static const long long kiln_values[] = {KILN_BLAS_ABI(KILN_ABI_VALUE)};
static const char *const names[] = {KILN_BLAS_ABI(KILN_ABI_NAME)};

int main(void) {
  int wrong = 0;
  for (size_t i = 0; i < sizeof(kiln_values) / sizeof(kiln_values[0]); ++i)
    if (kiln_values[i] != kiln_blas_abi_cuda[i]) {
      fprintf(stderr, "%s: the runtime has %lld, the toolkit %lld\n", names[i], kiln_values[i],
              kiln_blas_abi_cuda[i]);
      wrong = 1;
    }
  if (!wrong)
    printf("%zu values of cuBLAS's and cuBLASLt's ABI agree\n",
           sizeof(kiln_values) / sizeof(kiln_values[0]));
  return wrong;
}
#endif
