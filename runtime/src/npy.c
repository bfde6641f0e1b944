/* Implementation of kiln/runtime/npy.h. */
#define _POSIX_C_SOURCE 200809L

#include "kiln/runtime/npy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kiln/runtime/arena.h"

#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) &&                                    \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#error "the Kiln runtime assumes a little-endian host"
#endif

/* "\x93NUMPY" followed by the major and minor version bytes. */
#define KILN_NPY_MAGIC "\x93NUMPY"
#define KILN_NPY_MAGIC_SIZE 6
#define KILN_NPY_PREAMBLE_SIZE 8
/* numpy.lib.format.ARRAY_ALIGN: the header is padded so that the data starts at a multiple. */
#define KILN_NPY_ARRAY_ALIGN 64
/* numpy.lib.format.GROWTH_AXIS_MAX_DIGITS: spare header space numpy leaves after the dict. */
#define KILN_NPY_GROWTH_AXIS_MAX_DIGITS 21
/* Headers longer than this are rejected (numpy itself refuses more than 10000 by default). */
#define KILN_NPY_MAX_HEADER_SIZE (1 << 20)

static const char *kiln_npy_errno_string(int err, char *buf, size_t size) {
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(err, buf, size); /* GNU variant: returns the string */
#else
  if (strerror_r(err, buf, size) != 0)
    snprintf(buf, size, "error %d", err);
  return buf;
#endif
}

/* The descr kiln_npy_write() emits for `dtype`, or NULL if it has none. */
static const char *kiln_npy_descr_for_dtype(int32_t dtype) {
  switch (dtype) {
  case KILN_DTYPE_F16:
    return "<f2";
  case KILN_DTYPE_F32:
    return "<f4";
  case KILN_DTYPE_F64:
    return "<f8";
  case KILN_DTYPE_I8:
    return "|i1";
  case KILN_DTYPE_I16:
    return "<i2";
  case KILN_DTYPE_I32:
    return "<i4";
  case KILN_DTYPE_I64:
    return "<i8";
  case KILN_DTYPE_U8:
    return "|u1";
  case KILN_DTYPE_U16:
    return "<u2";
  case KILN_DTYPE_U32:
    return "<u4";
  case KILN_DTYPE_U64:
    return "<u8";
  case KILN_DTYPE_BOOL:
    return "|b1";
  /* bfloat16 has no NumPy dtype: its raw 16-bit patterns are stored as uint16. */
  case KILN_DTYPE_BF16:
    return "<u2";
  default:
    return NULL;
  }
}

/* Maps the type part of a descr ("f4", "i1", ...) to a dtype; KILN_DTYPE_INVALID if none. */
static int32_t kiln_npy_dtype_for_type(const char *type) {
  static const struct {
    const char *type;
    int32_t dtype;
  } kTable[] = {
      {"f2", KILN_DTYPE_F16}, {"f4", KILN_DTYPE_F32}, {"f8", KILN_DTYPE_F64},
      {"i1", KILN_DTYPE_I8},  {"i2", KILN_DTYPE_I16}, {"i4", KILN_DTYPE_I32},
      {"i8", KILN_DTYPE_I64}, {"u1", KILN_DTYPE_U8},  {"u2", KILN_DTYPE_U16},
      {"u4", KILN_DTYPE_U32}, {"u8", KILN_DTYPE_U64}, {"b1", KILN_DTYPE_BOOL},
  };
  for (size_t i = 0; i < sizeof(kTable) / sizeof(kTable[0]); ++i) {
    if (strcmp(type, kTable[i].type) == 0)
      return kTable[i].dtype;
  }
  return KILN_DTYPE_INVALID;
}

/* product(dims) * element_size, or -1 on overflow or a negative dim. */
static int64_t kiln_npy_byte_size(int32_t rank, const int64_t *dims, int64_t element_size) {
  int64_t total = element_size;
  for (int32_t i = 0; i < rank; ++i) {
    if (dims[i] < 0)
      return -1;
    if (dims[i] != 0 && total > INT64_MAX / dims[i])
      return -1;
    total *= dims[i];
  }
  return total;
}

/* ---- header parsing -------------------------------------------------------------------- */

typedef struct kiln_npy_cursor {
  const char *pos;
  const char *end;
} kiln_npy_cursor;

static void kiln_npy_skip_space(kiln_npy_cursor *c) {
  while (c->pos < c->end &&
         (*c->pos == ' ' || *c->pos == '\t' || *c->pos == '\n' || *c->pos == '\r')) {
    ++c->pos;
  }
}

static int kiln_npy_accept(kiln_npy_cursor *c, char ch) {
  kiln_npy_skip_space(c);
  if (c->pos < c->end && *c->pos == ch) {
    ++c->pos;
    return 1;
  }
  return 0;
}

/* Parses a Python string literal ('...' or "...", no escapes) into buf. Control characters
 * (a NUL byte among them, which would end buf early: '<f4\0') are refused, as Python's
 * parser, and so NumPy, refuses them. */
static int kiln_npy_parse_string(kiln_npy_cursor *c, char *buf, size_t size) {
  kiln_npy_skip_space(c);
  if (c->pos >= c->end || (*c->pos != '\'' && *c->pos != '"'))
    return 0;
  char quote = *c->pos++;
  size_t length = 0;
  while (c->pos < c->end && *c->pos != quote) {
    if (*c->pos == '\\' || (unsigned char)*c->pos < 0x20 || length + 1 >= size)
      return 0;
    buf[length++] = *c->pos++;
  }
  if (c->pos >= c->end)
    return 0;
  ++c->pos; /* closing quote */
  buf[length] = '\0';
  return 1;
}

/* Parses a non-negative Python integer literal (an old 'L' suffix is allowed). */
static int kiln_npy_parse_dim(kiln_npy_cursor *c, int64_t *out_value) {
  kiln_npy_skip_space(c);
  if (c->pos >= c->end || *c->pos < '0' || *c->pos > '9')
    return 0;
  int64_t value = 0;
  while (c->pos < c->end && *c->pos >= '0' && *c->pos <= '9') {
    int digit = *c->pos - '0';
    if (value > (INT64_MAX - digit) / 10)
      return 0;
    value = value * 10 + digit;
    ++c->pos;
  }
  if (c->pos < c->end && (*c->pos == 'L' || *c->pos == 'l'))
    ++c->pos;
  *out_value = value;
  return 1;
}

typedef struct kiln_npy_header {
  char descr[32];
  int fortran_order;
  int32_t rank;
  int64_t dims[KILN_MAX_RANK];
  int has_descr, has_fortran_order, has_shape;
} kiln_npy_header;

#define KILN_NPY_MALFORMED(what)                                                                   \
  kiln_status_create(KILN_STATUS_INVALID_ARGUMENT, "'%s': malformed .npy header: %s", path, what)

static kiln_status_t kiln_npy_parse_shape(kiln_npy_cursor *c, const char *path,
                                          kiln_npy_header *header) {
  if (!kiln_npy_accept(c, '('))
    return KILN_NPY_MALFORMED("'shape' is not a tuple");
  header->rank = 0;
  if (kiln_npy_accept(c, ')'))
    return NULL;
  for (;;) {
    int64_t dim = 0;
    if (!kiln_npy_parse_dim(c, &dim)) {
      return KILN_NPY_MALFORMED("'shape' must hold non-negative integers");
    }
    if (header->rank == KILN_MAX_RANK) {
      return kiln_status_create(KILN_STATUS_UNIMPLEMENTED,
                                "'%s': the array has more than %d dimensions", path, KILN_MAX_RANK);
    }
    header->dims[header->rank++] = dim;
    if (kiln_npy_accept(c, ')'))
      return NULL;
    if (!kiln_npy_accept(c, ','))
      return KILN_NPY_MALFORMED("bad 'shape' tuple");
    if (kiln_npy_accept(c, ')'))
      return NULL;
  }
}

static kiln_status_t kiln_npy_parse_header(const char *text, size_t length, const char *path,
                                           kiln_npy_header *header) {
  memset(header, 0, sizeof(*header));
  kiln_npy_cursor c = {text, text + length};
  if (!kiln_npy_accept(&c, '{'))
    return KILN_NPY_MALFORMED("it is not a dictionary");
  for (;;) {
    if (kiln_npy_accept(&c, '}'))
      break;
    char key[32];
    if (!kiln_npy_parse_string(&c, key, sizeof(key))) {
      return KILN_NPY_MALFORMED("expected a quoted key");
    }
    if (!kiln_npy_accept(&c, ':'))
      return KILN_NPY_MALFORMED("expected ':' after a key");
    if (strcmp(key, "descr") == 0) {
      kiln_npy_skip_space(&c);
      if (c.pos < c.end && *c.pos == '[') {
        return kiln_status_create(KILN_STATUS_UNIMPLEMENTED,
                                  "'%s': structured dtypes are not supported", path);
      }
      if (!kiln_npy_parse_string(&c, header->descr, sizeof(header->descr))) {
        return KILN_NPY_MALFORMED("'descr' is not a short string of printable characters");
      }
      header->has_descr = 1;
    } else if (strcmp(key, "fortran_order") == 0) {
      kiln_npy_skip_space(&c);
      size_t left = (size_t)(c.end - c.pos);
      if (left >= 4 && memcmp(c.pos, "True", 4) == 0) {
        header->fortran_order = 1;
        c.pos += 4;
      } else if (left >= 5 && memcmp(c.pos, "False", 5) == 0) {
        header->fortran_order = 0;
        c.pos += 5;
      } else {
        return KILN_NPY_MALFORMED("'fortran_order' is neither True nor False");
      }
      header->has_fortran_order = 1;
    } else if (strcmp(key, "shape") == 0) {
      kiln_status_t status = kiln_npy_parse_shape(&c, path, header);
      if (status != NULL)
        return status;
      header->has_shape = 1;
    } else {
      return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                                "'%s': malformed .npy header: unexpected key '%s'", path, key);
    }
    if (kiln_npy_accept(&c, '}'))
      break;
    if (!kiln_npy_accept(&c, ','))
      return KILN_NPY_MALFORMED("expected ',' or '}'");
  }
  kiln_npy_skip_space(&c);
  if (c.pos != c.end)
    return KILN_NPY_MALFORMED("unexpected text after the dictionary");
  if (!header->has_descr)
    return KILN_NPY_MALFORMED("no 'descr' key");
  if (!header->has_fortran_order)
    return KILN_NPY_MALFORMED("no 'fortran_order' key");
  if (!header->has_shape)
    return KILN_NPY_MALFORMED("no 'shape' key");
  return NULL;
}

/* Maps a descr to a dtype, or returns an error naming the file. */
static kiln_status_t kiln_npy_dtype_for_descr(const char *descr, const char *path,
                                              int32_t *out_dtype) {
  *out_dtype = KILN_DTYPE_INVALID;
  if (descr[0] == '>') {
    return kiln_status_create(KILN_STATUS_UNIMPLEMENTED,
                              "'%s': big-endian descr '%s' is not supported (only little-endian)",
                              path, descr);
  }
  int32_t dtype = KILN_DTYPE_INVALID;
  if (descr[0] == '<' || descr[0] == '|')
    dtype = kiln_npy_dtype_for_type(descr + 1);
  /* '|' (no byte order) only makes sense for one-byte types. */
  if (descr[0] == '|' && kiln_dtype_size(dtype) != 1)
    dtype = KILN_DTYPE_INVALID;
  if (dtype == KILN_DTYPE_INVALID) {
    return kiln_status_create(KILN_STATUS_UNIMPLEMENTED, "'%s': unsupported descr '%s'", path,
                              descr);
  }
  *out_dtype = dtype;
  return NULL;
}

/* ---- reading --------------------------------------------------------------------------- */

/* Reads up to `size` bytes; returns the count. *out_errno is set when a read error happened. */
static size_t kiln_npy_read_bytes(FILE *file, void *buf, size_t size, int *out_errno) {
  size_t done = 0;
  *out_errno = 0;
  while (done < size) {
    errno = 0;
    size_t n = fread((char *)buf + done, 1, size - done, file);
    done += n;
    if (n == 0) {
      if (ferror(file))
        *out_errno = errno != 0 ? errno : EIO;
      break;
    }
  }
  return done;
}

static kiln_status_t kiln_npy_read_error(const char *path, int err) {
  char buf[256];
  return kiln_status_create(KILN_STATUS_IO_ERROR, "cannot read '%s': %s", path,
                            kiln_npy_errno_string(err, buf, sizeof(buf)));
}

static kiln_status_t kiln_npy_read_file(FILE *file, const char *path, kiln_npy_array_t *out) {
  int err = 0;
  unsigned char preamble[KILN_NPY_PREAMBLE_SIZE + 4];
  size_t got = kiln_npy_read_bytes(file, preamble, KILN_NPY_PREAMBLE_SIZE, &err);
  if (err != 0)
    return kiln_npy_read_error(path, err);
  if (got < KILN_NPY_MAGIC_SIZE || memcmp(preamble, KILN_NPY_MAGIC, KILN_NPY_MAGIC_SIZE) != 0) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "'%s': not a .npy file (bad magic string)", path);
  }
  if (got < KILN_NPY_PREAMBLE_SIZE) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "'%s': truncated .npy file (no format version)", path);
  }
  int major = preamble[6], minor = preamble[7];
  size_t length_size;
  if (major == 1 && minor == 0) {
    length_size = 2;
  } else if ((major == 2 || major == 3) && minor == 0) {
    length_size = 4;
  } else {
    return kiln_status_create(KILN_STATUS_UNIMPLEMENTED,
                              "'%s': unsupported .npy format version %d.%d", path, major, minor);
  }
  got = kiln_npy_read_bytes(file, preamble + KILN_NPY_PREAMBLE_SIZE, length_size, &err);
  if (err != 0)
    return kiln_npy_read_error(path, err);
  if (got < length_size) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "'%s': truncated .npy file (no header length)", path);
  }
  const unsigned char *len_bytes = preamble + KILN_NPY_PREAMBLE_SIZE;
  uint32_t header_length = (uint32_t)len_bytes[0] | ((uint32_t)len_bytes[1] << 8);
  if (length_size == 4) {
    header_length |= ((uint32_t)len_bytes[2] << 16) | ((uint32_t)len_bytes[3] << 24);
  }
  if (header_length > KILN_NPY_MAX_HEADER_SIZE) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "'%s': header length %lu is larger than the limit of %d bytes", path,
                              (unsigned long)header_length, KILN_NPY_MAX_HEADER_SIZE);
  }

  char *text = (char *)malloc(header_length + 1u);
  if (text == NULL)
    return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  got = kiln_npy_read_bytes(file, text, header_length, &err);
  kiln_status_t status = NULL;
  kiln_npy_header header;
  if (err != 0) {
    status = kiln_npy_read_error(path, err);
  } else if (got < header_length) {
    status = kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                                "'%s': truncated header: expected %lu bytes, found %lu", path,
                                (unsigned long)header_length, (unsigned long)got);
  } else {
    text[header_length] = '\0';
    status = kiln_npy_parse_header(text, header_length, path, &header);
  }
  free(text);
  if (status != NULL)
    return status;

  if (header.fortran_order) {
    return kiln_status_create(KILN_STATUS_UNIMPLEMENTED,
                              "'%s': fortran_order is True; only C-order arrays are supported",
                              path);
  }
  int32_t dtype;
  status = kiln_npy_dtype_for_descr(header.descr, path, &dtype);
  if (status != NULL)
    return status;
  int64_t byte_size = kiln_npy_byte_size(header.rank, header.dims, kiln_dtype_size(dtype));
  if (byte_size < 0 || (uint64_t)byte_size > (uint64_t)SIZE_MAX) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "'%s': the array's size overflows 64 bits", path);
  }

  /* For regular files, check the size before allocating so a bad shape cannot make us
   * allocate far more than the file holds. */
  int64_t data_offset = (int64_t)(KILN_NPY_PREAMBLE_SIZE + length_size + header_length);
  struct stat info;
  if (fstat(fileno(file), &info) == 0 && S_ISREG(info.st_mode)) {
    int64_t available = (int64_t)info.st_size - data_offset;
    if (available < 0)
      available = 0;
    if (available < byte_size) {
      return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                                "'%s': expected %lld bytes of data, found %lld", path,
                                (long long)byte_size, (long long)available);
    }
  }

  void *data = kiln_aligned_alloc(byte_size, KILN_NPY_DATA_ALIGNMENT);
  if (data == NULL) {
    return kiln_status_create(KILN_STATUS_RESOURCE_EXHAUSTED,
                              "'%s': cannot allocate %lld bytes for the data", path,
                              (long long)byte_size);
  }
  got = kiln_npy_read_bytes(file, data, (size_t)byte_size, &err);
  if (err != 0 || got < (size_t)byte_size) {
    kiln_aligned_free(data);
    if (err != 0)
      return kiln_npy_read_error(path, err);
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "'%s': expected %lld bytes of data, found %lld", path,
                              (long long)byte_size, (long long)got);
  }

  out->dtype = dtype;
  out->rank = header.rank;
  for (int32_t i = 0; i < header.rank; ++i)
    out->dims[i] = header.dims[i];
  out->byte_size = byte_size;
  out->data = data;
  return NULL;
}

kiln_status_t kiln_npy_read(const char *path, kiln_npy_array_t *out_array) {
  if (out_array == NULL) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT, "kiln_npy_read: out_array is NULL");
  }
  memset(out_array, 0, sizeof(*out_array));
  if (path == NULL) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT, "kiln_npy_read: path is NULL");
  }
  FILE *file = fopen(path, "rb");
  if (file == NULL) {
    char buf[256];
    return kiln_status_create(KILN_STATUS_IO_ERROR, "cannot open '%s': %s", path,
                              kiln_npy_errno_string(errno, buf, sizeof(buf)));
  }
  kiln_status_t status = kiln_npy_read_file(file, path, out_array);
  fclose(file);
  return status;
}

void kiln_npy_array_free(kiln_npy_array_t *array) {
  if (array == NULL)
    return;
  kiln_aligned_free(array->data);
  memset(array, 0, sizeof(*array));
}

/* ---- writing --------------------------------------------------------------------------- */

kiln_status_t kiln_npy_write(const char *path, int32_t dtype, int32_t rank, const int64_t *dims,
                             const void *data) {
  if (path == NULL) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT, "kiln_npy_write: path is NULL");
  }
  const char *descr = kiln_npy_descr_for_dtype(dtype);
  if (descr == NULL) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT, "cannot write '%s': invalid dtype %d",
                              path, (int)dtype);
  }
  if (rank < 0 || rank > KILN_MAX_RANK) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "cannot write '%s': rank %d is outside [0, %d]", path, (int)rank,
                              KILN_MAX_RANK);
  }
  if (rank > 0 && dims == NULL) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT, "cannot write '%s': dims is NULL",
                              path);
  }
  int64_t byte_size = kiln_npy_byte_size(rank, dims, kiln_dtype_size(dtype));
  if (byte_size < 0 || (uint64_t)byte_size > (uint64_t)SIZE_MAX) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT,
                              "cannot write '%s': negative dimension or size overflow", path);
  }
  if (byte_size > 0 && data == NULL) {
    return kiln_status_create(KILN_STATUS_INVALID_ARGUMENT, "cannot write '%s': data is NULL",
                              path);
  }

  /* Build the header exactly as numpy.lib.format._write_array_header does for version 1.0:
   * the dict with sorted keys and repr() values, then GROWTH_AXIS_MAX_DIGITS - len(repr(
   * shape[0])) spaces of spare room (numpy >= 1.24; none for a scalar), then spaces so that
   * the preamble plus the header, ending in '\n', fill a multiple of ARRAY_ALIGN bytes.
   * numpy always adds at least one space, so an already aligned header gains 64. */
  char header[1024]; /* 10 + dict (< 500) + spare room (<= 20) + padding (<= 64) + '\n' */
  int length = snprintf(header + 10, sizeof(header) - 10,
                        "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int32_t i = 0; i < rank; ++i) {
    length += snprintf(header + 10 + length, sizeof(header) - 10 - (size_t)length, "%s%lld",
                       i == 0 ? "" : ", ", (long long)dims[i]);
  }
  length += snprintf(header + 10 + length, sizeof(header) - 10 - (size_t)length, "%s), }",
                     rank == 1 ? "," : "");
  if (rank > 0) {
    char first[32];
    int digits = snprintf(first, sizeof(first), "%lld", (long long)dims[0]);
    for (int i = digits; i < KILN_NPY_GROWTH_AXIS_MAX_DIGITS; ++i)
      header[10 + length++] = ' ';
  }
  int padding = KILN_NPY_ARRAY_ALIGN - ((10 + length + 1) % KILN_NPY_ARRAY_ALIGN);
  memset(header + 10 + length, ' ', (size_t)padding);
  length += padding;
  header[10 + length++] = '\n';
  memcpy(header, KILN_NPY_MAGIC, KILN_NPY_MAGIC_SIZE);
  header[6] = 1; /* version 1.0 */
  header[7] = 0;
  header[8] = (char)(length & 0xff);
  header[9] = (char)((length >> 8) & 0xff);
  size_t total_header = (size_t)(10 + length);

  FILE *file = fopen(path, "wb");
  char buf[256];
  if (file == NULL) {
    return kiln_status_create(KILN_STATUS_IO_ERROR, "cannot write '%s': %s", path,
                              kiln_npy_errno_string(errno, buf, sizeof(buf)));
  }
  int ok = fwrite(header, 1, total_header, file) == total_header;
  if (ok && byte_size > 0)
    ok = fwrite(data, 1, (size_t)byte_size, file) == (size_t)byte_size;
  int err = ok ? 0 : (errno != 0 ? errno : EIO);
  if (fclose(file) != 0 && ok) {
    ok = 0;
    err = errno != 0 ? errno : EIO;
  }
  if (!ok) {
    remove(path);
    return kiln_status_create(KILN_STATUS_IO_ERROR, "cannot write '%s': %s", path,
                              kiln_npy_errno_string(err, buf, sizeof(buf)));
  }
  return NULL;
}
