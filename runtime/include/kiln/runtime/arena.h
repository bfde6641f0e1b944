/*
 * kiln/runtime/arena.h - aligned allocation and a bump ("arena") allocator.
 *
 * kiln_arena_t owns one contiguous block of `capacity` bytes, allocated once at creation and
 * aligned to the arena's alignment. kiln_arena_alloc() hands out sub-ranges of it by bumping
 * an offset; individual allocations are never freed, only all of them at once with
 * kiln_arena_reset(). The typical use is the scratch buffer of a compiled model.
 *
 * Ownership: kiln_arena_create() returns an arena owned by the caller, released with
 * kiln_arena_release(), which also frees the block: every pointer obtained from the arena
 * becomes invalid then, and after kiln_arena_reset(). Memory from kiln_aligned_alloc() is
 * owned by the caller and must be released with kiln_aligned_free() (not free()).
 *
 * Thread-safety: an arena is not synchronised; use one arena per thread, or lock around
 * every call. Functions that only read (kiln_arena_used, kiln_arena_capacity) may run
 * concurrently with each other. kiln_aligned_alloc()/kiln_aligned_free() are thread-safe.
 *
 * Alignments are in bytes and must be powers of two (1, 2, 4, ...).
 */
#ifndef KILN_RUNTIME_ARENA_H
#define KILN_RUNTIME_ARENA_H

#include <stdint.h>

#include "kiln/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque arena. */
typedef struct kiln_arena kiln_arena_t;

/*
 * Allocates `size` bytes aligned to `alignment` (a power of two; values below the platform
 * minimum are raised to it). `size` may be 0: the result is then a valid, unique pointer
 * that must not be dereferenced. Returns NULL when out of memory, or when `size` is
 * negative or `alignment` is not a power of two. The memory is uninitialised.
 */
void *kiln_aligned_alloc(int64_t size, int64_t alignment);

/* Releases memory from kiln_aligned_alloc(). NULL is ignored. */
void kiln_aligned_free(void *ptr);

/*
 * Creates an arena with one block of `capacity` bytes (>= 0) aligned to `alignment` (a power
 * of two). On success stores the arena in *out_arena and returns NULL (OK). Errors:
 * INVALID_ARGUMENT for a negative capacity, a bad alignment or a NULL out_arena;
 * RESOURCE_EXHAUSTED when the block cannot be allocated. *out_arena is set to NULL on error.
 */
kiln_status_t kiln_arena_create(int64_t capacity, int64_t alignment, kiln_arena_t **out_arena);

/*
 * Allocates `size` bytes (>= 0) aligned to `alignment` (a power of two; it may exceed the
 * arena's own alignment) and stores the pointer in *out_ptr. A size of 0 returns a pointer
 * to the current position, which may equal the next allocation's. Errors: INVALID_ARGUMENT
 * for bad arguments; RESOURCE_EXHAUSTED, with a message giving the requested size and the
 * used and total capacity, when the arena is full. *out_ptr is set to NULL on error and the
 * arena is left unchanged.
 */
kiln_status_t kiln_arena_alloc(kiln_arena_t *arena, int64_t size, int64_t alignment,
                               void **out_ptr);

/* Forgets every allocation: the arena is empty again. The block is kept. NULL is ignored. */
void kiln_arena_reset(kiln_arena_t *arena);

/* Bytes in use, including alignment padding; 0 for NULL. */
int64_t kiln_arena_used(const kiln_arena_t *arena);

/* Total bytes of the block; 0 for NULL. */
int64_t kiln_arena_capacity(const kiln_arena_t *arena);

/* Frees the arena and its block. NULL is ignored. */
void kiln_arena_release(kiln_arena_t *arena);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_ARENA_H */
