/* Implementation of library.h. */
#define _GNU_SOURCE
#include "library.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void *kiln_library_open(const char *env, const char *const *candidates, size_t count,
                        const char *fallback_name, const char **path, char *error,
                        size_t error_size) {
  const char *named = getenv(env);
  void *library = NULL;
  *path = NULL;
  if (named != NULL && named[0] != '\0') {
    *path = named;
    library = dlopen(named, RTLD_NOW | RTLD_LOCAL);
  } else {
    for (size_t i = 0; i < count && library == NULL; ++i) {
      *path = candidates[i];
      library = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
    }
  }
  if (library == NULL) {
    const char *why = dlerror();
    snprintf(error, error_size, "cannot load %s: %s",
             named != NULL && named[0] != '\0' ? named : fallback_name,
             why != NULL ? why : (*path != NULL ? *path : "no candidate"));
  }
  return library;
}

int kiln_library_bind(void *library, const char *name, const char *const *symbols,
                      void **const *slots, size_t count, const char *hint, char *error,
                      size_t error_size) {
  for (size_t i = 0; i < count; ++i) {
    *slots[i] = dlsym(library, symbols[i]);
    if (*slots[i] == NULL) {
      snprintf(error, error_size, "%s has no function %s%s", name, symbols[i], hint);
      dlclose(library);
      return 0;
    }
  }
  return 1;
}
