/*
 * kiln/runtime/abi.h - the contract between code that Kiln generates and the runtime.
 *
 * This header is shared by the compiler (codegen) and the runtime. It is plain C, has no
 * dependencies and is append-only: existing names, values and struct layouts never change;
 * new fields go at the end of structs and bump KILN_ABI_VERSION.
 *
 * A compiled model named NAME exports two symbols:
 *
 *   int32_t NAME_run(const void* const* inputs, void* const* outputs, void* scratch,
 *                    const kiln_run_options_t* options);
 *   extern const kiln_model_info_t NAME_info;
 *
 * `inputs[i]` and `outputs[i]` point to dense row-major buffers of the byte sizes given by
 * NAME_info (the caller owns them; outputs are written, never allocated). `scratch` points to
 * at least `scratch_bytes` bytes aligned to `scratch_alignment`; it may be NULL when
 * scratch_bytes is 0. `options` may be NULL (defaults). The function returns a
 * kiln_status_code_t (KILN_STATUS_OK on success). It is reentrant: concurrent calls are safe
 * when each call has its own scratch and outputs.
 *
 * A call fails with KILN_STATUS_INVALID_ARGUMENT where TensorFlow reports an error about
 * the input values: integer division by zero, an index out of range, an integer raised to
 * a negative power (unless compiled with --no-runtime-checks). Its outputs are then
 * unspecified; options->error_message, if given, receives a description naming the node,
 * e.g. "node 'g' (GatherV2): indices[1] = 7 is not in [0, 5)".
 *
 * ABI 3: a model may have several entry points, and state: tensors it keeps between calls
 * (variables), in one state buffer the caller allocates (state_bytes, aligned to
 * state_alignment, zeroed before the first call) and passes to every entry point. Each
 * entry point ENTRY is exported as
 *
 *   int32_t NAME_ENTRY(const void* const* inputs, void* const* outputs, void* state,
 *                      void* scratch, const kiln_run_options_t* options);
 *
 * and described by NAME_info.entries (kiln_entry_info_t): its own inputs and outputs, the
 * state it reads and the state it writes. A model with one entry point named "run" that
 * uses no state still exports NAME_run as above, with the signature of ABI 1. Calls that
 * share a state buffer must not run at the same time.
 */
#ifndef KILN_RUNTIME_ABI_H
#define KILN_RUNTIME_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_ABI_VERSION 6

/* Largest rank a tensor in the ABI may have. */
#define KILN_MAX_RANK 16

/* Alignment, in bytes, of every buffer that generated code places in the scratch arena. */
#define KILN_SCRATCH_ALIGNMENT 64

/* Element types. The values are TensorFlow's DataType enum values. */
typedef enum kiln_dtype_t {
  KILN_DTYPE_INVALID = 0,
  KILN_DTYPE_F32 = 1,
  KILN_DTYPE_F64 = 2,
  KILN_DTYPE_I32 = 3,
  KILN_DTYPE_U8 = 4,
  KILN_DTYPE_I16 = 5,
  KILN_DTYPE_I8 = 6,
  KILN_DTYPE_I64 = 9,
  KILN_DTYPE_BOOL = 10,
  KILN_DTYPE_BF16 = 14,
  KILN_DTYPE_U16 = 17,
  KILN_DTYPE_F16 = 19,
  KILN_DTYPE_U32 = 22,
  KILN_DTYPE_U64 = 23
} kiln_dtype_t;

/* Status codes returned by generated entry points and by the runtime. */
typedef enum kiln_status_code_t {
  KILN_STATUS_OK = 0,
  KILN_STATUS_INVALID_ARGUMENT = 1,
  KILN_STATUS_NOT_FOUND = 2,
  KILN_STATUS_OUT_OF_RANGE = 3,
  KILN_STATUS_RESOURCE_EXHAUSTED = 4,
  KILN_STATUS_IO_ERROR = 5,
  KILN_STATUS_UNIMPLEMENTED = 6,
  KILN_STATUS_INTERNAL = 7
} kiln_status_code_t;

/* Per-call options. Zero-initialise, then set struct_size = sizeof(kiln_run_options_t). */
typedef struct kiln_run_options_t {
  uint32_t struct_size;
  /* Threads the call may use; 0 means all cores. Results do not depend on it. */
  int32_t num_threads;
  /* ABI 2: where a failed call writes what went wrong, NUL-terminated and truncated to
   * error_message_size bytes; NULL for none. */
  char *error_message;
  int64_t error_message_size;
} kiln_run_options_t;

/* One feed or fetch of a compiled model. */
typedef struct kiln_tensor_info_t {
  const char *name;  /* TensorFlow tensor name, "node:port" */
  const char *alias; /* name given in a tfcompile config, or "" */
  int32_t dtype;     /* kiln_dtype_t */
  int32_t rank;
  const int64_t *dims; /* rank entries, all static */
  int64_t byte_size;   /* product(dims) * element size */
  /* ABI 5: nonzero for an output whose size depends on values (Where, Unique, a non-max
   * suppression: kiln compile's --bound): output `shape_output` then holds its actual dims
   * (int64, rank entries), `dims` and `byte_size` are its bound, and it is written densely,
   * row-major at the actual dims, from the start of its buffer. */
  int32_t has_shape_output;
  int32_t shape_output;
} kiln_tensor_info_t;

typedef int32_t (*kiln_entry_fn_t)(const void *const *inputs, void *const *outputs, void *scratch,
                                   const kiln_run_options_t *options);

/* ABI 3: an entry point that may read and write the model's state. */
typedef int32_t (*kiln_state_entry_fn_t)(const void *const *inputs, void *const *outputs,
                                         void *state, void *scratch,
                                         const kiln_run_options_t *options);

/* ABI 3: one tensor of a model's state, at `offset` bytes into the state buffer. */
typedef struct kiln_state_info_t {
  kiln_tensor_info_t tensor; /* its name (alias ""), dtype, shape and byte size */
  int64_t offset;            /* a multiple of the model's state_alignment */
} kiln_state_info_t;

/* ABI 3: one entry point of a model. */
typedef struct kiln_entry_info_t {
  const char *name; /* "run", "init", "predict" ...: the symbol is NAME_<name> */
  int32_t num_inputs;
  int32_t num_outputs;
  const kiln_tensor_info_t *inputs;
  const kiln_tensor_info_t *outputs;
  int32_t num_reads;  /* the state it reads: positions in the model's states */
  int32_t num_writes; /* the state it writes (after every output is computed) */
  const int32_t *reads;
  const int32_t *writes;
  int64_t scratch_bytes;
  kiln_state_entry_fn_t run;
} kiln_entry_info_t;

/* ABI 4: where an entry point's inputs and outputs may be. Per input and per output, -1:
 * host memory; N >= 0: host memory or device memory of GPU N (in the device's primary
 * context, which the CUDA runtime's cudaMalloc and Kiln itself use), because only the
 * model's partition on GPU N reads the input or writes the output, by copies the driver
 * routes by address. Tensors kept in device memory cross no PCIe bus on a call. */
typedef struct kiln_entry_buffers_t {
  const int32_t *input_gpus;  /* num_inputs entries (NULL when there are none) */
  const int32_t *output_gpus; /* num_outputs entries (NULL when there are none) */
} kiln_entry_buffers_t;

/* Everything a caller needs to know about a compiled model, emitted beside its entry point. */
typedef struct kiln_model_info_t {
  uint32_t abi_version; /* KILN_ABI_VERSION the model was compiled against */
  const char *name;
  int32_t num_inputs;
  int32_t num_outputs;
  const kiln_tensor_info_t *inputs;
  const kiln_tensor_info_t *outputs;
  int64_t scratch_bytes;
  int64_t scratch_alignment;
  kiln_entry_fn_t entry;
  /* ABI 3. The fields above describe the first entry point (entry is NULL when it uses
   * state); scratch_bytes is enough for any entry point. */
  int32_t num_entries;
  int32_t num_states;
  const kiln_entry_info_t *entries;
  const kiln_state_info_t *states;
  int64_t state_bytes;
  int64_t state_alignment;
  /* ABI 4: num_entries of them, in the order of entries. */
  const kiln_entry_buffers_t *buffers;
} kiln_model_info_t;

/*
 * ABI 2: the checks a model makes on its input values where TensorFlow's kernels report
 * errors. A failed check makes the entry point return KILN_STATUS_INVALID_ARGUMENT after
 * formatting its message (kiln_check_format) for the caller.
 */
typedef struct kiln_check_info_t {
  /* "node 'g' (GatherV2): indices{index} = {value} is not in [0, 5)": {index} stands for
   * the failing element's coordinates in the checked tensor ("[1,2]", nothing for a
   * scalar), {value} for its value. */
  const char *message;
  int32_t rank;        /* of the checked tensor */
  int32_t is_unsigned; /* its values are unsigned integers */
  const int64_t *dims; /* rank entries */
} kiln_check_info_t;

/* What a model's checks record during a call: the 1-based number of the first check that
 * failed (0 if none), the failing element's row-major position in the checked tensor and
 * its value (as the bits of an int64). Generated code writes it; the entry point reads it. */
#define KILN_CHECK_STATUS_WORDS 3

/* Writes `check`'s message with {index} and {value} filled in for the element at row-major
 * `position` holding `value` into out (NUL-terminated, truncated to `size` bytes); returns
 * the length the whole message has. Shared by the compiler (a check that fails on constants
 * is a compile-time error) and the runtime. */
static inline int64_t kiln_check_format(const kiln_check_info_t *check, int64_t position,
                                        int64_t value, char *out, int64_t size) {
  int64_t length = 0;
  const char *m = check->message;
#define KILN_CHECK_PUT(c)                                                                          \
  do {                                                                                             \
    char kiln_check_char = (c); /* evaluated once, whether it fits or not */                       \
    if (length + 1 < size)                                                                         \
      out[length] = kiln_check_char;                                                               \
    ++length;                                                                                      \
  } while (0)
  while (*m != '\0') {
    char digits[24];
    int n = 0, i;
    if (m[0] == '{' && m[1] == 'i' && m[2] == 'n' && m[3] == 'd' && m[4] == 'e' && m[5] == 'x' &&
        m[6] == '}') {
      int64_t coordinate[KILN_MAX_RANK];
      int64_t rest = position;
      int32_t rank = check->rank >= 0 && check->rank <= KILN_MAX_RANK ? check->rank : 0;
      for (i = rank - 1; i >= 0; --i) {
        int64_t dim = check->dims[i] > 0 ? check->dims[i] : 1;
        coordinate[i] = rest % dim;
        rest /= dim;
      }
      if (rank > 0)
        KILN_CHECK_PUT('[');
      for (i = 0; i < rank; ++i) {
        uint64_t c = (uint64_t)coordinate[i];
        if (i > 0)
          KILN_CHECK_PUT(',');
        n = 0;
        do
          digits[n++] = (char)('0' + c % 10);
        while ((c /= 10) != 0);
        while (n > 0)
          KILN_CHECK_PUT(digits[--n]);
      }
      if (rank > 0)
        KILN_CHECK_PUT(']');
      m += 7;
      continue;
    }
    if (m[0] == '{' && m[1] == 'v' && m[2] == 'a' && m[3] == 'l' && m[4] == 'u' && m[5] == 'e' &&
        m[6] == '}') {
      int negative = !check->is_unsigned && value < 0;
      /* The magnitude, computed without overflow for INT64_MIN. */
      uint64_t v = negative ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
      if (negative)
        KILN_CHECK_PUT('-');
      do
        digits[n++] = (char)('0' + v % 10);
      while ((v /= 10) != 0);
      while (n > 0)
        KILN_CHECK_PUT(digits[--n]);
      m += 7;
      continue;
    }
    KILN_CHECK_PUT(*m);
    ++m;
  }
#undef KILN_CHECK_PUT
  if (size > 0)
    out[length < size ? length : size - 1] = '\0';
  return length;
}

/* Size in bytes of one element of `dtype`, or 0 for an unknown dtype. */
static inline int64_t kiln_dtype_size(int32_t dtype) {
  switch (dtype) {
  case KILN_DTYPE_BOOL:
  case KILN_DTYPE_I8:
  case KILN_DTYPE_U8:
    return 1;
  case KILN_DTYPE_I16:
  case KILN_DTYPE_U16:
  case KILN_DTYPE_F16:
  case KILN_DTYPE_BF16:
    return 2;
  case KILN_DTYPE_I32:
  case KILN_DTYPE_U32:
  case KILN_DTYPE_F32:
    return 4;
  case KILN_DTYPE_I64:
  case KILN_DTYPE_U64:
  case KILN_DTYPE_F64:
    return 8;
  default:
    return 0;
  }
}

/*
 * Kernels that generated code may call (runtime/kernels, library kiln_kernels). Each name
 * is the C symbol; its declaration is in kiln/kernels/<family>.h.
 */
#define KILN_KERNEL_MATMUL_F32 "kiln_kernel_matmul_f32"
#define KILN_KERNEL_MATMUL_EPILOGUE_F32 "kiln_kernel_matmul_epilogue_f32"
#define KILN_KERNEL_MATMUL_RESIDUAL_F32 "kiln_kernel_matmul_residual_f32"
/* The activation argument of a kernel's epilogue (kiln/kernels/matmul.h), applied after
 * the epilogue's bounds. */
#define KILN_ACTIVATION_NONE 0
#define KILN_ACTIVATION_SWISH 1 /* x / (1 + exp(-x)): Swish, SiLU (x * sigmoid(x)) */
/* Flags of kiln_kernel_matmul_f32. */
#define KILN_MATMUL_TRANSPOSE_A 1 /* a is stored k x m */
#define KILN_MATMUL_TRANSPOSE_B 2 /* b is stored n x k */
#define KILN_MATMUL_OVERWRITE 4   /* c = op(a) op(b): c's contents are not read */
#define KILN_MATMUL_PACKED_B 8    /* b holds op(b) packed (kiln_matmul_packed_b_index); */
                                  /* KILN_MATMUL_TRANSPOSE_B is then ignored */
#define KILN_MATMUL_FEW_ROWS 64   /* at most KILN_MATMUL_FEW_ROWS_MAX rows (a dense layer at */
                                  /* batch 1): the few-row kernel, where b is packed or not */
                                  /* transposed (else ignored); the same result either way */
#define KILN_MATMUL_FEW_ROWS_MAX 3
/* A batch of products, c[i] = op(a[i]) op(b[i]) (matmul.h); the flags above but packed, and: */
#define KILN_KERNEL_BATCH_MATMUL_F32 "kiln_kernel_batch_matmul_f32"
#define KILN_MATMUL_BROADCAST_A 16 /* one a for every product of the batch */
#define KILN_MATMUL_BROADCAST_B 32 /* one b for every product of the batch */
/* The depth slices of a matrix product's sum (k deep): the fewest slices of at most
 * KILN_MATMUL_PACK_DEPTH, all but the last kiln_matmul_depth_slice(k) deep (their even
 * share rounded up to a multiple of 16), the last the rest. Each element of the result is
 * one fused multiply-add chain per slice, the slices added in order, so the slicing is part
 * of the result's last bits: it depends on k alone, never on the CPU or the thread count. */
#define KILN_MATMUL_PACK_DEPTH 512
static inline int64_t kiln_matmul_depth_slice(int64_t k) {
  if (k <= KILN_MATMUL_PACK_DEPTH)
    return k > 0 ? k : 1;
  int64_t slices = (k + KILN_MATMUL_PACK_DEPTH - 1) / KILN_MATMUL_PACK_DEPTH;
  return ((k + slices - 1) / slices + 15) / 16 * 16;
}
/* The packed layout of op(b) (k x n) that KILN_MATMUL_PACKED_B reads, so that a compiler
 * can pack constant weights once: its depth slices (kiln_matmul_depth_slice), each cut into
 * panels of KILN_MATMUL_PACK_COLS columns stored row after row, the last panel of a slice
 * padded with zeros to its full width. It holds k * kiln_matmul_packed_b_width(n) floats. */
#define KILN_MATMUL_PACK_COLS 32
static inline int64_t kiln_matmul_packed_b_width(int64_t n) {
  return (n + KILN_MATMUL_PACK_COLS - 1) / KILN_MATMUL_PACK_COLS * KILN_MATMUL_PACK_COLS;
}
/* Where element (row kk, column j) of op(b) goes in the packed array. */
static inline int64_t kiln_matmul_packed_b_index(int64_t kk, int64_t j, int64_t k, int64_t n) {
  int64_t step = kiln_matmul_depth_slice(k);
  int64_t slice = kk / step * step;
  int64_t depth = k - slice < step ? k - slice : step;
  return slice * kiln_matmul_packed_b_width(n) +
         j / KILN_MATMUL_PACK_COLS * depth * KILN_MATMUL_PACK_COLS +
         (kk - slice) * KILN_MATMUL_PACK_COLS + j % KILN_MATMUL_PACK_COLS;
}
#define KILN_KERNEL_ATTENTION_F32 "kiln_kernel_attention_f32"
#define KILN_KERNEL_ATTENTION_MASKED_F32 "kiln_kernel_attention_masked_f32"
/* kiln_kernel_attention_f32's layouts: an operand with the flag is [batch, seq, heads, x]
 * (as the projections write it), without it [batch, heads, seq, x]. */
#define KILN_ATTENTION_Q_SEQ_MAJOR 1
#define KILN_ATTENTION_K_SEQ_MAJOR 2
#define KILN_ATTENTION_V_SEQ_MAJOR 4
#define KILN_ATTENTION_OUT_SEQ_MAJOR 8
#define KILN_KERNEL_DEPTHWISE_CONV2D_F32 "kiln_kernel_depthwise_conv2d_f32"
/* Flags of kiln_kernel_depthwise_conv2d_f32. */
#define KILN_DEPTHWISE_OVERWRITE 1 /* the output is written, its contents not read */
#define KILN_DEPTHWISE_EPILOGUE 2  /* apply the epilogue arguments (else they are ignored) */
/* A 1x1 convolution and the depthwise convolution of its result, in one (depthwise.h);
 * the same flags as kiln_kernel_depthwise_conv2d_f32. */
#define KILN_KERNEL_POINTWISE_DEPTHWISE_F32 "kiln_kernel_pointwise_depthwise_f32"
#define KILN_KERNEL_CONV2D_3X3_F32 "kiln_kernel_conv2d_3x3_f32"
/* The same for a constant filter, its transform kept in a cache slot (conv2d.h). */
#define KILN_KERNEL_CONV2D_3X3_CACHED_F32 "kiln_kernel_conv2d_3x3_cached_f32"
/* Flags of kiln_kernel_conv2d_3x3_f32. */
#define KILN_CONV2D_OVERWRITE 1 /* the output is written, its contents not read */
#define KILN_CONV2D_EPILOGUE 2  /* apply the epilogue arguments (else they are ignored) */
/* With KILN_CONV2D_OVERWRITE: write the 2x2, stride 2 max pool (VALID) of the result
 * instead of the result, n x oh/2 x ow/2 x f (kiln_kernel_conv2d_3x3_f32 and
 * kiln_kernel_conv2d_direct_f32). */
#define KILN_CONV2D_MAX_POOL 4
/* A convolution with a small window depth, computed directly (conv2d.h); the same flags as
 * kiln_kernel_conv2d_3x3_f32. */
#define KILN_KERNEL_CONV2D_DIRECT_F32 "kiln_kernel_conv2d_direct_f32"
/* Any other convolution, as the matrix product of its windows and its filter (conv2d.h):
 * the flags of kiln_kernel_conv2d_3x3_f32 but the max pool, and: */
#define KILN_KERNEL_CONV2D_GEMM_F32 "kiln_kernel_conv2d_gemm_f32"
#define KILN_CONV2D_PACKED_FILTER 8 /* the filter, a (kh*kw*c) x f matrix, packed as */
                                    /* KILN_MATMUL_PACKED_B reads it */
#define KILN_KERNEL_MAX_POOL2D_F32 "kiln_kernel_max_pool2d_f32"
/* The special functions (kiln/kernels/special.h): PREFIX NAME "_f32" or "_f64", one element
 * a call ("kiln_special_lgamma_f32"). */
#define KILN_SPECIAL_PREFIX "kiln_special_"
/* The matrix factorizations and solvers (kiln/kernels/linalg.h): PREFIX NAME "_f32" or
 * "_f64" ("kiln_kernel_cholesky_f32"), and their flags. */
#define KILN_KERNEL_PREFIX "kiln_kernel_"
#define KILN_LINALG_ADJOINT 1          /* use the matrix's transpose (MatrixInverse, */
                                       /* MatrixSolve, MatrixTriangularSolve) */
#define KILN_LINALG_LOWER 2            /* the lower triangle (MatrixTriangularSolve) */
#define KILN_LINALG_FULL_MATRICES 4    /* Qr's m x m q, Svd's m x m u and n x n v */
#define KILN_LINALG_PARTIAL_PIVOTING 8 /* TridiagonalSolve with row interchanges */

/* The NumPy name of `dtype` ("float32", "int32", "bool" ...), or "invalid". */
static inline const char *kiln_dtype_name(int32_t dtype) {
  switch (dtype) {
  case KILN_DTYPE_F32:
    return "float32";
  case KILN_DTYPE_F64:
    return "float64";
  case KILN_DTYPE_F16:
    return "float16";
  case KILN_DTYPE_BF16:
    return "bfloat16";
  case KILN_DTYPE_I8:
    return "int8";
  case KILN_DTYPE_I16:
    return "int16";
  case KILN_DTYPE_I32:
    return "int32";
  case KILN_DTYPE_I64:
    return "int64";
  case KILN_DTYPE_U8:
    return "uint8";
  case KILN_DTYPE_U16:
    return "uint16";
  case KILN_DTYPE_U32:
    return "uint32";
  case KILN_DTYPE_U64:
    return "uint64";
  case KILN_DTYPE_BOOL:
    return "bool";
  default:
    return "invalid";
  }
}

/* The runtime's transfers between partitions (kiln/runtime/partitions.h), which generated
 * code calls for kiln.send and kiln.recv. */
#define KILN_PARTITION_SEND "kiln_partition_send"
#define KILN_PARTITION_RECV "kiln_partition_recv"
/* The same from a GPU partition, whose buffers are device memory (kiln/runtime/mgpu.h). */
#define KILN_MGPU_PARTITION_SEND "kiln_mgpu_partition_send"
#define KILN_MGPU_PARTITION_RECV "kiln_mgpu_partition_recv"
/* A GPU partition's matrix product, by cuBLAS (kiln/runtime/mgpu.h): the arguments and
 * flags of KILN_KERNEL_MATMUL_F32, on device memory. */
#define KILN_MGPU_MATMUL_F32 "kiln_mgpu_matmul_f32"
/* The same for a batch (KILN_KERNEL_BATCH_MATMUL_F32's arguments and flags). */
#define KILN_MGPU_BATCH_MATMUL_F32 "kiln_mgpu_batch_matmul_f32"
/* With either: f32 operands rounded to TF32 on tensor cores (`kiln compile --allow-tf32`). */
#define KILN_MGPU_MATMUL_TF32 64
/* The same two for f16 operands and results, summed in f32. */
#define KILN_MGPU_MATMUL_F16 "kiln_mgpu_matmul_f16"
#define KILN_MGPU_BATCH_MATMUL_F16 "kiln_mgpu_batch_matmul_f16"
/* A GPU partition's matrix product with its epilogue, by cuBLASLt (kiln/runtime/mgpu.h):
 * KILN_KERNEL_MATMUL_EPILOGUE_F32's and KILN_KERNEL_MATMUL_RESIDUAL_F32's arguments and
 * flags (KILN_MGPU_MATMUL_TF32 too), on device memory. */
#define KILN_MGPU_MATMUL_EPILOGUE_F32 "kiln_mgpu_matmul_epilogue_f32"
#define KILN_MGPU_MATMUL_RESIDUAL_F32 "kiln_mgpu_matmul_residual_f32"
/* A GPU partition's convolution, by cuDNN (kiln/runtime/mgpu.h): input NHWC, filter in
 * cuDNN's NHWC filter layout (f x kh x kw x c/groups), output NHWC, on device memory. */
#define KILN_MGPU_CONV2D_F32 "kiln_mgpu_conv2d_f32"
#define KILN_MGPU_CONV2D_OVERWRITE 1 /* the output is written, its contents not read */
#define KILN_MGPU_CONV2D_TF32 2      /* cuDNN may use TF32 tensor cores (--allow-tf32) */
#define KILN_MGPU_CONV2D_EPILOGUE 4  /* apply the epilogue arguments (else they are ignored) */
/* The same with a residual connection's addition in its epilogue. */
#define KILN_MGPU_CONV2D_RESIDUAL_F32 "kiln_mgpu_conv2d_residual_f32"

/* The device memory the GPU layer's libraries keep outside a partition's arena, one
 * workspace per device (`kiln compile --stats` reports them): cuBLASLt's, allocated whole on
 * its first product (kiln/runtime/gpu_blas.h), and the most cuDNN's chosen algorithms may
 * ask for (kiln/runtime/gpu_dnn.h). cuBLAS sizes and allocates its own. */
#define KILN_GPU_BLASLT_WORKSPACE ((int64_t)32 << 20)
#define KILN_GPU_DNN_MAX_WORKSPACE ((int64_t)1 << 30)

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_ABI_H */
