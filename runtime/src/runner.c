/* Implementation of kiln/runtime/runner.h: the main() of every executable Kiln compiles. */
#define _POSIX_C_SOURCE 200809L

#include "kiln/runtime/runner.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "kiln/runtime/arena.h"
#include "kiln/runtime/gpu.h"
#include "kiln/runtime/npy.h"
#include "kiln/runtime/status.h"

#define KILN_RUNNER_EXIT_OK 0
#define KILN_RUNNER_EXIT_FAILURE 1
#define KILN_RUNNER_EXIT_USAGE 2

/* Alignment of the output buffers and generated inputs. */
#define KILN_RUNNER_BUFFER_ALIGNMENT 64
/* GPUs --resident may place tensors on: /gpu:0 to /gpu:15, as the runtime handles. */
#define KILN_RUNNER_MAX_GPUS 16
/* Fixed seed of the xorshift generator that fills inputs in --bench mode. */
#define KILN_RUNNER_SEED UINT64_C(88172645463325252)
/* Enough for "[" + KILN_MAX_RANK * (20 digits + ",") + "]". */
#define KILN_RUNNER_DIMS_BUFFER_SIZE 512

typedef struct kiln_runner {
  /* The model as the chosen entry point sees it (its inputs, outputs and scratch). */
  const kiln_model_info_t *model;
  kiln_model_info_t entry_view;
  /* ABI 3: the entry point, when it is called with the model's state. */
  kiln_state_entry_fn_t state_entry;
  int32_t entry_index;            /* the entry point chosen, in whole->entries */
  const kiln_model_info_t *whole; /* the model as compiled */
  void *state;
  const char *prog;
  /* Per input: the file given for it (NULL if none) and its data (read or generated). */
  const char **input_paths;
  kiln_npy_array_t *input_arrays;
  const void **input_buffers;
  /* Positional files, in order. */
  const char **positional;
  int num_positional;
  void **output_buffers;
  void *scratch;
  double *times_ms;
  char *output_path;
  const char *output_dir;
  int64_t bench_runs; /* 0: no benchmark */
  int32_t num_threads;
  /* --resident: the inputs and outputs a GPU partition alone reads or writes are in that
   * GPU's memory (device_inputs, device_outputs: 0 for those in host memory), and the calls
   * take call_inputs and call_outputs, which point to them. */
  int resident;
  kiln_gpu_t *gpus[KILN_RUNNER_MAX_GPUS];
  kiln_gpu_ptr_t *device_inputs;
  kiln_gpu_ptr_t *device_outputs;
  const void **call_inputs;
  void **call_outputs;
  char error_message[1024]; /* what a failed call reported */
} kiln_runner;

static void kiln_runner_error(const char *fmt, ...) KILN_PRINTF_FORMAT(1, 2);

static void kiln_runner_error(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  fputs("error: ", stderr);
  vfprintf(stderr, fmt, args);
  fputc('\n', stderr);
  va_end(args);
}

static const char *kiln_runner_model_name(const kiln_model_info_t *model) {
  return model->name != NULL ? model->name : "(unnamed)";
}

/* Formats dims as "[d0,d1,...]" ("[]" for a scalar). */
static const char *kiln_runner_format_dims(int32_t rank, const int64_t *dims, char *buf,
                                           size_t size) {
  size_t used = 0;
  buf[used++] = '[';
  for (int32_t i = 0; i < rank && used < size; ++i) {
    int n = snprintf(buf + used, size - used, "%s%lld", i == 0 ? "" : ",", (long long)dims[i]);
    if (n < 0)
      break;
    used += (size_t)n;
  }
  if (used + 2 > size)
    used = size - 2;
  buf[used++] = ']';
  buf[used] = '\0';
  return buf;
}

/* ---- model validation ------------------------------------------------------------------ */

static int kiln_runner_check_tensor(const kiln_model_info_t *model, const char *kind, int index,
                                    const kiln_tensor_info_t *tensor) {
  const char *problem = NULL;
  if (tensor->name == NULL) {
    problem = "has no name";
  } else if (kiln_dtype_size(tensor->dtype) == 0) {
    problem = "has an invalid dtype";
  } else if (tensor->rank < 0 || tensor->rank > KILN_MAX_RANK) {
    problem = "has an invalid rank";
  } else if (tensor->rank > 0 && tensor->dims == NULL) {
    problem = "has no dims";
  } else {
    int64_t size = kiln_dtype_size(tensor->dtype);
    for (int32_t i = 0; i < tensor->rank && problem == NULL; ++i) {
      int64_t dim = tensor->dims[i];
      if (dim < 0 || (dim != 0 && size > INT64_MAX / dim)) {
        problem = "has an invalid shape";
      } else {
        size *= dim;
      }
    }
    if (problem == NULL && size != tensor->byte_size)
      problem = "has a wrong byte_size";
  }
  if (problem == NULL)
    return 1;
  kiln_runner_error("model '%s' is malformed: %s %d ('%s') %s", kiln_runner_model_name(model), kind,
                    index, tensor->name != NULL ? tensor->name : "", problem);
  return 0;
}

static int kiln_runner_check_model(const kiln_model_info_t *model, int has_state_entry) {
  if (model == NULL || (model->entry == NULL && !has_state_entry)) {
    kiln_runner_error("no model to run (the model info or its entry point is NULL)");
    return 0;
  }
  const char *name = kiln_runner_model_name(model);
  if (model->num_inputs < 0 || model->num_outputs < 0 ||
      (model->num_inputs > 0 && model->inputs == NULL) ||
      (model->num_outputs > 0 && model->outputs == NULL)) {
    kiln_runner_error("model '%s' is malformed: bad input or output tables", name);
    return 0;
  }
  if (model->scratch_bytes < 0 ||
      (model->scratch_alignment > 0 &&
       (model->scratch_alignment & (model->scratch_alignment - 1)) != 0)) {
    kiln_runner_error("model '%s' is malformed: bad scratch size or alignment", name);
    return 0;
  }
  for (int i = 0; i < model->num_inputs; ++i) {
    if (!kiln_runner_check_tensor(model, "input", i, &model->inputs[i]))
      return 0;
  }
  for (int i = 0; i < model->num_outputs; ++i) {
    if (!kiln_runner_check_tensor(model, "output", i, &model->outputs[i]))
      return 0;
    const kiln_tensor_info_t *output = &model->outputs[i];
    if (model->abi_version >= 5 && output->has_shape_output) {
      int32_t s = output->shape_output;
      const kiln_tensor_info_t *shape =
          s >= 0 && s < model->num_outputs ? &model->outputs[s] : NULL;
      if (shape == NULL || shape->dtype != KILN_DTYPE_I64 || shape->rank != 1 ||
          shape->dims[0] != output->rank) {
        kiln_runner_error("model '%s' is malformed: output %d ('%s') has a bad shape output", name,
                          i, output->name);
        return 0;
      }
    }
  }
  return 1;
}

/* ---- command line ---------------------------------------------------------------------- */

static void kiln_runner_print_tensor(const kiln_tensor_info_t *tensor) {
  char dims[KILN_RUNNER_DIMS_BUFFER_SIZE];
  printf("  %s", tensor->name);
  if (tensor->alias != NULL && tensor->alias[0] != '\0')
    printf(" (alias '%s')", tensor->alias);
  printf(" %s %s\n", kiln_dtype_name(tensor->dtype),
         kiln_runner_format_dims(tensor->rank, tensor->dims, dims, sizeof(dims)));
}

/* The entry points of an ABI 3 model, or 0 for one of ABI 1 and 2 (its entry is "run"). */
static int32_t kiln_runner_num_entries(const kiln_model_info_t *model) {
  return model->abi_version >= 3 && model->entries != NULL ? model->num_entries : 0;
}

static void kiln_runner_print_help(const kiln_runner *runner) {
  const kiln_model_info_t *model = runner->model;
  const kiln_model_info_t *whole = runner->whole;
  printf("usage: %s [--entry NAME] [--input NAME=FILE.npy]... [FILE.npy]... [--output-dir DIR]"
         " [--bench N] [--threads N] [--resident] [--help]\n\n",
         runner->prog);
  printf("Runs the model '%s' compiled by Kiln and prints one line per output:\n"
         "\"<name> <dtype> [d0,d1,...]\".\n\n",
         kiln_runner_model_name(model));
  printf("options:\n"
         "  --entry NAME           run the entry point NAME (default: the first); the inputs\n"
         "                         and outputs below are those of the entry point chosen,\n"
         "                         and the model's state starts zeroed\n"
         "  --input NAME=FILE.npy  feed FILE.npy to the input NAME: its name, its name without\n"
         "                         \":0\", or its alias. Positional FILE.npy arguments fill the\n"
         "                         remaining inputs in order. Dtypes and shapes must match.\n"
         "  --output-dir DIR       write each output to DIR/<name>.npy, with '/' and ':' in\n"
         "                         the name replaced by '_' (DIR and its parents are created\n"
         "                         if missing)\n"
         "  --bench N              run once to warm up, then N timed runs, and print\n"
         "                         \"bench: runs=N median_ms=X min_ms=Y\"; inputs not given are\n"
         "                         filled with deterministic pseudo-random values\n"
         "  --threads N            number of threads the model may use (default: all cores)\n"
         "  --resident             keep the inputs and outputs that the model's GPU partition\n"
         "                         alone reads or writes in that GPU's memory: uploaded once\n"
         "                         before the first call and read back after the last, so\n"
         "                         that the calls (and --bench) leave out those copies\n"
         "  --help                 print this help and exit\n\n");
  const char *of = "";
  if (kiln_runner_num_entries(whole) > 1) {
    printf("entry points:\n");
    for (int32_t e = 0; e < whole->num_entries; ++e) {
      const kiln_entry_info_t *entry = &whole->entries[e];
      printf("  %s (%d inputs, %d outputs", entry->name, (int)entry->num_inputs,
             (int)entry->num_outputs);
      if (entry->num_reads > 0)
        printf(", reads %d state", (int)entry->num_reads);
      if (entry->num_writes > 0)
        printf(", writes %d state", (int)entry->num_writes);
      printf(")\n");
    }
    if (whole->entries[runner->entry_index].name != NULL) {
      of = whole->entries[runner->entry_index].name;
    }
  }
  if (of[0] != '\0')
    printf("inputs of '%s':\n", of);
  else
    printf("inputs:\n");
  if (model->num_inputs == 0)
    printf("  (none)\n");
  for (int i = 0; i < model->num_inputs; ++i)
    kiln_runner_print_tensor(&model->inputs[i]);
  if (of[0] != '\0')
    printf("outputs of '%s':\n", of);
  else
    printf("outputs:\n");
  if (model->num_outputs == 0)
    printf("  (none)\n");
  for (int i = 0; i < model->num_outputs; ++i)
    kiln_runner_print_tensor(&model->outputs[i]);
}

/* Index of the input called `name` (by name, name without ":0", or alias), or -1. */
static int kiln_runner_find_input(const kiln_model_info_t *model, const char *name) {
  size_t length = strlen(name);
  for (int i = 0; i < model->num_inputs; ++i) {
    const kiln_tensor_info_t *input = &model->inputs[i];
    if (strcmp(input->name, name) == 0)
      return i;
  }
  for (int i = 0; i < model->num_inputs; ++i) {
    const kiln_tensor_info_t *input = &model->inputs[i];
    if (strncmp(input->name, name, length) == 0 && strcmp(input->name + length, ":0") == 0) {
      return i;
    }
  }
  for (int i = 0; i < model->num_inputs; ++i) {
    const kiln_tensor_info_t *input = &model->inputs[i];
    if (input->alias != NULL && input->alias[0] != '\0' && strcmp(input->alias, name) == 0) {
      return i;
    }
  }
  return -1;
}

/*
 * If argv[*index] is the option `name`, stores its value (from "--name=VALUE" or the next
 * argument) in *out_value and returns 1; returns 0 if it is another argument and -1 (after
 * printing an error) if the value is missing.
 */
static int kiln_runner_match_option(int argc, char **argv, int *index, const char *name,
                                    const char **out_value) {
  const char *arg = argv[*index];
  size_t length = strlen(name);
  if (strncmp(arg, name, length) != 0)
    return 0;
  if (arg[length] == '=') {
    *out_value = arg + length + 1;
    return 1;
  }
  if (arg[length] != '\0')
    return 0;
  if (*index + 1 >= argc || argv[*index + 1] == NULL) {
    kiln_runner_error("option %s needs a value", name);
    return -1;
  }
  *index += 1;
  *out_value = argv[*index];
  return 1;
}

/* Parses a positive integer no larger than `max`; returns 0 if `text` is not one. */
static int kiln_runner_parse_count(const char *text, int64_t max, int64_t *out_value) {
  if (text[0] < '0' || text[0] > '9')
    return 0;
  errno = 0;
  char *end = NULL;
  long long value = strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 1 || value > max)
    return 0;
  *out_value = value;
  return 1;
}

static int kiln_runner_set_input(kiln_runner *runner, const char *spec) {
  const kiln_model_info_t *model = runner->model;
  const char *equals = strchr(spec, '=');
  if (equals == NULL || equals == spec || equals[1] == '\0') {
    kiln_runner_error("--input expects NAME=FILE.npy, got '%s'", spec);
    return 0;
  }
  size_t name_length = (size_t)(equals - spec);
  char *name = (char *)malloc(name_length + 1);
  if (name == NULL) {
    kiln_runner_error("out of memory");
    return 0;
  }
  memcpy(name, spec, name_length);
  name[name_length] = '\0';
  int index = kiln_runner_find_input(model, name);
  if (index < 0) {
    kiln_runner_error("model '%s' has no input named '%s' (see --help for its inputs)",
                      kiln_runner_model_name(model), name);
    free(name);
    return 0;
  }
  free(name);
  if (runner->input_paths[index] != NULL) {
    kiln_runner_error("input '%s' is given more than once", model->inputs[index].name);
    return 0;
  }
  runner->input_paths[index] = equals + 1;
  return 1;
}

/* Parses the command line. Returns -1 to continue, or an exit code. */
static int kiln_runner_parse_args(kiln_runner *runner, int argc, char **argv) {
  int options_done = 0;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (arg == NULL)
      continue;
    if (options_done || arg[0] != '-' || arg[1] == '\0') {
      runner->positional[runner->num_positional++] = arg;
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      options_done = 1;
      continue;
    }
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      kiln_runner_print_help(runner);
      return KILN_RUNNER_EXIT_OK;
    }
    const char *value = NULL;
    int matched;
    if ((matched = kiln_runner_match_option(argc, argv, &i, "--entry", &value)) != 0) {
      /* Chosen before parsing (kiln_runner_choose_entry). */
      if (matched < 0)
        return KILN_RUNNER_EXIT_USAGE;
    } else if ((matched = kiln_runner_match_option(argc, argv, &i, "--input", &value)) != 0) {
      if (matched < 0 || !kiln_runner_set_input(runner, value))
        return KILN_RUNNER_EXIT_USAGE;
    } else if ((matched = kiln_runner_match_option(argc, argv, &i, "--output-dir", &value)) != 0) {
      if (matched < 0)
        return KILN_RUNNER_EXIT_USAGE;
      if (value[0] == '\0') {
        kiln_runner_error("--output-dir needs a non-empty directory name");
        return KILN_RUNNER_EXIT_USAGE;
      }
      runner->output_dir = value;
    } else if ((matched = kiln_runner_match_option(argc, argv, &i, "--bench", &value)) != 0) {
      if (matched < 0)
        return KILN_RUNNER_EXIT_USAGE;
      if (!kiln_runner_parse_count(value, INT32_MAX, &runner->bench_runs)) {
        kiln_runner_error("--bench expects a positive integer, got '%s'", value);
        return KILN_RUNNER_EXIT_USAGE;
      }
    } else if (strcmp(arg, "--resident") == 0) {
      runner->resident = 1;
    } else if ((matched = kiln_runner_match_option(argc, argv, &i, "--threads", &value)) != 0) {
      if (matched < 0)
        return KILN_RUNNER_EXIT_USAGE;
      int64_t threads = 0;
      if (!kiln_runner_parse_count(value, INT32_MAX, &threads)) {
        kiln_runner_error("--threads expects a positive integer, got '%s'", value);
        return KILN_RUNNER_EXIT_USAGE;
      }
      runner->num_threads = (int32_t)threads;
    } else {
      kiln_runner_error("unknown option '%s' (see --help)", arg);
      return KILN_RUNNER_EXIT_USAGE;
    }
  }

  /* Positional files fill the inputs not given by name, in order. */
  const kiln_model_info_t *model = runner->model;
  int next = 0;
  for (int p = 0; p < runner->num_positional; ++p) {
    while (next < model->num_inputs && runner->input_paths[next] != NULL)
      ++next;
    if (next >= model->num_inputs) {
      kiln_runner_error("too many input files: no input of model '%s' is left for '%s' (it has "
                        "%d input%s)",
                        kiln_runner_model_name(model), runner->positional[p],
                        (int)model->num_inputs, model->num_inputs == 1 ? "" : "s");
      return KILN_RUNNER_EXIT_USAGE;
    }
    runner->input_paths[next++] = runner->positional[p];
  }

  if (runner->bench_runs == 0) {
    for (int i = 0; i < model->num_inputs; ++i) {
      if (runner->input_paths[i] == NULL) {
        char dims[KILN_RUNNER_DIMS_BUFFER_SIZE];
        const kiln_tensor_info_t *input = &model->inputs[i];
        kiln_runner_error("missing input '%s' (%s %s): give it with --input %s=FILE.npy or as "
                          "a positional file",
                          input->name, kiln_dtype_name(input->dtype),
                          kiln_runner_format_dims(input->rank, input->dims, dims, sizeof(dims)),
                          input->name);
        return KILN_RUNNER_EXIT_USAGE;
      }
    }
  }
  return -1;
}

/* ---- inputs ---------------------------------------------------------------------------- */

static int kiln_runner_load_input(kiln_runner *runner, int index) {
  const kiln_tensor_info_t *input = &runner->model->inputs[index];
  const char *path = runner->input_paths[index];
  kiln_npy_array_t *array = &runner->input_arrays[index];
  kiln_status_t status = kiln_npy_read(path, array);
  if (status != NULL) {
    kiln_runner_error("input '%s': %s", input->name, kiln_status_message(status));
    kiln_status_free(status);
    return 0;
  }
  /* NumPy has no bfloat16: bfloat16 inputs come as uint16 bit patterns ('<u2'). */
  if (array->dtype == KILN_DTYPE_U16 && input->dtype == KILN_DTYPE_BF16) {
    array->dtype = KILN_DTYPE_BF16;
  }
  if (array->dtype != input->dtype) {
    kiln_runner_error("input '%s' from '%s': dtype %s does not match the model's %s", input->name,
                      path, kiln_dtype_name(array->dtype), kiln_dtype_name(input->dtype));
    return 0;
  }
  int same_shape = array->rank == input->rank;
  for (int32_t d = 0; same_shape && d < input->rank; ++d) {
    same_shape = array->dims[d] == input->dims[d];
  }
  if (!same_shape) {
    char got[KILN_RUNNER_DIMS_BUFFER_SIZE], want[KILN_RUNNER_DIMS_BUFFER_SIZE];
    kiln_runner_error("input '%s' from '%s': shape %s does not match the model's %s", input->name,
                      path, kiln_runner_format_dims(array->rank, array->dims, got, sizeof(got)),
                      kiln_runner_format_dims(input->rank, input->dims, want, sizeof(want)));
    return 0;
  }
  return 1;
}

static uint64_t kiln_runner_next_random(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x;
}

/* float -> IEEE binary16, rounding to nearest even. */
static uint16_t kiln_runner_f32_to_f16(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t exponent = (bits >> 23) & 0xffu;
  uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xffu)
    return (uint16_t)(sign | 0x7c00u | (mantissa != 0 ? 0x200u : 0u));
  int32_t half_exponent = (int32_t)exponent - 127 + 15;
  if (half_exponent >= 31)
    return (uint16_t)(sign | 0x7c00u);
  if (half_exponent <= 0) {
    if (half_exponent < -10)
      return (uint16_t)sign;
    mantissa |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - half_exponent);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (half & 1u) != 0))
      ++half;
    return (uint16_t)(sign | half);
  }
  uint32_t half = ((uint32_t)half_exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u) != 0))
    ++half; /* may carry: fine */
  return (uint16_t)(sign | half);
}

/* float -> bfloat16, rounding to nearest even. */
static uint16_t kiln_runner_f32_to_bf16(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((bits >> 16) | 0x40u); /* NaN */
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}

/* Uniform in [-1, 1) with `bits` bits of precision, so that the value is exact in the type. */
static double kiln_runner_random_unit(uint64_t *state, int bits) {
  uint64_t k = kiln_runner_next_random(state) >> (64 - bits);
  return (double)k / (double)(UINT64_C(1) << (bits - 1)) - 1.0;
}

static void kiln_runner_fill_random(void *data, int32_t dtype, int64_t count, uint64_t *state) {
  for (int64_t i = 0; i < count; ++i) {
    uint64_t r;
    switch (dtype) {
    case KILN_DTYPE_F32:
      ((float *)data)[i] = (float)kiln_runner_random_unit(state, 24);
      break;
    case KILN_DTYPE_F64:
      ((double *)data)[i] = kiln_runner_random_unit(state, 53);
      break;
    case KILN_DTYPE_F16:
      ((uint16_t *)data)[i] = kiln_runner_f32_to_f16((float)kiln_runner_random_unit(state, 11));
      break;
    case KILN_DTYPE_BF16:
      ((uint16_t *)data)[i] = kiln_runner_f32_to_bf16((float)kiln_runner_random_unit(state, 8));
      break;
    case KILN_DTYPE_BOOL:
      ((uint8_t *)data)[i] = (uint8_t)(kiln_runner_next_random(state) >> 63);
      break;
    case KILN_DTYPE_I8:
      ((int8_t *)data)[i] = (int8_t)((int64_t)(kiln_runner_next_random(state) % 20) - 10);
      break;
    case KILN_DTYPE_I16:
      ((int16_t *)data)[i] = (int16_t)((int64_t)(kiln_runner_next_random(state) % 20) - 10);
      break;
    case KILN_DTYPE_I32:
      ((int32_t *)data)[i] = (int32_t)((int64_t)(kiln_runner_next_random(state) % 20) - 10);
      break;
    case KILN_DTYPE_I64:
      ((int64_t *)data)[i] = (int64_t)(kiln_runner_next_random(state) % 20) - 10;
      break;
    /* Unsigned types get [0, 10): negative values would wrap around. */
    case KILN_DTYPE_U8:
      r = kiln_runner_next_random(state) % 10;
      ((uint8_t *)data)[i] = (uint8_t)r;
      break;
    case KILN_DTYPE_U16:
      r = kiln_runner_next_random(state) % 10;
      ((uint16_t *)data)[i] = (uint16_t)r;
      break;
    case KILN_DTYPE_U32:
      r = kiln_runner_next_random(state) % 10;
      ((uint32_t *)data)[i] = (uint32_t)r;
      break;
    case KILN_DTYPE_U64:
      ((uint64_t *)data)[i] = kiln_runner_next_random(state) % 10;
      break;
    default:
      return;
    }
  }
}

static int kiln_runner_generate_input(kiln_runner *runner, int index, uint64_t *state) {
  const kiln_tensor_info_t *input = &runner->model->inputs[index];
  kiln_npy_array_t *array = &runner->input_arrays[index];
  array->data = kiln_aligned_alloc(input->byte_size, KILN_RUNNER_BUFFER_ALIGNMENT);
  if (array->data == NULL) {
    kiln_runner_error("cannot allocate %lld bytes for input '%s'", (long long)input->byte_size,
                      input->name);
    return 0;
  }
  array->dtype = input->dtype;
  array->rank = input->rank;
  for (int32_t d = 0; d < input->rank; ++d)
    array->dims[d] = input->dims[d];
  array->byte_size = input->byte_size;
  kiln_runner_fill_random(array->data, input->dtype,
                          input->byte_size / kiln_dtype_size(input->dtype), state);
  return 1;
}

/* ---- running --------------------------------------------------------------------------- */

/* Creates `dir` and any missing parent directories, as `mkdir -p` does. */
static int kiln_runner_prepare_output_dir(const char *dir) {
  struct stat info;
  if (stat(dir, &info) == 0) {
    if (S_ISDIR(info.st_mode))
      return 1;
    kiln_runner_error("output directory '%s' exists and is not a directory", dir);
    return 0;
  }
  size_t length = strlen(dir);
  char *path = (char *)malloc(length + 1);
  if (path == NULL) {
    kiln_runner_error("out of memory");
    return 0;
  }
  memcpy(path, dir, length + 1);
  /* Each prefix ending before a '/' (but the leading one), then the whole path. */
  for (size_t end = 1; end <= length; ++end) {
    if (end < length && path[end] != '/')
      continue;
    char saved = path[end];
    path[end] = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
      kiln_runner_error("cannot create output directory '%s': %s", path, strerror(errno));
      free(path);
      return 0;
    }
    path[end] = saved;
  }
  free(path);
  if (stat(dir, &info) != 0 || !S_ISDIR(info.st_mode)) {
    kiln_runner_error("cannot create output directory '%s': a part of it is not a directory", dir);
    return 0;
  }
  return 1;
}

static int32_t kiln_runner_call(kiln_runner *runner) {
  kiln_run_options_t options;
  memset(&options, 0, sizeof(options));
  options.struct_size = (uint32_t)sizeof(options);
  options.num_threads = runner->num_threads;
  runner->error_message[0] = '\0';
  options.error_message = runner->error_message;
  options.error_message_size = (int64_t)sizeof(runner->error_message);
  const void *const *inputs = runner->resident ? runner->call_inputs : runner->input_buffers;
  void *const *outputs = runner->resident ? runner->call_outputs : runner->output_buffers;
  if (runner->state_entry != NULL) {
    return runner->state_entry(inputs, outputs, runner->state, runner->scratch, &options);
  }
  return runner->model->entry(inputs, outputs, runner->scratch, &options);
}

/* The GPU each input and output of the chosen entry point may be on (-1: host memory), or
 * NULL for a model compiled before ABI 4. */
static const kiln_entry_buffers_t *kiln_runner_buffers(const kiln_runner *runner) {
  const kiln_model_info_t *whole = runner->whole;
  if (whole->abi_version < 4 || whole->buffers == NULL)
    return NULL;
  return &whole->buffers[runner->entry_index];
}

/* The runner's handle on GPU `gpu`, opened on first use; NULL after printing an error. */
static kiln_gpu_t *kiln_runner_gpu(kiln_runner *runner, int32_t gpu) {
  if (gpu >= KILN_RUNNER_MAX_GPUS) {
    kiln_runner_error("--resident: /gpu:%d is past the GPUs Kiln handles (/gpu:0 to /gpu:%d)",
                      (int)gpu, KILN_RUNNER_MAX_GPUS - 1);
    return NULL;
  }
  if (runner->gpus[gpu] != NULL)
    return runner->gpus[gpu];
  kiln_status_t status = kiln_gpu_open(gpu, &runner->gpus[gpu]);
  if (status != NULL) {
    kiln_runner_error("--resident: %s", kiln_status_message(status));
    kiln_status_free(status);
    return NULL;
  }
  return runner->gpus[gpu];
}

/* Device memory of `bytes` (at least 1) on GPU `gpu`, holding `host`'s bytes when it is not
 * NULL; 0 after printing an error naming `kind` `name`. */
static kiln_gpu_ptr_t kiln_runner_device_buffer(kiln_runner *runner, int32_t gpu, const char *kind,
                                                const char *name, const void *host, int64_t bytes) {
  kiln_gpu_t *device = kiln_runner_gpu(runner, gpu);
  if (device == NULL)
    return 0;
  kiln_gpu_ptr_t buffer = 0;
  kiln_status_t status = kiln_gpu_alloc(device, bytes > 0 ? (size_t)bytes : 1, &buffer);
  if (status == NULL && host != NULL) {
    status = kiln_gpu_copy_to_device(device, buffer, host, (size_t)bytes, NULL);
    if (status == NULL)
      status = kiln_gpu_synchronize(device);
  }
  if (status != NULL) {
    kiln_runner_error("--resident: %s '%s' on /gpu:%d: %s", kind, name, (int)gpu,
                      kiln_status_message(status));
    kiln_status_free(status);
    kiln_gpu_free(device, buffer);
    return 0;
  }
  return buffer;
}

/* --resident on a model that reads and writes all its inputs and outputs on the host is a
 * usage error, found before any device work. */
static int kiln_runner_may_be_resident(const kiln_runner *runner) {
  const kiln_model_info_t *model = runner->model;
  const kiln_entry_buffers_t *buffers = kiln_runner_buffers(runner);
  for (int i = 0; buffers != NULL && i < model->num_inputs; ++i)
    if (buffers->input_gpus != NULL && buffers->input_gpus[i] >= 0)
      return 1;
  for (int i = 0; buffers != NULL && i < model->num_outputs; ++i)
    if (buffers->output_gpus != NULL && buffers->output_gpus[i] >= 0)
      return 1;
  kiln_runner_error("--resident: model '%s' reads and writes all its inputs and outputs on "
                    "the host (no GPU partition alone uses one)%s",
                    kiln_runner_model_name(model),
                    buffers == NULL ? "; it was compiled before Kiln's ABI 4" : "");
  return 0;
}

/* --resident: puts the inputs and outputs the model allows on its GPU. */
static int kiln_runner_place_on_gpus(kiln_runner *runner) {
  const kiln_model_info_t *model = runner->model;
  const kiln_entry_buffers_t *buffers = kiln_runner_buffers(runner);
  for (int i = 0; buffers != NULL && i < model->num_inputs; ++i) {
    runner->call_inputs[i] = runner->input_buffers[i];
    int32_t gpu = buffers->input_gpus != NULL ? buffers->input_gpus[i] : -1;
    if (gpu < 0)
      continue;
    const kiln_tensor_info_t *input = &model->inputs[i];
    runner->device_inputs[i] = kiln_runner_device_buffer(
        runner, gpu, "input", input->name, runner->input_buffers[i], input->byte_size);
    if (runner->device_inputs[i] == 0)
      return 0;
    runner->call_inputs[i] = (const void *)(uintptr_t)runner->device_inputs[i];
  }
  for (int i = 0; buffers != NULL && i < model->num_outputs; ++i) {
    runner->call_outputs[i] = runner->output_buffers[i];
    int32_t gpu = buffers->output_gpus != NULL ? buffers->output_gpus[i] : -1;
    if (gpu < 0)
      continue;
    const kiln_tensor_info_t *output = &model->outputs[i];
    runner->device_outputs[i] =
        kiln_runner_device_buffer(runner, gpu, "output", output->name, NULL, output->byte_size);
    if (runner->device_outputs[i] == 0)
      return 0;
    runner->call_outputs[i] = (void *)(uintptr_t)runner->device_outputs[i];
  }
  return 1;
}

/* --resident: reads the outputs on a GPU back into their host buffers. */
static int kiln_runner_read_from_gpus(kiln_runner *runner) {
  const kiln_model_info_t *model = runner->model;
  const kiln_entry_buffers_t *buffers = kiln_runner_buffers(runner);
  for (int i = 0; i < model->num_outputs; ++i) {
    if (runner->device_outputs[i] == 0)
      continue;
    kiln_gpu_t *device = runner->gpus[buffers->output_gpus[i]];
    kiln_status_t status =
        kiln_gpu_copy_to_host(device, runner->output_buffers[i], runner->device_outputs[i],
                              (size_t)model->outputs[i].byte_size, NULL);
    if (status == NULL)
      status = kiln_gpu_synchronize(device);
    if (status != NULL) {
      kiln_runner_error("--resident: output '%s': %s", model->outputs[i].name,
                        kiln_status_message(status));
      kiln_status_free(status);
      return 0;
    }
  }
  return 1;
}

/* Frees the device buffers of --resident and closes the runner's GPUs. */
static void kiln_runner_release_gpus(kiln_runner *runner) {
  const kiln_model_info_t *model = runner->model;
  const kiln_entry_buffers_t *buffers = kiln_runner_buffers(runner);
  for (int i = 0; runner->device_inputs != NULL && i < model->num_inputs; ++i)
    if (runner->device_inputs[i] != 0)
      kiln_gpu_free(runner->gpus[buffers->input_gpus[i]], runner->device_inputs[i]);
  for (int i = 0; runner->device_outputs != NULL && i < model->num_outputs; ++i)
    if (runner->device_outputs[i] != 0)
      kiln_gpu_free(runner->gpus[buffers->output_gpus[i]], runner->device_outputs[i]);
  for (int g = 0; g < KILN_RUNNER_MAX_GPUS; ++g)
    kiln_gpu_close(runner->gpus[g]);
  free(runner->device_inputs);
  free(runner->device_outputs);
  free((void *)runner->call_inputs);
  free(runner->call_outputs);
}

static int kiln_runner_check_call(const kiln_runner *runner, int32_t code) {
  if (code == KILN_STATUS_OK)
    return 1;
  const char *name = kiln_status_code_string((kiln_status_code_t)code);
  const char *model = kiln_runner_model_name(runner->model);
  if (strcmp(name, "UNKNOWN") == 0) {
    kiln_runner_error("model '%s' failed: UNKNOWN (%d)", model, (int)code);
  } else if (runner->error_message[0] != '\0') {
    kiln_runner_error("model '%s' failed: %s: %s", model, name, runner->error_message);
  } else {
    kiln_runner_error("model '%s' failed: %s", model, name);
  }
  return 0;
}

static double kiln_runner_now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

static int kiln_runner_compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The dims output `i` was written at, in `actual` (KILN_MAX_RANK entries): its actual dims
 * (read from its shape output, checked against its bound) when its size depends on values,
 * else its static dims. NULL after printing an error. */
static const int64_t *kiln_runner_output_dims(kiln_runner *runner, int i, int64_t *actual) {
  const kiln_model_info_t *model = runner->model;
  const kiln_tensor_info_t *output = &model->outputs[i];
  if (runner->whole->abi_version < 5 || !output->has_shape_output) {
    for (int32_t d = 0; d < output->rank; ++d)
      actual[d] = output->dims[d];
    return actual;
  }
  const int64_t *shape = (const int64_t *)runner->output_buffers[output->shape_output];
  for (int32_t d = 0; d < output->rank; ++d) {
    if (shape[d] < 0 || shape[d] > output->dims[d]) {
      kiln_runner_error("output '%s': its actual dimension %d (%lld) is outside its bound %lld",
                        output->name, (int)d, (long long)shape[d], (long long)output->dims[d]);
      return NULL;
    }
    actual[d] = shape[d];
  }
  return actual;
}

/* Writes every output to runner->output_dir. */
static int kiln_runner_write_outputs(kiln_runner *runner) {
  const kiln_model_info_t *model = runner->model;
  const char *dir = runner->output_dir;
  size_t dir_length = strlen(dir);
  int need_slash = dir[dir_length - 1] != '/';
  for (int i = 0; i < model->num_outputs; ++i) {
    const kiln_tensor_info_t *output = &model->outputs[i];
    size_t name_length = strlen(output->name);
    free(runner->output_path);
    runner->output_path = (char *)malloc(dir_length + 1 + name_length + sizeof(".npy"));
    if (runner->output_path == NULL) {
      kiln_runner_error("out of memory");
      return KILN_RUNNER_EXIT_FAILURE;
    }
    char *p = runner->output_path;
    memcpy(p, dir, dir_length);
    p += dir_length;
    if (need_slash)
      *p++ = '/';
    for (size_t c = 0; c < name_length; ++c) {
      char ch = output->name[c];
      *p++ = (ch == '/' || ch == ':') ? '_' : ch;
    }
    memcpy(p, ".npy", sizeof(".npy"));
    int64_t actual[KILN_MAX_RANK];
    const int64_t *dims = kiln_runner_output_dims(runner, i, actual);
    if (dims == NULL)
      return KILN_RUNNER_EXIT_FAILURE;
    kiln_status_t status = kiln_npy_write(runner->output_path, output->dtype, output->rank, dims,
                                          runner->output_buffers[i]);
    if (status != NULL) {
      kiln_runner_error("output '%s': %s", output->name, kiln_status_message(status));
      kiln_status_free(status);
      return KILN_RUNNER_EXIT_USAGE;
    }
  }
  return KILN_RUNNER_EXIT_OK;
}

static int kiln_runner_run(kiln_runner *runner, int argc, char **argv) {
  const kiln_model_info_t *model = runner->model;
  int num_inputs = model->num_inputs, num_outputs = model->num_outputs;

  /* +1: never ask calloc for 0 bytes. */
  runner->input_paths = (const char **)calloc((size_t)num_inputs + 1, sizeof(const char *));
  runner->input_arrays =
      (kiln_npy_array_t *)calloc((size_t)num_inputs + 1, sizeof(kiln_npy_array_t));
  runner->input_buffers = (const void **)calloc((size_t)num_inputs + 1, sizeof(const void *));
  runner->positional =
      (const char **)calloc((size_t)(argc > 0 ? argc : 0) + 1, sizeof(const char *));
  runner->output_buffers = (void **)calloc((size_t)num_outputs + 1, sizeof(void *));
  if (runner->input_paths == NULL || runner->input_arrays == NULL ||
      runner->input_buffers == NULL || runner->positional == NULL ||
      runner->output_buffers == NULL) {
    kiln_runner_error("out of memory");
    return KILN_RUNNER_EXIT_FAILURE;
  }

  int exit_code = kiln_runner_parse_args(runner, argc, argv);
  if (exit_code >= 0)
    return exit_code;

  uint64_t random_state = KILN_RUNNER_SEED;
  for (int i = 0; i < num_inputs; ++i) {
    if (runner->input_paths[i] != NULL) {
      if (!kiln_runner_load_input(runner, i))
        return KILN_RUNNER_EXIT_USAGE;
    } else if (!kiln_runner_generate_input(runner, i, &random_state)) {
      return KILN_RUNNER_EXIT_FAILURE;
    }
    runner->input_buffers[i] = runner->input_arrays[i].data;
  }

  for (int i = 0; i < num_outputs; ++i) {
    const kiln_tensor_info_t *output = &model->outputs[i];
    runner->output_buffers[i] = kiln_aligned_alloc(output->byte_size, KILN_RUNNER_BUFFER_ALIGNMENT);
    if (runner->output_buffers[i] == NULL) {
      kiln_runner_error("cannot allocate %lld bytes for output '%s'", (long long)output->byte_size,
                        output->name);
      return KILN_RUNNER_EXIT_FAILURE;
    }
    memset(runner->output_buffers[i], 0, (size_t)output->byte_size);
  }
  int64_t scratch_alignment =
      model->scratch_alignment > 0 ? model->scratch_alignment : KILN_SCRATCH_ALIGNMENT;
  runner->scratch = kiln_aligned_alloc(model->scratch_bytes, scratch_alignment);
  if (runner->scratch == NULL) {
    kiln_runner_error("cannot allocate %lld bytes of scratch memory",
                      (long long)model->scratch_bytes);
    return KILN_RUNNER_EXIT_FAILURE;
  }
  if (runner->state_entry != NULL) {
    /* The state starts zeroed, as the ABI asks of a new state buffer. */
    const kiln_model_info_t *whole = runner->whole;
    int64_t alignment =
        whole->state_alignment > 0 ? whole->state_alignment : KILN_SCRATCH_ALIGNMENT;
    runner->state = kiln_aligned_alloc(whole->state_bytes, alignment);
    if (runner->state == NULL) {
      kiln_runner_error("cannot allocate %lld bytes of state", (long long)whole->state_bytes);
      return KILN_RUNNER_EXIT_FAILURE;
    }
    if (whole->state_bytes > 0)
      memset(runner->state, 0, (size_t)whole->state_bytes);
  }
  if (runner->bench_runs > 0) {
    runner->times_ms = (double *)malloc((size_t)runner->bench_runs * sizeof(double));
    if (runner->times_ms == NULL) {
      kiln_runner_error("out of memory for %lld benchmark runs", (long long)runner->bench_runs);
      return KILN_RUNNER_EXIT_FAILURE;
    }
  }
  /* Create the output directory before running, so a long benchmark cannot fail at the end. */
  if (runner->output_dir != NULL && !kiln_runner_prepare_output_dir(runner->output_dir)) {
    return KILN_RUNNER_EXIT_USAGE;
  }
  if (runner->resident && !kiln_runner_may_be_resident(runner))
    return KILN_RUNNER_EXIT_USAGE;
  if (runner->resident) {
    runner->device_inputs =
        (kiln_gpu_ptr_t *)calloc((size_t)num_inputs + 1, sizeof(kiln_gpu_ptr_t));
    runner->device_outputs =
        (kiln_gpu_ptr_t *)calloc((size_t)num_outputs + 1, sizeof(kiln_gpu_ptr_t));
    runner->call_inputs = (const void **)calloc((size_t)num_inputs + 1, sizeof(const void *));
    runner->call_outputs = (void **)calloc((size_t)num_outputs + 1, sizeof(void *));
    if (runner->device_inputs == NULL || runner->device_outputs == NULL ||
        runner->call_inputs == NULL || runner->call_outputs == NULL) {
      kiln_runner_error("out of memory");
      return KILN_RUNNER_EXIT_FAILURE;
    }
    if (!kiln_runner_place_on_gpus(runner))
      return KILN_RUNNER_EXIT_FAILURE;
  }

  /* The first call is the result in normal mode and the warm-up in benchmark mode. */
  if (!kiln_runner_check_call(runner, kiln_runner_call(runner)))
    return KILN_RUNNER_EXIT_FAILURE;
  for (int64_t r = 0; r < runner->bench_runs; ++r) {
    double start = kiln_runner_now_ms();
    int32_t code = kiln_runner_call(runner);
    runner->times_ms[r] = kiln_runner_now_ms() - start;
    if (!kiln_runner_check_call(runner, code))
      return KILN_RUNNER_EXIT_FAILURE;
  }
  if (runner->resident && !kiln_runner_read_from_gpus(runner))
    return KILN_RUNNER_EXIT_FAILURE;

  if (runner->output_dir != NULL) {
    exit_code = kiln_runner_write_outputs(runner);
    if (exit_code != KILN_RUNNER_EXIT_OK)
      return exit_code;
  }
  for (int i = 0; i < num_outputs; ++i) {
    const kiln_tensor_info_t *output = &model->outputs[i];
    char dims[KILN_RUNNER_DIMS_BUFFER_SIZE];
    int64_t actual[KILN_MAX_RANK];
    const int64_t *shape = kiln_runner_output_dims(runner, i, actual);
    if (shape == NULL)
      return KILN_RUNNER_EXIT_FAILURE;
    printf("%s %s %s\n", output->name, kiln_dtype_name(output->dtype),
           kiln_runner_format_dims(output->rank, shape, dims, sizeof(dims)));
  }
  if (runner->bench_runs > 0) {
    int64_t n = runner->bench_runs;
    qsort(runner->times_ms, (size_t)n, sizeof(double), kiln_runner_compare_doubles);
    double median = n % 2 == 1 ? runner->times_ms[n / 2]
                               : (runner->times_ms[n / 2 - 1] + runner->times_ms[n / 2]) / 2.0;
    printf("bench: runs=%lld median_ms=%.4f min_ms=%.4f\n", (long long)n, median,
           runner->times_ms[0]);
  }
  return KILN_RUNNER_EXIT_OK;
}

/* Finds the --entry option before the others are parsed (it decides what the inputs are)
 * and points the runner at that entry point. Returns -1 to continue, or an exit code. */
static int kiln_runner_choose_entry(kiln_runner *runner, int argc, char **argv) {
  const kiln_model_info_t *whole = runner->whole;
  const char *name = NULL;
  for (int i = 1; i < argc; ++i) {
    if (argv[i] == NULL)
      continue;
    if (strcmp(argv[i], "--") == 0)
      break;
    const char *value = NULL;
    int matched = kiln_runner_match_option(argc, argv, &i, "--entry", &value);
    if (matched < 0)
      return KILN_RUNNER_EXIT_USAGE;
    if (matched > 0)
      name = value;
  }
  int32_t num_entries = kiln_runner_num_entries(whole);
  if (num_entries <= 0) {
    if (name != NULL && strcmp(name, "run") != 0) {
      kiln_runner_error("model '%s' has no entry point '%s'; its one entry point is 'run'",
                        kiln_runner_model_name(whole), name);
      return KILN_RUNNER_EXIT_USAGE;
    }
    return -1;
  }
  int32_t chosen = 0;
  if (name != NULL) {
    chosen = -1;
    for (int32_t e = 0; e < num_entries; ++e) {
      if (whole->entries[e].name != NULL && strcmp(whole->entries[e].name, name) == 0) {
        chosen = e;
      }
    }
    if (chosen < 0) {
      char names[512];
      size_t used = 0;
      names[0] = '\0';
      for (int32_t e = 0; e < num_entries && used < sizeof(names); ++e) {
        int n = snprintf(names + used, sizeof(names) - used, "%s'%s'", e > 0 ? ", " : "",
                         whole->entries[e].name != NULL ? whole->entries[e].name : "");
        if (n < 0)
          break;
        used += (size_t)n;
      }
      kiln_runner_error("model '%s' has no entry point '%s'; it has %s",
                        kiln_runner_model_name(whole), name, names);
      return KILN_RUNNER_EXIT_USAGE;
    }
  }
  const kiln_entry_info_t *entry = &whole->entries[chosen];
  runner->entry_index = chosen;
  /* The first entry point of ABI 1's fields runs as before. */
  if (chosen == 0 && whole->entry != NULL)
    return -1;
  if (entry->run == NULL || entry->num_reads < 0 || entry->num_writes < 0 ||
      whole->state_bytes < 0) {
    kiln_runner_error("model '%s' is malformed: bad entry point '%s'",
                      kiln_runner_model_name(whole), entry->name != NULL ? entry->name : "");
    return KILN_RUNNER_EXIT_FAILURE;
  }
  runner->entry_view = *whole;
  runner->entry_view.num_inputs = entry->num_inputs;
  runner->entry_view.num_outputs = entry->num_outputs;
  runner->entry_view.inputs = entry->inputs;
  runner->entry_view.outputs = entry->outputs;
  runner->entry_view.scratch_bytes = entry->scratch_bytes;
  runner->entry_view.entry = NULL;
  runner->model = &runner->entry_view;
  runner->state_entry = entry->run;
  return -1;
}

int kiln_runner_main(int argc, char **argv, const kiln_model_info_t *model) {
  int exit_code = -1;
  kiln_runner runner;
  memset(&runner, 0, sizeof(runner));
  runner.model = model;
  runner.whole = model;
  if (model == NULL) {
    kiln_runner_error("no model to run (the model info or its entry point is NULL)");
    exit_code = KILN_RUNNER_EXIT_FAILURE;
  } else {
    exit_code = kiln_runner_choose_entry(&runner, argv != NULL ? argc : 0, argv);
  }
  if (exit_code < 0 && !kiln_runner_check_model(runner.model, runner.state_entry != NULL)) {
    exit_code = KILN_RUNNER_EXIT_FAILURE;
  } else if (exit_code < 0) {
    model = runner.model;
    runner.prog =
        (argc > 0 && argv != NULL && argv[0] != NULL) ? argv[0] : kiln_runner_model_name(model);
    exit_code = kiln_runner_run(&runner, argv != NULL ? argc : 0, argv);
    kiln_runner_release_gpus(&runner);

    if (runner.input_arrays != NULL) {
      for (int i = 0; i < model->num_inputs; ++i)
        kiln_npy_array_free(&runner.input_arrays[i]);
    }
    free(runner.input_arrays);
    free(runner.input_paths);
    free((void *)runner.input_buffers);
    free((void *)runner.positional);
    if (runner.output_buffers != NULL) {
      for (int i = 0; i < model->num_outputs; ++i)
        kiln_aligned_free(runner.output_buffers[i]);
    }
    free(runner.output_buffers);
    kiln_aligned_free(runner.scratch);
    kiln_aligned_free(runner.state);
    free(runner.times_ms);
    free(runner.output_path);
  }
  fflush(stdout);
  fflush(stderr);
  return exit_code;
}
