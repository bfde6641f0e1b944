/*
 * kiln/runtime/runner.h - the command-line driver of executables compiled by Kiln.
 *
 * Lives in the separate static library kiln_runner (which links kiln_runtime). For a model
 * named NAME the compiler emits
 *
 *   int main(int argc, char** argv) { return kiln_runner_main(argc, argv, &NAME_info); }
 *
 * Command line of such an executable:
 *
 *   PROG [--entry NAME] [--input NAME=FILE.npy]... [FILE.npy]... [--output-dir DIR]
 *        [--bench N] [--threads N] [--help]
 *
 *   --entry NAME       runs the model's entry point NAME (ABI 3; default: the first, and a
 *                      model compiled before ABI 3 has one, "run"). Inputs and outputs are
 *                      that entry point's; the model's state, if it has any, starts zeroed
 *                      (NAME_info's state_bytes) and is dropped at exit.
 *   --input NAME=FILE  feeds FILE to the input whose name is NAME, whose name is NAME + ":0",
 *                      or whose (non-empty) alias is NAME. Positional FILEs fill the inputs
 *                      not given by --input, in order. The dtype and shape of every file must
 *                      match the model's exactly.
 *   --output-dir DIR   writes each output to DIR/FILE.npy, FILE being the output's name with
 *                      every '/' and ':' replaced by '_'. DIR is created if missing (one level).
 *   --bench N          runs once to warm up, then N timed runs; inputs not given are filled
 *                      with deterministic pseudo-random values (floats in [-1,1), signed ints
 *                      in [-10,10), unsigned ints in [0,10), bools 0/1).
 *   --threads N        sets kiln_run_options_t.num_threads (default 0: all cores).
 *   --help             prints usage, the entry points of a model with several, and the
 *                      inputs and outputs of the one chosen, then exits with 0.
 *   Options taking a value also accept the --option=VALUE form; "--" ends the options.
 *
 * On success stdout gets one line per output, "<name> <dtype> [d0,d1,...]" (a scalar prints
 * "[]"), then with --bench the line "bench: runs=N median_ms=X min_ms=Y".
 *
 * Exit codes: 0 on success; 1 when the model fails or memory runs out (message
 * "error: model 'NAME' failed: <code>"); 2 for usage errors, bad or mismatched input files and
 * output files that cannot be written. Every error is one "error: ..." line on stderr.
 *
 * Ownership: kiln_runner_main() frees everything it allocates before it returns; it does not
 * take ownership of argv or the model. Thread-safety: it writes to stdout and stderr and is
 * meant to be called from main(); do not run two calls at once.
 */
#ifndef KILN_RUNTIME_RUNNER_H
#define KILN_RUNTIME_RUNNER_H

#include "kiln/runtime/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs `model` as described above and returns the process exit code. */
int kiln_runner_main(int argc, char **argv, const kiln_model_info_t *model);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_RUNNER_H */
