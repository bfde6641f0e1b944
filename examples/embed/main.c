/* Runs a model compiled with `kiln compile ... --emit obj -o mlp` from C.
 *
 *   kiln compile examples/mlp/mlp.pbtxt --feed x=f32[2,8] --fetch probs --emit obj -o mlp
 *   cc -I runtime/include -I . examples/embed/main.c mlp.o -L build/lib -lkiln_kernels
 * -lkiln_runtime -lm -o mlp_c
 *   ./mlp_c examples/mlp/x.npy probs.npy
 *
 * It reads the input with the runtime's .npy reader, checks it against the constants of
 * mlp.h, calls mlp_run with caller-owned outputs and scratch, and writes the output.
 */
#include <stdio.h>
#include <string.h>

#include "kiln/runtime/api.h"
#include "mlp.h"

static int fail(kiln_status_t status) {
  fprintf(stderr, "error: %s\n", kiln_status_message(status));
  kiln_status_free(status);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s INPUT.npy OUTPUT.npy\n", argv[0]);
    return 2;
  }
  kiln_npy_array_t x;
  kiln_status_t status = kiln_npy_read(argv[1], &x);
  if (status)
    return fail(status);
  static const int64_t dims[] = MLP_INPUT_0_DIMS;
  if (x.dtype != MLP_INPUT_0_DTYPE || x.rank != MLP_INPUT_0_RANK ||
      memcmp(x.dims, dims, sizeof dims) != 0) {
    fprintf(stderr, "error: %s must be %s\n", argv[1], kiln_dtype_name(MLP_INPUT_0_DTYPE));
    kiln_npy_array_free(&x);
    return 2;
  }

  float probs[MLP_OUTPUT_0_BYTES / sizeof(float)];
  void *scratch = kiln_aligned_alloc(MLP_SCRATCH_BYTES, MLP_SCRATCH_ALIGNMENT);
  const void *inputs[MLP_NUM_INPUTS] = {x.data};
  void *outputs[MLP_NUM_OUTPUTS] = {probs};
  /* One thread; a failed call describes what went wrong in `message`. */
  char message[256] = "";
  kiln_run_options_t options = {sizeof(kiln_run_options_t), 1, message, sizeof message};
  int32_t code = mlp_run(inputs, outputs, scratch, &options);
  kiln_aligned_free(scratch);
  kiln_npy_array_free(&x);
  if (code != KILN_STATUS_OK) {
    fprintf(stderr, "error: mlp_run failed: %s%s%s\n", kiln_status_code_string(code),
            message[0] ? ": " : "", message);
    return 1;
  }

  static const int64_t out_dims[] = MLP_OUTPUT_0_DIMS;
  status = kiln_npy_write(argv[2], MLP_OUTPUT_0_DTYPE, MLP_OUTPUT_0_RANK, out_dims, probs);
  if (status)
    return fail(status);
  printf("%s: %s [%lld,%lld] written to %s\n", mlp_info.outputs[0].name,
         kiln_dtype_name(mlp_info.outputs[0].dtype), (long long)out_dims[0], (long long)out_dims[1],
         argv[2]);
  return 0;
}
