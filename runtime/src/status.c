/* Implementation of kiln/runtime/status.h. */
#include "kiln/runtime/status.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kiln_status {
  kiln_status_code_t code;
  const char *message; /* heap-allocated, except in the static out-of-memory status */
};

static struct kiln_status kiln_status_out_of_memory = {KILN_STATUS_RESOURCE_EXHAUSTED,
                                                       "out of memory"};

kiln_status_t kiln_status_create(kiln_status_code_t code, const char *fmt, ...) {
  if (code == KILN_STATUS_OK)
    return NULL;

  struct kiln_status *status = (struct kiln_status *)malloc(sizeof(*status));
  if (status == NULL)
    return &kiln_status_out_of_memory;
  status->code = code;

  char *message = NULL;
  if (fmt != NULL) {
    va_list args;
    va_start(args, fmt);
    va_list args_copy;
    va_copy(args_copy, args);
    int length = vsnprintf(NULL, 0, fmt, args);
    va_end(args);
    if (length >= 0) {
      message = (char *)malloc((size_t)length + 1);
      if (message == NULL) {
        va_end(args_copy);
        free(status);
        return &kiln_status_out_of_memory;
      }
      vsnprintf(message, (size_t)length + 1, fmt, args_copy);
    }
    va_end(args_copy);
  }
  if (message == NULL) {
    /* No format, or an encoding error while formatting: fall back to an empty message. */
    message = (char *)calloc(1, 1);
    if (message == NULL) {
      free(status);
      return &kiln_status_out_of_memory;
    }
  }
  status->message = message;
  return status;
}

kiln_status_code_t kiln_status_code(kiln_status_t status) {
  return status == NULL ? KILN_STATUS_OK : status->code;
}

const char *kiln_status_message(kiln_status_t status) {
  return status == NULL ? "" : status->message;
}

void kiln_status_free(kiln_status_t status) {
  if (status == NULL || status == &kiln_status_out_of_memory)
    return;
  free((void *)status->message);
  free(status);
}

const char *kiln_status_code_string(kiln_status_code_t code) {
  switch (code) {
  case KILN_STATUS_OK:
    return "OK";
  case KILN_STATUS_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case KILN_STATUS_NOT_FOUND:
    return "NOT_FOUND";
  case KILN_STATUS_OUT_OF_RANGE:
    return "OUT_OF_RANGE";
  case KILN_STATUS_RESOURCE_EXHAUSTED:
    return "RESOURCE_EXHAUSTED";
  case KILN_STATUS_IO_ERROR:
    return "IO_ERROR";
  case KILN_STATUS_UNIMPLEMENTED:
    return "UNIMPLEMENTED";
  case KILN_STATUS_INTERNAL:
    return "INTERNAL";
  }
  return "UNKNOWN";
}

/* Whether the caller of a model gave a buffer for the error message. */
static int wants_message(const kiln_run_options_t *options) {
  return options != NULL &&
         options->struct_size >= offsetof(kiln_run_options_t, error_message_size) +
                                     sizeof(options->error_message_size) &&
         options->error_message != NULL && options->error_message_size > 0;
}

int32_t kiln_status_report(kiln_status_t status, const kiln_run_options_t *options) {
  if (status == NULL)
    return KILN_STATUS_OK;
  int32_t code = (int32_t)kiln_status_code(status);
  if (wants_message(options))
    snprintf(options->error_message, (size_t)options->error_message_size, "%s",
             kiln_status_message(status));
  kiln_status_free(status);
  return code;
}

int32_t kiln_check_failed(const kiln_run_options_t *options, const kiln_check_info_t *checks,
                          const int64_t *status) {
  if (checks != NULL && status != NULL && status[0] > 0 && wants_message(options)) {
    kiln_check_format(&checks[status[0] - 1], status[1], status[2], options->error_message,
                      options->error_message_size);
  }
  return KILN_STATUS_INVALID_ARGUMENT;
}
