/* Internal to the runtime, for tests: cuBLASLt's descriptors as kiln_gpu_gemm_epilogue makes
 * them, without a device. */
#ifndef KILN_RUNTIME_SRC_GPU_BLASLT_CHECK_H
#define KILN_RUNTIME_SRC_GPU_BLASLT_CHECK_H

#include "kiln/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads cuBLASLt as kiln_gpu_gemm_epilogue does and makes (then destroys) the matmul
 * descriptor, layouts and heuristic preference of every transpose, epilogue and arithmetic
 * it plans, with its attribute values and sizes: what of its use of the library needs no
 * GPU (the library checks each attribute's size and value). NULL, or the first error. */
kiln_status_t kiln_gpu_blaslt_check_descriptors(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_RUNTIME_SRC_GPU_BLASLT_CHECK_H */
