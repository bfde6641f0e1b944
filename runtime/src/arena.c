/* Implementation of kiln/runtime/arena.h. */
#define _POSIX_C_SOURCE 200112L

#include "kiln/runtime/arena.h"

#include <stdint.h>
#include <stdlib.h>

struct kiln_arena {
  char *base;
  int64_t capacity;
  int64_t used;
};

static int kiln_is_power_of_two(int64_t value) { return value > 0 && (value & (value - 1)) == 0; }

void *kiln_aligned_alloc(int64_t size, int64_t alignment) {
  if (size < 0 || !kiln_is_power_of_two(alignment))
    return NULL;
  if ((uint64_t)size > (uint64_t)SIZE_MAX)
    return NULL;
  /* posix_memalign needs a power of two that is a multiple of sizeof(void*). */
  if (alignment < (int64_t)sizeof(void *))
    alignment = (int64_t)sizeof(void *);
  if ((uint64_t)alignment > (uint64_t)SIZE_MAX)
    return NULL;
  void *ptr = NULL;
  /* One byte for size 0, so that every call returns a distinct pointer. */
  if (posix_memalign(&ptr, (size_t)alignment, size == 0 ? 1 : (size_t)size) != 0)
    return NULL;
  return ptr;
}

void kiln_aligned_free(void *ptr) { free(ptr); }

kiln_status_t kiln_arena_create(int64_t capacity, int64_t alignment, kiln_arena_t **out_arena) {
  if (out_arena == NULL) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT, "kiln_arena_create: out_arena is NULL");
  }
  *out_arena = NULL;
  if (capacity < 0) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "kiln_arena_create: negative capacity %lld", (long long)capacity);
  }
  if (!kiln_is_power_of_two(alignment)) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "kiln_arena_create: alignment %lld is not a power of two",
                              (long long)alignment);
  }
  kiln_arena_t *arena = (kiln_arena_t *)malloc(sizeof(*arena));
  if (arena == NULL)
    return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  arena->base = (char *)kiln_aligned_alloc(capacity, alignment);
  if (arena->base == NULL) {
    free(arena);
    return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED,
                              "kiln_arena_create: cannot allocate %lld bytes aligned to %lld",
                              (long long)capacity, (long long)alignment);
  }
  arena->capacity = capacity;
  arena->used = 0;
  *out_arena = arena;
  return NULL;
}

kiln_status_t kiln_arena_alloc(kiln_arena_t *arena, int64_t size, int64_t alignment,
                               void **out_ptr) {
  if (out_ptr == NULL) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT, "kiln_arena_alloc: out_ptr is NULL");
  }
  *out_ptr = NULL;
  if (arena == NULL) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT, "kiln_arena_alloc: arena is NULL");
  }
  if (size < 0) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT, "kiln_arena_alloc: negative size %lld",
                              (long long)size);
  }
  if (!kiln_is_power_of_two(alignment)) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "kiln_arena_alloc: alignment %lld is not a power of two",
                              (long long)alignment);
  }
  /* Align the absolute address, so alignments above the block's own alignment work too.
   * Everything below is computed in unsigned arithmetic and checked against the capacity
   * before any pointer is formed. */
  uint64_t base = (uint64_t)(uintptr_t)arena->base;
  uint64_t current = base + (uint64_t)arena->used;
  uint64_t mask = (uint64_t)alignment - 1;
  uint64_t padding = (uint64_t)(-current) & mask; /* bytes to the next aligned address */
  uint64_t free_bytes = (uint64_t)(arena->capacity - arena->used);
  if (padding > free_bytes || (uint64_t)size > free_bytes - padding) {
    return kiln_status_create(
        KILN_STATUS_RESOURCE_EXHAUSTED,
        "arena exhausted: requested %lld bytes (alignment %lld), used %lld of %lld bytes of "
        "capacity",
        (long long)size, (long long)alignment, (long long)arena->used, (long long)arena->capacity);
  }
  *out_ptr = arena->base + arena->used + (int64_t)padding;
  arena->used += (int64_t)padding + size;
  return NULL;
}

void kiln_arena_reset(kiln_arena_t *arena) {
  if (arena != NULL)
    arena->used = 0;
}

int64_t kiln_arena_used(const kiln_arena_t *arena) { return arena == NULL ? 0 : arena->used; }

int64_t kiln_arena_capacity(const kiln_arena_t *arena) {
  return arena == NULL ? 0 : arena->capacity;
}

void kiln_arena_release(kiln_arena_t *arena) {
  if (arena == NULL)
    return;
  kiln_aligned_free(arena->base);
  free(arena);
}
