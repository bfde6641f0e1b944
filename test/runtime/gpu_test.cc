// Tests of kiln/runtime/gpu.h without a GPU: with no driver library, with a driver that
// sees no device, and with test/runtime/fake_cuda.c standing in for the driver. ctest
// runs each suite in a process of its own with KILN_LIBCUDA (and FAKE_CUDA_*) set: the
// runtime loads the driver once per process.
#include "kiln/runtime/gpu.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::string message(kiln_status_t status) {
  std::string text = kiln_status_message(status);
  kiln_status_free(status);
  return text;
}

TEST(GpuNoDriver, OpenSaysWhy) {
  const char* path = std::getenv("KILN_LIBCUDA");
  ASSERT_NE(path, nullptr);
  kiln_gpu_t* gpu = nullptr;
  kiln_status_t status = kiln_gpu_open(0, &gpu);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  std::string text = message(status);
  EXPECT_EQ(text.rfind("no CUDA device: cannot load the driver: ", 0), 0u) << text;
  EXPECT_NE(text.find(path), std::string::npos) << text;
  EXPECT_EQ(gpu, nullptr);
  // The second try gives the same answer (the driver is looked for once).
  status = kiln_gpu_open(0, &gpu);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(message(status), text);
}

TEST(GpuNoDevice, OpenGivesTheDriversError) {
  kiln_gpu_t* gpu = nullptr;
  kiln_status_t status = kiln_gpu_open(0, &gpu);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(message(status),
            "no CUDA device: cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
  EXPECT_EQ(gpu, nullptr);
}

/// The fake driver's own functions, looked up in the library the runtime loaded.
struct Fake {
  int (*lastLaunch)(char*, unsigned*, unsigned*, unsigned*, uint64_t*);
  long long (*liveAllocations)();
  int (*contexts)();
};

class GpuFake : public ::testing::Test {
protected:
  void SetUp() override {
    const char* path = std::getenv("KILN_LIBCUDA");
    ASSERT_NE(path, nullptr);
    library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library, nullptr) << dlerror();
    fake.lastLaunch = reinterpret_cast<decltype(fake.lastLaunch)>(
        dlsym(library, "fake_cuda_last_launch"));
    fake.liveAllocations = reinterpret_cast<decltype(fake.liveAllocations)>(
        dlsym(library, "fake_cuda_live_allocations"));
    fake.contexts = reinterpret_cast<decltype(fake.contexts)>(dlsym(library, "fake_cuda_contexts"));
    ASSERT_TRUE(fake.lastLaunch && fake.liveAllocations && fake.contexts);
    ASSERT_EQ(kiln_gpu_open(0, &gpu), nullptr);
  }
  void TearDown() override {
    kiln_gpu_close(gpu);
    if (library != nullptr) {
      EXPECT_EQ(fake.liveAllocations(), 0) << "driver objects not released";
      EXPECT_EQ(fake.contexts(), 0) << "primary context not released";
      dlclose(library);
    }
  }
  void *library = nullptr;
  Fake fake{};
  kiln_gpu_t *gpu = nullptr;
};

constexpr char kPtx[] = R"(//
.version 8.0
.target sm_90
.address_size 64
.visible .entry scale(.param .u64 scale_param_0, .param .u32 scale_param_1)
{ ret; }
.visible .entry add (.param .u64 add_param_0)
{ ret; }
)";

TEST_F(GpuFake, DeviceNameAndArchitecture) {
  EXPECT_STREQ(kiln_gpu_name(gpu), "Fake GPU");
  EXPECT_EQ(kiln_gpu_compute_capability(gpu), 90);
  EXPECT_EQ(kiln_gpu_bind(gpu), nullptr);
}

TEST_F(GpuFake, OrdinalOutOfRange) {
  kiln_gpu_t* other = nullptr;
  kiln_status_t status = kiln_gpu_open(1, &other);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(message(status), "no CUDA device: /gpu:1 asked for, the driver sees 1 device");
  EXPECT_EQ(other, nullptr);
  status = kiln_gpu_open(-1, &other);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(message(status), "no CUDA device: /gpu:-1 asked for, the driver sees 1 device");
}

TEST_F(GpuFake, CopiesRoundTrip) {
  std::vector<float> host(1000), back(1000, -1.0f);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = 0.25f * static_cast<float>(i);
  kiln_gpu_ptr_t a = 0, b = 0;
  ASSERT_EQ(kiln_gpu_alloc(gpu, host.size() * sizeof(float), &a), nullptr);
  ASSERT_EQ(kiln_gpu_alloc(gpu, host.size() * sizeof(float), &b), nullptr);
  kiln_gpu_stream_t stream = nullptr;
  ASSERT_EQ(kiln_gpu_stream_create(gpu, &stream), nullptr);
  ASSERT_EQ(kiln_gpu_copy_to_device(gpu, a, host.data(), host.size() * sizeof(float), stream),
            nullptr);
  ASSERT_EQ(kiln_gpu_copy_on_device(gpu, b, a, host.size() * sizeof(float), stream), nullptr);
  ASSERT_EQ(kiln_gpu_copy_to_host(gpu, back.data(), b, host.size() * sizeof(float), stream),
            nullptr);
  ASSERT_EQ(kiln_gpu_stream_synchronize(gpu, stream), nullptr);
  EXPECT_EQ(back, host);
  // Zero bytes: nothing to do, whatever the pointers.
  EXPECT_EQ(kiln_gpu_copy_to_host(gpu, nullptr, 0, 0, stream), nullptr);
  kiln_gpu_stream_destroy(gpu, stream);
  kiln_gpu_free(gpu, a);
  kiln_gpu_free(gpu, b);
  kiln_gpu_free(gpu, 0);
}

TEST_F(GpuFake, OutOfDeviceMemory) {
  setenv("FAKE_CUDA_MEMORY", "4096", 1);
  kiln_gpu_ptr_t ptr = 0;
  kiln_status_t status = kiln_gpu_alloc(gpu, 8192, &ptr);
  unsetenv("FAKE_CUDA_MEMORY");
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_RESOURCE_EXHAUSTED);
  EXPECT_EQ(message(status), "cuMemAlloc: out of device memory for 8192 bytes on Fake GPU");
  EXPECT_EQ(ptr, 0u);
}

TEST_F(GpuFake, ModulesKernelsAndLaunches) {
  kiln_gpu_module_t* module = nullptr;
  ASSERT_EQ(kiln_gpu_module_load(gpu, kPtx, &module), nullptr);
  kiln_gpu_kernel_t scale = nullptr, add = nullptr, none = nullptr;
  ASSERT_EQ(kiln_gpu_kernel(module, "scale", &scale), nullptr);
  ASSERT_EQ(kiln_gpu_kernel(module, "add", &add), nullptr);
  kiln_status_t status = kiln_gpu_kernel(module, "sca", &none);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(message(status), "the GPU module has no kernel 'sca'");
  EXPECT_EQ(none, nullptr);

  kiln_gpu_ptr_t buffer = 0;
  ASSERT_EQ(kiln_gpu_alloc(gpu, 256, &buffer), nullptr);
  uint32_t n = 64;
  void* args[] = {&buffer, &n};
  const uint32_t grid[3] = {4, 2, 1}, block[3] = {128, 1, 1};
  kiln_gpu_event_t start = nullptr, end = nullptr;
  ASSERT_EQ(kiln_gpu_event_create(gpu, &start), nullptr);
  ASSERT_EQ(kiln_gpu_event_create(gpu, &end), nullptr);
  ASSERT_EQ(kiln_gpu_event_record(gpu, start, nullptr), nullptr);
  ASSERT_EQ(kiln_gpu_launch(gpu, scale, grid, block, 512, nullptr, args), nullptr);
  ASSERT_EQ(kiln_gpu_launch(gpu, add, grid, block, 0, nullptr, args), nullptr);
  ASSERT_EQ(kiln_gpu_event_record(gpu, end, nullptr), nullptr);
  ASSERT_EQ(kiln_gpu_event_synchronize(gpu, end), nullptr);
  EXPECT_EQ(kiln_gpu_stream_wait(gpu, nullptr, end), nullptr);
  float ms = -1;
  ASSERT_EQ(kiln_gpu_event_elapsed(gpu, start, end, &ms), nullptr);
  EXPECT_FLOAT_EQ(ms, 1.0f); // the fake's 0.5 ms per launch

  char name[128];
  unsigned g[3], b[3], shared = 0;
  uint64_t first = 0;
  EXPECT_EQ(fake.lastLaunch(name, g, b, &shared, &first), 2);
  EXPECT_STREQ(name, "add");
  EXPECT_EQ(g[0], 4u);
  EXPECT_EQ(g[1], 2u);
  EXPECT_EQ(b[0], 128u);
  EXPECT_EQ(first, buffer);

  // The driver's refusal comes back with the call and the driver's words.
  const uint32_t tooBig[3] = {2048, 1, 1};
  status = kiln_gpu_launch(gpu, scale, grid, tooBig, 0, nullptr, args);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INTERNAL);
  EXPECT_EQ(message(status), "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (invalid argument)");

  kiln_gpu_event_destroy(gpu, start);
  kiln_gpu_event_destroy(gpu, end);
  kiln_gpu_free(gpu, buffer);
  kiln_gpu_module_unload(module);
}

TEST_F(GpuFake, InvalidImage) {
  kiln_gpu_module_t* module = nullptr;
  kiln_status_t status = kiln_gpu_module_load(gpu, "not a module", &module);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INTERNAL);
  EXPECT_EQ(message(status),
            "cuModuleLoadData: CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid)");
  EXPECT_EQ(module, nullptr);
}

TEST_F(GpuFake, EventNotRecorded) {
  kiln_gpu_event_t a = nullptr, b = nullptr;
  ASSERT_EQ(kiln_gpu_event_create(gpu, &a), nullptr);
  ASSERT_EQ(kiln_gpu_event_create(gpu, &b), nullptr);
  float ms = -1;
  kiln_status_t status = kiln_gpu_event_elapsed(gpu, a, b, &ms);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INTERNAL);
  EXPECT_EQ(ms, -1);
  kiln_status_free(status);
  kiln_gpu_event_destroy(gpu, a);
  kiln_gpu_event_destroy(gpu, b);
}

} // namespace
