/* Internal to the runtime: opening an optional shared library (cuBLAS, cuDNN) by dlopen. */
#ifndef KILN_RUNTIME_SRC_LIBRARY_H
#define KILN_RUNTIME_SRC_LIBRARY_H

#include <stddef.h>

/* Opens the file the environment variable `env` names when it is set and not empty, else
 * the first of `candidates` that opens (RTLD_NOW | RTLD_LOCAL); `*path` is the name tried
 * last. NULL when none opens, with "cannot load NAME: WHY" in `error` (NAME the variable's
 * file, else `fallback_name`). */
void* kiln_library_open(const char* env, const char* const* candidates, size_t count,
                        const char* fallback_name, const char** path, char* error,
                        size_t error_size);

#endif /* KILN_RUNTIME_SRC_LIBRARY_H */
