/*
 * kiln/runtime/status.h - error reporting for the Kiln runtime.
 *
 * A kiln_status_t is either NULL, meaning success (KILN_STATUS_OK), or a pointer to a
 * heap-allocated status holding a kiln_status_code_t and a formatted message.
 *
 * Ownership: a function that returns a non-NULL kiln_status_t transfers ownership of it to
 * the caller, who must release it exactly once with kiln_status_free(). The string returned
 * by kiln_status_message() is owned by the status and lives until the status is freed.
 *
 * Out of memory: when a status (or its message) cannot be allocated, kiln_status_create()
 * returns a static, preallocated status with code KILN_STATUS_RESOURCE_EXHAUSTED and the
 * message "out of memory". kiln_status_free() ignores it, so callers never need to tell the
 * two kinds apart.
 *
 * Thread-safety: all functions are thread-safe. A single status object is immutable after
 * creation and may be read from several threads, but must be freed by only one of them.
 */
#ifndef KILN_RUNTIME_STATUS_H
#define KILN_RUNTIME_STATUS_H

#include "kiln/runtime/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define KILN_PRINTF_FORMAT(fmt_index, first_arg)                                                   \
  __attribute__((format(printf, fmt_index, first_arg)))
#else
#define KILN_PRINTF_FORMAT(fmt_index, first_arg)
#endif

/* Opaque status; NULL means OK. */
typedef struct kiln_status *kiln_status_t;

/*
 * Creates a status with `code` and a printf-style message. Returns NULL when `code` is
 * KILN_STATUS_OK (the message is then ignored). A NULL `fmt` gives an empty message.
 * Never returns NULL for a non-OK code: on allocation failure it returns the static
 * "out of memory" status described above.
 */
kiln_status_t kiln_status_create(kiln_status_code_t code, const char *fmt, ...)
    KILN_PRINTF_FORMAT(2, 3);

/* The code of `status`; KILN_STATUS_OK for NULL. */
kiln_status_code_t kiln_status_code(kiln_status_t status);

/* The message of `status`; "" for NULL. Owned by the status. */
const char *kiln_status_message(kiln_status_t status);

/* Releases `status`. NULL and the static out-of-memory status are ignored. */
void kiln_status_free(kiln_status_t status);

/*
 * A static name for `code`: "OK", "INVALID_ARGUMENT", "NOT_FOUND", "OUT_OF_RANGE",
 * "RESOURCE_EXHAUSTED", "IO_ERROR", "UNIMPLEMENTED", "INTERNAL", or "UNKNOWN" for any
 * other value.
 */
const char *kiln_status_code_string(kiln_status_code_t code);

/*
 * Called by a compiled model's entry point when one of its checks failed: `status` is what
 * the checks recorded (KILN_CHECK_STATUS_WORDS words, the first the 1-based number of the
 * failed check in `checks`). Writes the check's message into options->error_message when
 * the caller gave one, and returns KILN_STATUS_INVALID_ARGUMENT.
 */
int32_t kiln_check_failed(const kiln_run_options_t *options, const kiln_check_info_t *checks,
                          const int64_t *status);

/*
 * Called by a compiled model's entry point with the error of its call (`status`, which it
 * frees; NULL when there is none): writes the message into options->error_message when the
 * caller gave one, and returns the code (KILN_STATUS_OK for NULL).
 */
int32_t kiln_status_report(kiln_status_t status, const kiln_run_options_t *options);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_STATUS_H */
