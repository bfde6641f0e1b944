//===- RunnerArgsFuzz.cpp - the command line of compiled executables -----------===//
//
// One input is a command line, its arguments separated by NUL bytes, given to
// kiln_runner_main (the main() of every executable Kiln compiles) for a model with two
// entry points (ABI 3): "twice", the first, with one float32 [4] input "x" and one output "y"
// (y = 2x), and "accumulate", which adds its input to a float32 [4] of state and returns
// the sum. It must run or exit with a usage error, never crash. The process works in a fresh
// directory holding x.npy (float32 [4]), bad.npy (int32 [4]) and garbage.npy; arguments that name a
// path outside it (holding '/') are skipped, so the runner writes nowhere else, as are --bench
// counts over 1000.
//
//===----------------------------------------------------------------------------===//
#include "kiln/runtime/abi.h"
#include "kiln/runtime/npy.h"
#include "kiln/runtime/runner.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

const int64_t kDims[1] = {4};
const kiln_tensor_info_t kInputs[1] = {{"x:0", "input", KILN_DTYPE_F32, 1, kDims, 16}};
const kiln_tensor_info_t kOutputs[1] = {{"y:0", "", KILN_DTYPE_F32, 1, kDims, 16}};

int32_t Twice(const void *const *inputs, void *const *outputs, void *, const kiln_run_options_t *) {
  const float *x = static_cast<const float *>(inputs[0]);
  float *y = static_cast<float *>(outputs[0]);
  for (int i = 0; i < 4; ++i)
    y[i] = 2 * x[i];
  return KILN_STATUS_OK;
}

int32_t TwiceWithState(const void *const *inputs, void *const *outputs, void *, void *scratch,
                       const kiln_run_options_t *options) {
  return Twice(inputs, outputs, scratch, options);
}

int32_t Accumulate(const void *const *inputs, void *const *outputs, void *state, void *,
                   const kiln_run_options_t *) {
  const float *x = static_cast<const float *>(inputs[0]);
  float *sum = static_cast<float *>(state), *y = static_cast<float *>(outputs[0]);
  for (int i = 0; i < 4; ++i)
    y[i] = sum[i] += x[i];
  return KILN_STATUS_OK;
}

const int32_t kState[1] = {0};
const kiln_state_info_t kStates[1] = {{{"sum", "", KILN_DTYPE_F32, 1, kDims, 16}, 0}};
const kiln_entry_info_t kEntries[2] = {
    {"twice", 1, 1, kInputs, kOutputs, 0, 0, nullptr, nullptr, 0, TwiceWithState},
    {"accumulate", 1, 1, kInputs, kOutputs, 1, 1, kState, kState, 0, Accumulate}};

const kiln_model_info_t kModel = {
    KILN_ABI_VERSION, "twice", 1,  1, kInputs, kOutputs, 0, 0, Twice, 2, 1,
    kEntries,         kStates, 64, 64};

void prepareDirectory() {
  static bool done = false;
  if (done)
    return;
  done = true;
  char pattern[] = "/tmp/kiln-fuzz-runner-XXXXXX";
  if (!mkdtemp(pattern) || chdir(pattern) != 0)
    std::abort();
  float x[4] = {1, 2, 3, 4};
  int32_t bad[4] = {1, 2, 3, 4};
  if (kiln_npy_write("x.npy", KILN_DTYPE_F32, 1, kDims, x) ||
      kiln_npy_write("bad.npy", KILN_DTYPE_I32, 1, kDims, bad))
    std::abort();
  FILE *garbage = std::fopen("garbage.npy", "wb");
  std::fputs("\x93NUMPY\x01\x00garbage", garbage);
  std::fclose(garbage);
}

/// Standard output and error go to /dev/null while it lives: the runner prints outputs and
/// errors, which a fuzzer (whose own reports go to standard error) does not need.
class Silence {
public:
  Silence() {
    std::fflush(stdout);
    std::fflush(stderr);
    null = open("/dev/null", O_WRONLY);
    out = dup(1);
    err = dup(2);
    dup2(null, 1);
    dup2(null, 2);
  }
  ~Silence() {
    std::fflush(stdout);
    std::fflush(stderr);
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
    close(null);
  }

private:
  int null, out, err;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  prepareDirectory();
  std::vector<std::string> args = {"twice"};
  std::string current;
  for (size_t i = 0; i <= size; ++i) {
    if (i == size || data[i] == 0) {
      if (current.find('/') != std::string::npos || args.size() > 32)
        return 0;
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  // --bench N runs the model N times: keep N small enough for a fuzzer's pace.
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    std::string value = a.rfind("--bench=", 0) == 0             ? a.substr(8)
                        : a == "--bench" && i + 1 < args.size() ? args[i + 1]
                                                                : "";
    if (!value.empty() && std::strtoll(value.c_str(), nullptr, 10) > 1000)
      return 0;
  }
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  int code;
  {
    Silence quiet;
    code = kiln_runner_main(static_cast<int>(args.size()), argv.data(), &kModel);
  }
  if (code != 0 && code != 1 && code != 2)
    std::abort();
  return 0;
}
