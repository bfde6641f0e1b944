/* Internal to the runtime: opening an optional shared library (cuBLAS, cuDNN) by dlopen. */
#ifndef KILN_RUNTIME_SRC_LIBRARY_H
#define KILN_RUNTIME_SRC_LIBRARY_H

#include <stddef.h>

/* Opens the file the environment variable `env` names when it is set and not empty, else
 * the first of `candidates` that opens (RTLD_NOW | RTLD_LOCAL); `*path` is the name tried
 * last. NULL when none opens, with "cannot load NAME: WHY" in `error` (NAME the variable's
 * file, else `fallback_name`). */
void *kiln_library_open(const char *env, const char *const *candidates, size_t count,
                        const char *fallback_name, const char **path, char *error,
                        size_t error_size);

/* For kiln_library_bind, from an X-macro list of a library's functions, entries
 * X(member, "symbol", result type, (parameter types)): the symbols, and the addresses of
 * the members of the struct variable named `functions` that receive them. */
#define KILN_LIBRARY_SYMBOL(member, symbol, result, params) symbol,
#define KILN_LIBRARY_SLOT(member, symbol, result, params) (void **)(&functions.member),

/* Looks up each of the `count` `symbols` in `library` into `*slots[i]`: 1; or 0 with
 * "NAME has no function SYMBOL" and `hint` after it in `error`, the library closed. */
int kiln_library_bind(void *library, const char *name, const char *const *symbols,
                      void **const *slots, size_t count, const char *hint, char *error,
                      size_t error_size);

#endif /* KILN_RUNTIME_SRC_LIBRARY_H */
