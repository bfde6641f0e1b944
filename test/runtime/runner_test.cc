#include "kiln/runtime/runner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/runtime/npy.h"
#include "kiln/runtime/status.h"
#include "test_util.h"

namespace {

using kiln_test::ReadFileBytes;
using kiln_test::ScopedTempDir;
using kiln_test::WriteFileBytes;

// ---- a fake model "add": x:0 (alias lhs) + y:0, both int32[2] ------------------------------
//   x_y_sum:0       int32[2]  x + y
//   while/Exit_1:0  int64[]   x[0] * 1000 + y[0] (tells which file went to which input)

const int64_t kVectorDims[1] = {2};
const kiln_tensor_info_t kAddInputs[2] = {
    {"x:0", "lhs", KILN_DTYPE_I32, 1, kVectorDims, 8},
    {"y:0", "", KILN_DTYPE_I32, 1, kVectorDims, 8},
};
const kiln_tensor_info_t kAddOutputs[2] = {
    {"x_y_sum:0", "", KILN_DTYPE_I32, 1, kVectorDims, 8},
    {"while/Exit_1:0", "", KILN_DTYPE_I64, 0, nullptr, 8},
};

int g_calls = 0;
int32_t g_last_num_threads = -1;

constexpr int64_t kScratchBytes = 96;
constexpr int64_t kScratchAlignment = 128;

int32_t AddEntry(const void *const *inputs, void *const *outputs, void *scratch,
                 const kiln_run_options_t *options) {
  ++g_calls;
  if (options == nullptr || options->struct_size != sizeof(kiln_run_options_t)) {
    return KILN_STATUS_INVALID_ARGUMENT;
  }
  g_last_num_threads = options->num_threads;
  if (scratch == nullptr || reinterpret_cast<uintptr_t>(scratch) % kScratchAlignment != 0) {
    return KILN_STATUS_INTERNAL;
  }
  std::memset(scratch, 0x5a, kScratchBytes); // must be writable
  const int32_t *x = static_cast<const int32_t *>(inputs[0]);
  const int32_t *y = static_cast<const int32_t *>(inputs[1]);
  int32_t *sum = static_cast<int32_t *>(outputs[0]);
  for (int i = 0; i < 2; ++i)
    sum[i] = x[i] + y[i];
  *static_cast<int64_t *>(outputs[1]) = static_cast<int64_t>(x[0]) * 1000 + y[0];
  return KILN_STATUS_OK;
}

const kiln_model_info_t kAddModel = {
    KILN_ABI_VERSION,  "add",   2, 2, kAddInputs, kAddOutputs, kScratchBytes,
    kScratchAlignment, AddEntry};

int32_t FailingEntry(const void *const *, void *const *, void *, const kiln_run_options_t *) {
  return KILN_STATUS_INTERNAL;
}

const kiln_model_info_t kFailingModel = {KILN_ABI_VERSION, "broken", 2, 2,           kAddInputs,
                                         kAddOutputs,      0,        0, FailingEntry};

// ---- a fake model "identity": one [64] input per dtype, copied to an output ----------------

const int32_t kAllDtypes[] = {KILN_DTYPE_F32, KILN_DTYPE_F64, KILN_DTYPE_F16, KILN_DTYPE_BF16,
                              KILN_DTYPE_I8,  KILN_DTYPE_I16, KILN_DTYPE_I32, KILN_DTYPE_I64,
                              KILN_DTYPE_U8,  KILN_DTYPE_U16, KILN_DTYPE_U32, KILN_DTYPE_U64,
                              KILN_DTYPE_BOOL};
constexpr int kNumDtypes = sizeof(kAllDtypes) / sizeof(kAllDtypes[0]);
constexpr int64_t kIdentityLength = 64;
const int64_t kIdentityDims[1] = {kIdentityLength};

struct IdentityModel {
  IdentityModel() {
    for (int i = 0; i < kNumDtypes; ++i) {
      std::string dtype = kiln_dtype_name(kAllDtypes[i]);
      input_names.push_back("in_" + dtype + ":0");
      output_names.push_back("out/" + dtype + ":0");
    }
    for (int i = 0; i < kNumDtypes; ++i) {
      int64_t bytes = kIdentityLength * kiln_dtype_size(kAllDtypes[i]);
      inputs.push_back({input_names[i].c_str(), "", kAllDtypes[i], 1, kIdentityDims, bytes});
      outputs.push_back({output_names[i].c_str(), "", kAllDtypes[i], 1, kIdentityDims, bytes});
    }
    info = {KILN_ABI_VERSION, "identity", kNumDtypes, kNumDtypes, inputs.data(),
            outputs.data(),   0,          0,          &Entry};
  }
  static int32_t Entry(const void *const *in, void *const *out, void *,
                       const kiln_run_options_t *) {
    for (int i = 0; i < kNumDtypes; ++i) {
      std::memcpy(out[i], in[i],
                  static_cast<size_t>(kIdentityLength * kiln_dtype_size(kAllDtypes[i])));
    }
    return KILN_STATUS_OK;
  }
  std::vector<std::string> input_names, output_names;
  std::vector<kiln_tensor_info_t> inputs, outputs;
  kiln_model_info_t info;
};

float HalfToFloat(uint16_t half) {
  int sign = (half >> 15) & 1, exponent = (half >> 10) & 0x1f, mantissa = half & 0x3ff;
  float value = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -24)
                              : std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  return sign ? -value : value;
}

float Bfloat16ToFloat(uint16_t bits) {
  uint32_t word = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &word, sizeof(value));
  return value;
}

struct RunResult {
  int exit_code;
  std::string out;
  std::string err;
};

class RunnerTest : public ::testing::Test {
protected:
  void SetUp() override {
    g_calls = 0;
    g_last_num_threads = -1;
    x_path_ = WriteI32("x.npy", {2}, {1, 2});
    y_path_ = WriteI32("y.npy", {2}, {10, 20});
  }

  std::string WriteI32(const std::string &name, std::vector<int64_t> dims,
                       std::vector<int32_t> values) {
    std::string path = dir_.Join(name);
    kiln_status_t status =
        kiln_npy_write(path.c_str(), KILN_DTYPE_I32, static_cast<int32_t>(dims.size()), dims.data(),
                       values.data());
    EXPECT_EQ(status, nullptr) << kiln_status_message(status);
    kiln_status_free(status);
    return path;
  }

  // Runs kiln_runner_main with stdout and stderr captured in files.
  RunResult Run(const kiln_model_info_t *model, const std::vector<std::string> &args) {
    std::vector<std::string> storage = {"model_prog"};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char *> argv;
    for (std::string &arg : storage)
      argv.push_back(arg.data());
    argv.push_back(nullptr);

    std::string out_path = dir_.Join("captured_stdout.txt");
    std::string err_path = dir_.Join("captured_stderr.txt");
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
    int out_fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    EXPECT_GE(out_fd, 0);
    EXPECT_GE(err_fd, 0);
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    close(out_fd);
    close(err_fd);
    int code = kiln_runner_main(static_cast<int>(storage.size()), argv.data(), model);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(saved_out);
    close(saved_err);
    return {code, ReadFileBytes(out_path), ReadFileBytes(err_path)};
  }

  // Reads an output file, expecting `dtype` and `dims`.
  std::vector<unsigned char> ReadOutput(const std::string &path, int32_t dtype,
                                        std::vector<int64_t> dims) {
    kiln_npy_array_t array{};
    kiln_status_t status = kiln_npy_read(path.c_str(), &array);
    EXPECT_EQ(status, nullptr) << kiln_status_message(status);
    kiln_status_free(status);
    EXPECT_EQ(array.dtype, dtype) << path;
    EXPECT_EQ(std::vector<int64_t>(array.dims, array.dims + array.rank), dims) << path;
    const unsigned char *data = static_cast<const unsigned char *>(array.data);
    std::vector<unsigned char> bytes(data, data + array.byte_size);
    kiln_npy_array_free(&array);
    return bytes;
  }

  void ExpectAddOutputs(const std::string &out_dir, std::vector<int32_t> sum, int64_t mix) {
    std::vector<unsigned char> bytes = ReadOutput(out_dir + "/x_y_sum_0.npy", KILN_DTYPE_I32, {2});
    ASSERT_EQ(bytes.size(), 8u);
    std::vector<int32_t> got(2);
    std::memcpy(got.data(), bytes.data(), 8);
    EXPECT_EQ(got, sum);
    bytes = ReadOutput(out_dir + "/while_Exit_1_0.npy", KILN_DTYPE_I64, {});
    ASSERT_EQ(bytes.size(), 8u);
    int64_t value;
    std::memcpy(&value, bytes.data(), 8);
    EXPECT_EQ(value, mix);
  }

  ScopedTempDir dir_;
  std::string x_path_, y_path_;
};

const char kAddOutputLines[] = "x_y_sum:0 int32 [2]\nwhile/Exit_1:0 int64 []\n";

TEST_F(RunnerTest, NamedInputsWriteOutputs) {
  std::string out_dir = dir_.Join("out"); // does not exist yet
  RunResult r = Run(&kAddModel, {"--input", "x:0=" + x_path_, "--input", "y:0=" + y_path_,
                                 "--output-dir", out_dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kAddOutputLines);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(g_calls, 1);
  EXPECT_EQ(g_last_num_threads, 0);
  ExpectAddOutputs(out_dir, {11, 22}, 1010);
}

TEST_F(RunnerTest, PositionalInputsFillInOrder) {
  std::string out_dir = dir_.Join("out");
  RunResult r = Run(&kAddModel, {x_path_, y_path_, "--output-dir=" + out_dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectAddOutputs(out_dir, {11, 22}, 1010);

  // A named input is skipped by the positional ones.
  r = Run(&kAddModel, {"--input=x=" + y_path_, x_path_, "--output-dir", out_dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectAddOutputs(out_dir, {11, 22}, 10001);
}

TEST_F(RunnerTest, InputsByAliasAndNameWithoutPort) {
  std::string out_dir = dir_.Join("out");
  RunResult r = Run(&kAddModel, {"--input", "y=" + x_path_, "--input", "lhs=" + y_path_,
                                 "--output-dir", out_dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kAddOutputLines);
  ExpectAddOutputs(out_dir, {11, 22}, 10001);
}

TEST_F(RunnerTest, OutputDirWithTrailingSlash) {
  std::string out_dir = dir_.Join("out");
  RunResult r = Run(&kAddModel, {x_path_, y_path_, "--output-dir", out_dir + "/"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectAddOutputs(out_dir, {11, 22}, 1010);
}

TEST_F(RunnerTest, DtypeMismatch) {
  std::string path = dir_.Join("x64.npy");
  const int64_t dims[1] = {2};
  const int64_t values[2] = {1, 2};
  ASSERT_EQ(kiln_npy_write(path.c_str(), KILN_DTYPE_I64, 1, dims, values), nullptr);
  RunResult r = Run(&kAddModel, {path, y_path_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: input 'x:0' from '" + path +
                       "': dtype int64 does not match the model's int32\n");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(g_calls, 0);
}

TEST_F(RunnerTest, ShapeMismatch) {
  std::string path = WriteI32("y23.npy", {2, 3}, {1, 2, 3, 4, 5, 6});
  RunResult r = Run(&kAddModel, {x_path_, path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: input 'y:0' from '" + path + "': shape [2,3] does not match the model's [2]\n");
  EXPECT_EQ(g_calls, 0);

  std::string scalar = WriteI32("scalar.npy", {}, {5});
  r = Run(&kAddModel, {scalar, y_path_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: input 'x:0' from '" + scalar + "': shape [] does not match the model's [2]\n");
}

TEST_F(RunnerTest, UnknownInput) {
  RunResult r = Run(&kAddModel, {"--input", "z=" + x_path_, y_path_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: model 'add' has no input named 'z'"), std::string::npos) << r.err;
  // "x:" is neither a name, a name without ":0", nor an alias.
  r = Run(&kAddModel, {"--input", "x:=" + x_path_, y_path_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(g_calls, 0);
}

TEST_F(RunnerTest, MissingInput) {
  RunResult r = Run(&kAddModel, {x_path_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: missing input 'y:0' (int32 [2])"), std::string::npos) << r.err;
  EXPECT_EQ(g_calls, 0);
}

TEST_F(RunnerTest, TooManyInputFiles) {
  RunResult r = Run(&kAddModel, {x_path_, y_path_, x_path_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("too many input files"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(x_path_), std::string::npos) << r.err;
}

TEST_F(RunnerTest, InputGivenTwice) {
  RunResult r = Run(&kAddModel, {"--input", "x=" + x_path_, "--input", "lhs=" + x_path_, y_path_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: input 'x:0' is given more than once\n");
}

TEST_F(RunnerTest, UnreadableInputFile) {
  std::string missing = dir_.Join("missing.npy");
  RunResult r = Run(&kAddModel, {x_path_, missing});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: input 'y:0': cannot open '" + missing + "': No such file or directory\n");

  std::string garbage = dir_.Join("garbage.npy");
  WriteFileBytes(garbage, "garbage");
  r = Run(&kAddModel, {x_path_, garbage});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'" + garbage + "'"), std::string::npos) << r.err;
}

TEST_F(RunnerTest, BadFlags) {
  const std::vector<std::vector<std::string>> cases = {
      {"--frobnicate"},
      {"-x"},
      {"--bench"},
      {"--bench", "0"},
      {"--bench=-3"},
      {"--bench", "12abc"},
      {"--threads", "0"},
      {"--threads=many"},
      {"--threads", "99999999999999"},
      {"--input"},
      {"--input", "no_equals_sign"},
      {"--input", "=file.npy"},
      {"--input", "x="},
      {"--output-dir"},
      {"--output-dir="},
  };
  for (const std::vector<std::string> &args : cases) {
    std::vector<std::string> full = args;
    full.push_back(x_path_);
    full.push_back(y_path_);
    RunResult r = Run(&kAddModel, full);
    EXPECT_EQ(r.exit_code, 2) << args[0];
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(r.out, "") << args[0];
  }
  EXPECT_EQ(g_calls, 0);
}

TEST_F(RunnerTest, DoubleDashEndsOptions) {
  WriteI32("--odd.npy", {2}, {3, 4});
  std::string out_dir = dir_.Join("out");
  // "--odd.npy" must be a relative path to look like an option, so run from the temp dir.
  std::filesystem::path saved_cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir_.path());
  RunResult r = Run(&kAddModel, {"--output-dir", out_dir, "--", "--odd.npy", y_path_});
  std::filesystem::current_path(saved_cwd);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectAddOutputs(out_dir, {13, 24}, 3010);

  r = Run(&kAddModel, {"--output-dir", out_dir, dir_.Join("--odd.npy"), "--odd.npy"});
  EXPECT_EQ(r.exit_code, 2) << "without --, '--odd.npy' is an unknown option";
  EXPECT_NE(r.err.find("unknown option '--odd.npy'"), std::string::npos) << r.err;
}

TEST_F(RunnerTest, ModelFailure) {
  RunResult r = Run(&kFailingModel, {x_path_, y_path_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: model 'broken' failed: INTERNAL\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(RunnerTest, MalformedModel) {
  RunResult r = Run(nullptr, {});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u);

  kiln_tensor_info_t bad_inputs[2] = {kAddInputs[0], kAddInputs[1]};
  bad_inputs[1].byte_size = 7;
  kiln_model_info_t bad = kAddModel;
  bad.inputs = bad_inputs;
  r = Run(&bad, {x_path_, y_path_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("malformed"), std::string::npos) << r.err;
  EXPECT_EQ(g_calls, 0);
}

TEST_F(RunnerTest, Threads) {
  RunResult r = Run(&kAddModel, {"--threads", "3", x_path_, y_path_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(g_last_num_threads, 3);
  r = Run(&kAddModel, {"--threads=1", x_path_, y_path_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(g_last_num_threads, 1);
}

TEST_F(RunnerTest, Bench) {
  RunResult r = Run(&kAddModel, {"--bench", "5", "--input", "x=" + x_path_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(g_calls, 6) << "one warm-up run and five timed runs";
  std::vector<std::string> lines;
  std::istringstream stream(r.out);
  for (std::string line; std::getline(stream, line);)
    lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0], "x_y_sum:0 int32 [2]");
  EXPECT_EQ(lines[1], "while/Exit_1:0 int64 []");
  EXPECT_TRUE(std::regex_match(
      lines[2], std::regex(R"(bench: runs=5 median_ms=[0-9]+\.[0-9]{4} min_ms=[0-9]+\.[0-9]{4})")))
      << lines[2];
  double median = 0, min = 0;
  ASSERT_EQ(std::sscanf(lines[2].c_str(), "bench: runs=5 median_ms=%lf min_ms=%lf", &median, &min),
            2);
  EXPECT_LE(min, median);
}

TEST_F(RunnerTest, BenchFillsInputsDeterministically) {
  std::string out1 = dir_.Join("out1"), out2 = dir_.Join("out2");
  RunResult r = Run(&kAddModel, {"--bench=2", "--output-dir", out1});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run(&kAddModel, {"--bench", "1", "--output-dir", out2});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string sum1 = ReadFileBytes(out1 + "/x_y_sum_0.npy");
  EXPECT_FALSE(sum1.empty());
  EXPECT_EQ(sum1, ReadFileBytes(out2 + "/x_y_sum_0.npy"));
  EXPECT_EQ(ReadFileBytes(out1 + "/while_Exit_1_0.npy"),
            ReadFileBytes(out2 + "/while_Exit_1_0.npy"));
  std::vector<unsigned char> bytes = ReadOutput(out1 + "/x_y_sum_0.npy", KILN_DTYPE_I32, {2});
  ASSERT_EQ(bytes.size(), 8u);
  int32_t sum[2];
  std::memcpy(sum, bytes.data(), sizeof(sum));
  for (int32_t v : sum) {
    EXPECT_GE(v, -20);
    EXPECT_LE(v, 18);
  }
}

TEST_F(RunnerTest, BenchRandomValuesForEveryDtype) {
  IdentityModel model;
  std::string out_dir = dir_.Join("out");
  RunResult r = Run(&model.info, {"--bench", "1", "--output-dir", out_dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int i = 0; i < kNumDtypes; ++i) {
    int32_t dtype = kAllDtypes[i];
    std::string name = kiln_dtype_name(dtype);
    SCOPED_TRACE(name);
    std::vector<unsigned char> bytes =
        ReadOutput(out_dir + "/out_" + name + "_0.npy",
                   dtype == KILN_DTYPE_BF16 ? KILN_DTYPE_U16 : dtype, {kIdentityLength});
    ASSERT_EQ(bytes.size(), static_cast<size_t>(kIdentityLength * kiln_dtype_size(dtype)));
    std::vector<double> values;
    for (int64_t k = 0; k < kIdentityLength; ++k) {
      const unsigned char *p = bytes.data() + k * kiln_dtype_size(dtype);
      double v = 0;
      switch (dtype) {
      case KILN_DTYPE_F32: {
        float f;
        std::memcpy(&f, p, 4);
        v = f;
        break;
      }
      case KILN_DTYPE_F64:
        std::memcpy(&v, p, 8);
        break;
      case KILN_DTYPE_F16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        v = HalfToFloat(h);
        break;
      }
      case KILN_DTYPE_BF16: {
        uint16_t h;
        std::memcpy(&h, p, 2);
        v = Bfloat16ToFloat(h);
        break;
      }
      case KILN_DTYPE_I8: {
        int8_t x;
        std::memcpy(&x, p, 1);
        v = x;
        break;
      }
      case KILN_DTYPE_I16: {
        int16_t x;
        std::memcpy(&x, p, 2);
        v = x;
        break;
      }
      case KILN_DTYPE_I32: {
        int32_t x;
        std::memcpy(&x, p, 4);
        v = x;
        break;
      }
      case KILN_DTYPE_I64: {
        int64_t x;
        std::memcpy(&x, p, 8);
        v = static_cast<double>(x);
        break;
      }
      case KILN_DTYPE_U8:
      case KILN_DTYPE_BOOL:
        v = *p;
        break;
      case KILN_DTYPE_U16: {
        uint16_t x;
        std::memcpy(&x, p, 2);
        v = x;
        break;
      }
      case KILN_DTYPE_U32: {
        uint32_t x;
        std::memcpy(&x, p, 4);
        v = x;
        break;
      }
      case KILN_DTYPE_U64: {
        uint64_t x;
        std::memcpy(&x, p, 8);
        v = static_cast<double>(x);
        break;
      }
      }
      values.push_back(v);
    }
    bool is_float = dtype == KILN_DTYPE_F32 || dtype == KILN_DTYPE_F64 || dtype == KILN_DTYPE_F16 ||
                    dtype == KILN_DTYPE_BF16;
    bool is_unsigned = dtype == KILN_DTYPE_U8 || dtype == KILN_DTYPE_U16 ||
                       dtype == KILN_DTYPE_U32 || dtype == KILN_DTYPE_U64;
    double low = is_float ? -1.0 : dtype == KILN_DTYPE_BOOL ? 0.0 : is_unsigned ? 0.0 : -10.0;
    double high = is_float ? 1.0 : dtype == KILN_DTYPE_BOOL ? 2.0 : 10.0; // exclusive
    bool varied = false;
    for (double v : values) {
      EXPECT_GE(v, low);
      EXPECT_LT(v, high);
      if (!is_float) {
        EXPECT_EQ(v, static_cast<double>(static_cast<int64_t>(v)));
      }
      varied = varied || v != values[0];
    }
    EXPECT_TRUE(varied) << "all 64 values are equal";
  }
}

TEST_F(RunnerTest, Help) {
  RunResult r = Run(&kAddModel, {"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("usage: model_prog ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("  x:0 (alias 'lhs') int32 [2]\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  y:0 int32 [2]\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("outputs:\n  x_y_sum:0 int32 [2]\n  while/Exit_1:0 int64 []\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(g_calls, 0);
}

TEST_F(RunnerTest, UnwritableOutputDir) {
  std::string file = dir_.Join("plain_file");
  WriteFileBytes(file, "x");
  RunResult r = Run(&kAddModel, {x_path_, y_path_, "--output-dir", file + "/sub"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot create output directory '" + file + "/sub'"), std::string::npos)
      << r.err;

  r = Run(&kAddModel, {x_path_, y_path_, "--output-dir", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'" + file + "' exists and is not a directory"), std::string::npos) << r.err;
}

TEST_F(RunnerTest, OutputDirIsCreatedWithItsParents) {
  std::string out = dir_.Join("a/b/c/");
  RunResult r = Run(&kAddModel, {x_path_, y_path_, "--output-dir", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  struct stat info;
  EXPECT_EQ(stat((out + "x_y_sum_0.npy").c_str(), &info), 0);
}

TEST_F(RunnerTest, UnwritableOutputFile) {
  // A directory where an output file should go makes the write fail.
  std::string out_dir = dir_.Join("out");
  ASSERT_EQ(mkdir(out_dir.c_str(), 0777), 0);
  ASSERT_EQ(mkdir((out_dir + "/x_y_sum_0.npy").c_str(), 0777), 0);
  RunResult r = Run(&kAddModel, {x_path_, y_path_, "--output-dir", out_dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: output 'x_y_sum:0': cannot write '" + out_dir + "/x_y_sum_0.npy'"),
            std::string::npos)
      << r.err;
}

// ---- a fake ABI 3 model "counter": two entry points over one int32 of state ------------

const int64_t kOneDims[1] = {1};
const kiln_tensor_info_t kBumpInputs[1] = {{"by:0", "", KILN_DTYPE_I32, 1, kOneDims, 4}};
const kiln_tensor_info_t kCountOutputs[1] = {{"count:0", "", KILN_DTYPE_I32, 1, kOneDims, 4}};
const kiln_state_info_t kCounterStates[1] = {{{"count", "", KILN_DTYPE_I32, 1, kOneDims, 4}, 0}};
const int32_t kCounterState[1] = {0};

// bump: count += by, returning the count before; peek: returns the count.
int32_t BumpEntry(const void *const *inputs, void *const *outputs, void *state, void *scratch,
                  const kiln_run_options_t *) {
  if (state == nullptr || reinterpret_cast<uintptr_t>(state) % 64 != 0 || scratch == nullptr) {
    return KILN_STATUS_INTERNAL;
  }
  int32_t *count = static_cast<int32_t *>(state);
  *static_cast<int32_t *>(outputs[0]) = *count;
  *count += *static_cast<const int32_t *>(inputs[0]);
  return KILN_STATUS_OK;
}

int32_t PeekEntry(const void *const *, void *const *outputs, void *state, void *,
                  const kiln_run_options_t *) {
  *static_cast<int32_t *>(outputs[0]) = *static_cast<const int32_t *>(state);
  return KILN_STATUS_OK;
}

const kiln_entry_info_t kCounterEntries[2] = {
    {"bump", 1, 1, kBumpInputs, kCountOutputs, 1, 1, kCounterState, kCounterState, 32, BumpEntry},
    {"peek", 0, 1, nullptr, kCountOutputs, 1, 0, kCounterState, nullptr, 0, PeekEntry},
};

// The first entry point uses state, so ABI 1's `entry` is NULL.
const kiln_model_info_t kCounterModel = {
    KILN_ABI_VERSION, "counter",      1,  1, kBumpInputs, kCountOutputs, 32, 64, nullptr, 2, 1,
    kCounterEntries,  kCounterStates, 64, 64};

TEST_F(RunnerTest, EntryPointsWithState) {
  std::string by = WriteI32("by.npy", {1}, {5});
  std::string out = dir_.Join("out");
  // The first entry point by default; the state starts zeroed.
  RunResult r = Run(&kCounterModel, {by, "--output-dir", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "count:0 int32 [1]\n");
  std::vector<unsigned char> count = ReadOutput(out + "/count_0.npy", KILN_DTYPE_I32, {1});
  int32_t value;
  std::memcpy(&value, count.data(), sizeof value);
  EXPECT_EQ(value, 0);
  // The state persists between the calls of one run: a warm-up and 3 timed calls leave the
  // count at 15 before the last.
  r = Run(&kCounterModel, {by, "--bench", "3", "--output-dir", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  count = ReadOutput(out + "/count_0.npy", KILN_DTYPE_I32, {1});
  std::memcpy(&value, count.data(), sizeof value);
  EXPECT_EQ(value, 15);
  // Chosen by name, in both forms; peek has no inputs.
  r = Run(&kCounterModel, {"--entry", "peek", "--output-dir", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run(&kCounterModel, {"--entry=bump", "--input", "by=" + by});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // An input of another entry point is unknown here.
  r = Run(&kCounterModel, {"--entry", "peek", by});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("too many input files"), std::string::npos) << r.err;
}

TEST_F(RunnerTest, UnknownEntryPoint) {
  RunResult r = Run(&kCounterModel, {"--entry", "reset"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: model 'counter' has no entry point 'reset'; it has 'bump', 'peek'\n");
  r = Run(&kCounterModel, {"--entry"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("option --entry needs a value"), std::string::npos) << r.err;
  // A model of ABI 1 or 2 has one entry point, "run".
  r = Run(&kAddModel, {"--entry", "run", x_path_, y_path_});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Run(&kAddModel, {"--entry", "predict", x_path_, y_path_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: model 'add' has no entry point 'predict'; its one entry point is "
                   "'run'\n");
}

TEST_F(RunnerTest, HelpListsEntryPoints) {
  RunResult r = Run(&kCounterModel, {"--entry", "peek", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("entry points:\n"
                       "  bump (1 inputs, 1 outputs, reads 1 state, writes 1 state)\n"
                       "  peek (0 inputs, 1 outputs, reads 1 state)\n"
                       "inputs of 'peek':\n"
                       "  (none)\n"
                       "outputs of 'peek':\n"
                       "  count:0 int32 [1]\n"),
            std::string::npos)
      << r.out;
}

TEST_F(RunnerTest, MalformedEntryPoint) {
  kiln_entry_info_t entries[2] = {kCounterEntries[0], kCounterEntries[1]};
  entries[1].run = nullptr;
  kiln_model_info_t model = kCounterModel;
  model.entries = entries;
  RunResult r = Run(&model, {"--entry", "peek"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: model 'counter' is malformed: bad entry point 'peek'\n");
}

} // namespace
