/* Runs the models compiled as `sma` and `smb` by two-models.test, linked into one program:
   two_models A_X.npy A_OUT.npy B_X.npy B_OUT.npy */
#include <stddef.h>
#include <stdint.h>

#include "kiln/runtime/api.h"
#include "sma.h"
#include "smb.h"

typedef int32_t (*run_fn)(const void *const *, void *const *, void *, const kiln_run_options_t *);

static int run(run_fn fn, size_t scratch_bytes, size_t alignment, size_t out_bytes, int dtype,
               int rank, const int64_t *dims, const char *in_path, const char *out_path) {
  kiln_npy_array_t x;
  if (kiln_npy_read(in_path, &x))
    return 1;
  void *out = kiln_aligned_alloc(out_bytes, 64);
  void *scratch = kiln_aligned_alloc(scratch_bytes, alignment);
  const void *inputs[] = {x.data};
  void *outputs[] = {out};
  int failed = fn(inputs, outputs, scratch, 0) != KILN_STATUS_OK;
  if (!failed) {
    kiln_status_t status = kiln_npy_write(out_path, dtype, rank, dims, out);
    failed = status != NULL;
    kiln_status_free(status);
  }
  kiln_aligned_free(scratch);
  kiln_aligned_free(out);
  kiln_npy_array_free(&x);
  return failed;
}

int main(int argc, char **argv) {
  if (argc != 5)
    return 2;
  static const int64_t a_dims[] = SMA_OUTPUT_0_DIMS, b_dims[] = SMB_OUTPUT_0_DIMS;
  return run(sma_run, SMA_SCRATCH_BYTES, SMA_SCRATCH_ALIGNMENT, SMA_OUTPUT_0_BYTES,
             SMA_OUTPUT_0_DTYPE, SMA_OUTPUT_0_RANK, a_dims, argv[1], argv[2]) ||
         run(smb_run, SMB_SCRATCH_BYTES, SMB_SCRATCH_ALIGNMENT, SMB_OUTPUT_0_BYTES,
             SMB_OUTPUT_0_DTYPE, SMB_OUTPUT_0_RANK, b_dims, argv[3], argv[4]);
}
