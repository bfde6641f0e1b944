/*
 * kiln/runtime/gpu_blas.h - matrix products on an NVIDIA GPU through cuBLAS, loaded on first
 * use. Like the driver (kiln/runtime/gpu.h), cuBLAS is opened with dlopen: the library the
 * environment variable KILN_LIBCUBLAS names, else libcublas.so.13 (CUDA 13), else
 * libcublas.so.12, else libcublas.so. Nothing links against it, so a program that never
 * multiplies on a GPU never looks for it; when it is missing, a product fails with
 * KILN_STATUS_NOT_FOUND and "no cuBLAS: " followed by the reason.
 *
 * One cuBLAS handle per device, created on the device's first product and kept for the
 * life of the process. Thread-safety: any thread may call; products on one device are
 * serialised (a cuBLAS handle is not to be used by two threads at once).
 */
#ifndef KILN_RUNTIME_GPU_BLAS_H
#define KILN_RUNTIME_GPU_BLAS_H

#include <stdint.h>

#include "kiln/runtime/abi.h"
#include "kiln/runtime/gpu.h"
#include "kiln/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * c[m x n] = op(a) * op(b) (+ c unless `overwrite`), all f32, dense and row-major in device
 * memory, where op(a) is m x k (a stored k x m when `transpose_a`) and op(b) is k x n (b
 * stored n x k when `transpose_b`): kiln_kernel_matmul_f32's contract, computed by
 * cublasSgemm on `stream` (in order with the stream's other work; NULL is the default
 * stream). Sizes of 0 do nothing (c is zeroed for k == 0 with `overwrite`); sizes that do
 * not fit cuBLAS's int are an error.
 */
kiln_status_t kiln_gpu_sgemm(kiln_gpu_t *gpu, int transpose_a, int transpose_b, int overwrite,
                             int64_t m, int64_t n, int64_t k, kiln_gpu_ptr_t a, kiln_gpu_ptr_t b,
                             kiln_gpu_ptr_t c, kiln_gpu_stream_t stream);

/*
 * `batch` such products, c[i] = op(a[i]) op(b[i]) (+ c[i]), each operand its matrices one
 * after the other, except that a with `broadcast_a` (b with `broadcast_b`) is one matrix
 * every product reads: kiln_kernel_batch_matmul_f32's contract, by
 * cublasSgemmStridedBatched (cublasSgemm for one product).
 */
kiln_status_t kiln_gpu_sgemm_batched(kiln_gpu_t *gpu, int transpose_a, int transpose_b,
                                     int overwrite, int broadcast_a, int broadcast_b, int64_t batch,
                                     int64_t m, int64_t n, int64_t k, kiln_gpu_ptr_t a,
                                     kiln_gpu_ptr_t b, kiln_gpu_ptr_t c, kiln_gpu_stream_t stream);

/* The arithmetic of kiln_gpu_gemm_batched. */
typedef enum {
  KILN_GPU_GEMM_F32 = 0,  /* f32 operands and result, f32 FMA (cublasSgemm) */
  KILN_GPU_GEMM_TF32 = 1, /* f32 operands rounded to TF32 on tensor cores, f32 sums */
  KILN_GPU_GEMM_F16 = 2,  /* f16 operands and result, f32 sums, the result rounded once */
} kiln_gpu_gemm_type_t;

/*
 * kiln_gpu_sgemm_batched in the arithmetic `type` (its operands' element type: f16 for
 * KILN_GPU_GEMM_F16, else f32): cublasGemmStridedBatchedEx (CUBLAS_COMPUTE_32F, or
 * CUBLAS_COMPUTE_32F_FAST_TF32 for TF32) except for plain f32, which is
 * kiln_gpu_sgemm_batched's call.
 */
kiln_status_t kiln_gpu_gemm_batched(kiln_gpu_t *gpu, kiln_gpu_gemm_type_t type, int transpose_a,
                                    int transpose_b, int overwrite, int broadcast_a,
                                    int broadcast_b, int64_t batch, int64_t m, int64_t n, int64_t k,
                                    kiln_gpu_ptr_t a, kiln_gpu_ptr_t b, kiln_gpu_ptr_t c,
                                    kiln_gpu_stream_t stream);

/*
 * What kiln_gpu_gemm_epilogue applies to a product before storing it:
 * c = max(alpha * op(a) op(b) + residual + bias, 0 if relu), per element, bias[j] for
 * column j.
 */
typedef struct {
  float alpha;             /* the product's scale */
  kiln_gpu_ptr_t bias;     /* n floats in device memory, or 0: none */
  kiln_gpu_ptr_t residual; /* m x n floats (row-major, dense), or 0: none; may be c itself */
  int32_t relu;            /* 1: max(x, 0) last; 0: none */
} kiln_gpu_gemm_epilogue_t;

/*
 * c (m x n) = op(a) op(b) with `epilogue` applied, output overwritten, in the arithmetic
 * `type` (KILN_GPU_GEMM_F32 or _TF32; f32 data), by one cublasLtMatmul on `stream` with
 * cuBLASLt's epilogue (CUBLASLT_EPILOGUE_BIAS, _RELU, _RELU_BIAS; the residual as beta 1
 * and C). cuBLASLt is opened like cuBLAS (gpu_blas.h's first paragraph): the library
 * KILN_LIBCUBLASLT names, else libcublasLt.so.13, .12, libcublasLt.so; without it the
 * product fails with KILN_STATUS_NOT_FOUND and "no cuBLASLt: " and the reason.
 * The layouts, the algorithm cuBLASLt's heuristic picks for the pointers' alignments and
 * the descriptors are kept per shape (KILN_GPU_BLASLT_MAX_PLANS of them; more are planned
 * on each call), and each device gets one workspace of KILN_GPU_BLASLT_WORKSPACE bytes on
 * its first such product. Sizes of 0 rows or columns do nothing; k must be at least 1.
 */
enum { KILN_GPU_BLASLT_MAX_PLANS = 256 };
kiln_status_t kiln_gpu_gemm_epilogue(kiln_gpu_t *gpu, kiln_gpu_gemm_type_t type, int transpose_a,
                                     int transpose_b, int64_t m, int64_t n, int64_t k,
                                     const kiln_gpu_gemm_epilogue_t *epilogue, kiln_gpu_ptr_t a,
                                     kiln_gpu_ptr_t b, kiln_gpu_ptr_t c, kiln_gpu_stream_t stream);

/* Releases `gpu`'s cuBLASLt handle, plans and workspace (before closing the device; the
 * next product makes them again). NULL, or a device without them, is ignored. */
void kiln_gpu_blaslt_release(kiln_gpu_t *gpu);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_RUNTIME_GPU_BLAS_H */
