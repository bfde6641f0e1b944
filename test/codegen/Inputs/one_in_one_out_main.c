/* Runs a model of one input and one output compiled as `one`: one_main IN.npy OUT.npy */
#include <stddef.h>
#include <stdint.h>

#include "kiln/runtime/api.h"
#include "one.h"

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  kiln_npy_array_t x;
  if (kiln_npy_read(argv[1], &x))
    return 1;
  static unsigned char out[ONE_OUTPUT_0_BYTES];
  void *scratch = kiln_aligned_alloc(ONE_SCRATCH_BYTES, ONE_SCRATCH_ALIGNMENT);
  const void *inputs[] = {x.data};
  void *outputs[] = {out};
  int32_t code = one_run(inputs, outputs, scratch, 0);
  kiln_aligned_free(scratch);
  kiln_npy_array_free(&x);
  if (code != KILN_STATUS_OK)
    return 1;
  static const int64_t dims[] = ONE_OUTPUT_0_DIMS;
  kiln_status_t status = kiln_npy_write(argv[2], ONE_OUTPUT_0_DTYPE, ONE_OUTPUT_0_RANK, dims, out);
  int failed = status != NULL;
  kiln_status_free(status);
  return failed;
}
