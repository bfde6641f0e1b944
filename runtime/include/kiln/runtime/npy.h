/*
 * kiln/runtime/npy.h - reading and writing NumPy .npy files, and dtype names.
 *
 * Supported files: format versions 1.0, 2.0 and 3.0; C (row-major) order only; little-endian
 * ('<') or byte-order-free ('|') descrs of these types:
 *
 *   '<f2' F16   '<f4' F32   '<f8' F64
 *   '|i1' I8    '<i2' I16   '<i4' I32   '<i8' I64    ('<i1' is accepted too)
 *   '|u1' U8    '<u2' U16   '<u4' U32   '<u8' U64    ('<u1' is accepted too)
 *   '|b1' BOOL                                       ('<b1' is accepted too)
 *
 * bfloat16 is not a NumPy dtype: no descr is read as KILN_DTYPE_BF16, and kiln_npy_write()
 * stores BF16 data as '<u2' (the raw 16-bit patterns), which reads back as KILN_DTYPE_U16.
 * The runtime assumes a little-endian host: data bytes are copied unchanged.
 *
 * Error codes: IO_ERROR for failures of the operating system (cannot open, read or write);
 * INVALID_ARGUMENT for malformed files (bad magic, bad header, truncated data) and bad
 * arguments; UNIMPLEMENTED for valid .npy files this runtime does not handle (Fortran order,
 * big-endian or other unsupported descrs, unknown format versions). Every message names the
 * file and what is wrong.
 *
 * Ownership: kiln_npy_read() allocates out_array->data with kiln_aligned_alloc(size, 64);
 * the caller owns it and releases it with kiln_npy_array_free(). kiln_npy_write() only reads
 * its arguments.
 *
 * Thread-safety: all functions are thread-safe as long as concurrent calls do not use the
 * same kiln_npy_array_t or write the same file.
 */
#ifndef KILN_RUNTIME_NPY_H
#define KILN_RUNTIME_NPY_H

#include <stdint.h>

#include "kiln/runtime/abi.h"
#include "kiln/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Alignment of the data buffers allocated by kiln_npy_read(). */
#define KILN_NPY_DATA_ALIGNMENT 64

/* A dense, row-major array read from a .npy file. */
typedef struct kiln_npy_array_t {
  int32_t dtype;               /* kiln_dtype_t */
  int32_t rank;                /* 0 for a scalar */
  int64_t dims[KILN_MAX_RANK]; /* the first `rank` entries are used, the rest are 0 */
  int64_t byte_size;           /* product(dims) * kiln_dtype_size(dtype) */
  void *data;                  /* byte_size bytes, aligned to KILN_NPY_DATA_ALIGNMENT */
} kiln_npy_array_t;

/*
 * Reads the .npy file at `path` into *out_array (see above for what is supported). Data after
 * the array's bytes is ignored. On error *out_array is zeroed, so kiln_npy_array_free() on it
 * is always safe.
 */
kiln_status_t kiln_npy_read(const char *path, kiln_npy_array_t *out_array);

/* Frees array->data and zeroes *array. Safe on a zeroed array; NULL is ignored. */
void kiln_npy_array_free(kiln_npy_array_t *array);

/*
 * Writes a version 1.0 .npy file with exactly the bytes numpy.save() produces for a C-order
 * array of this dtype and shape (including numpy's spare header space after the dict), so the
 * data starts at a multiple of 64 bytes. `dims` has `rank` entries (may be NULL when rank is
 * 0); `data` holds product(dims) * kiln_dtype_size(dtype) bytes (may be NULL when that is 0).
 * An existing file is replaced; a partly written file is removed on error.
 */
kiln_status_t kiln_npy_write(const char *path, int32_t dtype, int32_t rank, const int64_t *dims,
                             const void *data);

/* kiln_dtype_name() (NumPy-style dtype names) is in abi.h. */

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_NPY_H */
