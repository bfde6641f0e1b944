/* Implementation of kiln/runtime/gpu.h: the CUDA driver API through dlopen. */
#define _GNU_SOURCE
#include "kiln/runtime/gpu.h"

#include "library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The driver's types and the values Kiln uses (cuda.h's; the driver ABI is stable). */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef void *CUevent;
typedef unsigned long long CUdeviceptr;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_FOUND = 500,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_STREAM_NON_BLOCKING = 1,
  CU_EVENT_DEFAULT = 0
};

/* Each driver function Kiln calls: its member, and the symbol it is exported as. */
#define KILN_CUDA_FUNCTIONS(X)                                                                     \
  X(cuGetErrorName, "cuGetErrorName", CUresult, (CUresult, const char **))                         \
  X(cuGetErrorString, "cuGetErrorString", CUresult, (CUresult, const char **))                     \
  X(cuInit, "cuInit", CUresult, (unsigned))                                                        \
  X(cuDeviceGetCount, "cuDeviceGetCount", CUresult, (int *))                                       \
  X(cuDeviceGet, "cuDeviceGet", CUresult, (CUdevice *, int))                                       \
  X(cuDeviceGetName, "cuDeviceGetName", CUresult, (char *, int, CUdevice))                         \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", CUresult, (int *, int, CUdevice))                \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult, (CUcontext *, CUdevice))       \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", CUresult, (CUdevice))               \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", CUresult, (CUcontext))                                     \
  X(cuCtxSynchronize, "cuCtxSynchronize", CUresult, (void))                                        \
  X(cuModuleLoadData, "cuModuleLoadData", CUresult, (CUmodule *, const void *))                    \
  X(cuModuleUnload, "cuModuleUnload", CUresult, (CUmodule))                                        \
  X(cuModuleGetFunction, "cuModuleGetFunction", CUresult, (CUfunction *, CUmodule, const char *))  \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", CUresult, (CUfunction, int, int))                    \
  X(cuLaunchKernel, "cuLaunchKernel", CUresult,                                                    \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,   \
     void **, void **))                                                                            \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr *, size_t))                                \
  X(cuMemFree, "cuMemFree_v2", CUresult, (CUdeviceptr))                                            \
  X(cuMemHostAlloc, "cuMemHostAlloc", CUresult, (void **, size_t, unsigned))                       \
  X(cuMemFreeHost, "cuMemFreeHost", CUresult, (void *))                                            \
  X(cuPointerGetAttribute, "cuPointerGetAttribute", CUresult, (void *, int, CUdeviceptr))          \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", CUresult,                                           \
    (CUdeviceptr, const void *, size_t, CUstream))                                                 \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", CUresult, (void *, CUdeviceptr, size_t, CUstream))  \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", CUresult,                                           \
    (CUdeviceptr, CUdeviceptr, size_t, CUstream))                                                  \
  X(cuMemcpyAsync, "cuMemcpyAsync", CUresult, (CUdeviceptr, CUdeviceptr, size_t, CUstream))        \
  X(cuMemsetD32Async, "cuMemsetD32Async", CUresult, (CUdeviceptr, unsigned, size_t, CUstream))     \
  X(cuMemsetD16Async, "cuMemsetD16Async", CUresult,                                                \
    (CUdeviceptr, unsigned short, size_t, CUstream))                                               \
  X(cuStreamCreate, "cuStreamCreate", CUresult, (CUstream *, unsigned))                            \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult, (CUstream))                                   \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUresult, (CUstream))                              \
  X(cuStreamWaitEvent, "cuStreamWaitEvent", CUresult, (CUstream, CUevent, unsigned))               \
  X(cuEventCreate, "cuEventCreate", CUresult, (CUevent *, unsigned))                               \
  X(cuEventDestroy, "cuEventDestroy_v2", CUresult, (CUevent))                                      \
  X(cuEventRecord, "cuEventRecord", CUresult, (CUevent, CUstream))                                 \
  X(cuEventSynchronize, "cuEventSynchronize", CUresult, (CUevent))                                 \
  X(cuEventElapsedTime, "cuEventElapsedTime", CUresult, (float *, CUevent, CUevent))

struct kiln_cuda_driver {
#define KILN_CUDA_MEMBER(member, symbol, result, params) result(*member) params;
  KILN_CUDA_FUNCTIONS(KILN_CUDA_MEMBER)
#undef KILN_CUDA_MEMBER
};

/* The driver, loaded once per process; `load_error` says why it could not be. */
static struct kiln_cuda_driver kiln_cuda;
/* cuTensorMapEncodeTiled (CUDA 12 and later), looked up apart: a driver without it runs
 * every model that does not ask for a tensor map. */
typedef CUresult (*kiln_cu_tensor_map_encode_t)(void *, int, uint32_t, void *, const uint64_t *,
                                                const uint64_t *, const uint32_t *,
                                                const uint32_t *, int, int, int, int);
static kiln_cu_tensor_map_encode_t kiln_cu_tensor_map_encode;
static char kiln_cuda_load_error[512];
static pthread_once_t kiln_cuda_once = PTHREAD_ONCE_INIT;

static void kiln_cuda_load(void) {
  const char *path = getenv("KILN_LIBCUDA");
  if (path == NULL || path[0] == '\0')
    path = "libcuda.so.1";
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    const char *why = dlerror();
    snprintf(kiln_cuda_load_error, sizeof(kiln_cuda_load_error), "cannot load the driver: %s",
             why != NULL ? why : path);
    return;
  }
  struct kiln_cuda_driver functions;
  static const char *const symbols[] = {KILN_CUDA_FUNCTIONS(KILN_LIBRARY_SYMBOL)};
  void **const slots[] = {KILN_CUDA_FUNCTIONS(KILN_LIBRARY_SLOT)};
  char name[300];
  snprintf(name, sizeof(name), "the driver %s", path);
  if (!kiln_library_bind(library, name, symbols, slots, sizeof(slots) / sizeof(slots[0]),
                         " (too old?)", kiln_cuda_load_error, sizeof(kiln_cuda_load_error)))
    return;
  kiln_cu_tensor_map_encode = (kiln_cu_tensor_map_encode_t)dlsym(library, "cuTensorMapEncodeTiled");
  kiln_cuda = functions;
}

/* The loaded driver, or NULL with a status saying why. */
static const struct kiln_cuda_driver *kiln_cuda_driver(kiln_status_t *status) {
  pthread_once(&kiln_cuda_once, kiln_cuda_load);
  if (kiln_cuda.cuInit == NULL) {
    *status = kiln_status_create(KILN_STATUS_NOT_FOUND, "no CUDA device: %s", kiln_cuda_load_error);
    return NULL;
  }
  return &kiln_cuda;
}

/* "CALL: NAME (STRING)" for a driver error. */
static kiln_status_t kiln_cuda_error(CUresult result, const char *call) {
  const char *name = NULL;
  const char *text = NULL;
  if (kiln_cuda.cuGetErrorName(result, &name) != CUDA_SUCCESS || name == NULL)
    name = "CUDA_ERROR_UNKNOWN";
  if (kiln_cuda.cuGetErrorString(result, &text) != CUDA_SUCCESS || text == NULL)
    text = "unknown error";
  kiln_status_code_t code = result == CUDA_ERROR_OUT_OF_MEMORY ? KILN_STATUS_RESOURCE_EXHAUSTED
                            : result == CUDA_ERROR_NOT_FOUND   ? KILN_STATUS_NOT_FOUND
                                                               : KILN_STATUS_INTERNAL;
  return kiln_status_create(code, "%s: %s (%s)", call, name, text);
}

#define KILN_CUDA_CHECK(call_expr, call_name)                                                      \
  do {                                                                                             \
    CUresult kiln_result_ = (call_expr);                                                           \
    if (kiln_result_ != CUDA_SUCCESS)                                                              \
      return kiln_cuda_error(kiln_result_, call_name);                                             \
  } while (0)

struct kiln_gpu {
  CUdevice device;
  CUcontext context;
  int compute_capability;
  char name[256];
};

struct kiln_gpu_module {
  kiln_gpu_t *gpu;
  CUmodule module;
};

kiln_status_t kiln_gpu_open(int ordinal, kiln_gpu_t **out) {
  kiln_status_t status = NULL;
  const struct kiln_cuda_driver *cu = kiln_cuda_driver(&status);
  if (cu == NULL)
    return status;
  CUresult result = cu->cuInit(0);
  if (result != CUDA_SUCCESS) {
    kiln_status_t error = kiln_cuda_error(result, "cuInit");
    status =
        kiln_status_create(KILN_STATUS_NOT_FOUND, "no CUDA device: %s", kiln_status_message(error));
    kiln_status_free(error);
    return status;
  }
  int count = 0;
  KILN_CUDA_CHECK(cu->cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (ordinal < 0 || ordinal >= count)
    return kiln_status_create(KILN_STATUS_NOT_FOUND,
                              "no CUDA device: /gpu:%d asked for, the driver sees %d device%s",
                              ordinal, count, count == 1 ? "" : "s");
  kiln_gpu_t *gpu = (kiln_gpu_t *)calloc(1, sizeof(*gpu));
  if (gpu == NULL)
    return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  int major = 0, minor = 0;
  result = cu->cuDeviceGet(&gpu->device, ordinal);
  const char *call = "cuDeviceGet";
  if (result == CUDA_SUCCESS) {
    call = "cuDeviceGetName";
    result = cu->cuDeviceGetName(gpu->name, (int)sizeof(gpu->name), gpu->device);
  }
  if (result == CUDA_SUCCESS) {
    call = "cuDeviceGetAttribute";
    result =
        cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, gpu->device);
  }
  if (result == CUDA_SUCCESS)
    result =
        cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, gpu->device);
  if (result == CUDA_SUCCESS) {
    call = "cuDevicePrimaryCtxRetain";
    result = cu->cuDevicePrimaryCtxRetain(&gpu->context, gpu->device);
  }
  if (result == CUDA_SUCCESS) {
    call = "cuCtxSetCurrent";
    result = cu->cuCtxSetCurrent(gpu->context);
    if (result != CUDA_SUCCESS)
      cu->cuDevicePrimaryCtxRelease(gpu->device);
  }
  if (result != CUDA_SUCCESS) {
    free(gpu);
    return kiln_cuda_error(result, call);
  }
  gpu->name[sizeof(gpu->name) - 1] = '\0';
  gpu->compute_capability = major * 10 + minor;
  *out = gpu;
  return NULL;
}

void kiln_gpu_close(kiln_gpu_t *gpu) {
  if (gpu == NULL)
    return;
  kiln_cuda.cuDevicePrimaryCtxRelease(gpu->device);
  free(gpu);
}

const char *kiln_gpu_name(const kiln_gpu_t *gpu) { return gpu->name; }

int kiln_gpu_compute_capability(const kiln_gpu_t *gpu) { return gpu->compute_capability; }

kiln_status_t kiln_gpu_bind(kiln_gpu_t *gpu) {
  KILN_CUDA_CHECK(kiln_cuda.cuCtxSetCurrent(gpu->context), "cuCtxSetCurrent");
  return NULL;
}

/* Every call below makes the device's context current first. */
kiln_status_t kiln_gpu_synchronize(kiln_gpu_t *gpu) {
  kiln_status_t bound = kiln_gpu_bind(gpu);
  if (bound != NULL)
    return bound;
  KILN_CUDA_CHECK(kiln_cuda.cuCtxSynchronize(), "cuCtxSynchronize");
  return NULL;
}

#define KILN_GPU_BIND(gpu)                                                                         \
  do {                                                                                             \
    kiln_status_t kiln_bound_ = kiln_gpu_bind(gpu);                                                \
    if (kiln_bound_ != NULL)                                                                       \
      return kiln_bound_;                                                                          \
  } while (0)

kiln_status_t kiln_gpu_module_load(kiln_gpu_t *gpu, const void *image, kiln_gpu_module_t **out) {
  KILN_GPU_BIND(gpu);
  kiln_gpu_module_t *module = (kiln_gpu_module_t *)calloc(1, sizeof(*module));
  if (module == NULL)
    return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  CUresult result = kiln_cuda.cuModuleLoadData(&module->module, image);
  if (result != CUDA_SUCCESS) {
    free(module);
    return kiln_cuda_error(result, "cuModuleLoadData");
  }
  module->gpu = gpu;
  *out = module;
  return NULL;
}

void kiln_gpu_module_unload(kiln_gpu_module_t *module) {
  if (module == NULL)
    return;
  kiln_status_free(kiln_gpu_bind(module->gpu));
  kiln_cuda.cuModuleUnload(module->module);
  free(module);
}

kiln_status_t kiln_gpu_kernel(kiln_gpu_module_t *module, const char *name, kiln_gpu_kernel_t *out) {
  CUfunction function = NULL;
  CUresult result = kiln_cuda.cuModuleGetFunction(&function, module->module, name);
  if (result == CUDA_ERROR_NOT_FOUND)
    return kiln_status_create(KILN_STATUS_NOT_FOUND, "the GPU module has no kernel '%s'", name);
  if (result != CUDA_SUCCESS)
    return kiln_cuda_error(result, "cuModuleGetFunction");
  *out = function;
  return NULL;
}

kiln_status_t kiln_gpu_launch(kiln_gpu_t *gpu, kiln_gpu_kernel_t kernel, const uint32_t grid[3],
                              const uint32_t block[3], uint32_t shared_bytes,
                              kiln_gpu_stream_t stream, void **args) {
  KILN_GPU_BIND(gpu);
  /* More than the 48 KiB every kernel may have (a Hopper product's stages) is asked for
   * per function; the driver refuses past the device's opt-in limit. */
  if (shared_bytes > 48 * 1024)
    KILN_CUDA_CHECK(kiln_cuda.cuFuncSetAttribute((CUfunction)kernel,
                                                 CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                 (int)shared_bytes),
                    "cuFuncSetAttribute (dynamic shared memory)");
  KILN_CUDA_CHECK(kiln_cuda.cuLaunchKernel((CUfunction)kernel, grid[0], grid[1], grid[2], block[0],
                                           block[1], block[2], shared_bytes, (CUstream)stream, args,
                                           NULL),
                  "cuLaunchKernel");
  return NULL;
}

kiln_status_t kiln_gpu_encode_tensor_map(kiln_gpu_t *gpu, void *map,
                                         const kiln_gpu_tensor_map_t *tensor) {
  KILN_GPU_BIND(gpu);
  if (kiln_cu_tensor_map_encode == NULL)
    return kiln_status_create(KILN_STATUS_UNIMPLEMENTED,
                              "the CUDA driver has no cuTensorMapEncodeTiled (TMA needs a "
                              "CUDA 12 driver or later)");
  uint32_t element_strides[5] = {1, 1, 1, 1, 1};
  KILN_CUDA_CHECK(kiln_cu_tensor_map_encode(
                      map, tensor->data_type, tensor->rank, (void *)tensor->address, tensor->dims,
                      tensor->strides, tensor->box, element_strides, tensor->interleave,
                      tensor->swizzle, tensor->l2_promotion, tensor->oob_fill),
                  "cuTensorMapEncodeTiled");
  return NULL;
}

kiln_status_t kiln_gpu_alloc(kiln_gpu_t *gpu, size_t bytes, kiln_gpu_ptr_t *out) {
  KILN_GPU_BIND(gpu);
  CUdeviceptr ptr = 0;
  CUresult result = kiln_cuda.cuMemAlloc(&ptr, bytes == 0 ? 1 : bytes);
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED,
                              "cuMemAlloc: out of device memory for %zu bytes on %s", bytes,
                              gpu->name);
  if (result != CUDA_SUCCESS)
    return kiln_cuda_error(result, "cuMemAlloc");
  *out = (kiln_gpu_ptr_t)ptr;
  return NULL;
}

void kiln_gpu_free(kiln_gpu_t *gpu, kiln_gpu_ptr_t ptr) {
  if (ptr == 0)
    return;
  kiln_status_free(kiln_gpu_bind(gpu));
  kiln_cuda.cuMemFree((CUdeviceptr)ptr);
}

kiln_status_t kiln_gpu_host_alloc(kiln_gpu_t *gpu, size_t bytes, void **out) {
  KILN_GPU_BIND(gpu);
  void *host = NULL;
  CUresult result = kiln_cuda.cuMemHostAlloc(&host, bytes > 0 ? bytes : 1, 0);
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED,
                              "out of pinned host memory: %zu bytes asked for", bytes);
  if (result != CUDA_SUCCESS)
    return kiln_cuda_error(result, "cuMemHostAlloc");
  *out = host;
  return NULL;
}

void kiln_gpu_host_free(kiln_gpu_t *gpu, void *ptr) {
  if (ptr == NULL)
    return;
  kiln_status_free(kiln_gpu_bind(gpu));
  kiln_cuda.cuMemFreeHost(ptr);
}

kiln_gpu_memory_t kiln_gpu_memory_kind(kiln_gpu_t *gpu, const void *address) {
  enum { CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2, CU_MEMORYTYPE_HOST = 1 };
  kiln_status_t bound = kiln_gpu_bind(gpu);
  if (bound != NULL) {
    kiln_status_free(bound);
    return KILN_GPU_MEMORY_PAGEABLE;
  }
  unsigned type = 0;
  /* The driver knows device memory and the host memory it pinned; for other host memory
   * the query fails. */
  if (kiln_cuda.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      (CUdeviceptr)(uintptr_t)address) != CUDA_SUCCESS)
    return KILN_GPU_MEMORY_PAGEABLE;
  return type == CU_MEMORYTYPE_HOST ? KILN_GPU_MEMORY_PINNED : KILN_GPU_MEMORY_DEVICE;
}

kiln_status_t kiln_gpu_copy_to_device(kiln_gpu_t *gpu, kiln_gpu_ptr_t dst, const void *src,
                                      size_t bytes, kiln_gpu_stream_t stream) {
  if (bytes == 0)
    return NULL;
  KILN_GPU_BIND(gpu);
  KILN_CUDA_CHECK(kiln_cuda.cuMemcpyHtoDAsync((CUdeviceptr)dst, src, bytes, (CUstream)stream),
                  "cuMemcpyHtoDAsync");
  return NULL;
}

kiln_status_t kiln_gpu_copy_to_host(kiln_gpu_t *gpu, void *dst, kiln_gpu_ptr_t src, size_t bytes,
                                    kiln_gpu_stream_t stream) {
  if (bytes == 0)
    return NULL;
  KILN_GPU_BIND(gpu);
  KILN_CUDA_CHECK(kiln_cuda.cuMemcpyDtoHAsync(dst, (CUdeviceptr)src, bytes, (CUstream)stream),
                  "cuMemcpyDtoHAsync");
  return NULL;
}

kiln_status_t kiln_gpu_copy_on_device(kiln_gpu_t *gpu, kiln_gpu_ptr_t dst, kiln_gpu_ptr_t src,
                                      size_t bytes, kiln_gpu_stream_t stream) {
  if (bytes == 0)
    return NULL;
  KILN_GPU_BIND(gpu);
  KILN_CUDA_CHECK(
      kiln_cuda.cuMemcpyDtoDAsync((CUdeviceptr)dst, (CUdeviceptr)src, bytes, (CUstream)stream),
      "cuMemcpyDtoDAsync");
  return NULL;
}

kiln_status_t kiln_gpu_copy(kiln_gpu_t *gpu, kiln_gpu_ptr_t dst, kiln_gpu_ptr_t src, size_t bytes,
                            kiln_gpu_stream_t stream) {
  if (bytes == 0)
    return NULL;
  KILN_GPU_BIND(gpu);
  KILN_CUDA_CHECK(
      kiln_cuda.cuMemcpyAsync((CUdeviceptr)dst, (CUdeviceptr)src, bytes, (CUstream)stream),
      "cuMemcpyAsync");
  return NULL;
}

kiln_status_t kiln_gpu_fill32(kiln_gpu_t *gpu, kiln_gpu_ptr_t dst, uint32_t value, size_t count,
                              kiln_gpu_stream_t stream) {
  if (count == 0)
    return NULL;
  KILN_GPU_BIND(gpu);
  KILN_CUDA_CHECK(kiln_cuda.cuMemsetD32Async((CUdeviceptr)dst, value, count, (CUstream)stream),
                  "cuMemsetD32Async");
  return NULL;
}

kiln_status_t kiln_gpu_fill16(kiln_gpu_t *gpu, kiln_gpu_ptr_t dst, uint16_t value, size_t count,
                              kiln_gpu_stream_t stream) {
  if (count == 0)
    return NULL;
  KILN_GPU_BIND(gpu);
  KILN_CUDA_CHECK(kiln_cuda.cuMemsetD16Async((CUdeviceptr)dst, value, count, (CUstream)stream),
                  "cuMemsetD16Async");
  return NULL;
}

kiln_status_t kiln_gpu_stream_create(kiln_gpu_t *gpu, kiln_gpu_stream_t *out) {
  KILN_GPU_BIND(gpu);
  CUstream stream = NULL;
  KILN_CUDA_CHECK(kiln_cuda.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  *out = stream;
  return NULL;
}

void kiln_gpu_stream_destroy(kiln_gpu_t *gpu, kiln_gpu_stream_t stream) {
  if (stream == NULL)
    return;
  kiln_status_free(kiln_gpu_bind(gpu));
  kiln_cuda.cuStreamDestroy((CUstream)stream);
}

kiln_status_t kiln_gpu_stream_synchronize(kiln_gpu_t *gpu, kiln_gpu_stream_t stream) {
  KILN_GPU_BIND(gpu);
  KILN_CUDA_CHECK(kiln_cuda.cuStreamSynchronize((CUstream)stream), "cuStreamSynchronize");
  return NULL;
}

kiln_status_t kiln_gpu_event_create(kiln_gpu_t *gpu, kiln_gpu_event_t *out) {
  KILN_GPU_BIND(gpu);
  CUevent event = NULL;
  KILN_CUDA_CHECK(kiln_cuda.cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
  *out = event;
  return NULL;
}

void kiln_gpu_event_destroy(kiln_gpu_t *gpu, kiln_gpu_event_t event) {
  if (event == NULL)
    return;
  kiln_status_free(kiln_gpu_bind(gpu));
  kiln_cuda.cuEventDestroy((CUevent)event);
}

kiln_status_t kiln_gpu_event_record(kiln_gpu_t *gpu, kiln_gpu_event_t event,
                                    kiln_gpu_stream_t stream) {
  KILN_GPU_BIND(gpu);
  KILN_CUDA_CHECK(kiln_cuda.cuEventRecord((CUevent)event, (CUstream)stream), "cuEventRecord");
  return NULL;
}

kiln_status_t kiln_gpu_stream_wait(kiln_gpu_t *gpu, kiln_gpu_stream_t stream,
                                   kiln_gpu_event_t event) {
  KILN_GPU_BIND(gpu);
  KILN_CUDA_CHECK(kiln_cuda.cuStreamWaitEvent((CUstream)stream, (CUevent)event, 0),
                  "cuStreamWaitEvent");
  return NULL;
}

kiln_status_t kiln_gpu_event_synchronize(kiln_gpu_t *gpu, kiln_gpu_event_t event) {
  KILN_GPU_BIND(gpu);
  KILN_CUDA_CHECK(kiln_cuda.cuEventSynchronize((CUevent)event), "cuEventSynchronize");
  return NULL;
}

kiln_status_t kiln_gpu_event_elapsed(kiln_gpu_t *gpu, kiln_gpu_event_t start, kiln_gpu_event_t end,
                                     float *milliseconds) {
  KILN_GPU_BIND(gpu);
  float elapsed = 0;
  KILN_CUDA_CHECK(kiln_cuda.cuEventElapsedTime(&elapsed, (CUevent)start, (CUevent)end),
                  "cuEventElapsedTime");
  *milliseconds = elapsed;
  return NULL;
}
