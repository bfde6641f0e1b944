// Runs a model compiled with `kiln compile ... --emit obj -o mlp` from C++, driven by the
// model's info table (mlp_info) rather than the header's macros.
//
//   c++ -std=c++17 -I runtime/include -I . examples/embed/main.cpp mlp.o
//       -L build/lib -lkiln_kernels -lkiln_runtime -lm -o mlp_cpp
//   ./mlp_cpp examples/mlp/x.npy probs.npy
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "kiln/runtime/api.h"
#include "mlp.h"

namespace {

struct AlignedDeleter {
  void operator()(void *p) const { kiln_aligned_free(p); }
};

struct Npy {
  kiln_npy_array_t array{};
  ~Npy() { kiln_npy_array_free(&array); }
};

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s INPUT.npy OUTPUT.npy\n", argv[0]);
    return 2;
  }
  const kiln_model_info_t &info = mlp_info;
  Npy x;
  if (kiln_status_t s = kiln_npy_read(argv[1], &x.array)) {
    std::fprintf(stderr, "error: %s\n", kiln_status_message(s));
    kiln_status_free(s);
    return 2;
  }
  const kiln_tensor_info_t &in = info.inputs[0];
  if (x.array.dtype != in.dtype || x.array.byte_size != in.byte_size) {
    std::fprintf(stderr, "error: %s does not match input %s\n", argv[1], in.name);
    return 2;
  }

  std::vector<std::vector<unsigned char>> outputs(info.num_outputs);
  std::vector<void *> outputPointers;
  for (int i = 0; i < info.num_outputs; ++i) {
    outputs[i].resize(info.outputs[i].byte_size);
    outputPointers.push_back(outputs[i].data());
  }
  std::unique_ptr<void, AlignedDeleter> scratch(
      kiln_aligned_alloc(info.scratch_bytes, info.scratch_alignment));
  const void *inputs[] = {x.array.data};
  // All cores; a failed call describes what went wrong in `message`.
  char message[256] = "";
  kiln_run_options_t options{sizeof(kiln_run_options_t), 0, message, sizeof message};
  if (int32_t code = info.entry(inputs, outputPointers.data(), scratch.get(), &options)) {
    std::fprintf(stderr, "error: %s failed: %s%s%s\n", info.name,
                 kiln_status_code_string(static_cast<kiln_status_code_t>(code)),
                 message[0] ? ": " : "", message);
    return 1;
  }
  const kiln_tensor_info_t &out = info.outputs[0];
  if (kiln_status_t s = kiln_npy_write(argv[2], out.dtype, out.rank, out.dims, outputs[0].data())) {
    std::fprintf(stderr, "error: %s\n", kiln_status_message(s));
    kiln_status_free(s);
    return 1;
  }
  std::printf("%s: %s, %lld bytes of scratch, written to %s\n", out.name,
              kiln_dtype_name(out.dtype), static_cast<long long>(info.scratch_bytes), argv[2]);
  return 0;
}
