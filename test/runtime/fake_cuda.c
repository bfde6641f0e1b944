/*
 * A stand-in for the CUDA driver (libcuda.so.1), for testing the runtime's GPU layer
 * (kiln/runtime/gpu.h) on machines without a GPU: the runtime loads it through
 * KILN_LIBCUDA. It implements the driver functions the runtime calls with host memory:
 * "device" memory is malloc'ed, copies are memcpy, modules are PTX text whose ".entry"
 * names are its kernels (or a fatbin, for a program compiled with --gpu-arch, whose kernels
 * it finds by name), and a launch records what it was given (fake_cuda_last_launch).
 *
 * FAKE_CUDA_DEVICES sets the device count (default 1; 0 makes cuInit fail with
 * CUDA_ERROR_NO_DEVICE, as the real driver does without a GPU). FAKE_CUDA_MEMORY limits
 * the bytes allocated at once (cuMemAlloc then fails with CUDA_ERROR_OUT_OF_MEMORY).
 * FAKE_CUDA_LOG=1 prints each allocation, copy and launch to standard error, for tests of
 * compiled programs, and FAKE_CUDA_LOG=2 each module load too. FAKE_CUDA_FAIL_TO_HOST=1
 * makes copies to the host fail (as a fault in earlier work on the stream would), copying
 * nothing.
 *
 * cuTensorMapEncodeTiled checks its arguments as the driver documents them (alignments,
 * strides multiples of 16 bytes, boxes of 1 to 256 elements, the 128-byte swizzle's inner
 * box at most 128 bytes) and that the tensor is in device memory (which the driver cannot
 * tell), and writes them into the map's 128 bytes as fake_tensor_map_t below, for tests to
 * read back; built with FAKE_CUDA_WITHOUT_TMA defined (the kiln_fake_cuda_no_tma library),
 * the driver lacks it, as one older than CUDA 12 does. A launch with more than 48 KiB of
 * dynamic shared memory fails unless cuFuncSetAttribute allowed the kernel that much
 * first, as the real driver does.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef void *CUhandle;
typedef unsigned long long CUdeviceptr;

enum {
  SUCCESS = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  NOT_INITIALIZED = 3,
  NO_DEVICE = 100,
  INVALID_DEVICE = 101,
  INVALID_IMAGE = 200,
  NOT_FOUND = 500
};

static int initialised;
static long long live_allocations;
static size_t allocated_bytes;
static int contexts;

static struct {
  char name[128];
  unsigned grid[3], block[3], shared;
  void *stream;
  uint64_t first_argument;
  int count;
} last_launch;

/* What cuTensorMapEncodeTiled writes into a map here (test/runtime/gpu_test.cc reads it). */
typedef struct {
  uint64_t address;
  uint32_t data_type, rank;
  uint64_t dims[5], strides[4];
  uint32_t box[5];
  uint32_t swizzle, oob_fill;
} fake_tensor_map_t;

/* Kernels allowed more than 48 KiB of dynamic shared memory, and how much. */
static struct {
  CUhandle function;
  int bytes;
} shared_allowed[64];
static int shared_allowed_count;

/* FAKE_CUDA_LOG: 0 (unset), 1, or 2 (module loads too). */
static int log_level(void) {
  const char *log = getenv("FAKE_CUDA_LOG");
  return log != NULL && (log[0] == '1' || log[0] == '2') ? log[0] - '0' : 0;
}

static int logging(void) { return log_level() >= 1; }

static int device_count(void) {
  const char *n = getenv("FAKE_CUDA_DEVICES");
  return n != NULL ? atoi(n) : 1;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case SUCCESS:
    *name = "CUDA_SUCCESS";
    return SUCCESS;
  case INVALID_VALUE:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return SUCCESS;
  case OUT_OF_MEMORY:
    *name = "CUDA_ERROR_OUT_OF_MEMORY";
    return SUCCESS;
  case NOT_INITIALIZED:
    *name = "CUDA_ERROR_NOT_INITIALIZED";
    return SUCCESS;
  case NO_DEVICE:
    *name = "CUDA_ERROR_NO_DEVICE";
    return SUCCESS;
  case INVALID_DEVICE:
    *name = "CUDA_ERROR_INVALID_DEVICE";
    return SUCCESS;
  case INVALID_IMAGE:
    *name = "CUDA_ERROR_INVALID_IMAGE";
    return SUCCESS;
  case NOT_FOUND:
    *name = "CUDA_ERROR_NOT_FOUND";
    return SUCCESS;
  }
  *name = NULL;
  return INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  switch (error) {
  case SUCCESS:
    *text = "no error";
    return SUCCESS;
  case INVALID_VALUE:
    *text = "invalid argument";
    return SUCCESS;
  case OUT_OF_MEMORY:
    *text = "out of memory";
    return SUCCESS;
  case NOT_INITIALIZED:
    *text = "initialization error";
    return SUCCESS;
  case NO_DEVICE:
    *text = "no CUDA-capable device is detected";
    return SUCCESS;
  case INVALID_DEVICE:
    *text = "invalid device ordinal";
    return SUCCESS;
  case INVALID_IMAGE:
    *text = "device kernel image is invalid";
    return SUCCESS;
  case NOT_FOUND:
    *text = "named symbol not found";
    return SUCCESS;
  }
  *text = NULL;
  return INVALID_VALUE;
}

CUresult cuInit(unsigned flags) {
  if (flags != 0)
    return INVALID_VALUE;
  if (device_count() == 0)
    return NO_DEVICE;
  initialised = 1;
  return SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  if (!initialised)
    return NOT_INITIALIZED;
  *count = device_count();
  return SUCCESS;
}

CUresult cuDeviceGet(int *device, int ordinal) {
  if (!initialised)
    return NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= device_count())
    return INVALID_DEVICE;
  *device = ordinal;
  return SUCCESS;
}

CUresult cuDeviceGetName(char *name, int length, int device) {
  (void)device;
  if (length < 1)
    return INVALID_VALUE;
  strncpy(name, "Fake GPU", (size_t)length);
  name[length - 1] = '\0';
  return SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  if (attribute == 75)
    *value = 9; /* compute capability major */
  else if (attribute == 76)
    *value = 0;
  else
    return INVALID_VALUE;
  return SUCCESS;
}

static int fake_context;

CUresult cuDevicePrimaryCtxRetain(CUhandle *context, int device) {
  (void)device;
  ++contexts;
  *context = &fake_context;
  return SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  (void)device;
  if (contexts == 0)
    return INVALID_VALUE;
  --contexts;
  return SUCCESS;
}

CUresult cuCtxSynchronize(void) { return SUCCESS; }

CUresult cuCtxSetCurrent(CUhandle context) {
  return context == &fake_context || context == NULL ? SUCCESS : INVALID_VALUE;
}

/* A module: a copy of its PTX text, or of a fatbin (kiln compile --gpu-arch: the cubin
 * ptxas assembled), whose kernels are found by their names in its string table. */
typedef struct {
  int binary;
  size_t size;
  char data[];
} fake_module_t;

CUresult cuModuleLoadData(CUhandle *module, const void *image) {
  const unsigned char *bytes = (const unsigned char *)image;
  int binary = bytes[0] == 0x50 && bytes[1] == 0xED && bytes[2] == 0x55 && bytes[3] == 0xBA;
  size_t size = 0;
  if (binary) { /* header: magic 0xBA55ED50, version, header size, then the images' size */
    uint16_t header = 0;
    uint64_t images = 0;
    memcpy(&header, bytes + 6, sizeof header);
    memcpy(&images, bytes + 8, sizeof images);
    size = header + images;
  } else {
    const char *text = (const char *)image;
    if (strstr(text, ".version") == NULL || strstr(text, ".target") == NULL)
      return INVALID_IMAGE;
    size = strlen(text) + 1;
  }
  fake_module_t *copy = malloc(sizeof(fake_module_t) + size);
  if (copy == NULL)
    return OUT_OF_MEMORY;
  copy->binary = binary;
  copy->size = size;
  memcpy(copy->data, image, size);
  ++live_allocations;
  *module = copy;
  if (log_level() >= 2)
    fprintf(stderr, "fake_cuda: load a %s module\n", binary ? "fatbin" : "PTX");
  return SUCCESS;
}

CUresult cuModuleUnload(CUhandle module) {
  --live_allocations;
  free(module);
  return SUCCESS;
}

static long long function_lookups; /* cuModuleGetFunction calls */

/* A kernel: the position of ".entry NAME(" in the module's text, or of "NAME" among a
 * binary's NUL-terminated strings. */
CUresult cuModuleGetFunction(CUhandle *function, CUhandle handle, const char *name) {
  ++function_lookups;
  const fake_module_t *module = (const fake_module_t *)handle;
  const char *text = module->data;
  size_t length = strlen(name);
  if (module->binary) {
    for (size_t at = 1; at + length < module->size; ++at)
      if (text[at - 1] == '\0' && memcmp(text + at, name, length + 1) == 0) {
        *function = (void *)(uintptr_t)(text + at);
        return SUCCESS;
      }
    return NOT_FOUND;
  }
  for (const char *at = strstr(text, ".entry "); at != NULL; at = strstr(at + 1, ".entry ")) {
    const char *entry = at + strlen(".entry ");
    if (strncmp(entry, name, length) == 0 && (entry[length] == '(' || entry[length] == ' ')) {
      *function = (void *)(uintptr_t)entry;
      return SUCCESS;
    }
  }
  return NOT_FOUND;
}

CUresult cuFuncSetAttribute(CUhandle function, int attribute, int value) {
  enum { MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 };
  if (function == NULL || attribute != MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 ||
      value > 227 * 1024)
    return INVALID_VALUE;
  for (int i = 0; i < shared_allowed_count; ++i)
    if (shared_allowed[i].function == function) {
      shared_allowed[i].bytes = value;
      return SUCCESS;
    }
  if (shared_allowed_count == 64)
    return INVALID_VALUE;
  shared_allowed[shared_allowed_count].function = function;
  shared_allowed[shared_allowed_count++].bytes = value;
  return SUCCESS;
}

CUresult cuLaunchKernel(CUhandle function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, CUhandle stream, void **params,
                        void **extra) {
  (void)extra;
  if (gx == 0 || gy == 0 || gz == 0 || bx * by * bz == 0 || bx * by * bz > 1024)
    return INVALID_VALUE;
  if (shared > 48 * 1024) {
    int allowed = 0;
    for (int i = 0; i < shared_allowed_count; ++i)
      if (shared_allowed[i].function == function)
        allowed = shared_allowed[i].bytes;
    if ((int)shared > allowed)
      return INVALID_VALUE;
  }
  const char *entry = (const char *)function;
  size_t length = strcspn(entry, "( \n");
  if (length >= sizeof(last_launch.name))
    length = sizeof(last_launch.name) - 1;
  memcpy(last_launch.name, entry, length);
  last_launch.name[length] = '\0';
  last_launch.grid[0] = gx, last_launch.grid[1] = gy, last_launch.grid[2] = gz;
  last_launch.block[0] = bx, last_launch.block[1] = by, last_launch.block[2] = bz;
  last_launch.shared = shared;
  last_launch.stream = stream;
  last_launch.first_argument = 0;
  if (params != NULL && params[0] != NULL)
    memcpy(&last_launch.first_argument, params[0], 8);
  ++last_launch.count;
  if (logging() && shared == 0)
    fprintf(stderr, "fake_cuda: launch %s grid %u,%u,%u block %u,%u,%u\n", last_launch.name, gx, gy,
            gz, bx, by, bz);
  else if (logging())
    fprintf(stderr, "fake_cuda: launch %s grid %u,%u,%u block %u,%u,%u shared %u\n",
            last_launch.name, gx, gy, gz, bx, by, bz, shared);
  return SUCCESS;
}

/* "Device" memory: a header holding the size, then the bytes, 256-byte aligned. */
/* Device and pinned host allocations, for cuPointerGetAttribute's memory type. */
enum { MAX_RANGES = 4096, MEMORYTYPE_HOST = 1, MEMORYTYPE_DEVICE = 2 };
static struct {
  uintptr_t start;
  size_t bytes;
  unsigned type;
} ranges[MAX_RANGES];

static void remember(uintptr_t start, size_t bytes, unsigned type) {
  for (int i = 0; i < MAX_RANGES; ++i)
    if (ranges[i].type == 0) {
      ranges[i].start = start, ranges[i].bytes = bytes, ranges[i].type = type;
      return;
    }
}

static void forget(uintptr_t start) {
  for (int i = 0; i < MAX_RANGES; ++i)
    if (ranges[i].type != 0 && ranges[i].start == start)
      ranges[i].type = 0;
}

static long long pinned_allocations;
long long fake_cuda_pinned_allocations(void) { return pinned_allocations; }

/* CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2) only: device or pinned host memory; other host
 * memory is unknown to the driver (CUDA_ERROR_INVALID_VALUE). */
CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr) {
  if (attribute != 2)
    return INVALID_VALUE;
  for (int i = 0; i < MAX_RANGES; ++i)
    if (ranges[i].type != 0 && ptr >= ranges[i].start && ptr < ranges[i].start + ranges[i].bytes) {
      *(unsigned *)data = ranges[i].type;
      return SUCCESS;
    }
  return INVALID_VALUE;
}

/* FAKE_CUDA_PINNED=0: no pinned memory to be had. */
CUresult cuMemHostAlloc(void **ptr, size_t bytes, unsigned flags) {
  (void)flags;
  const char *pinned = getenv("FAKE_CUDA_PINNED");
  if (pinned != NULL && strcmp(pinned, "0") == 0)
    return OUT_OF_MEMORY;
  *ptr = malloc(bytes);
  if (*ptr == NULL)
    return OUT_OF_MEMORY;
  remember((uintptr_t)*ptr, bytes, MEMORYTYPE_HOST);
  ++live_allocations;
  ++pinned_allocations;
  if (logging())
    fprintf(stderr, "fake_cuda: pinned %zu bytes\n", bytes);
  return SUCCESS;
}

CUresult cuMemFreeHost(void *ptr) {
  forget((uintptr_t)ptr);
  --live_allocations;
  free(ptr);
  return SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  const char *limit = getenv("FAKE_CUDA_MEMORY");
  if (bytes == 0)
    return INVALID_VALUE;
  if (limit != NULL && allocated_bytes + bytes > (size_t)atoll(limit))
    return OUT_OF_MEMORY;
  /* 256-byte aligned, as the driver's (a header of 256 bytes before them). */
  void *memory = NULL;
  if (posix_memalign(&memory, 256, bytes + 256) != 0)
    return OUT_OF_MEMORY;
  size_t *block = (size_t *)memory;
  block[0] = bytes;
  allocated_bytes += bytes;
  ++live_allocations;
  *ptr = (CUdeviceptr)(uintptr_t)((char *)block + 256);
  remember((uintptr_t)*ptr, bytes, MEMORYTYPE_DEVICE);
  if (logging())
    fprintf(stderr, "fake_cuda: alloc %zu bytes\n", bytes);
  return SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr ptr) {
  forget((uintptr_t)ptr);
  size_t *block = (size_t *)(void *)((char *)(uintptr_t)ptr - 256);
  allocated_bytes -= block[0];
  --live_allocations;
  free(block);
  return SUCCESS;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, CUhandle s) {
  (void)s;
  if (logging())
    fprintf(stderr, "fake_cuda: copy %zu bytes to the device\n", bytes);
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return SUCCESS;
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, CUhandle s) {
  (void)s;
  const char *fail = getenv("FAKE_CUDA_FAIL_TO_HOST");
  if (fail != NULL && strcmp(fail, "1") == 0)
    return INVALID_VALUE;
  if (logging())
    fprintf(stderr, "fake_cuda: copy %zu bytes to the host\n", bytes);
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return SUCCESS;
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUhandle s) {
  (void)s;
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return SUCCESS;
}

/* Where `ptr` is, for the log: "device", "pinned" or "host" (pageable) memory. */
static const char *memory_kind(CUdeviceptr ptr) {
  unsigned type = 0;
  if (cuPointerGetAttribute(&type, 2, ptr) != SUCCESS)
    return "host";
  return type == MEMORYTYPE_DEVICE ? "device" : "pinned";
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUhandle s) {
  (void)s;
  if (logging())
    fprintf(stderr, "fake_cuda: copy %zu bytes, %s to %s\n", bytes, memory_kind(src),
            memory_kind(dst));
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return SUCCESS;
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count, CUhandle s) {
  (void)s;
  if (dst % 4 != 0)
    return INVALID_VALUE;
  for (size_t i = 0; i < count; ++i)
    memcpy((char *)(uintptr_t)dst + 4 * i, &value, 4);
  return SUCCESS;
}

CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count, CUhandle s) {
  (void)s;
  if (dst % 2 != 0)
    return INVALID_VALUE;
  for (size_t i = 0; i < count; ++i)
    memcpy((char *)(uintptr_t)dst + 2 * i, &value, 2);
  return SUCCESS;
}

/* Streams and events: small heap objects; an event holds the launch count when recorded,
 * and the elapsed time between two is 0.5 ms per launch between them. */
CUresult cuStreamCreate(CUhandle *stream, unsigned flags) {
  (void)flags;
  *stream = malloc(1);
  ++live_allocations;
  return SUCCESS;
}

CUresult cuStreamDestroy_v2(CUhandle stream) {
  --live_allocations;
  free(stream);
  return SUCCESS;
}

static long long default_stream_waits;

CUresult cuStreamSynchronize(CUhandle stream) {
  if (stream == NULL)
    ++default_stream_waits;
  return SUCCESS;
}

CUresult cuEventCreate(CUhandle *event, unsigned flags) {
  (void)flags;
  int *e = (int *)calloc(1, sizeof(int));
  if (e == NULL)
    return OUT_OF_MEMORY;
  *e = -1;
  ++live_allocations;
  *event = e;
  return SUCCESS;
}

CUresult cuEventDestroy_v2(CUhandle event) {
  --live_allocations;
  free(event);
  return SUCCESS;
}

CUresult cuEventRecord(CUhandle event, CUhandle stream) {
  (void)stream;
  *(int *)event = last_launch.count;
  return SUCCESS;
}

CUresult cuStreamWaitEvent(CUhandle stream, CUhandle event, unsigned flags) {
  (void)stream;
  (void)flags;
  return *(int *)event < 0 ? INVALID_VALUE : SUCCESS;
}

/* As the driver: an event never recorded has nothing to wait for. */
CUresult cuEventSynchronize(CUhandle event) {
  (void)event;
  return SUCCESS;
}

CUresult cuEventElapsedTime(float *ms, CUhandle start, CUhandle end) {
  int a = *(int *)start, b = *(int *)end;
  if (a < 0 || b < 0)
    return INVALID_VALUE;
  *ms = 0.5f * (float)(b - a);
  return SUCCESS;
}

/* What tests ask the fake. */
int fake_cuda_last_launch(char *name, unsigned grid[3], unsigned block[3], unsigned *shared,
                          uint64_t *first_argument) {
  strcpy(name, last_launch.name);
  memcpy(grid, last_launch.grid, sizeof(last_launch.grid));
  memcpy(block, last_launch.block, sizeof(last_launch.block));
  *shared = last_launch.shared;
  *first_argument = last_launch.first_argument;
  return last_launch.count;
}

long long fake_cuda_live_allocations(void) { return live_allocations; }

long long fake_cuda_function_lookups(void) { return function_lookups; }

int fake_cuda_contexts(void) { return contexts; }

/* How many times a thread waited for the default stream (cuStreamSynchronize(NULL)). */
long long fake_cuda_default_stream_waits(void) { return default_stream_waits; }

#ifndef FAKE_CUDA_WITHOUT_TMA
CUresult cuTensorMapEncodeTiled(void *map, int data_type, uint32_t rank, void *address,
                                const uint64_t *dims, const uint64_t *strides, const uint32_t *box,
                                const uint32_t *element_strides, int interleave, int swizzle,
                                int l2_promotion, int oob_fill) {
  static const uint32_t element_bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (map == NULL || (uintptr_t)map % 64 != 0 || data_type < 0 || data_type > 12 || rank < 1 ||
      rank > 5 || (uintptr_t)address % 16 != 0 || interleave != 0 || swizzle < 0 || swizzle > 3 ||
      l2_promotion < 0 || l2_promotion > 4 || oob_fill < 0 || oob_fill > 1)
    return INVALID_VALUE;
  for (uint32_t d = 0; d < rank; ++d) {
    if (dims[d] == 0 || dims[d] > (1ull << 32) || box[d] == 0 || box[d] > 256 ||
        element_strides[d] == 0 || element_strides[d] > 8)
      return INVALID_VALUE;
    if (d + 1 < rank && (strides[d] % 16 != 0 || strides[d] >= (1ull << 40)))
      return INVALID_VALUE;
  }
  /* Stricter than the driver, which cannot tell: the tensor is in device memory. */
  unsigned type = 0;
  if (cuPointerGetAttribute(&type, 2, (CUdeviceptr)(uintptr_t)address) != SUCCESS ||
      type != MEMORYTYPE_DEVICE)
    return INVALID_VALUE;
  /* The swizzle's span (32, 64 or 128 bytes) bounds the box's inner dimension. */
  if (swizzle != 0 && box[0] * element_bytes[data_type] > (16u << swizzle))
    return INVALID_VALUE;
  fake_tensor_map_t encoded;
  memset(&encoded, 0, sizeof encoded);
  encoded.address = (uint64_t)(uintptr_t)address;
  encoded.data_type = (uint32_t)data_type;
  encoded.rank = rank;
  for (uint32_t d = 0; d < rank; ++d) {
    encoded.dims[d] = dims[d];
    encoded.box[d] = box[d];
    if (d + 1 < rank)
      encoded.strides[d] = strides[d];
  }
  encoded.swizzle = (uint32_t)swizzle;
  encoded.oob_fill = (uint32_t)oob_fill;
  memset(map, 0, 128);
  memcpy(map, &encoded, sizeof encoded);
  if (logging()) {
    fprintf(stderr, "fake_cuda: tensor map type %d dims", data_type);
    for (uint32_t d = 0; d < rank; ++d)
      fprintf(stderr, " %llu", (unsigned long long)dims[d]);
    fprintf(stderr, " strides");
    for (uint32_t d = 0; d + 1 < rank; ++d)
      fprintf(stderr, " %llu", (unsigned long long)strides[d]);
    fprintf(stderr, " box");
    for (uint32_t d = 0; d < rank; ++d)
      fprintf(stderr, " %u", box[d]);
    fprintf(stderr, " swizzle %d\n", swizzle);
  }
  return SUCCESS;
}
#endif
