/* Runs the model compiled as `mm` by kernel-link.test: mm_main X.npy Y.npy OUT.npy */
#include <stddef.h>
#include <stdint.h>

#include "kiln/runtime/api.h"
#include "mm.h"

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  kiln_npy_array_t x, y;
  if (kiln_npy_read(argv[1], &x) || kiln_npy_read(argv[2], &y))
    return 1;
  static float z[MM_OUTPUT_0_BYTES / sizeof(float)];
  void *scratch = kiln_aligned_alloc(MM_SCRATCH_BYTES, MM_SCRATCH_ALIGNMENT);
  const void *inputs[] = {x.data, y.data};
  void *outputs[] = {z};
  int32_t code = mm_run(inputs, outputs, scratch, 0);
  kiln_aligned_free(scratch);
  kiln_npy_array_free(&x);
  kiln_npy_array_free(&y);
  if (code != KILN_STATUS_OK)
    return 1;
  static const int64_t dims[] = MM_OUTPUT_0_DIMS;
  kiln_status_t status = kiln_npy_write(argv[3], MM_OUTPUT_0_DTYPE, MM_OUTPUT_0_RANK, dims, z);
  int failed = status != NULL;
  kiln_status_free(status);
  return failed;
}
