/*
 * kiln/runtime/mgpu.h - the calls compiled host code makes to run GPU kernels.
 *
 * Kiln lowers its GPU partitions' host side with upstream MLIR (gpu-to-llvm and the
 * gpu.binary translation), which calls a fixed set of C functions: mgpuModuleLoad,
 * mgpuLaunchKernel, mgpuMemAlloc and so on, the same names and signatures as MLIR's own
 * CUDA runtime wrappers. The runtime provides them here over kiln/runtime/gpu.h, with
 * two differences that suit compiled models:
 *
 *  - Nothing aborts. The first failure on a thread (no driver, no device, out of device
 *    memory, a kernel the driver rejects) is kept as that thread's pending error; from then
 *    on the calls on that thread do nothing (and return NULL) until the error is taken with
 *    kiln_mgpu_take_error(), which the model's entry point does after each GPU partition to
 *    return the error as its status. Memory and streams are still released.
 *  - Nothing loads early. mgpuModuleLoad (called from a constructor when the program
 *    starts) only remembers the image; the driver is loaded, the device opened and the
 *    module loaded by the first mgpuModuleGetFunction. So a program built with GPU code
 *    starts, and runs its CPU work, on a machine without a GPU or driver.
 *  - Compiled code looks a launch's kernel up at every launch; the module keeps what the
 *    driver found per device and name (by the name's address, checked against a copy of
 *    it), so the driver is asked once per kernel.
 *
 * Devices are opened on first use and stay open for the life of the process. Each thread
 * works on device 0 until mgpuSetDefaultDevice (or kiln_mgpu_set_device) says otherwise.
 *
 * Streams: a GPU partition's call takes one stream (mgpuStreamCreate, from a per-device
 * pool of streams given back by mgpuStreamDestroy), queues all its copies and kernels on
 * it and waits for it once, before it returns (codegen/GPU's kiln-gpu-stream). The
 * library calls here (cuBLAS, cuDNN) run on the stream the calling thread took last and
 * return without waiting for the device: what reads their result is queued after them.
 * With the environment variable KILN_GPU_STREAM=default (read once per process), every
 * call uses the default stream instead (an experiment, timed by test/gpu/models.py).
 *
 * Copies: a copy of 1 MiB or more between device memory and pageable host memory (a
 * model's inputs and outputs) goes through two pinned 4 MiB buffers of the calling thread
 * in chunks, the host copying one chunk (on the thread pool, kiln/runtime/parallel.h)
 * while the device copies the other; the driver's own path for pageable memory copies on
 * one thread. KILN_GPU_STAGING=0 (read once) leaves every copy to the driver. Pinned or
 * device memory on both sides is copied directly.
 *
 * Profiling: with KILN_GPU_PROFILE=1 (read once) every launch, copy and library call is
 * timed on the device between events recorded around it on its stream, and when the
 * process exits a table goes to stderr: for each kind of work (a kernel with its grid, a
 * library call with its sizes, a copy with its bytes) the device milliseconds per call of
 * the GPU partitions, its share and how many there are per call, largest first, under a
 * line with the host's time per call from kiln_mgpu_part_begin to kiln_mgpu_part_end.
 * The process's first call is left out: it loads the kernels and libraries, which the
 * driver does lazily on first launch, and uploads the weights.
 * A span includes any time its stream waited for the host to queue it, so a host-bound
 * call shows its gaps in the kernels that follow them. The events add a little host time.
 */
#ifndef KILN_RUNTIME_MGPU_H
#define KILN_RUNTIME_MGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln/runtime/abi.h"
#include "kiln/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The pending error of the calling thread, or NULL; the caller frees it. Taking it lets the
 * calls work again. */
kiln_status_t kiln_mgpu_take_error(void);

/* Destroys the streams mgpuStreamDestroy kept for reuse, on every device, the calling
 * thread's staging buffers (see Copies above), the idle pinned buffers of partitions'
 * transfers (kiln_mgpu_partition_send) and cuBLASLt's plans and workspaces
 * (kiln_gpu_blaslt_release), for a program that wants the driver's objects
 * released before it closes its devices; tests. */
void kiln_mgpu_release_cached(void);

/* The device (ordinal) later calls on this thread use. */
void kiln_mgpu_set_device(int ordinal);

/* A GPU partition's call (codegen/GPU's kiln-gpu-host). `slot` is the partition's static
 * pair {device address of its arena, fresh}, zero when the program starts. begin takes
 * the process's GPU lock (calls of GPU partitions run one at a time, until end), allocates
 * the arena of `bytes` on the thread's device on the first call, setting slot[1] to 1 for
 * that call only (the caller then uploads its weights), and returns the arena; NULL when
 * that fails, the error pending. end waits for the device to finish the call's work and
 * releases the lock; if the call that allocated the
 * arena failed, it frees the arena, so the next call allocates and uploads again. */
void *kiln_mgpu_part_begin(int64_t *slot, int64_t bytes);
void kiln_mgpu_part_end(int64_t *slot);

/* For the model's entry point after a GPU partition: KILN_STATUS_OK, or the code of the
 * thread's pending error, which it takes, with its message written to
 * options->error_message (when the caller gave a buffer). */
int32_t kiln_mgpu_status(const kiln_run_options_t *options);

/* A GPU partition running beside CPU partitions (kiln/runtime/partitions.h): the host code
 * of its kiln.send and kiln.recv, whose buffers are device memory. send queues the copy of
 * the `bytes` at device address `data` into a pinned host buffer on the thread's current
 * stream (after the partition's earlier work there), records an event after it and
 * returns; the tensor goes to the rendezvous as `key` once the event has passed, at the
 * thread's next recv, the end of its stream (mgpuStreamDestroy) or call
 * (kiln_mgpu_part_end, kiln_mgpu_partition_status), whichever comes first. recv first hands
 * over the sends in flight (the tensor it waits for may be computed from one), receives
 * tensor `key` into a pinned buffer and queues its copy to `data` on that stream without
 * waiting for it (the buffer stays the transfer's until the call ends). The pinned buffers
 * are kept for later calls (kiln_mgpu_release_cached frees them). Without pinned memory, or
 * with 64 transfers in flight, a transfer copies through malloc'ed memory and waits. With
 * an error pending they still send (zeros) and receive, so that the partitions exchanging
 * tensors with this one finish; the call then fails. */
void kiln_mgpu_partition_send(int32_t key, uintptr_t data, int64_t bytes);
void kiln_mgpu_partition_recv(int32_t key, uintptr_t data, int64_t bytes);

/* kiln_kernel_matmul_f32's contract (kiln/kernels/matmul.h; KILN_MATMUL_TRANSPOSE_A,
 * _TRANSPOSE_B and _OVERWRITE in `flags`) on device memory, by cuBLAS
 * (kiln/runtime/gpu_blas.h), queued on the thread's current stream (see Streams above;
 * finished before it returns when the thread holds none). */
void kiln_mgpu_matmul_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n, int64_t k,
                          int32_t flags);
/* kiln_kernel_batch_matmul_f32's contract (KILN_MATMUL_BROADCAST_A and _B too) the same way,
 * by cublasSgemmStridedBatched. With KILN_MGPU_MATMUL_TF32 in `flags` either rounds its
 * operands to TF32 for the tensor cores (cublasGemmStridedBatchedEx). */
void kiln_mgpu_batch_matmul_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t batch, int64_t m,
                                int64_t n, int64_t k, int32_t flags);
/* The same two for f16 operands and results, summed in f32 (cublasGemmStridedBatchedEx). */
void kiln_mgpu_matmul_f16(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n, int64_t k,
                          int32_t flags);
void kiln_mgpu_batch_matmul_f16(uintptr_t a, uintptr_t b, uintptr_t c, int64_t batch, int64_t m,
                                int64_t n, int64_t k, int32_t flags);

/* kiln_kernel_matmul_epilogue_f32's contract (kiln/kernels/matmul.h) on device memory, by
 * cuBLASLt (kiln_gpu_gemm_epilogue in kiln/runtime/gpu_blas.h: one cublasLtMatmul with the
 * epilogue), queued like kiln_mgpu_matmul_f32, TF32 with KILN_MGPU_MATMUL_TF32, in the
 * forms cuBLASLt applies in the same call: KILN_MATMUL_OVERWRITE, no scale buffer (a
 * scale_value), a bias buffer (or a bias_value of 0), lo -inf or 0, hi +inf and no
 * activation; other epilogues are an error. */
void kiln_mgpu_matmul_epilogue_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n,
                                   int64_t k, int32_t flags, uintptr_t scale, float scale_value,
                                   uintptr_t bias, float bias_value, float lo, float hi,
                                   int32_t activation);
/* The same with `residual` (m x n, dense; c itself or apart from it) added after the bias,
 * before lo (kiln_kernel_matmul_residual_f32's contract). */
void kiln_mgpu_matmul_residual_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n,
                                   int64_t k, int32_t flags, uintptr_t scale, float scale_value,
                                   uintptr_t bias, float bias_value, float lo, float hi,
                                   int32_t activation, uintptr_t residual);

/* output = conv(input, filter) (+ output unless KILN_MGPU_CONV2D_OVERWRITE in `flags`), by
 * cuDNN (kiln/runtime/gpu_dnn.h: kiln_gpu_conv2d_t's layouts and sizes; padding pad_h,
 * pad_w on both sides), queued like kiln_mgpu_matmul_f32; with KILN_MGPU_CONV2D_TF32 cuDNN
 * may choose algorithms on TF32 tensor cores. With KILN_MGPU_CONV2D_EPILOGUE (and
 * _OVERWRITE) the epilogue arguments of kiln_kernel_matmul_epilogue_f32 (kiln/kernels/
 * matmul.h) apply, in the forms cuDNN computes in the same call
 * (kiln_gpu_conv2d_fused_f32): no scale buffer (a scale_value), a bias buffer (or a
 * bias_value of 0), lo -inf or 0, hi +inf and no activation; other epilogues are an error. */
void kiln_mgpu_conv2d_f32(uintptr_t input, uintptr_t filter, uintptr_t output, int64_t n, int64_t h,
                          int64_t w, int64_t c, int64_t f, int64_t kh, int64_t kw, int64_t oh,
                          int64_t ow, int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                          int64_t dilation_w, int64_t pad_h, int64_t pad_w, int64_t groups,
                          int32_t flags, uintptr_t scale, float scale_value, uintptr_t bias,
                          float bias_value, float lo, float hi, int32_t activation);
/* The same with `residual` (n x oh x ow x f, apart from the output) added after the bias,
 * before lo (a ResNet block's shortcut and Relu); a residual implies the epilogue flag. */
void kiln_mgpu_conv2d_residual_f32(uintptr_t input, uintptr_t filter, uintptr_t output, int64_t n,
                                   int64_t h, int64_t w, int64_t c, int64_t f, int64_t kh,
                                   int64_t kw, int64_t oh, int64_t ow, int64_t stride_h,
                                   int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                                   int64_t pad_h, int64_t pad_w, int64_t groups, int32_t flags,
                                   uintptr_t scale, float scale_value, uintptr_t bias,
                                   float bias_value, float lo, float hi, int32_t activation,
                                   uintptr_t residual);

/* After a GPU partition beside others: hands the thread's pending error, if any, to
 * kiln_partitions_run as the call's error (kiln_partition_fail). */
void kiln_mgpu_partition_status(void);

/* MLIR's host ABI (mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp's signatures). Modules,
 * kernels, streams and events are opaque pointers; device memory is a pointer-sized device
 * address. */
void *mgpuModuleLoad(void *image, size_t bytes);
void *mgpuModuleLoadJIT(void *ptx, int optimization_level);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t grid_x, intptr_t grid_y, intptr_t grid_z,
                      intptr_t block_x, intptr_t block_y, intptr_t block_z, int32_t shared_bytes,
                      void *stream, void **params, void **extra, size_t param_count);
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool host_shared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);
void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream);
void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream);
void mgpuSetDefaultDevice(int32_t ordinal);
/* nvgpu.tma.create.descriptor: a TMA tensor map of the memref `ranked_descriptor` points to
 * (MLIR's descriptor of a ranked memref of `rank` dimensions: allocated, aligned pointer,
 * offset, sizes, strides; its offset counts, unlike MLIR's wrapper), read in boxes of
 * `box` (outermost dimension first, as the memref's shape), in device memory the kernels
 * read it from; the enumerations are kiln_gpu_tensor_map_t's. Encoded and uploaded once:
 * the same tensor and box again (every later call of a model) gives the same map. NULL,
 * the error pending, when the driver refuses the tensor (a misaligned view). */
void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *ranked_descriptor, int64_t data_type,
                                     int64_t interleave, int64_t swizzle, int64_t l2_promotion,
                                     int64_t oob_fill, int64_t *box);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_RUNTIME_MGPU_H */
