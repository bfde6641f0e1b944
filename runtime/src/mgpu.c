/* Implementation of kiln/runtime/mgpu.h: MLIR's GPU host ABI over kiln/runtime/gpu.h. */
#include "kiln/runtime/mgpu.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_profile.h"
#include "kiln/runtime/gpu.h"
#include "kiln/runtime/gpu_blas.h"
#include "kiln/runtime/gpu_dnn.h"
#include "kiln/runtime/parallel.h"
#include "kiln/runtime/partitions.h"

enum { KILN_MGPU_MAX_DEVICES = 16 };

/* Devices, opened on first use and kept for the life of the process. */
static pthread_mutex_t kiln_mgpu_lock = PTHREAD_MUTEX_INITIALIZER;
static kiln_gpu_t *kiln_mgpu_devices[KILN_MGPU_MAX_DEVICES];

static _Thread_local int kiln_mgpu_ordinal;
static _Thread_local kiln_status_t kiln_mgpu_pending;
/* The stream the thread took last (mgpuStreamCreate) and has not given back: the library
 * calls' (NULL: the default stream). */
static _Thread_local kiln_gpu_stream_t kiln_mgpu_current;

/* Keeps `status` as the thread's pending error unless one is pending already. */
static void kiln_mgpu_fail(kiln_status_t status) {
  if (status == NULL)
    return;
  if (kiln_mgpu_pending == NULL)
    kiln_mgpu_pending = status;
  else
    kiln_status_free(status);
}

static void kiln_mgpu_settle(int sends_only);
static kiln_gpu_t *kiln_mgpu_device(void);

kiln_status_t kiln_mgpu_take_error(void) {
  kiln_status_t status = kiln_mgpu_pending;
  kiln_mgpu_pending = NULL;
  return status;
}

void kiln_mgpu_set_device(int ordinal) { kiln_mgpu_ordinal = ordinal; }

void mgpuSetDefaultDevice(int32_t ordinal) { kiln_mgpu_set_device(ordinal); }

/* TMA tensor maps (mgpuTensorMapEncodeTiledMemref): each distinct tensor and box, per
 * device, encoded once into device memory of its own, found again by a hash of its
 * kiln_gpu_tensor_map_t (zeroed before it is filled, so padding compares equal). */
enum {
  KILN_MGPU_MAP_BYTES = 128,
  KILN_MGPU_MAP_SLOTS = 4096 /* a power of two */
};
typedef struct {
  int used, device;
  kiln_gpu_tensor_map_t tensor;
  kiln_gpu_ptr_t map;
} kiln_mgpu_map_entry_t;
static kiln_mgpu_map_entry_t *kiln_mgpu_maps; /* KILN_MGPU_MAP_SLOTS, under kiln_mgpu_lock */
static int kiln_mgpu_map_count;

static uint64_t kiln_mgpu_map_hash(int device, const kiln_gpu_tensor_map_t *tensor) {
  uint64_t hash = 1469598103934665603ull ^ (uint64_t)device;
  const unsigned char *bytes = (const unsigned char *)tensor;
  for (size_t i = 0; i < sizeof *tensor; ++i)
    hash = (hash ^ bytes[i]) * 1099511628211ull;
  return hash;
}

/* The device copy of `tensor`'s map, encoded and uploaded the first time (under
 * kiln_mgpu_lock). */
static kiln_status_t kiln_mgpu_tensor_map(kiln_gpu_t *gpu, int device,
                                          const kiln_gpu_tensor_map_t *tensor,
                                          kiln_gpu_ptr_t *out) {
  if (kiln_mgpu_maps == NULL) {
    kiln_mgpu_maps = calloc(KILN_MGPU_MAP_SLOTS, sizeof *kiln_mgpu_maps);
    if (kiln_mgpu_maps == NULL)
      return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED, "no memory for tensor maps");
  }
  size_t slot = (size_t)kiln_mgpu_map_hash(device, tensor) & (KILN_MGPU_MAP_SLOTS - 1);
  for (; kiln_mgpu_maps[slot].used; slot = (slot + 1) & (KILN_MGPU_MAP_SLOTS - 1)) {
    kiln_mgpu_map_entry_t *entry = &kiln_mgpu_maps[slot];
    if (entry->device == device && memcmp(&entry->tensor, tensor, sizeof *tensor) == 0) {
      *out = entry->map;
      return NULL;
    }
  }
  /* Half full at most, so that probes stay short. */
  if (kiln_mgpu_map_count >= KILN_MGPU_MAP_SLOTS / 2)
    return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED,
                              "more than %d TMA tensor maps asked for", KILN_MGPU_MAP_SLOTS / 2);
  _Alignas(64) unsigned char map[KILN_MGPU_MAP_BYTES];
  memset(map, 0, sizeof map);
  kiln_status_t status = kiln_gpu_encode_tensor_map(gpu, map, tensor);
  kiln_gpu_ptr_t copy = 0;
  if (status == NULL)
    status = kiln_gpu_alloc(gpu, sizeof map, &copy);
  /* On the default stream, waited for: the kernels reading it run on streams that do not
   * wait for the default stream. Once per tensor map. */
  if (status == NULL)
    status = kiln_gpu_copy_to_device(gpu, copy, map, sizeof map, NULL);
  if (status == NULL)
    status = kiln_gpu_stream_synchronize(gpu, NULL);
  if (status != NULL) {
    kiln_gpu_free(gpu, copy);
    return status;
  }
  kiln_mgpu_maps[slot].used = 1;
  kiln_mgpu_maps[slot].device = device;
  kiln_mgpu_maps[slot].tensor = *tensor;
  kiln_mgpu_maps[slot].map = copy;
  ++kiln_mgpu_map_count;
  *out = copy;
  return NULL;
}

static void kiln_mgpu_maps_release(void) {
  pthread_mutex_lock(&kiln_mgpu_lock);
  for (int i = 0; kiln_mgpu_maps != NULL && i < KILN_MGPU_MAP_SLOTS; ++i)
    if (kiln_mgpu_maps[i].used)
      kiln_gpu_free(kiln_mgpu_devices[kiln_mgpu_maps[i].device], kiln_mgpu_maps[i].map);
  free(kiln_mgpu_maps);
  kiln_mgpu_maps = NULL;
  kiln_mgpu_map_count = 0;
  pthread_mutex_unlock(&kiln_mgpu_lock);
}

void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *ranked_descriptor, int64_t data_type,
                                     int64_t interleave, int64_t swizzle, int64_t l2_promotion,
                                     int64_t oob_fill, int64_t *box) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu == NULL)
    return NULL;
  /* The bytes of each CUtensorMapDataType, uint8 to tfloat32_ftz. */
  static const int element_bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (rank < 1 || rank > 5 || data_type < 0 ||
      data_type >= (int64_t)(sizeof element_bytes / sizeof element_bytes[0])) {
    kiln_mgpu_fail(kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                                      "a TMA tensor map of rank %lld and data type %lld",
                                      (long long)rank, (long long)data_type));
    return NULL;
  }
  /* allocated, aligned, offset, sizes[rank], strides[rank] */
  const int64_t *fields = (const int64_t *)((char *const *)ranked_descriptor + 2);
  char *aligned = ((char *const *)ranked_descriptor)[1];
  int64_t offset = fields[0];
  const int64_t *sizes = fields + 1;
  const int64_t *strides = fields + 1 + rank;
  int bytes = element_bytes[data_type];
  kiln_gpu_tensor_map_t tensor;
  memset(&tensor, 0, sizeof tensor);
  tensor.data_type = (int)data_type;
  tensor.rank = (uint32_t)rank;
  tensor.address = (kiln_gpu_ptr_t)(uintptr_t)(aligned + offset * bytes);
  for (int64_t d = 0; d < rank; ++d) {
    tensor.dims[d] = (uint64_t)sizes[rank - 1 - d];
    tensor.box[d] = (uint32_t)box[rank - 1 - d];
    if (d > 0)
      tensor.strides[d - 1] = (uint64_t)(strides[rank - 1 - d] * bytes);
  }
  tensor.interleave = (int)interleave;
  tensor.swizzle = (int)swizzle;
  tensor.l2_promotion = (int)l2_promotion;
  tensor.oob_fill = (int)oob_fill;
  kiln_gpu_ptr_t map = 0;
  pthread_mutex_lock(&kiln_mgpu_lock);
  kiln_status_t status = kiln_mgpu_tensor_map(gpu, kiln_mgpu_ordinal, &tensor, &map);
  pthread_mutex_unlock(&kiln_mgpu_lock);
  kiln_mgpu_fail(status);
  return (void *)(uintptr_t)map;
}

/* The thread's device, opened if need be; NULL if it cannot be or an error is pending. */
static kiln_gpu_t *kiln_mgpu_device(void) {
  if (kiln_mgpu_pending != NULL)
    return NULL;
  int ordinal = kiln_mgpu_ordinal;
  if (ordinal < 0 || ordinal >= KILN_MGPU_MAX_DEVICES) {
    kiln_mgpu_fail(kiln_status_create(KILN_STATUS_NOT_FOUND,
                                      "no CUDA device: /gpu:%d asked for, Kiln handles /gpu:0 "
                                      "to /gpu:%d",
                                      ordinal, KILN_MGPU_MAX_DEVICES - 1));
    return NULL;
  }
  pthread_mutex_lock(&kiln_mgpu_lock);
  kiln_status_t status = NULL;
  if (kiln_mgpu_devices[ordinal] == NULL)
    status = kiln_gpu_open(ordinal, &kiln_mgpu_devices[ordinal]);
  kiln_gpu_t *gpu = kiln_mgpu_devices[ordinal];
  pthread_mutex_unlock(&kiln_mgpu_lock);
  kiln_mgpu_fail(status);
  return gpu;
}

/* The thread's device if it is open, for releasing things even with an error pending. */
static kiln_gpu_t *kiln_mgpu_open_device(void) {
  int ordinal = kiln_mgpu_ordinal;
  if (ordinal < 0 || ordinal >= KILN_MGPU_MAX_DEVICES)
    return NULL;
  pthread_mutex_lock(&kiln_mgpu_lock);
  kiln_gpu_t *gpu = kiln_mgpu_devices[ordinal];
  pthread_mutex_unlock(&kiln_mgpu_lock);
  return gpu;
}

/* A kernel a module's look-ups found on a device, kept by the address of the name asked
 * for (compiled code passes the same constant string at every launch) and checked against
 * a copy of it (a caller may reuse its buffer for another name). */
typedef struct {
  const char *key;
  char *name;
  int device;
  kiln_gpu_kernel_t kernel;
} kiln_mgpu_found_t;

/* A module: its image, loaded on each device the first time a kernel of it is asked for,
 * and the kernels found in it (open addressing, at most half full), so that a launch asks
 * the driver for its function once, not at every call. */
struct kiln_mgpu_module {
  const void *image;
  pthread_mutex_t lock;
  kiln_gpu_module_t *loaded[KILN_MGPU_MAX_DEVICES];
  kiln_mgpu_found_t *found;
  size_t capacity; /* a power of two, or 0 */
  size_t count;
};

static size_t kiln_mgpu_found_slot(const kiln_mgpu_found_t *found, size_t capacity, const char *key,
                                   int device) {
  size_t at = (size_t)(((uintptr_t)key >> 3) * 0x9E3779B97F4A7C15ull + (size_t)device);
  for (at &= capacity - 1;; at = (at + 1) & (capacity - 1))
    if (found[at].key == NULL || (found[at].key == key && found[at].device == device))
      return at;
}

/* The kernel found for `name` on `device` before, or NULL. With the module's lock. */
static kiln_gpu_kernel_t kiln_mgpu_found(const struct kiln_mgpu_module *module, const char *name,
                                         int device) {
  if (module->capacity == 0)
    return NULL;
  const kiln_mgpu_found_t *entry =
      &module->found[kiln_mgpu_found_slot(module->found, module->capacity, name, device)];
  return entry->key != NULL && strcmp(entry->name, name) == 0 ? entry->kernel : NULL;
}

/* Keeps `kernel` as found for `name` on `device` (nothing kept without memory: the next
 * look-up asks the driver again). With the module's lock. */
static void kiln_mgpu_keep(struct kiln_mgpu_module *module, const char *name, int device,
                           kiln_gpu_kernel_t kernel) {
  if (2 * (module->count + 1) > module->capacity) {
    size_t capacity = module->capacity ? 2 * module->capacity : 64;
    kiln_mgpu_found_t *grown = (kiln_mgpu_found_t *)calloc(capacity, sizeof(*grown));
    if (grown == NULL)
      return;
    for (size_t i = 0; i < module->capacity; ++i)
      if (module->found[i].key != NULL)
        grown[kiln_mgpu_found_slot(grown, capacity, module->found[i].key,
                                   module->found[i].device)] = module->found[i];
    free(module->found);
    module->found = grown;
    module->capacity = capacity;
  }
  kiln_mgpu_found_t *entry =
      &module->found[kiln_mgpu_found_slot(module->found, module->capacity, name, device)];
  char *copy = strdup(name);
  if (copy == NULL)
    return;
  if (entry->key == NULL)
    ++module->count;
  else
    free(entry->name); /* the same buffer, now another name */
  *entry = (kiln_mgpu_found_t){name, copy, device, kernel};
}

static void *kiln_mgpu_module_create(const void *image) {
  struct kiln_mgpu_module *module = (struct kiln_mgpu_module *)calloc(1, sizeof(*module));
  if (module == NULL)
    return NULL;
  module->image = image;
  pthread_mutex_init(&module->lock, NULL);
  return module;
}

void *mgpuModuleLoad(void *image, size_t bytes) {
  (void)bytes; /* a cubin or fatbin says its own size */
  return kiln_mgpu_module_create(image);
}

void *mgpuModuleLoadJIT(void *ptx, int optimization_level) {
  (void)optimization_level; /* the driver's default for PTX, -O3 */
  return kiln_mgpu_module_create(ptx);
}

void mgpuModuleUnload(void *handle) {
  struct kiln_mgpu_module *module = (struct kiln_mgpu_module *)handle;
  if (module == NULL)
    return;
  for (int d = 0; d < KILN_MGPU_MAX_DEVICES; ++d)
    kiln_gpu_module_unload(module->loaded[d]);
  for (size_t i = 0; i < module->capacity; ++i)
    free(module->found[i].name);
  free(module->found);
  pthread_mutex_destroy(&module->lock);
  free(module);
}

void *mgpuModuleGetFunction(void *handle, const char *name) {
  struct kiln_mgpu_module *module = (struct kiln_mgpu_module *)handle;
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu == NULL)
    return NULL;
  if (module == NULL) {
    kiln_mgpu_fail(kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED,
                                      "out of memory for the GPU module of kernel '%s'", name));
    return NULL;
  }
  int ordinal = kiln_mgpu_ordinal;
  pthread_mutex_lock(&module->lock);
  kiln_gpu_kernel_t kernel = kiln_mgpu_found(module, name, ordinal);
  if (kernel != NULL) {
    pthread_mutex_unlock(&module->lock);
    return kernel;
  }
  kiln_status_t status = NULL;
  if (module->loaded[ordinal] == NULL)
    status = kiln_gpu_module_load(gpu, module->image, &module->loaded[ordinal]);
  if (status == NULL)
    status = kiln_gpu_kernel(module->loaded[ordinal], name, &kernel);
  if (status == NULL)
    kiln_mgpu_keep(module, name, ordinal, kernel);
  pthread_mutex_unlock(&module->lock);
  if (status != NULL) {
    kiln_mgpu_fail(status);
    return NULL;
  }
  if (kiln_gpu_profile_on())
    kiln_gpu_profile_kernel_name(kernel, name);
  return kernel;
}

void mgpuLaunchKernel(void *function, intptr_t grid_x, intptr_t grid_y, intptr_t grid_z,
                      intptr_t block_x, intptr_t block_y, intptr_t block_z, int32_t shared_bytes,
                      void *stream, void **params, void **extra, size_t param_count) {
  (void)extra;
  (void)param_count;
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu == NULL || function == NULL)
    return;
  /* A grid without blocks (a loop over no elements) launches nothing; the driver would
   * reject it. */
  if (grid_x <= 0 || grid_y <= 0 || grid_z <= 0)
    return;
  uint32_t grid[3] = {(uint32_t)grid_x, (uint32_t)grid_y, (uint32_t)grid_z};
  uint32_t block[3] = {(uint32_t)block_x, (uint32_t)block_y, (uint32_t)block_z};
  kiln_gpu_event_t start = kiln_gpu_profile_on() ? kiln_gpu_profile_start(gpu, stream) : NULL;
  kiln_mgpu_fail(
      kiln_gpu_launch(gpu, function, grid, block, (uint32_t)shared_bytes, stream, params));
  if (start != NULL) {
    char name[256];
    snprintf(name, sizeof name, "%s grid %ux%ux%u block %ux%ux%u",
             kiln_gpu_profile_kernel(function), grid[0], grid[1], grid[2], block[0], block[1],
             block[2]);
    kiln_gpu_profile_stop(gpu, stream, start, name);
  }
}

static int kiln_mgpu_default_stream_only;
static pthread_once_t kiln_mgpu_streams_once = PTHREAD_ONCE_INIT;

static void kiln_mgpu_read_streams(void) {
  const char *value = getenv("KILN_GPU_STREAM");
  kiln_mgpu_default_stream_only = value != NULL && strcmp(value, "default") == 0;
}

/* Whether KILN_GPU_STREAM=default puts all work on the default stream (mgpu.h). */
static int kiln_mgpu_one_stream(void) {
  pthread_once(&kiln_mgpu_streams_once, kiln_mgpu_read_streams);
  return kiln_mgpu_default_stream_only;
}

/* Streams given back, per device, for the next mgpuStreamCreate (under kiln_mgpu_lock):
 * a partition takes one per call (codegen/GPU's kiln-gpu-stream), and creating a stream
 * costs the driver more than the call's small kernels. */
enum { KILN_MGPU_POOLED_STREAMS = 8 };
static kiln_gpu_stream_t kiln_mgpu_pool[KILN_MGPU_MAX_DEVICES][KILN_MGPU_POOLED_STREAMS];
static int kiln_mgpu_pooled[KILN_MGPU_MAX_DEVICES];

void *mgpuStreamCreate(void) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  kiln_gpu_stream_t stream = NULL;
  if (gpu == NULL || kiln_mgpu_one_stream())
    return NULL;
  int ordinal = kiln_mgpu_ordinal;
  pthread_mutex_lock(&kiln_mgpu_lock);
  if (kiln_mgpu_pooled[ordinal] > 0)
    stream = kiln_mgpu_pool[ordinal][--kiln_mgpu_pooled[ordinal]];
  pthread_mutex_unlock(&kiln_mgpu_lock);
  if (stream == NULL)
    kiln_mgpu_fail(kiln_gpu_stream_create(gpu, &stream));
  kiln_mgpu_current = stream;
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  if (stream == NULL)
    return;
  kiln_mgpu_settle(0); /* the transfers' events were recorded on it */
  if (kiln_mgpu_current == stream)
    kiln_mgpu_current = NULL;
  kiln_gpu_t *gpu = kiln_mgpu_open_device();
  if (gpu == NULL)
    return;
  /* Pooled only once it is idle: a stream with work left (an error cut its call short) is
   * waited for, or destroyed if that fails. */
  kiln_status_t status = kiln_gpu_stream_synchronize(gpu, stream);
  int ordinal = kiln_mgpu_ordinal, pooled = 0;
  pthread_mutex_lock(&kiln_mgpu_lock);
  if (status == NULL && kiln_mgpu_pooled[ordinal] < KILN_MGPU_POOLED_STREAMS) {
    kiln_mgpu_pool[ordinal][kiln_mgpu_pooled[ordinal]++] = stream;
    pooled = 1;
  }
  pthread_mutex_unlock(&kiln_mgpu_lock);
  kiln_status_free(status);
  if (!pooled)
    kiln_gpu_stream_destroy(gpu, stream);
}

static void kiln_mgpu_stage_release(void);       /* with the copies, below */
static void kiln_mgpu_maps_release(void);        /* with the tensor maps, below */
static void kiln_mgpu_pinned_release_idle(void); /* with the transfers, below */

void kiln_mgpu_release_cached(void) {
  kiln_mgpu_stage_release();
  kiln_mgpu_pinned_release_idle();
  for (int d = 0; d < KILN_MGPU_MAX_DEVICES; ++d) {
    pthread_mutex_lock(&kiln_mgpu_lock);
    kiln_gpu_t *gpu = kiln_mgpu_devices[d];
    int count = kiln_mgpu_pooled[d];
    kiln_gpu_stream_t streams[KILN_MGPU_POOLED_STREAMS];
    memcpy(streams, kiln_mgpu_pool[d], sizeof streams);
    kiln_mgpu_pooled[d] = 0;
    pthread_mutex_unlock(&kiln_mgpu_lock);
    for (int i = 0; i < count; ++i)
      kiln_gpu_stream_destroy(gpu, streams[i]);
    if (gpu != NULL)
      kiln_gpu_blaslt_release(gpu);
  }
  kiln_mgpu_maps_release();
}

void mgpuStreamSynchronize(void *stream) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu != NULL)
    kiln_mgpu_fail(kiln_gpu_stream_synchronize(gpu, stream));
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu != NULL && event != NULL)
    kiln_mgpu_fail(kiln_gpu_stream_wait(gpu, stream, event));
}

void *mgpuEventCreate(void) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  kiln_gpu_event_t event = NULL;
  if (gpu != NULL)
    kiln_mgpu_fail(kiln_gpu_event_create(gpu, &event));
  return event;
}

void mgpuEventDestroy(void *event) {
  kiln_gpu_t *gpu = kiln_mgpu_open_device();
  if (gpu != NULL)
    kiln_gpu_event_destroy(gpu, event);
}

void mgpuEventSynchronize(void *event) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu != NULL && event != NULL)
    kiln_mgpu_fail(kiln_gpu_event_synchronize(gpu, event));
}

void mgpuEventRecord(void *event, void *stream) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu != NULL && event != NULL)
    kiln_mgpu_fail(kiln_gpu_event_record(gpu, event, stream));
}

void *mgpuMemAlloc(uint64_t bytes, void *stream, bool host_shared) {
  (void)stream; /* allocation is synchronous */
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu == NULL)
    return NULL;
  if (host_shared) {
    kiln_mgpu_fail(kiln_status_create(KILN_STATUS_UNIMPLEMENTED,
                                      "host-shared GPU memory (gpu.alloc host_shared) is not "
                                      "supported"));
    return NULL;
  }
  kiln_gpu_ptr_t ptr = 0;
  kiln_mgpu_fail(kiln_gpu_alloc(gpu, (size_t)bytes, &ptr));
  return (void *)(uintptr_t)ptr;
}

void mgpuMemFree(void *ptr, void *stream) {
  kiln_gpu_t *gpu = kiln_mgpu_open_device();
  if (gpu == NULL || ptr == NULL)
    return;
  /* The stream's work may still use the memory: let it finish first. */
  kiln_mgpu_fail(kiln_gpu_stream_synchronize(gpu, stream));
  kiln_gpu_free(gpu, (kiln_gpu_ptr_t)(uintptr_t)ptr);
}

/* Large copies between device memory and pageable host memory (a model's inputs and
 * outputs) go through two pinned buffers of the calling thread, in chunks: the host copies
 * a chunk into one (on the thread pool) while the device copies the other, where the
 * driver's own staging of pageable memory copies on one thread. KILN_GPU_STAGING=0 turns
 * this off (read once). */
enum { KILN_MGPU_STAGE_CHUNK = 4 << 20, KILN_MGPU_STAGE_MIN = 1 << 20 };
static _Thread_local struct {
  kiln_gpu_t *gpu;
  void *buffer[2];
  kiln_gpu_event_t done[2]; /* recorded after the device's last copy of each */
  int used[2];
} kiln_mgpu_stage;
static int kiln_mgpu_staging_off;
static pthread_once_t kiln_mgpu_staging_once = PTHREAD_ONCE_INIT;

static void kiln_mgpu_read_staging(void) {
  const char *value = getenv("KILN_GPU_STAGING");
  kiln_mgpu_staging_off = value != NULL && strcmp(value, "0") == 0;
}

/* Frees the calling thread's staging buffers (they wait for the device's copies first). */
static void kiln_mgpu_stage_release(void) {
  kiln_gpu_t *gpu = kiln_mgpu_stage.gpu;
  if (gpu == NULL)
    return;
  for (int i = 0; i < 2; ++i) {
    if (kiln_mgpu_stage.used[i])
      kiln_status_free(kiln_gpu_event_synchronize(gpu, kiln_mgpu_stage.done[i]));
    kiln_gpu_event_destroy(gpu, kiln_mgpu_stage.done[i]);
    kiln_gpu_host_free(gpu, kiln_mgpu_stage.buffer[i]);
  }
  memset(&kiln_mgpu_stage, 0, sizeof(kiln_mgpu_stage));
}

/* The thread's staging buffers on `gpu`, made on first use. */
static kiln_status_t kiln_mgpu_stage_ready(kiln_gpu_t *gpu) {
  if (kiln_mgpu_stage.gpu == gpu)
    return NULL;
  kiln_mgpu_stage_release();
  kiln_mgpu_stage.gpu = gpu;
  kiln_status_t status = NULL;
  for (int i = 0; i < 2 && status == NULL; ++i) {
    status = kiln_gpu_host_alloc(gpu, KILN_MGPU_STAGE_CHUNK, &kiln_mgpu_stage.buffer[i]);
    if (status == NULL)
      status = kiln_gpu_event_create(gpu, &kiln_mgpu_stage.done[i]);
  }
  if (status != NULL)
    kiln_mgpu_stage_release();
  return status;
}

struct kiln_mgpu_host_copy {
  char *dst;
  const char *src;
};

static void kiln_mgpu_copy_part(void *ctx, int64_t begin, int64_t end) {
  struct kiln_mgpu_host_copy *copy = (struct kiln_mgpu_host_copy *)ctx;
  memcpy(copy->dst + begin, copy->src + begin, (size_t)(end - begin));
}

/* memcpy on the thread pool, in parts of 512 KiB or more. */
static void kiln_mgpu_host_copy(void *dst, const void *src, size_t bytes) {
  struct kiln_mgpu_host_copy copy = {(char *)dst, (const char *)src};
  kiln_parallel_for((int64_t)bytes, (int64_t)1 << 19, kiln_mgpu_copy_part, &copy);
}

/* The bytes of chunk `c` of a `bytes`-byte copy. */
static size_t kiln_mgpu_chunk(size_t c, size_t bytes) {
  size_t rest = bytes - c * KILN_MGPU_STAGE_CHUNK;
  return rest < KILN_MGPU_STAGE_CHUNK ? rest : KILN_MGPU_STAGE_CHUNK;
}

/* Makes staging buffer `i` free for a new copy: the device's last copy of it is done. */
static kiln_status_t kiln_mgpu_stage_wait(kiln_gpu_t *gpu, int i) {
  if (!kiln_mgpu_stage.used[i])
    return NULL;
  kiln_mgpu_stage.used[i] = 0;
  return kiln_gpu_event_synchronize(gpu, kiln_mgpu_stage.done[i]);
}

/* Queues the device's copy of chunk `c` of `bytes` at device address `src` into staging
 * buffer c % 2 (host to device when `to_device`, from buffer to `dst`). */
static kiln_status_t kiln_mgpu_stage_copy(kiln_gpu_t *gpu, int to_device, kiln_gpu_ptr_t device,
                                          size_t c, size_t bytes, kiln_gpu_stream_t stream) {
  int i = (int)(c & 1);
  size_t at = c * KILN_MGPU_STAGE_CHUNK, len = kiln_mgpu_chunk(c, bytes);
  kiln_status_t status =
      to_device ? kiln_gpu_copy_to_device(gpu, device + at, kiln_mgpu_stage.buffer[i], len, stream)
                : kiln_gpu_copy_to_host(gpu, kiln_mgpu_stage.buffer[i], device + at, len, stream);
  if (status == NULL)
    status = kiln_gpu_event_record(gpu, kiln_mgpu_stage.done[i], stream);
  kiln_mgpu_stage.used[i] = status == NULL;
  return status;
}

/* Host to device through the staging buffers (kiln_mgpu_stage_ready made them): returns
 * once `src` has been read (the device may still be copying out of the buffers, which
 * their next use waits for). */
static kiln_status_t kiln_mgpu_stage_in(kiln_gpu_t *gpu, kiln_gpu_ptr_t dst, const char *src,
                                        size_t bytes, kiln_gpu_stream_t stream) {
  kiln_status_t status = NULL;
  size_t chunks = (bytes + KILN_MGPU_STAGE_CHUNK - 1) / KILN_MGPU_STAGE_CHUNK;
  for (size_t c = 0; c < chunks && status == NULL; ++c) {
    int i = (int)(c & 1);
    status = kiln_mgpu_stage_wait(gpu, i);
    if (status != NULL)
      break;
    kiln_mgpu_host_copy(kiln_mgpu_stage.buffer[i], src + c * KILN_MGPU_STAGE_CHUNK,
                        kiln_mgpu_chunk(c, bytes));
    status = kiln_mgpu_stage_copy(gpu, 1, dst, c, bytes, stream);
  }
  return status;
}

/* Device to host through the staging buffers (made; after the stream's earlier work):
 * returns once `dst` holds the bytes. */
static kiln_status_t kiln_mgpu_stage_out(kiln_gpu_t *gpu, char *dst, kiln_gpu_ptr_t src,
                                         size_t bytes, kiln_gpu_stream_t stream) {
  kiln_status_t status = NULL;
  size_t chunks = (bytes + KILN_MGPU_STAGE_CHUNK - 1) / KILN_MGPU_STAGE_CHUNK;
  for (size_t c = 0; c < 2 && c < chunks && status == NULL; ++c) {
    status = kiln_mgpu_stage_wait(gpu, (int)c);
    if (status == NULL)
      status = kiln_mgpu_stage_copy(gpu, 0, src, c, bytes, stream);
  }
  for (size_t c = 0; c < chunks && status == NULL; ++c) {
    int i = (int)(c & 1);
    status = kiln_mgpu_stage_wait(gpu, i);
    if (status != NULL)
      break;
    kiln_mgpu_host_copy(dst + c * KILN_MGPU_STAGE_CHUNK, kiln_mgpu_stage.buffer[i],
                        kiln_mgpu_chunk(c, bytes));
    if (c + 2 < chunks)
      status = kiln_mgpu_stage_copy(gpu, 0, src, c + 2, bytes, stream);
  }
  return status;
}

void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu == NULL)
    return;
  kiln_gpu_event_t start = kiln_gpu_profile_on() ? kiln_gpu_profile_start(gpu, stream) : NULL;
  pthread_once(&kiln_mgpu_staging_once, kiln_mgpu_read_staging);
  kiln_gpu_memory_t to = KILN_GPU_MEMORY_PINNED, from = KILN_GPU_MEMORY_PINNED;
  if (bytes >= KILN_MGPU_STAGE_MIN && !kiln_mgpu_staging_off) {
    to = kiln_gpu_memory_kind(gpu, dst);
    from = kiln_gpu_memory_kind(gpu, src);
    /* Without pinned memory to stage through, the driver copies. */
    if ((to == KILN_GPU_MEMORY_PAGEABLE) != (from == KILN_GPU_MEMORY_PAGEABLE)) {
      kiln_status_t status = kiln_mgpu_stage_ready(gpu);
      if (status != NULL)
        to = from = KILN_GPU_MEMORY_PINNED;
      kiln_status_free(status);
    }
  }
  if (to == KILN_GPU_MEMORY_DEVICE && from == KILN_GPU_MEMORY_PAGEABLE)
    kiln_mgpu_fail(
        kiln_mgpu_stage_in(gpu, (kiln_gpu_ptr_t)(uintptr_t)dst, (const char *)src, bytes, stream));
  else if (to == KILN_GPU_MEMORY_PAGEABLE && from == KILN_GPU_MEMORY_DEVICE)
    kiln_mgpu_fail(
        kiln_mgpu_stage_out(gpu, (char *)dst, (kiln_gpu_ptr_t)(uintptr_t)src, bytes, stream));
  else
    kiln_mgpu_fail(kiln_gpu_copy(gpu, (kiln_gpu_ptr_t)(uintptr_t)dst,
                                 (kiln_gpu_ptr_t)(uintptr_t)src, bytes, stream));
  if (start != NULL) {
    char name[64];
    snprintf(name, sizeof name, "copy %zu bytes", bytes);
    kiln_gpu_profile_stop(gpu, stream, start, name);
  }
}

void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu != NULL)
    kiln_mgpu_fail(kiln_gpu_fill32(gpu, (kiln_gpu_ptr_t)(uintptr_t)dst, value, count, stream));
}

void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu != NULL)
    kiln_mgpu_fail(kiln_gpu_fill16(gpu, (kiln_gpu_ptr_t)(uintptr_t)dst, value, count, stream));
}

/* GPU partitions run one at a time: their arenas are per partition, not per call. */
static pthread_mutex_t kiln_mgpu_part_lock = PTHREAD_MUTEX_INITIALIZER;

/* When the thread's current partition call began (for KILN_GPU_PROFILE). */
static _Thread_local struct timespec kiln_mgpu_call_start;

void *kiln_mgpu_part_begin(int64_t *slot, int64_t bytes) {
  pthread_mutex_lock(&kiln_mgpu_part_lock);
  if (kiln_gpu_profile_on())
    clock_gettime(CLOCK_MONOTONIC, &kiln_mgpu_call_start);
  slot[1] = 0;
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu == NULL)
    return NULL;
  if (slot[0] == 0) {
    kiln_gpu_ptr_t arena = 0;
    kiln_status_t status = kiln_gpu_alloc(gpu, bytes > 0 ? (size_t)bytes : 1, &arena);
    if (status != NULL) {
      kiln_mgpu_fail(status);
      return NULL;
    }
    slot[0] = (int64_t)arena;
    slot[1] = 1;
  }
  return (void *)(uintptr_t)slot[0];
}

void kiln_mgpu_part_end(int64_t *slot) {
  kiln_mgpu_settle(0);
  /* The call's copies and kernels finish before the arena is another call's. */
  kiln_gpu_t *device = kiln_mgpu_device();
  if (device != NULL)
    kiln_mgpu_fail(kiln_gpu_synchronize(device));
  if (device != NULL && kiln_gpu_profile_on()) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    kiln_gpu_profile_collect(device, (now.tv_sec - kiln_mgpu_call_start.tv_sec) * 1e3 +
                                         (now.tv_nsec - kiln_mgpu_call_start.tv_nsec) * 1e-6);
  }
  if (kiln_mgpu_pending != NULL && slot[1] != 0) {
    kiln_gpu_t *gpu = kiln_mgpu_open_device();
    if (gpu != NULL)
      kiln_gpu_free(gpu, (kiln_gpu_ptr_t)slot[0]);
    slot[0] = 0;
  }
  slot[1] = 0;
  pthread_mutex_unlock(&kiln_mgpu_part_lock);
}

int32_t kiln_mgpu_status(const kiln_run_options_t *options) {
  return kiln_status_report(kiln_mgpu_take_error(), options);
}

/* The host copy a GPU partition's transfer goes through: zeros (calloc) unless the device
 * fills it; NULL, with the error pending, without memory. */
static void *kiln_mgpu_staging(int64_t bytes) {
  void *host = calloc(bytes > 0 ? (size_t)bytes : 1, 1);
  if (host == NULL)
    kiln_mgpu_fail(kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED,
                                      "out of host memory for a %lld-byte transfer from a GPU "
                                      "partition",
                                      (long long)bytes));
  return host;
}

/* Waits for the work queued on the thread's current stream (a transfer's copy), unless an
 * error is pending; a failure becomes the pending error. */
static void kiln_mgpu_finish_current_stream(void) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu != NULL)
    kiln_mgpu_fail(kiln_gpu_stream_synchronize(gpu, kiln_mgpu_current));
}

/* After a library call on the current stream: the compiled code queues what reads its
 * result on that stream too, and what reads it on the host waits for the stream first,
 * so it returns at once; outside a stream (NULL, not KILN_GPU_STREAM=default's) the kernels
 * after it may be on another stream, so it is waited for. */
static void kiln_mgpu_finish_library_call(void) {
  if (kiln_mgpu_current == NULL && !kiln_mgpu_one_stream())
    kiln_mgpu_finish_current_stream();
}

/* Pinned host buffers the transfers of GPU partitions go through, kept for later calls
 * (cuMemHostAlloc costs far more than a call's copies). A buffer is busy from its transfer's
 * start until kiln_mgpu_settle hands it back. */
enum { KILN_MGPU_PINNED = 64, KILN_MGPU_PINNED_MIN = 64 << 10 };
static struct {
  kiln_gpu_t *gpu;
  void *host;
  size_t bytes;
  int busy;
} kiln_mgpu_pinned[KILN_MGPU_PINNED];
static pthread_mutex_t kiln_mgpu_pinned_lock = PTHREAD_MUTEX_INITIALIZER;

/* A free pinned buffer of at least `bytes` on `gpu`, marked busy: the smallest that fits, a
 * new one in an empty slot, or an idle one too small grown; -1 when every slot is busy or
 * the allocation fails (the transfer then takes the synchronous path). */
static int kiln_mgpu_pinned_acquire(kiln_gpu_t *gpu, size_t bytes) {
  int best = -1, empty = -1, small = -1;
  pthread_mutex_lock(&kiln_mgpu_pinned_lock);
  for (int i = 0; i < KILN_MGPU_PINNED; ++i) {
    if (kiln_mgpu_pinned[i].host == NULL) {
      if (empty < 0)
        empty = i;
    } else if (!kiln_mgpu_pinned[i].busy && kiln_mgpu_pinned[i].gpu == gpu) {
      if (kiln_mgpu_pinned[i].bytes >= bytes) {
        if (best < 0 || kiln_mgpu_pinned[i].bytes < kiln_mgpu_pinned[best].bytes)
          best = i;
      } else if (small < 0) {
        small = i;
      }
    }
  }
  if (best < 0 && (empty >= 0 || small >= 0)) {
    best = empty >= 0 ? empty : small;
    if (kiln_mgpu_pinned[best].host != NULL)
      kiln_gpu_host_free(kiln_mgpu_pinned[best].gpu, kiln_mgpu_pinned[best].host);
    size_t size = KILN_MGPU_PINNED_MIN;
    while (size < bytes)
      size *= 2;
    void *host = NULL;
    kiln_status_t status = kiln_gpu_host_alloc(gpu, size, &host);
    kiln_mgpu_pinned[best].gpu = gpu;
    kiln_mgpu_pinned[best].host = status == NULL ? host : NULL;
    kiln_mgpu_pinned[best].bytes = status == NULL ? size : 0;
    if (status != NULL)
      best = -1;
    kiln_status_free(status);
  }
  if (best >= 0)
    kiln_mgpu_pinned[best].busy = 1;
  pthread_mutex_unlock(&kiln_mgpu_pinned_lock);
  return best;
}

static void kiln_mgpu_pinned_release_idle(void) {
  pthread_mutex_lock(&kiln_mgpu_pinned_lock);
  for (int i = 0; i < KILN_MGPU_PINNED; ++i)
    if (kiln_mgpu_pinned[i].host != NULL && !kiln_mgpu_pinned[i].busy) {
      kiln_gpu_host_free(kiln_mgpu_pinned[i].gpu, kiln_mgpu_pinned[i].host);
      memset(&kiln_mgpu_pinned[i], 0, sizeof(kiln_mgpu_pinned[i]));
    }
  pthread_mutex_unlock(&kiln_mgpu_pinned_lock);
}

static void kiln_mgpu_pinned_release(int slot) {
  pthread_mutex_lock(&kiln_mgpu_pinned_lock);
  kiln_mgpu_pinned[slot].busy = 0;
  pthread_mutex_unlock(&kiln_mgpu_pinned_lock);
}

/* The thread's transfers in flight: sends whose copy to the host is queued but not yet
 * handed to the rendezvous, and receives whose pinned buffer the device may still be
 * reading, each with an event recorded after its copy. The partition's host thread goes on
 * queueing work meanwhile instead of waiting for the device to drain. */
enum { KILN_MGPU_MAX_TRANSFERS = 64 };
typedef struct {
  int send;
  int32_t key;
  int64_t bytes;
  int slot;
  kiln_gpu_event_t done;
} kiln_mgpu_transfer_t;
static _Thread_local kiln_mgpu_transfer_t kiln_mgpu_transfers[KILN_MGPU_MAX_TRANSFERS];
static _Thread_local int kiln_mgpu_transfer_count;

/* Finishes the thread's transfers in flight, only the sends with `sends_only`: waits for
 * each one's copy, hands a send's tensor to the rendezvous (zeros if its copy failed, as
 * kiln_mgpu_partition_send promises), gives its buffer back. Done before the partition
 * receives (the tensor it waits for may be computed from one it sent), when its stream
 * goes and when its call ends. */
static void kiln_mgpu_settle(int sends_only) {
  int kept = 0;
  for (int i = 0; i < kiln_mgpu_transfer_count; ++i) {
    kiln_mgpu_transfer_t t = kiln_mgpu_transfers[i];
    if (sends_only && !t.send) {
      kiln_mgpu_transfers[kept++] = t;
      continue;
    }
    kiln_gpu_t *gpu = kiln_mgpu_pinned[t.slot].gpu;
    void *host = kiln_mgpu_pinned[t.slot].host;
    kiln_status_t status = kiln_gpu_event_synchronize(gpu, t.done);
    kiln_gpu_event_destroy(gpu, t.done);
    if (t.send) {
      if (status != NULL)
        memset(host, 0, (size_t)t.bytes);
      kiln_partition_send(t.key, (uintptr_t)host, t.bytes);
    }
    kiln_mgpu_fail(status);
    kiln_mgpu_pinned_release(t.slot);
  }
  kiln_mgpu_transfer_count = kept;
}

/* Starts a transfer through a pinned buffer: the buffer's slot, with an event to record
 * after its copy in `*done`; -1 when there is none (no device, an error pending, too many
 * in flight, no pinned memory), so the synchronous path goes instead. */
static int kiln_mgpu_transfer_begin(kiln_gpu_t *gpu, int64_t bytes, kiln_gpu_event_t *done) {
  if (gpu == NULL || kiln_mgpu_transfer_count == KILN_MGPU_MAX_TRANSFERS)
    return -1;
  int slot = kiln_mgpu_pinned_acquire(gpu, bytes > 0 ? (size_t)bytes : 1);
  if (slot < 0)
    return -1;
  kiln_status_t status = kiln_gpu_event_create(gpu, done);
  if (status != NULL) {
    kiln_status_free(status);
    kiln_mgpu_pinned_release(slot);
    return -1;
  }
  return slot;
}

/* Records `done` after the transfer's copy (`copied`: its status) and keeps it in flight;
 * a failure finishes it at once. */
static void kiln_mgpu_transfer_queue(kiln_gpu_t *gpu, int send, int32_t key, int64_t bytes,
                                     int slot, kiln_gpu_event_t done, kiln_status_t copied) {
  if (copied == NULL)
    copied = kiln_gpu_event_record(gpu, done, kiln_mgpu_current);
  kiln_mgpu_transfers[kiln_mgpu_transfer_count++] =
      (kiln_mgpu_transfer_t){send, key, bytes, slot, done};
  if (copied != NULL) {
    if (send)
      memset(kiln_mgpu_pinned[slot].host, 0, (size_t)bytes); /* zeros, as promised */
    kiln_mgpu_fail(copied);
    kiln_mgpu_settle(0);
  }
}

void kiln_mgpu_partition_send(int32_t key, uintptr_t data, int64_t bytes) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  kiln_gpu_event_t done = NULL;
  int slot = kiln_mgpu_transfer_begin(gpu, bytes, &done);
  if (slot >= 0) {
    kiln_mgpu_transfer_queue(gpu, 1, key, bytes, slot, done,
                             kiln_gpu_copy_to_host(gpu, kiln_mgpu_pinned[slot].host,
                                                   (kiln_gpu_ptr_t)data, (size_t)bytes,
                                                   kiln_mgpu_current));
    return;
  }
  void *host = kiln_mgpu_staging(bytes);
  if (host == NULL)
    return;
  gpu = kiln_mgpu_device();
  if (gpu != NULL)
    kiln_mgpu_fail(
        kiln_gpu_copy_to_host(gpu, host, (kiln_gpu_ptr_t)data, (size_t)bytes, kiln_mgpu_current));
  kiln_mgpu_finish_current_stream();
  kiln_partition_send(key, (uintptr_t)host, bytes);
  free(host);
}

void kiln_mgpu_partition_recv(int32_t key, uintptr_t data, int64_t bytes) {
  kiln_mgpu_settle(1);
  kiln_gpu_t *gpu = kiln_mgpu_device();
  kiln_gpu_event_t done = NULL;
  int slot = kiln_mgpu_transfer_begin(gpu, bytes, &done);
  if (slot >= 0) {
    void *host = kiln_mgpu_pinned[slot].host;
    kiln_partition_recv(key, (uintptr_t)host, bytes);
    kiln_mgpu_transfer_queue(
        gpu, 0, key, bytes, slot, done,
        kiln_gpu_copy_to_device(gpu, (kiln_gpu_ptr_t)data, host, (size_t)bytes, kiln_mgpu_current));
    return;
  }
  void *host = kiln_mgpu_staging(bytes);
  if (host == NULL)
    return;
  kiln_partition_recv(key, (uintptr_t)host, bytes);
  gpu = kiln_mgpu_device();
  if (gpu != NULL)
    kiln_mgpu_fail(
        kiln_gpu_copy_to_device(gpu, (kiln_gpu_ptr_t)data, host, (size_t)bytes, kiln_mgpu_current));
  kiln_mgpu_finish_current_stream();
  free(host);
}

void kiln_mgpu_partition_status(void) {
  kiln_mgpu_settle(0);
  kiln_partition_fail(kiln_mgpu_take_error());
}

/* A batch of products in the arithmetic `type` (kiln/runtime/gpu_blas.h), queued on the
 * thread's current stream. */
static void kiln_mgpu_gemm(kiln_gpu_gemm_type_t type, uintptr_t a, uintptr_t b, uintptr_t c,
                           int64_t batch, int64_t m, int64_t n, int64_t k, int32_t flags) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu == NULL)
    return;
  kiln_gpu_stream_t stream = kiln_mgpu_current;
  kiln_gpu_event_t start = kiln_gpu_profile_on() ? kiln_gpu_profile_start(gpu, stream) : NULL;
  kiln_mgpu_fail(kiln_gpu_gemm_batched(
      gpu, type, (flags & KILN_MATMUL_TRANSPOSE_A) != 0, (flags & KILN_MATMUL_TRANSPOSE_B) != 0,
      (flags & KILN_MATMUL_OVERWRITE) != 0, (flags & KILN_MATMUL_BROADCAST_A) != 0,
      (flags & KILN_MATMUL_BROADCAST_B) != 0, batch, m, n, k, (kiln_gpu_ptr_t)a, (kiln_gpu_ptr_t)b,
      (kiln_gpu_ptr_t)c, stream));
  if (start != NULL) {
    static const char *const names[] = {"sgemm", "gemm tf32", "gemm f16"};
    char name[128];
    snprintf(name, sizeof name, "cublas %s batch %lld m %lld n %lld k %lld flags %d", names[type],
             (long long)batch, (long long)m, (long long)n, (long long)k, (int)flags);
    kiln_gpu_profile_stop(gpu, stream, start, name);
  }
  kiln_mgpu_finish_library_call();
}

void kiln_mgpu_batch_matmul_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t batch, int64_t m,
                                int64_t n, int64_t k, int32_t flags) {
  kiln_mgpu_gemm((flags & KILN_MGPU_MATMUL_TF32) != 0 ? KILN_GPU_GEMM_TF32 : KILN_GPU_GEMM_F32, a,
                 b, c, batch, m, n, k, flags);
}

void kiln_mgpu_matmul_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n, int64_t k,
                          int32_t flags) {
  kiln_mgpu_batch_matmul_f32(a, b, c, 1, m, n, k,
                             flags & ~(KILN_MATMUL_BROADCAST_A | KILN_MATMUL_BROADCAST_B));
}

void kiln_mgpu_batch_matmul_f16(uintptr_t a, uintptr_t b, uintptr_t c, int64_t batch, int64_t m,
                                int64_t n, int64_t k, int32_t flags) {
  kiln_mgpu_gemm(KILN_GPU_GEMM_F16, a, b, c, batch, m, n, k, flags);
}

void kiln_mgpu_matmul_f16(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n, int64_t k,
                          int32_t flags) {
  kiln_mgpu_batch_matmul_f16(a, b, c, 1, m, n, k,
                             flags & ~(KILN_MATMUL_BROADCAST_A | KILN_MATMUL_BROADCAST_B));
}

/* Whether the epilogue arguments (kiln_kernel_matmul_epilogue_f32's) are not of the form
 * a library applies in its call (no scale buffer, a bias buffer or a bias_value of 0, lo
 * -inf or 0, hi +inf, no activation, the output overwritten): then the error, "an epilogue
 * `what`: ...", is pending. */
static int kiln_mgpu_library_epilogue(const char *what, uintptr_t scale, int bias, float bias_value,
                                      float lo, float hi, int32_t activation, int overwrite) {
  if (scale == 0 && bias_value == 0.0f && (lo == 0.0f || (isinf(lo) && lo < 0.0f)) && isinf(hi) &&
      hi > 0.0f && activation == KILN_ACTIVATION_NONE && overwrite)
    return 0;
  kiln_mgpu_fail(kiln_status_create(
      KILN_STATUS_INVALID_ARGUMENT,
      "an epilogue %s: scale %s, bias %s %g, clamp to [%g, %g], activation %d%s", what,
      scale != 0 ? "per channel" : "scalar", bias ? "per channel" : "scalar", (double)bias_value,
      (double)lo, (double)hi, (int)activation, overwrite ? "" : ", accumulating"));
  return 1;
}

/* Also kiln_mgpu_matmul_epilogue_f32's body, with `residual` 0. */
void kiln_mgpu_matmul_residual_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n,
                                   int64_t k, int32_t flags, uintptr_t scale, float scale_value,
                                   uintptr_t bias, float bias_value, float lo, float hi,
                                   int32_t activation, uintptr_t residual) {
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu == NULL ||
      kiln_mgpu_library_epilogue("cuBLASLt cannot apply to a product", scale, bias != 0, bias_value,
                                 lo, hi, activation, (flags & KILN_MATMUL_OVERWRITE) != 0))
    return;
  kiln_gpu_gemm_type_t type =
      (flags & KILN_MGPU_MATMUL_TF32) != 0 ? KILN_GPU_GEMM_TF32 : KILN_GPU_GEMM_F32;
  const kiln_gpu_gemm_epilogue_t epilogue = {scale_value, (kiln_gpu_ptr_t)bias,
                                             (kiln_gpu_ptr_t)residual, lo == 0.0f};
  kiln_gpu_stream_t stream = kiln_mgpu_current;
  kiln_gpu_event_t start = kiln_gpu_profile_on() ? kiln_gpu_profile_start(gpu, stream) : NULL;
  kiln_mgpu_fail(kiln_gpu_gemm_epilogue(
      gpu, type, (flags & KILN_MATMUL_TRANSPOSE_A) != 0, (flags & KILN_MATMUL_TRANSPOSE_B) != 0, m,
      n, k, &epilogue, (kiln_gpu_ptr_t)a, (kiln_gpu_ptr_t)b, (kiln_gpu_ptr_t)c, stream));
  if (start != NULL) {
    char name[160];
    snprintf(name, sizeof name, "cublasLt %s m %lld n %lld k %lld flags %d%s%s%s",
             type == KILN_GPU_GEMM_TF32 ? "tf32" : "f32", (long long)m, (long long)n, (long long)k,
             (int)flags, bias != 0 ? " +bias" : "", residual != 0 ? " +residual" : "",
             lo == 0.0f ? " relu" : "");
    kiln_gpu_profile_stop(gpu, stream, start, name);
  }
  kiln_mgpu_finish_library_call();
}

void kiln_mgpu_matmul_epilogue_f32(uintptr_t a, uintptr_t b, uintptr_t c, int64_t m, int64_t n,
                                   int64_t k, int32_t flags, uintptr_t scale, float scale_value,
                                   uintptr_t bias, float bias_value, float lo, float hi,
                                   int32_t activation) {
  kiln_mgpu_matmul_residual_f32(a, b, c, m, n, k, flags, scale, scale_value, bias, bias_value, lo,
                                hi, activation, 0);
}

/* Also kiln_mgpu_conv2d_f32's body, with `residual` 0 (the epilogue arguments apply when
 * `flags` has KILN_MGPU_CONV2D_EPILOGUE, which a residual implies). */
void kiln_mgpu_conv2d_residual_f32(uintptr_t input, uintptr_t filter, uintptr_t output, int64_t n,
                                   int64_t h, int64_t w, int64_t c, int64_t f, int64_t kh,
                                   int64_t kw, int64_t oh, int64_t ow, int64_t stride_h,
                                   int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                                   int64_t pad_h, int64_t pad_w, int64_t groups, int32_t flags,
                                   uintptr_t scale, float scale_value, uintptr_t bias,
                                   float bias_value, float lo, float hi, int32_t activation,
                                   uintptr_t residual) {
  const kiln_gpu_conv2d_t sizes = {n,
                                   h,
                                   w,
                                   c,
                                   f,
                                   kh,
                                   kw,
                                   oh,
                                   ow,
                                   stride_h,
                                   stride_w,
                                   dilation_h,
                                   dilation_w,
                                   pad_h,
                                   pad_w,
                                   groups,
                                   (flags & KILN_MGPU_CONV2D_TF32) != 0};
  const kiln_gpu_conv2d_t *conv = &sizes;
  if (residual != 0)
    flags |= KILN_MGPU_CONV2D_EPILOGUE;
  kiln_gpu_t *gpu = kiln_mgpu_device();
  if (gpu == NULL)
    return;
  int fused = (flags & KILN_MGPU_CONV2D_EPILOGUE) != 0;
  kiln_gpu_conv_epilogue_t epilogue = {scale_value, (kiln_gpu_ptr_t)bias, (kiln_gpu_ptr_t)residual,
                                       lo == 0.0f};
  if (fused && kiln_mgpu_library_epilogue("cuDNN cannot apply to a convolution", scale, bias != 0,
                                          bias_value, lo, hi, activation,
                                          (flags & KILN_MGPU_CONV2D_OVERWRITE) != 0))
    return;
  kiln_gpu_stream_t stream = kiln_mgpu_current;
  kiln_gpu_event_t start = kiln_gpu_profile_on() ? kiln_gpu_profile_start(gpu, stream) : NULL;
  kiln_mgpu_fail(fused ? kiln_gpu_conv2d_fused_f32(gpu, conv, &epilogue, (kiln_gpu_ptr_t)input,
                                                   (kiln_gpu_ptr_t)filter, (kiln_gpu_ptr_t)output,
                                                   stream)
                       : kiln_gpu_conv2d_f32(gpu, conv, (flags & KILN_MGPU_CONV2D_OVERWRITE) != 0,
                                             (kiln_gpu_ptr_t)input, (kiln_gpu_ptr_t)filter,
                                             (kiln_gpu_ptr_t)output, stream));
  if (start != NULL) {
    char name[192];
    const kiln_gpu_conv2d_t *p = conv;
    snprintf(name, sizeof name,
             "cudnn conv2d %lldx%lldx%lldx%lld -> %lld filters %lldx%lld stride %lldx%lld "
             "dilation %lldx%lld pad %lldx%lld groups %lld%s%s%s%s",
             (long long)p->n, (long long)p->h, (long long)p->w, (long long)p->c, (long long)p->f,
             (long long)p->kh, (long long)p->kw, (long long)p->stride_h, (long long)p->stride_w,
             (long long)p->dilation_h, (long long)p->dilation_w, (long long)p->pad_h,
             (long long)p->pad_w, (long long)p->groups, fused && bias != 0 ? " +bias" : "",
             residual != 0 ? " +residual" : "", fused && epilogue.relu ? " relu" : "",
             !fused                      ? ""
             : kiln_gpu_dnn_last_fused() ? " (one call)"
                                         : " (separate calls)");
    kiln_gpu_profile_stop(gpu, stream, start, name);
  }
  kiln_mgpu_finish_library_call();
}

void kiln_mgpu_conv2d_f32(uintptr_t input, uintptr_t filter, uintptr_t output, int64_t n, int64_t h,
                          int64_t w, int64_t c, int64_t f, int64_t kh, int64_t kw, int64_t oh,
                          int64_t ow, int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                          int64_t dilation_w, int64_t pad_h, int64_t pad_w, int64_t groups,
                          int32_t flags, uintptr_t scale, float scale_value, uintptr_t bias,
                          float bias_value, float lo, float hi, int32_t activation) {
  kiln_mgpu_conv2d_residual_f32(input, filter, output, n, h, w, c, f, kh, kw, oh, ow, stride_h,
                                stride_w, dilation_h, dilation_w, pad_h, pad_w, groups, flags,
                                scale, scale_value, bias, bias_value, lo, hi, activation, 0);
}
