/* Implementation of kiln/runtime/parallel.h: one pool of pthreads, one job at a time. */
#define _GNU_SOURCE

#include "kiln/runtime/parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "kiln/runtime/arena.h"

/* ---- thread budget ---------------------------------------------------------------- */

static _Thread_local int32_t kiln_thread_setting = 0; /* <= 0: all cores */

int32_t kiln_parallel_cores(void) {
  static atomic_int cached = 0;
  int cores = atomic_load_explicit(&cached, memory_order_relaxed);
  if (cores > 0)
    return cores;
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    cores = CPU_COUNT(&set);
#endif
  if (cores <= 0) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    cores = online > 0 ? (int)online : 1;
  }
  if (cores > KILN_PARALLEL_MAX_THREADS)
    cores = KILN_PARALLEL_MAX_THREADS;
  atomic_store_explicit(&cached, cores, memory_order_relaxed);
  return cores;
}

int32_t kiln_parallel_threads(void) {
  int32_t setting = kiln_thread_setting;
  if (setting <= 0)
    return kiln_parallel_cores();
  return setting > KILN_PARALLEL_MAX_THREADS ? KILN_PARALLEL_MAX_THREADS : setting;
}

int32_t kiln_parallel_set_threads(int32_t threads) {
  int32_t previous = kiln_thread_setting;
  kiln_thread_setting = threads;
  return previous;
}

int32_t kiln_parallel_enter(const kiln_run_options_t *options) {
  int32_t threads = 0;
  if (options != NULL &&
      options->struct_size >= offsetof(kiln_run_options_t, num_threads) + sizeof(int32_t))
    threads = options->num_threads;
  return kiln_parallel_set_threads(threads);
}

void kiln_parallel_exit(int32_t previous) { kiln_parallel_set_threads(previous); }

/* ---- the pool --------------------------------------------------------------------- */

typedef struct kiln_parallel_job {
  kiln_parallel_fn_t fn;
  void *ctx;
  int64_t count;
  int64_t chunks;
  atomic_llong next; /* next chunk to hand out */
  atomic_llong done; /* chunks finished */
  int users;         /* workers inside the job (guarded by kiln_pool.mutex) */
} kiln_parallel_job;

static struct {
  pthread_mutex_t mutex; /* guards everything below (generation is also read unlocked) */
  pthread_cond_t work;   /* a new job was posted */
  pthread_cond_t idle;   /* a worker left a job */
  int workers;
  atomic_ullong generation;
  kiln_parallel_job *job;
} kiln_pool = {
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, NULL};

/* Kernels come back to back, and waking a sleeping thread through a condition variable
 * costs tens of microseconds (more when a co-tenant holds the core): a worker that sleeps
 * between them joins each job late, and its submitter, which takes every chunk no thread
 * has taken, ends up doing the whole job alone. So a worker spins this many pauses (about
 * 50 microseconds) watching for the next job before it sleeps, and a submitter spins as
 * long for its workers' chunks before it sleeps. */
#define KILN_PARALLEL_SPINS 20000

static inline void kiln_parallel_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static uint64_t kiln_pool_generation(void) {
  return atomic_load_explicit(&kiln_pool.generation, memory_order_acquire);
}

/* Held by the thread whose job is on the pool. */
static pthread_mutex_t kiln_pool_submit = PTHREAD_MUTEX_INITIALIZER;

static void kiln_parallel_run_chunks(kiln_parallel_job *job) {
  for (;;) {
    int64_t chunk = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
    if (chunk >= job->chunks)
      return;
    /* Chunk boundaries depend only on count and chunks. */
    int64_t begin = job->count * chunk / job->chunks;
    int64_t end = job->count * (chunk + 1) / job->chunks;
    job->fn(job->ctx, begin, end);
    atomic_fetch_add_explicit(&job->done, 1, memory_order_acq_rel);
  }
}

/* `arg` is the generation current when the worker was created: jobs posted after it are
 * the worker's to join, including the one whose submission started the worker. */
static void *kiln_parallel_worker(void *arg) {
  uint64_t seen = (uint64_t)(uintptr_t)arg;
  pthread_mutex_lock(&kiln_pool.mutex);
  for (;;) {
    if (kiln_pool_generation() == seen) {
      pthread_mutex_unlock(&kiln_pool.mutex);
      for (int spin = 0; spin < KILN_PARALLEL_SPINS && kiln_pool_generation() == seen; ++spin)
        kiln_parallel_pause();
      pthread_mutex_lock(&kiln_pool.mutex);
    }
    while (kiln_pool_generation() == seen)
      pthread_cond_wait(&kiln_pool.work, &kiln_pool.mutex);
    seen = kiln_pool_generation();
    kiln_parallel_job *job = kiln_pool.job;
    if (job == NULL)
      continue;
    job->users++;
    pthread_mutex_unlock(&kiln_pool.mutex);
    kiln_parallel_run_chunks(job);
    pthread_mutex_lock(&kiln_pool.mutex);
    job->users--;
    pthread_cond_broadcast(&kiln_pool.idle);
  }
  return NULL;
}

/* Starts workers until there are `wanted` (or thread creation fails). Pool mutex held. */
static void kiln_parallel_grow(int wanted) {
  while (kiln_pool.workers < wanted) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
      return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    int failed = pthread_create(&thread, &attr, kiln_parallel_worker,
                                (void *)(uintptr_t)kiln_pool_generation());
    pthread_attr_destroy(&attr);
    if (failed)
      return;
    kiln_pool.workers++;
  }
}

static void kiln_parallel_inline(kiln_parallel_fn_t fn, void *ctx, int64_t count, int64_t chunks) {
  for (int64_t chunk = 0; chunk < chunks; ++chunk)
    fn(ctx, count * chunk / chunks, count * (chunk + 1) / chunks);
}

void kiln_parallel_for(int64_t count, int64_t grain, kiln_parallel_fn_t fn, void *ctx) {
  if (count <= 0)
    return;
  if (grain < 1)
    grain = 1;
  int64_t chunks = kiln_parallel_threads();
  int64_t most = (count + grain - 1) / grain;
  if (chunks > most)
    chunks = most;
  if (chunks <= 1) {
    fn(ctx, 0, count);
    return;
  }
  if (pthread_mutex_trylock(&kiln_pool_submit) != 0) {
    kiln_parallel_inline(fn, ctx, count, chunks);
    return;
  }
  kiln_parallel_job job;
  job.fn = fn;
  job.ctx = ctx;
  job.count = count;
  job.chunks = chunks;
  atomic_init(&job.next, 0);
  atomic_init(&job.done, 0);
  job.users = 0;

  pthread_mutex_lock(&kiln_pool.mutex);
  kiln_parallel_grow((int)chunks - 1);
  kiln_pool.job = &job;
  atomic_fetch_add_explicit(&kiln_pool.generation, 1, memory_order_release);
  pthread_cond_broadcast(&kiln_pool.work);
  pthread_mutex_unlock(&kiln_pool.mutex);

  kiln_parallel_run_chunks(&job);

  /* Every chunk has been handed out; wait for the workers still inside the job. */
  for (int spin = 0;
       spin < KILN_PARALLEL_SPINS && atomic_load_explicit(&job.done, memory_order_acquire) < chunks;
       ++spin)
    kiln_parallel_pause();
  pthread_mutex_lock(&kiln_pool.mutex);
  while (atomic_load_explicit(&job.done, memory_order_acquire) < chunks || job.users > 0)
    pthread_cond_wait(&kiln_pool.idle, &kiln_pool.mutex);
  kiln_pool.job = NULL;
  pthread_mutex_unlock(&kiln_pool.mutex);
  pthread_mutex_unlock(&kiln_pool_submit);
}

/* ---- per-thread workspace --------------------------------------------------------- */

/* One key per workspace, whose destructor frees the thread's buffer when it exits. */
static pthread_key_t kiln_workspace_key[KILN_PARALLEL_WORKSPACES];
static pthread_once_t kiln_workspace_once = PTHREAD_ONCE_INIT;
static _Thread_local void *kiln_workspace[KILN_PARALLEL_WORKSPACES];
static _Thread_local int64_t kiln_workspace_bytes[KILN_PARALLEL_WORKSPACES];

static void kiln_workspace_release(void *ptr) { kiln_aligned_free(ptr); }

static void kiln_workspace_init(void) {
  for (int i = 0; i < KILN_PARALLEL_WORKSPACES; ++i)
    pthread_key_create(&kiln_workspace_key[i], kiln_workspace_release);
}

void *kiln_parallel_workspace_n(int32_t which, int64_t bytes) {
  if (which < 0 || which >= KILN_PARALLEL_WORKSPACES)
    return NULL;
  if (bytes <= kiln_workspace_bytes[which])
    return kiln_workspace[which];
  pthread_once(&kiln_workspace_once, kiln_workspace_init);
  void *fresh = kiln_aligned_alloc(bytes, 64);
  if (fresh == NULL)
    return NULL;
  kiln_aligned_free(kiln_workspace[which]);
  kiln_workspace[which] = fresh;
  kiln_workspace_bytes[which] = bytes;
  pthread_setspecific(kiln_workspace_key[which], fresh);
  return fresh;
}

void *kiln_parallel_workspace(int64_t bytes) { return kiln_parallel_workspace_n(0, bytes); }
