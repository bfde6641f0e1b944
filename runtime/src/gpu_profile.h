/* Internal to the runtime: KILN_GPU_PROFILE, the device time of the work GPU partitions
 * queue (kiln/runtime/mgpu.h describes the table it prints). */
#ifndef KILN_RUNTIME_SRC_GPU_PROFILE_H
#define KILN_RUNTIME_SRC_GPU_PROFILE_H

#include "kiln/runtime/gpu.h"

/* Whether KILN_GPU_PROFILE is set to something other than "" or "0" (read once). */
int kiln_gpu_profile_on(void);

/* Remembers `name` for `kernel` (from mgpuModuleGetFunction), for the launches' rows. */
void kiln_gpu_profile_kernel_name(kiln_gpu_kernel_t kernel, const char *name);
/* The name remembered for `kernel`, or "kernel". */
const char *kiln_gpu_profile_kernel(kiln_gpu_kernel_t kernel);

/* Before queuing work on `stream`: an event recorded there (NULL when that fails). */
kiln_gpu_event_t kiln_gpu_profile_start(kiln_gpu_t *gpu, kiln_gpu_stream_t stream);
/* After queuing it: records its end on `stream` and keeps the span as the thread's,
 * under `name` (copied). Does nothing for a NULL start. */
void kiln_gpu_profile_stop(kiln_gpu_t *gpu, kiln_gpu_stream_t stream, kiln_gpu_event_t start,
                           const char *name);
/* Once the device has finished the thread's spans (at the end of a partition's call,
 * which took `host_ms` on the host): their times join the process's table, printed to
 * stderr when the process exits; the process's first call (which loads kernels and
 * libraries and uploads weights) is left out. */
void kiln_gpu_profile_collect(kiln_gpu_t *gpu, double host_ms);

#endif /* KILN_RUNTIME_SRC_GPU_PROFILE_H */
