/* Running a model's partitions on threads of their own (kiln/runtime/partitions.h). */
#include "kiln/runtime/partitions.h"

#include <pthread.h>
#include <stdlib.h>

#include "kiln/runtime/parallel.h"
#include "kiln/runtime/rendezvous.h"

typedef struct {
  kiln_transport_t *transport;
  int32_t num_keys;
  const char *const *keys;
  int32_t threads; /* the caller's budget, for every partition */
  pthread_mutex_t mutex;
  pthread_cond_t go_changed;
  int go;              /* 0 until every thread has started, then 1 (run) or -1 (give up) */
  kiln_status_t error; /* the first one */
} run_t;

typedef struct {
  run_t *run;
  const kiln_partition_t *partition;
  int failed; /* a transfer of this partition failed: skip the rest */
} worker_t;

/* The partition running on this thread, for kiln_partition_send/recv. */
static _Thread_local worker_t *kiln_current_worker = NULL;

/* Keeps `status` (not NULL) as the call's error if it is the first. */
static void keep_first(run_t *run, kiln_status_t status) {
  pthread_mutex_lock(&run->mutex);
  if (run->error == KILN_STATUS_OK)
    run->error = status;
  else
    kiln_status_free(status);
  pthread_mutex_unlock(&run->mutex);
}

static void record(worker_t *w, kiln_status_t status) {
  if (status == KILN_STATUS_OK)
    return;
  w->failed = 1;
  keep_first(w->run, status);
}

void kiln_partition_fail(kiln_status_t status) {
  if (status == KILN_STATUS_OK)
    return;
  if (kiln_current_worker == NULL)
    kiln_status_free(status);
  else
    keep_first(kiln_current_worker->run, status);
}

static worker_t *current(int32_t key) {
  worker_t *w = kiln_current_worker;
  if (w == NULL)
    return NULL; /* called outside kiln_partitions_run: nothing to do */
  if (key < 0 || key >= w->run->num_keys) {
    record(w, kiln_status_create(KILN_STATUS_INTERNAL,
                                 "transfer of tensor number %d, but the model has %d", key,
                                 w->run->num_keys));
    return NULL;
  }
  return w->failed ? NULL : w;
}

void kiln_partition_send(int32_t key, uintptr_t data, int64_t bytes) {
  worker_t *w = current(key);
  if (w == NULL)
    return;
  kiln_transport_t *t = w->run->transport;
  record(w, t->send(t, w->run->keys[key], (const void *)data, bytes));
}

void kiln_partition_recv(int32_t key, uintptr_t data, int64_t bytes) {
  worker_t *w = current(key);
  if (w == NULL)
    return;
  kiln_transport_t *t = w->run->transport;
  record(w, t->recv(t, w->run->keys[key], (void *)data, bytes));
}

static void *run_worker(void *arg) {
  worker_t *w = (worker_t *)arg;
  pthread_mutex_lock(&w->run->mutex);
  while (w->run->go == 0)
    pthread_cond_wait(&w->run->go_changed, &w->run->mutex);
  int go = w->run->go;
  pthread_mutex_unlock(&w->run->mutex);
  if (go < 0)
    return NULL;
  int32_t previous = kiln_parallel_set_threads(w->run->threads);
  kiln_current_worker = w;
  w->partition->run(w->partition->args);
  kiln_current_worker = NULL;
  kiln_parallel_set_threads(previous);
  return NULL;
}

kiln_status_t kiln_partitions_run(int32_t count, const kiln_partition_t *partitions,
                                  int32_t num_keys, const char *const *keys) {
  if (count <= 0)
    return NULL;
  run_t run = {0};
  run.transport = kiln_local_rendezvous_create();
  worker_t *workers = (worker_t *)calloc((size_t)count, sizeof(worker_t));
  pthread_t *threads = (pthread_t *)calloc((size_t)count, sizeof(pthread_t));
  if (run.transport == NULL || workers == NULL || threads == NULL) {
    if (run.transport != NULL)
      run.transport->destroy(run.transport);
    free(workers);
    free(threads);
    return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED,
                              "cannot start %d partitions: out of memory", count);
  }
  run.num_keys = num_keys;
  run.keys = keys;
  run.threads = kiln_parallel_threads();
  pthread_mutex_init(&run.mutex, NULL);
  pthread_cond_init(&run.go_changed, NULL);
  for (int32_t i = 0; i < count; ++i) {
    workers[i].run = &run;
    workers[i].partition = &partitions[i];
  }
  /* Every partition must run at once (each may wait for another), so all threads start
     before any partition does; if one cannot, none runs. */
  int32_t started = 0;
  while (started + 1 < count &&
         pthread_create(&threads[started], NULL, run_worker, &workers[started]) == 0)
    ++started;
  pthread_mutex_lock(&run.mutex);
  run.go = started + 1 == count ? 1 : -1;
  pthread_cond_broadcast(&run.go_changed);
  pthread_mutex_unlock(&run.mutex);
  if (run.go > 0)
    run_worker(&workers[count - 1]);
  else
    run.error = kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED,
                                   "cannot start a thread for each of %d partitions", count);
  for (int32_t i = 0; i < started; ++i)
    pthread_join(threads[i], NULL);
  run.transport->destroy(run.transport);
  pthread_cond_destroy(&run.go_changed);
  pthread_mutex_destroy(&run.mutex);
  free(workers);
  free(threads);
  return run.error;
}
