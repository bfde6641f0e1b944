/* Implementation of gpu_profile.h: KILN_GPU_PROFILE's table. */
#include "gpu_profile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int kiln_profile_enabled;
static pthread_once_t kiln_profile_once = PTHREAD_ONCE_INIT;

/* One row of the table: a kind of work (a kernel with its grid, a library call with its
 * sizes, a copy with its bytes) and its device time over all calls. */
typedef struct {
  char *name;
  double ms;
  long long count;
} kiln_profile_row_t;

/* The process's table and the calls it covers, under the lock. */
static pthread_mutex_t kiln_profile_lock = PTHREAD_MUTEX_INITIALIZER;
static kiln_profile_row_t *kiln_profile_rows;
static size_t kiln_profile_row_count, kiln_profile_row_capacity;
static long long kiln_profile_calls, kiln_profile_skipped;
static double kiln_profile_host_ms;

/* Kernel handles and their names. */
typedef struct {
  kiln_gpu_kernel_t kernel;
  char *name;
} kiln_profile_kernel_t;
static kiln_profile_kernel_t *kiln_profile_kernels;
static size_t kiln_profile_kernel_count, kiln_profile_kernel_capacity;

/* The thread's spans not yet collected. */
typedef struct {
  kiln_gpu_event_t start, end;
  char *name;
} kiln_profile_span_t;
static _Thread_local kiln_profile_span_t *kiln_profile_spans;
static _Thread_local size_t kiln_profile_span_count, kiln_profile_span_capacity;

static void kiln_profile_read(void) {
  const char *value = getenv("KILN_GPU_PROFILE");
  kiln_profile_enabled = value != NULL && value[0] != '\0' && strcmp(value, "0") != 0;
}

int kiln_gpu_profile_on(void) {
  pthread_once(&kiln_profile_once, kiln_profile_read);
  return kiln_profile_enabled;
}

/* Grows `*items` (of `size`-byte elements) to hold one more; 0 without memory. */
static int kiln_profile_reserve(void **items, size_t *capacity, size_t count, size_t size) {
  if (count < *capacity)
    return 1;
  size_t grown = *capacity ? 2 * *capacity : 64;
  void *bigger = realloc(*items, grown * size);
  if (bigger == NULL)
    return 0;
  *items = bigger;
  *capacity = grown;
  return 1;
}

void kiln_gpu_profile_kernel_name(kiln_gpu_kernel_t kernel, const char *name) {
  pthread_mutex_lock(&kiln_profile_lock);
  size_t i = 0;
  while (i < kiln_profile_kernel_count && kiln_profile_kernels[i].kernel != kernel)
    ++i;
  if (i == kiln_profile_kernel_count &&
      kiln_profile_reserve((void **)&kiln_profile_kernels, &kiln_profile_kernel_capacity,
                           kiln_profile_kernel_count, sizeof(*kiln_profile_kernels))) {
    char *copy = strdup(name);
    if (copy != NULL) {
      kiln_profile_kernels[i].kernel = kernel;
      kiln_profile_kernels[i].name = copy;
      ++kiln_profile_kernel_count;
    }
  }
  pthread_mutex_unlock(&kiln_profile_lock);
}

const char *kiln_gpu_profile_kernel(kiln_gpu_kernel_t kernel) {
  const char *name = "kernel";
  pthread_mutex_lock(&kiln_profile_lock);
  for (size_t i = 0; i < kiln_profile_kernel_count; ++i)
    if (kiln_profile_kernels[i].kernel == kernel)
      name = kiln_profile_kernels[i].name;
  pthread_mutex_unlock(&kiln_profile_lock);
  return name; /* names live as long as the process */
}

kiln_gpu_event_t kiln_gpu_profile_start(kiln_gpu_t *gpu, kiln_gpu_stream_t stream) {
  kiln_gpu_event_t event = NULL;
  kiln_status_t status = kiln_gpu_event_create(gpu, &event);
  if (status == NULL)
    status = kiln_gpu_event_record(gpu, event, stream);
  if (status != NULL) {
    kiln_status_free(status);
    kiln_gpu_event_destroy(gpu, event);
    return NULL;
  }
  return event;
}

void kiln_gpu_profile_stop(kiln_gpu_t *gpu, kiln_gpu_stream_t stream, kiln_gpu_event_t start,
                           const char *name) {
  if (start == NULL)
    return;
  kiln_gpu_event_t end = NULL;
  kiln_status_t status = kiln_gpu_event_create(gpu, &end);
  if (status == NULL)
    status = kiln_gpu_event_record(gpu, end, stream);
  char *copy = status == NULL ? strdup(name) : NULL;
  if (status != NULL || copy == NULL ||
      !kiln_profile_reserve((void **)&kiln_profile_spans, &kiln_profile_span_capacity,
                            kiln_profile_span_count, sizeof(*kiln_profile_spans))) {
    kiln_status_free(status);
    free(copy);
    kiln_gpu_event_destroy(gpu, start);
    kiln_gpu_event_destroy(gpu, end);
    return;
  }
  kiln_profile_span_t *span = &kiln_profile_spans[kiln_profile_span_count++];
  span->start = start;
  span->end = end;
  span->name = copy;
}

/* The table's row for `name`, added if new; NULL without memory. Under the lock. */
static kiln_profile_row_t *kiln_profile_row(const char *name) {
  for (size_t i = 0; i < kiln_profile_row_count; ++i)
    if (strcmp(kiln_profile_rows[i].name, name) == 0)
      return &kiln_profile_rows[i];
  if (!kiln_profile_reserve((void **)&kiln_profile_rows, &kiln_profile_row_capacity,
                            kiln_profile_row_count, sizeof(*kiln_profile_rows)))
    return NULL;
  char *copy = strdup(name);
  if (copy == NULL)
    return NULL;
  kiln_profile_row_t *row = &kiln_profile_rows[kiln_profile_row_count++];
  row->name = copy;
  row->ms = 0;
  row->count = 0;
  return row;
}

static int kiln_profile_by_time(const void *a, const void *b) {
  double x = ((const kiln_profile_row_t *)a)->ms, y = ((const kiln_profile_row_t *)b)->ms;
  return x < y ? 1 : x > y ? -1 : 0;
}

static void kiln_profile_print(void) {
  pthread_mutex_lock(&kiln_profile_lock);
  if (kiln_profile_calls > 0) {
    qsort(kiln_profile_rows, kiln_profile_row_count, sizeof(*kiln_profile_rows),
          kiln_profile_by_time);
    double total = 0;
    for (size_t i = 0; i < kiln_profile_row_count; ++i)
      total += kiln_profile_rows[i].ms;
    double calls = (double)kiln_profile_calls;
    fprintf(stderr,
            "kiln: GPU profile (KILN_GPU_PROFILE) over %lld calls of GPU partitions after the "
            "first; per call: %.3f ms on the host from begin to end, %.3f ms of device work\n"
            "%10s %6s %8s  %s\n",
            kiln_profile_calls, kiln_profile_host_ms / calls, total / calls, "ms/call", "share",
            "n/call", "work");
    for (size_t i = 0; i < kiln_profile_row_count; ++i) {
      const kiln_profile_row_t *row = &kiln_profile_rows[i];
      fprintf(stderr, "%10.4f %5.1f%% %8.2f  %s\n", row->ms / calls,
              total > 0 ? 100.0 * row->ms / total : 0.0, (double)row->count / calls, row->name);
    }
  }
  pthread_mutex_unlock(&kiln_profile_lock);
}

static pthread_once_t kiln_profile_exit_once = PTHREAD_ONCE_INIT;
static void kiln_profile_register_exit(void) { atexit(kiln_profile_print); }

void kiln_gpu_profile_collect(kiln_gpu_t *gpu, double host_ms) {
  pthread_once(&kiln_profile_exit_once, kiln_profile_register_exit);
  pthread_mutex_lock(&kiln_profile_lock);
  for (size_t i = 0; i < kiln_profile_span_count; ++i) {
    kiln_profile_span_t *span = &kiln_profile_spans[i];
    float ms = 0;
    kiln_status_t status = kiln_gpu_event_elapsed(gpu, span->start, span->end, &ms);
    /* The first call loads the kernels and libraries (lazily, on first launch) and
     * uploads the weights: not what the next calls cost. */
    kiln_profile_row_t *row =
        status == NULL && kiln_profile_skipped > 0 ? kiln_profile_row(span->name) : NULL;
    kiln_status_free(status);
    if (row != NULL) {
      row->ms += ms;
      ++row->count;
    }
    free(span->name);
    kiln_gpu_event_destroy(gpu, span->start);
    kiln_gpu_event_destroy(gpu, span->end);
  }
  kiln_profile_span_count = 0;
  if (kiln_profile_skipped == 0) {
    kiln_profile_skipped = 1;
  } else {
    ++kiln_profile_calls;
    kiln_profile_host_ms += host_ms;
  }
  pthread_mutex_unlock(&kiln_profile_lock);
}
