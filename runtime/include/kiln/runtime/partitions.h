/*
 * kiln/runtime/partitions.h - running the partitions of a model placed on several devices
 * at once (the TensorFlow paper, sections 3.2.2 and 4.4).
 *
 * A model compiled with `kiln compile --devices A,B,...` is cut into one partition per
 * device; its NAME_run calls kiln_partitions_run() with one entry per partition. Each runs
 * on a thread of its own (the last on the calling thread), and they exchange tensors
 * through an in-process rendezvous (kiln/runtime/rendezvous.h): generated code calls
 * kiln_partition_send() and kiln_partition_recv() with the number of the tensor's key in
 * `keys`. A partition blocks in kiln_partition_recv() until its sender has sent, so
 * partitions that feed each other back and forth need to run concurrently, and do.
 *
 * Each partition thread gets the calling thread's thread budget (kiln/runtime/parallel.h);
 * the kernel pool serves one parallel loop at a time, and a loop started while it is busy
 * runs on its own thread.
 *
 * Errors: a transfer that fails (a size that differs between sender and receiver, or no
 * memory to hold a sent tensor) is recorded, the first one is returned, and the remaining
 * transfers of that partition are skipped. A receiver whose sender failed for want of
 * memory waits for ever: the in-process transport holds its tensors in malloc'ed copies.
 */
#ifndef KILN_RUNTIME_PARTITIONS_H
#define KILN_RUNTIME_PARTITIONS_H

#include <stdint.h>

#include "kiln/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One partition: a function and the argument array it is called with. */
typedef struct kiln_partition_t {
  void (*run)(void *const *args);
  void *const *args;
} kiln_partition_t;

/*
 * Runs `count` partitions concurrently and returns when all have finished: NULL, or the
 * first transfer error (owned by the caller). keys[0..num_keys) name the tensors that
 * kiln_partition_send/recv refer to by number. All threads are started before any
 * partition runs: if one cannot be, no partition runs and RESOURCE_EXHAUSTED is returned.
 */
kiln_status_t kiln_partitions_run(int32_t count, const kiln_partition_t *partitions,
                                  int32_t num_keys, const char *const *keys);

/* Called by partitions: send or receive `bytes` bytes at address `data` as tensor `key`. */
void kiln_partition_send(int32_t key, uintptr_t data, int64_t bytes);
void kiln_partition_recv(int32_t key, uintptr_t data, int64_t bytes);

/* Called by a partition whose own work failed (a GPU partition's device error): `status`
 * (taken; NULL is ignored) becomes the call's error unless one came first. Unlike a failed
 * transfer, it does not stop the partition's transfers, so the partitions waiting for its
 * tensors still finish (with unspecified values, the call failing). Outside
 * kiln_partitions_run the status is freed. */
void kiln_partition_fail(kiln_status_t status);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_PARTITIONS_H */
