/*
 * kiln/runtime/rendezvous.h - how partitions hand tensors to each other (the paper's
 * Send/Recv, section 3.2.2).
 *
 * A transport moves the bytes of a tensor, named by a key (the tensor_name of its
 * _Send/_Recv pair: "node:port;destination device"), from the partition that sends it to
 * the one that receives it. The interface is a table of functions so that one
 * implementation can run partitions on threads of one process (kiln_local_rendezvous_create,
 * here), and others can cross to a GPU or, over MPI, to another process.
 *
 * Semantics, for every implementation:
 * - send(key, data, bytes) hands over a copy of the bytes; it may return before they are
 *   received. Each key is sent at most once per step (a step is one run of the model).
 * - recv(key, data, bytes) blocks until that key has been sent, then copies its bytes
 *   into data. A size that differs from the sent one is an INVALID_ARGUMENT error naming
 *   the key and both sizes; a second send of a key not yet received too.
 * - reset() forgets every key, received or not, to start the next step.
 * - Every function is thread-safe; destroy() must not race with the others.
 */
#ifndef KILN_RUNTIME_RENDEZVOUS_H
#define KILN_RUNTIME_RENDEZVOUS_H

#include <stdint.h>

#include "kiln/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_transport kiln_transport_t;

struct kiln_transport {
  kiln_status_t (*send)(kiln_transport_t *self, const char *key, const void *data, int64_t bytes);
  kiln_status_t (*recv)(kiln_transport_t *self, const char *key, void *data, int64_t bytes);
  void (*reset)(kiln_transport_t *self);
  void (*destroy)(kiln_transport_t *self);
};

/*
 * The in-process transport: a table of sent tensors under one mutex, receivers waiting on
 * a condition variable. Returns NULL when memory is exhausted.
 */
kiln_transport_t *kiln_local_rendezvous_create(void);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_RENDEZVOUS_H */
