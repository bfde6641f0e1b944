/*
 * kiln/runtime/parallel.h - the thread pool that compiled models and kernels share.
 *
 * Each calling thread has a thread budget: the most threads (itself included) that one
 * kiln_parallel_for() from it may use. A compiled model's entry point sets the budget from
 * kiln_run_options_t.num_threads for the duration of the call (kiln_parallel_enter/_exit),
 * so kernels never take a thread count argument.
 *
 * kiln_parallel_for(count, grain, fn, ctx) cuts [0, count) into at most `budget` chunks of
 * at least `grain` items, in a way that depends only on (count, grain, budget), and calls
 * fn(ctx, begin, end) once per chunk, on the calling thread and on pool workers; it returns
 * when every chunk is done. Callers that need results independent of the thread count make
 * each item's result independent of the chunk it falls in (every kernel here does).
 *
 * The pool starts its workers on first use and grows to the largest budget asked for (at
 * most KILN_PARALLEL_MAX_THREADS). One kiln_parallel_for runs on the pool at a time: a call
 * made while the pool is busy (from another application thread, or from inside a chunk)
 * runs its chunks on the calling thread, in order. It never fails: without threads, the
 * chunks simply run on the caller.
 *
 * kiln_parallel_workspace(bytes) returns a buffer of at least `bytes` bytes, aligned to 64,
 * private to the calling thread and kept until the thread exits (or a larger request
 * replaces it): kernels pack operands there instead of allocating per call. It returns NULL
 * when memory is exhausted. kiln_parallel_workspace_n(which, bytes) does the same for each
 * of KILN_PARALLEL_WORKSPACES such buffers per thread (the first is kiln_parallel_workspace's),
 * for a kernel that needs one of its own while the kernels it calls use the first (the 3x3
 * convolution's transformed filter, KILN_WORKSPACE_FILTER); NULL for a `which` out of range.
 */
#ifndef KILN_RUNTIME_PARALLEL_H
#define KILN_RUNTIME_PARALLEL_H

#include <stdint.h>

#include "kiln/runtime/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_PARALLEL_MAX_THREADS 256

typedef void (*kiln_parallel_fn_t)(void *ctx, int64_t begin, int64_t end);

/* Number of cores online (at least 1). */
int32_t kiln_parallel_cores(void);

/* The calling thread's budget (at least 1). */
int32_t kiln_parallel_threads(void);

/*
 * Sets the calling thread's budget; `threads` <= 0 means all cores, and values above
 * KILN_PARALLEL_MAX_THREADS are clamped. Returns the previous setting (as given, so that
 * it can be restored exactly).
 */
int32_t kiln_parallel_set_threads(int32_t threads);

/*
 * Entry and exit of a compiled model's run function: sets the budget from `options`
 * (NULL, a struct_size too small to hold num_threads, or num_threads <= 0: all cores) and
 * returns the previous setting for kiln_parallel_exit().
 */
int32_t kiln_parallel_enter(const kiln_run_options_t *options);
void kiln_parallel_exit(int32_t previous);

/* See the comment at the top of this file. `grain` < 1 counts as 1. */
void kiln_parallel_for(int64_t count, int64_t grain, kiln_parallel_fn_t fn, void *ctx);

/* See the comment at the top of this file. */
void *kiln_parallel_workspace(int64_t bytes);
#define KILN_PARALLEL_WORKSPACES 2
#define KILN_WORKSPACE_FILTER 1
void *kiln_parallel_workspace_n(int32_t which, int64_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_PARALLEL_H */
