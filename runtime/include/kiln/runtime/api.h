/*
 * kiln/runtime/api.h - umbrella header for the Kiln runtime library (kiln_runtime).
 *
 * Includes the ABI shared with generated code, status handling, the arena allocator and
 * .npy I/O. The command-line driver (kiln/runtime/runner.h) is in the separate library
 * kiln_runner and is not included here.
 */
#ifndef KILN_RUNTIME_API_H
#define KILN_RUNTIME_API_H

#include "kiln/runtime/abi.h"
#include "kiln/runtime/arena.h"
#include "kiln/runtime/npy.h"
#include "kiln/runtime/status.h"

#endif /* KILN_RUNTIME_API_H */
