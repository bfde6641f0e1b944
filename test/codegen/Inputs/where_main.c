/* Runs the model compiled as `where` by dynamic-output.test: where_main M.npy V.npy OUT.npy.
 * Output 0 (coords) has a size that depends on the mask: its buffer has the bound's size,
 * and output WHERE_OUTPUT_0_SHAPE_OUTPUT holds the dims it was written at. */
#include <stdint.h>
#include <stdio.h>

#include "kiln/runtime/api.h"
#include "where.h"

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  kiln_npy_array_t m, v;
  if (kiln_npy_read(argv[1], &m) || kiln_npy_read(argv[2], &v))
    return 1;
  static int64_t coords[WHERE_OUTPUT_0_BYTES / sizeof(int64_t)];
  static int64_t shape[WHERE_OUTPUT_0_RANK];
  void *outputs[WHERE_NUM_OUTPUTS];
  outputs[0] = coords;
  outputs[WHERE_OUTPUT_0_SHAPE_OUTPUT] = shape;
  void *scratch = kiln_aligned_alloc(WHERE_SCRATCH_BYTES, WHERE_SCRATCH_ALIGNMENT);
  const void *inputs[] = {m.data, v.data};
  int32_t code = where_run(inputs, outputs, scratch, 0);
  kiln_aligned_free(scratch);
  kiln_npy_array_free(&m);
  kiln_npy_array_free(&v);
  if (code != KILN_STATUS_OK)
    return 1;
  const kiln_tensor_info_t *info = &where_info.outputs[0];
  printf("coords: bound [%lld,%lld], actual [%lld,%lld], shape output %d\n",
         (long long)info->dims[0], (long long)info->dims[1], (long long)shape[0],
         (long long)shape[1], info->has_shape_output ? (int)info->shape_output : -1);
  kiln_status_t status = kiln_npy_write(argv[3], KILN_DTYPE_I64, 2, shape, coords);
  int failed = status != NULL;
  kiln_status_free(status);
  return failed;
}
