/* The in-process transport of kiln/runtime/rendezvous.h. */
#include "kiln/runtime/rendezvous.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
  struct entry *next;
  char *key;
  void *data;
  int64_t bytes;
} entry_t;

typedef struct {
  kiln_transport_t base; /* first: the public pointer is the object's */
  pthread_mutex_t mutex;
  pthread_cond_t sent;
  entry_t *entries; /* sent and not yet received */
} local_t;

static entry_t **find(local_t *r, const char *key) {
  entry_t **at = &r->entries;
  while (*at != NULL && strcmp((*at)->key, key) != 0)
    at = &(*at)->next;
  return at;
}

static void free_entry(entry_t *e) {
  free(e->key);
  free(e->data);
  free(e);
}

static kiln_status_t local_send(kiln_transport_t *self, const char *key, const void *data,
                                int64_t bytes) {
  local_t *r = (local_t *)self;
  entry_t *e = (entry_t *)calloc(1, sizeof(entry_t));
  size_t key_length = strlen(key);
  if (e != NULL) {
    e->key = (char *)malloc(key_length + 1);
    e->data = malloc(bytes > 0 ? (size_t)bytes : 1);
  }
  if (e == NULL || e->key == NULL || e->data == NULL) {
    if (e != NULL)
      free_entry(e);
    return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED,
                              "cannot hold %lld bytes of tensor '%s' for its receiver",
                              (long long)bytes, key);
  }
  memcpy(e->key, key, key_length + 1);
  if (bytes > 0)
    memcpy(e->data, data, (size_t)bytes);
  e->bytes = bytes;
  pthread_mutex_lock(&r->mutex);
  if (*find(r, key) != NULL) {
    pthread_mutex_unlock(&r->mutex);
    free_entry(e);
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "tensor '%s' was sent twice before it was received", key);
  }
  e->next = r->entries;
  r->entries = e;
  pthread_cond_broadcast(&r->sent);
  pthread_mutex_unlock(&r->mutex);
  return NULL;
}

static kiln_status_t local_recv(kiln_transport_t *self, const char *key, void *data,
                                int64_t bytes) {
  local_t *r = (local_t *)self;
  pthread_mutex_lock(&r->mutex);
  entry_t **at;
  while (*(at = find(r, key)) == NULL)
    pthread_cond_wait(&r->sent, &r->mutex);
  entry_t *e = *at;
  *at = e->next;
  pthread_mutex_unlock(&r->mutex);
  kiln_status_t status = NULL;
  if (e->bytes != bytes)
    status = kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                                "tensor '%s' was sent with %lld bytes but received into %lld", key,
                                (long long)e->bytes, (long long)bytes);
  else if (bytes > 0)
    memcpy(data, e->data, (size_t)bytes);
  free_entry(e);
  return status;
}

static void local_reset(kiln_transport_t *self) {
  local_t *r = (local_t *)self;
  pthread_mutex_lock(&r->mutex);
  entry_t *e = r->entries;
  r->entries = NULL;
  pthread_mutex_unlock(&r->mutex);
  while (e != NULL) {
    entry_t *next = e->next;
    free_entry(e);
    e = next;
  }
}

static void local_destroy(kiln_transport_t *self) {
  if (self == NULL)
    return;
  local_t *r = (local_t *)self;
  local_reset(self);
  pthread_cond_destroy(&r->sent);
  pthread_mutex_destroy(&r->mutex);
  free(r);
}

kiln_transport_t *kiln_local_rendezvous_create(void) {
  local_t *r = (local_t *)calloc(1, sizeof(local_t));
  if (r == NULL)
    return NULL;
  r->base.send = local_send;
  r->base.recv = local_recv;
  r->base.reset = local_reset;
  r->base.destroy = local_destroy;
  pthread_mutex_init(&r->mutex, NULL);
  pthread_cond_init(&r->sent, NULL);
  return &r->base;
}
