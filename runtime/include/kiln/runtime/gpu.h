/*
 * kiln/runtime/gpu.h - NVIDIA GPUs through the CUDA driver, loaded on first use.
 *
 * Nothing here links against CUDA: the first kiln_gpu_open() loads the driver library
 * with dlopen ("libcuda.so.1", or the file named by the environment variable
 * KILN_LIBCUDA) and looks up the few driver functions Kiln calls. So every program built
 * with the runtime starts on a machine without a GPU or driver; opening a device there
 * fails with KILN_STATUS_NOT_FOUND and a message that starts with "no CUDA device: "
 * followed by the reason (the dlopen error, or the driver's own error string, e.g.
 * "cuInit: no CUDA-capable device is detected").
 *
 * A kiln_gpu_t is one device's primary context. Device memory is addressed by
 * kiln_gpu_ptr_t (the driver's CUdeviceptr); modules are loaded from PTX text (which
 * the driver compiles for the device) or from a cubin or fatbin image. Streams and events
 * are the driver's, as opaque pointers; stream NULL is the context's default stream.
 *
 * Every function returns NULL (OK) or a status the caller frees; on failure its outputs
 * are left unchanged. Driver errors give KILN_STATUS_INTERNAL with the failing call and
 * the driver's name and string for the error ("cuModuleLoadData: CUDA_ERROR_INVALID_PTX
 * (a PTX JIT compilation failed)"), out of device memory KILN_STATUS_RESOURCE_EXHAUSTED.
 *
 * Thread-safety: loading the driver and opening a device are thread-safe (the driver is
 * loaded once per process; each open retains the device's primary context, each close
 * releases it). The other calls may come from any thread, as the driver allows.
 */
#ifndef KILN_RUNTIME_GPU_H
#define KILN_RUNTIME_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "kiln/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_gpu kiln_gpu_t;
typedef struct kiln_gpu_module kiln_gpu_module_t;
typedef uint64_t kiln_gpu_ptr_t;
typedef void *kiln_gpu_kernel_t;
typedef void *kiln_gpu_stream_t;
typedef void *kiln_gpu_event_t;

/* Opens device `ordinal` (0 for the first GPU): loads the driver if needed, initialises
 * it, and retains the device's primary context, which becomes current on this thread. */
kiln_status_t kiln_gpu_open(int ordinal, kiln_gpu_t **out);

/* Releases the context; NULL is ignored. Modules, memory, streams and events of this
 * device must be released first. */
void kiln_gpu_close(kiln_gpu_t *gpu);

/* The device's name as the driver reports it ("NVIDIA H200"); owned by `gpu`. */
const char *kiln_gpu_name(const kiln_gpu_t *gpu);

/* The device's compute capability, e.g. 90 for sm_90. */
int kiln_gpu_compute_capability(const kiln_gpu_t *gpu);

/* Waits until all work on the device is done. */
kiln_status_t kiln_gpu_synchronize(kiln_gpu_t *gpu);

/* Makes the device's context current on the calling thread (every call below does it
 * too; a thread that calls kernels it launched through other means needs it). */
kiln_status_t kiln_gpu_bind(kiln_gpu_t *gpu);

/* Loads a module from `image`: NUL-terminated PTX text, a cubin or a fatbin. */
kiln_status_t kiln_gpu_module_load(kiln_gpu_t *gpu, const void *image, kiln_gpu_module_t **out);

/* Unloads a module; NULL is ignored. */
void kiln_gpu_module_unload(kiln_gpu_module_t *module);

/* The kernel `name` of `module` (KILN_STATUS_NOT_FOUND when it has none). */
kiln_status_t kiln_gpu_kernel(kiln_gpu_module_t *module, const char *name, kiln_gpu_kernel_t *out);

/* Launches `kernel` on a grid of grid[0] x grid[1] x grid[2] blocks of block[0] x block[1]
 * x block[2] threads with `shared_bytes` of dynamic shared memory (past 48 KiB asked of the
 * driver for the kernel first, up to the device's limit), on `stream`.
 * `args[i]` points to the value of the kernel's i-th parameter. */
kiln_status_t kiln_gpu_launch(kiln_gpu_t *gpu, kiln_gpu_kernel_t kernel, const uint32_t grid[3],
                              const uint32_t block[3], uint32_t shared_bytes,
                              kiln_gpu_stream_t stream, void **args);

/* A tensor in device memory as the tensor memory accelerator (TMA, sm_90 and later) reads
 * it in boxes: cuTensorMapEncodeTiled's arguments, innermost dimension first. `data_type`,
 * `interleave`, `swizzle`, `l2_promotion` and `oob_fill` are the driver's CUtensorMap*
 * enumerations (f16 is 6, a 128-byte swizzle 3, zeros outside the tensor 0); `strides`
 * holds the rank - 1 outer dimensions' strides in bytes (multiples of 16), `address` is
 * 16-byte aligned, `box` at most 256 elements a dimension. */
typedef struct {
  int data_type;
  uint32_t rank;
  kiln_gpu_ptr_t address;
  uint64_t dims[5];
  uint64_t strides[4];
  uint32_t box[5];
  int interleave, swizzle, l2_promotion, oob_fill;
} kiln_gpu_tensor_map_t;

/* Encodes `tensor` into `map` (a CUtensorMap: 128 bytes, 64-byte aligned). Fails with
 * KILN_STATUS_UNIMPLEMENTED when the driver predates TMA (CUDA 12), with the driver's error
 * when it refuses the tensor. */
kiln_status_t kiln_gpu_encode_tensor_map(kiln_gpu_t *gpu, void *map,
                                         const kiln_gpu_tensor_map_t *tensor);

/* Device memory: `bytes` (at least 1) of it, 256-byte aligned, not initialised. */
kiln_status_t kiln_gpu_alloc(kiln_gpu_t *gpu, size_t bytes, kiln_gpu_ptr_t *out);

/* Frees device memory; 0 is ignored. */
void kiln_gpu_free(kiln_gpu_t *gpu, kiln_gpu_ptr_t ptr);

/* Pinned (page-locked) host memory of `bytes` (at least 1), which the device copies to and
 * from directly; freed with kiln_gpu_host_free (NULL is ignored). */
kiln_status_t kiln_gpu_host_alloc(kiln_gpu_t *gpu, size_t bytes, void **out);
void kiln_gpu_host_free(kiln_gpu_t *gpu, void *ptr);

/* What `address` is to the driver: device memory, host memory it pinned, or neither
 * (ordinary pageable host memory, which a copy goes through the driver's own staging). */
typedef enum {
  KILN_GPU_MEMORY_PAGEABLE = 0,
  KILN_GPU_MEMORY_PINNED = 1,
  KILN_GPU_MEMORY_DEVICE = 2,
} kiln_gpu_memory_t;
kiln_gpu_memory_t kiln_gpu_memory_kind(kiln_gpu_t *gpu, const void *address);

/* Copies `bytes` from host to device, device to host, or device to device, in order on
 * `stream` (the host buffer must stay valid until the stream has passed the copy). */
kiln_status_t kiln_gpu_copy_to_device(kiln_gpu_t *gpu, kiln_gpu_ptr_t dst, const void *src,
                                      size_t bytes, kiln_gpu_stream_t stream);
kiln_status_t kiln_gpu_copy_to_host(kiln_gpu_t *gpu, void *dst, kiln_gpu_ptr_t src, size_t bytes,
                                    kiln_gpu_stream_t stream);
kiln_status_t kiln_gpu_copy_on_device(kiln_gpu_t *gpu, kiln_gpu_ptr_t dst, kiln_gpu_ptr_t src,
                                      size_t bytes, kiln_gpu_stream_t stream);

/* Copies `bytes` between any two addresses the device can see (host memory or device
 * memory of this process, told apart by the driver's unified addressing), in order on
 * `stream`. */
kiln_status_t kiln_gpu_copy(kiln_gpu_t *gpu, kiln_gpu_ptr_t dst, kiln_gpu_ptr_t src, size_t bytes,
                            kiln_gpu_stream_t stream);

/* Sets `count` 32-bit (or 16-bit) words of device memory from `dst` on to `value`, in order
 * on `stream`. */
kiln_status_t kiln_gpu_fill32(kiln_gpu_t *gpu, kiln_gpu_ptr_t dst, uint32_t value, size_t count,
                              kiln_gpu_stream_t stream);
kiln_status_t kiln_gpu_fill16(kiln_gpu_t *gpu, kiln_gpu_ptr_t dst, uint16_t value, size_t count,
                              kiln_gpu_stream_t stream);

/* Streams: work on one runs in order; work on two may overlap. */
kiln_status_t kiln_gpu_stream_create(kiln_gpu_t *gpu, kiln_gpu_stream_t *out);
void kiln_gpu_stream_destroy(kiln_gpu_t *gpu, kiln_gpu_stream_t stream);
kiln_status_t kiln_gpu_stream_synchronize(kiln_gpu_t *gpu, kiln_gpu_stream_t stream);

/* Events: recorded on a stream, waited for by another stream or by the host, and timed. */
kiln_status_t kiln_gpu_event_create(kiln_gpu_t *gpu, kiln_gpu_event_t *out);
void kiln_gpu_event_destroy(kiln_gpu_t *gpu, kiln_gpu_event_t event);
kiln_status_t kiln_gpu_event_record(kiln_gpu_t *gpu, kiln_gpu_event_t event,
                                    kiln_gpu_stream_t stream);
kiln_status_t kiln_gpu_stream_wait(kiln_gpu_t *gpu, kiln_gpu_stream_t stream,
                                   kiln_gpu_event_t event);
kiln_status_t kiln_gpu_event_synchronize(kiln_gpu_t *gpu, kiln_gpu_event_t event);
/* Milliseconds between two recorded, completed events. */
kiln_status_t kiln_gpu_event_elapsed(kiln_gpu_t *gpu, kiln_gpu_event_t start, kiln_gpu_event_t end,
                                     float *milliseconds);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_RUNTIME_GPU_H */
