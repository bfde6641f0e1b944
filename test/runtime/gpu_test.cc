// Tests of kiln/runtime/gpu.h and kiln/runtime/mgpu.h without a GPU: with no driver
// library, with a driver that sees no device, and with test/runtime/fake_cuda.c standing in
// for the driver. ctest runs each suite in a process of its own with KILN_LIBCUDA (and
// FAKE_CUDA_*) set: the runtime loads the driver once per process.
#include "kiln/runtime/gpu.h"
#include "kiln/runtime/gpu_blas.h"
#include "kiln/runtime/gpu_dnn.h"
#include "kiln/runtime/mgpu.h"
#include "kiln/runtime/partitions.h"

#include "gpu_blaslt_check.h" // runtime/src

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::string message(kiln_status_t status) {
  std::string text = kiln_status_message(status);
  kiln_status_free(status);
  return text;
}

/// A GPU partition beside a CPU one (what a model compiled for /cpu:0,/gpu:0 runs): the
/// GPU side sends its device buffer as tensor 0 and receives tensor 1 into it; the CPU side
/// receives tensor 0, records it, adds 1 and sends it back as tensor 1.
struct Exchange {
  uintptr_t device = 0;
  std::vector<float> seen = std::vector<float>(8, -1.0f);
};

void gpuSide(void *const *args) {
  auto *x = static_cast<Exchange *>(args[0]);
  kiln_mgpu_partition_send(0, x->device, 8 * sizeof(float));
  kiln_mgpu_partition_recv(1, x->device, 8 * sizeof(float));
  kiln_mgpu_partition_status();
}

void cpuSide(void *const *args) {
  auto *x = static_cast<Exchange *>(args[0]);
  std::vector<float> v(8);
  kiln_partition_recv(0, reinterpret_cast<uintptr_t>(v.data()), 8 * sizeof(float));
  x->seen = v;
  for (float &f : v)
    f += 1.0f;
  kiln_partition_send(1, reinterpret_cast<uintptr_t>(v.data()), 8 * sizeof(float));
}

/// An exchange of the device buffer `device`, which `values` are copied into first.
Exchange exchangeOf(void *device, const std::vector<float> &values) {
  mgpuMemcpy(device, const_cast<float *>(values.data()), values.size() * sizeof(float), nullptr);
  Exchange x;
  x.device = reinterpret_cast<uintptr_t>(device);
  return x;
}

kiln_status_t runExchange(Exchange &x) {
  void *args[] = {&x};
  kiln_partition_t parts[] = {{gpuSide, args}, {cpuSide, args}};
  const char *keys[] = {"t:0;cpu", "u:0;gpu"};
  return kiln_partitions_run(2, parts, 2, keys);
}

TEST(GpuNoDriver, OpenSaysWhy) {
  const char *path = std::getenv("KILN_LIBCUDA");
  ASSERT_NE(path, nullptr);
  kiln_gpu_t *gpu = nullptr;
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

// A library that opens but lacks a function the runtime needs (ctest points KILN_LIBCUDA
// and KILN_LIBCUBLASLT at the fake cuBLAS): the error names the file and the function.
TEST(GpuWrongLibrary, NamesTheMissingFunction) {
  const char *path = std::getenv("KILN_LIBCUDA");
  ASSERT_NE(path, nullptr);
  kiln_gpu_t *gpu = nullptr;
  kiln_status_t status = kiln_gpu_open(0, &gpu);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(message(status), std::string("no CUDA device: the driver ") + path +
                                 " has no function cuGetErrorName (too old?)");
  status = kiln_gpu_blaslt_check_descriptors();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(message(status), std::string("no cuBLASLt: ") + std::getenv("KILN_LIBCUBLASLT") +
                                 " has no function cublasLtCreate");
}

TEST(GpuNoDevice, OpenGivesTheDriversError) {
  kiln_gpu_t *gpu = nullptr;
  kiln_status_t status = kiln_gpu_open(0, &gpu);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(message(status),
            "no CUDA device: cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
  EXPECT_EQ(gpu, nullptr);
}

// Compiled code's calls keep the error for the model's status and do nothing after it.
TEST(MgpuNoDevice, ErrorsWaitForTheModel) {
  // Loading a module does not touch the driver (it runs in a constructor at start-up).
  void *module = mgpuModuleLoadJIT(const_cast<char *>("// PTX"), 2);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(kiln_mgpu_take_error(), nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(module, "add"), nullptr);
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr);
  mgpuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  mgpuMemFree(nullptr, nullptr);
  mgpuStreamDestroy(nullptr);
  kiln_status_t status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(message(status),
            "no CUDA device: cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
  EXPECT_EQ(kiln_mgpu_take_error(), nullptr);
  mgpuModuleUnload(module);
}

// A GPU partition's call without a device: no arena, and the status says why.
TEST(MgpuNoDevice, PartitionStatus) {
  int64_t slot[2] = {0, 0};
  EXPECT_EQ(kiln_mgpu_part_begin(slot, 64), nullptr);
  kiln_mgpu_part_end(slot);
  EXPECT_EQ(slot[0], 0);
  char text[128] = "";
  kiln_run_options_t options{};
  options.struct_size = sizeof(options);
  options.error_message = text;
  options.error_message_size = sizeof(text);
  EXPECT_EQ(kiln_mgpu_status(&options), KILN_STATUS_NOT_FOUND);
  EXPECT_STREQ(text,
               "no CUDA device: cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
}

// Without a device a GPU partition's transfers still happen (it sends zeros), so the CPU
// partition waiting for its tensor finishes, and the driver's error is the call's.
TEST(MgpuNoDevice, PartitionTransfersStillHappen) {
  Exchange x;
  x.device = 4096; // never touched: there is no device
  kiln_status_t status = runExchange(x);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(message(status),
            "no CUDA device: cuInit: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
  EXPECT_EQ(x.seen, std::vector<float>(8, 0.0f));
  EXPECT_EQ(kiln_mgpu_take_error(), nullptr);
}

/// The fake driver's own functions, looked up in the library the runtime loaded.
struct Fake {
  int (*lastLaunch)(char *, unsigned *, unsigned *, unsigned *, uint64_t *);
  long long (*liveAllocations)();
  int (*contexts)();
};

class GpuFake : public ::testing::Test {
protected:
  void SetUp() override {
    const char *path = std::getenv("KILN_LIBCUDA");
    ASSERT_NE(path, nullptr);
    library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library, nullptr) << dlerror();
    fake.lastLaunch =
        reinterpret_cast<decltype(fake.lastLaunch)>(dlsym(library, "fake_cuda_last_launch"));
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
  kiln_gpu_t *other = nullptr;
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

TEST_F(GpuFake, AnyCopyAndFills) {
  std::vector<uint32_t> host(100, 7), back(100);
  kiln_gpu_ptr_t a = 0;
  ASSERT_EQ(kiln_gpu_alloc(gpu, 400, &a), nullptr);
  const auto address = [](const void *p) {
    return static_cast<kiln_gpu_ptr_t>(reinterpret_cast<uintptr_t>(p));
  };
  ASSERT_EQ(kiln_gpu_copy(gpu, a, address(host.data()), 400, nullptr), nullptr);
  ASSERT_EQ(kiln_gpu_fill32(gpu, a + 8, 0x3f800000u, 3, nullptr), nullptr);
  ASSERT_EQ(kiln_gpu_fill16(gpu, a + 40, 0xbeefu, 2, nullptr), nullptr);
  ASSERT_EQ(kiln_gpu_copy(gpu, address(back.data()), a, 400, nullptr), nullptr);
  ASSERT_EQ(kiln_gpu_stream_synchronize(gpu, nullptr), nullptr);
  std::vector<uint32_t> expected(100, 7);
  expected[2] = expected[3] = expected[4] = 0x3f800000u;
  expected[10] = 0xbeefbeefu;
  EXPECT_EQ(back, expected);
  kiln_gpu_free(gpu, a);
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
  kiln_gpu_module_t *module = nullptr;
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
  void *args[] = {&buffer, &n};
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
  kiln_gpu_module_t *module = nullptr;
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

/// Compiled code's view: MLIR's host ABI over the fake driver. The device stays open for
/// the process, so these run in a process of their own.
class MgpuFake : public ::testing::Test {
protected:
  void SetUp() override {
    library = dlopen(std::getenv("KILN_LIBCUDA"), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library, nullptr) << dlerror();
    lastLaunch = reinterpret_cast<decltype(lastLaunch)>(dlsym(library, "fake_cuda_last_launch"));
    liveAllocations =
        reinterpret_cast<decltype(liveAllocations)>(dlsym(library, "fake_cuda_live_allocations"));
    ASSERT_TRUE(lastLaunch && liveAllocations);
    liveBefore = liveAllocations();
  }
  void TearDown() override {
    EXPECT_EQ(kiln_mgpu_take_error(), nullptr);
    kiln_mgpu_release_cached();
    EXPECT_EQ(liveAllocations(), liveBefore) << "driver objects not released";
    dlclose(library);
  }
  int launches() {
    char name[128];
    unsigned g[3], b[3], shared;
    uint64_t first;
    return lastLaunch(name, g, b, &shared, &first);
  }
  void *library = nullptr;
  int (*lastLaunch)(char *, unsigned *, unsigned *, unsigned *, uint64_t *) = nullptr;
  long long (*liveAllocations)() = nullptr;
  long long liveBefore = 0;
};

TEST_F(MgpuFake, WhatCompiledCodeDoes) {
  void *module = mgpuModuleLoadJIT(const_cast<char *>(kPtx), 2);
  ASSERT_NE(module, nullptr);
  void *stream = mgpuStreamCreate();
  ASSERT_NE(stream, nullptr);
  std::vector<float> host(256), back(256, -1.0f);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<float>(i);
  void *device = mgpuMemAlloc(1024, stream, false);
  ASSERT_NE(device, nullptr);
  mgpuMemcpy(device, host.data(), 1024, stream);
  mgpuMemset32(static_cast<char *>(device) + 16, 0x40000000u, 2, stream); // 2.0f
  mgpuMemcpy(back.data(), device, 1024, stream);
  mgpuStreamSynchronize(stream);
  ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
  host[4] = host[5] = 2.0f;
  EXPECT_EQ(back, host);

  auto lookups = reinterpret_cast<long long (*)()>(dlsym(library, "fake_cuda_function_lookups"));
  ASSERT_NE(lookups, nullptr);
  // Compiled code asks for a launch's kernel at every launch, by the same constant name:
  // the driver is asked once, the module already loaded.
  static const char kScale[] = "scale";
  long long asked = lookups();
  void *scale = mgpuModuleGetFunction(module, kScale);
  ASSERT_NE(scale, nullptr);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(mgpuModuleGetFunction(module, kScale), scale);
  EXPECT_EQ(lookups(), asked + 1);
  // Another copy of the name finds the same kernel; a buffer reused for another name is
  // that name's (here none), not the kernel found for its first.
  char reused[] = "scale";
  EXPECT_EQ(mgpuModuleGetFunction(module, reused), scale);
  EXPECT_EQ(mgpuModuleGetFunction(module, reused), scale);
  EXPECT_EQ(lookups(), asked + 2);
  std::strcpy(reused, "scal");
  EXPECT_EQ(mgpuModuleGetFunction(module, reused), nullptr);
  EXPECT_EQ(message(kiln_mgpu_take_error()), "the GPU module has no kernel 'scal'");
  std::strcpy(reused, "scale");
  EXPECT_EQ(mgpuModuleGetFunction(module, reused), scale);
  int before = launches();
  uint32_t n = 256;
  void *params[] = {&device, &n};
  mgpuLaunchKernel(scale, 2, 1, 1, 128, 1, 1, 0, stream, params, nullptr, 2);
  EXPECT_EQ(launches(), before + 1);
  char name[128];
  unsigned g[3], b[3], shared = 0;
  uint64_t first = 0;
  lastLaunch(name, g, b, &shared, &first);
  EXPECT_STREQ(name, "scale");
  EXPECT_EQ(g[0], 2u);
  EXPECT_EQ(b[0], 128u);
  EXPECT_EQ(first, reinterpret_cast<uintptr_t>(device));
  // No blocks: nothing to launch, and no error.
  mgpuLaunchKernel(scale, 0, 1, 1, 128, 1, 1, 0, stream, params, nullptr, 2);
  EXPECT_EQ(launches(), before + 1);
  EXPECT_EQ(kiln_mgpu_take_error(), nullptr);

  // An error stops the calls after it, until the model takes it.
  EXPECT_EQ(mgpuModuleGetFunction(module, "scal"), nullptr);
  mgpuLaunchKernel(scale, 2, 1, 1, 128, 1, 1, 0, stream, params, nullptr, 2);
  EXPECT_EQ(launches(), before + 1);
  EXPECT_EQ(mgpuMemAlloc(64, stream, false), nullptr);
  kiln_status_t status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(message(status), "the GPU module has no kernel 'scal'");
  mgpuLaunchKernel(scale, 2, 1, 1, 128, 1, 1, 0, stream, params, nullptr, 2);
  EXPECT_EQ(launches(), before + 2);

  mgpuMemFree(device, stream);
  mgpuStreamDestroy(stream);
  mgpuModuleUnload(module);
}

// More than 48 KiB of dynamic shared memory is asked of the driver for the kernel first
// (the fake refuses a launch that did not, as the real driver does), up to its limit.
TEST_F(GpuFake, LargeDynamicSharedMemory) {
  kiln_gpu_module_t *module = nullptr;
  ASSERT_EQ(kiln_gpu_module_load(gpu, kPtx, &module), nullptr);
  kiln_gpu_kernel_t scale = nullptr;
  ASSERT_EQ(kiln_gpu_kernel(module, "scale", &scale), nullptr);
  kiln_gpu_ptr_t buffer = 0;
  uint32_t n = 1;
  void *args[] = {&buffer, &n};
  const uint32_t grid[3] = {1, 1, 1}, block[3] = {128, 1, 1};
  EXPECT_EQ(kiln_gpu_launch(gpu, scale, grid, block, 99 * 1024, nullptr, args), nullptr);
  char name[128];
  unsigned g[3], b[3], shared = 0;
  uint64_t first = 0;
  fake.lastLaunch(name, g, b, &shared, &first);
  EXPECT_EQ(shared, 99u * 1024);
  kiln_status_t status = kiln_gpu_launch(gpu, scale, grid, block, 300 * 1024, nullptr, args);
  EXPECT_EQ(message(status), "cuFuncSetAttribute (dynamic shared memory): "
                             "CUDA_ERROR_INVALID_VALUE (invalid argument)");
  kiln_gpu_module_unload(module);
}

/// What the fake driver writes into a tensor map (test/runtime/fake_cuda.c).
struct FakeTensorMap {
  uint64_t address;
  uint32_t dataType, rank;
  uint64_t dims[5], strides[4];
  uint32_t box[5];
  uint32_t swizzle, oobFill;
};

/// MLIR's descriptor of a ranked memref of rank 2.
struct Descriptor2 {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};

// nvgpu.tma.create.descriptor's call: the view's offset counts, dimensions innermost first,
// strides in bytes, the box reversed too; the same tensor again gives the same map, a
// different one another; the driver's refusal (a misaligned view) is the pending error.
TEST_F(MgpuFake, TensorMaps) {
  void *stream = mgpuStreamCreate();
  void *device = mgpuMemAlloc(1 << 16, stream, false);
  ASSERT_NE(device, nullptr);
  // A 100 x 72 view at row 8 of a 256 x 96 f16 matrix, read in boxes of 64 x 128.
  Descriptor2 a{device, device, 8 * 96, {100, 72}, {96, 1}};
  int64_t box[2] = {128, 64};
  void *map = mgpuTensorMapEncodeTiledMemref(2, &a, /*f16*/ 6, 0, /*128B*/ 3, 0, 0, box);
  ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(map) % 64, 0u);
  FakeTensorMap encoded{};
  mgpuMemcpy(&encoded, map, sizeof encoded, stream);
  mgpuStreamSynchronize(stream);
  EXPECT_EQ(encoded.address, reinterpret_cast<uintptr_t>(device) + 8 * 96 * 2);
  EXPECT_EQ(encoded.dataType, 6u);
  EXPECT_EQ(encoded.rank, 2u);
  EXPECT_EQ(encoded.dims[0], 72u);
  EXPECT_EQ(encoded.dims[1], 100u);
  EXPECT_EQ(encoded.strides[0], 96u * 2);
  EXPECT_EQ(encoded.box[0], 64u);
  EXPECT_EQ(encoded.box[1], 128u);
  EXPECT_EQ(encoded.swizzle, 3u);
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, &a, 6, 0, 3, 0, 0, box), map);
  Descriptor2 b = a;
  b.offset = 0;
  void *other = mgpuTensorMapEncodeTiledMemref(2, &b, 6, 0, 3, 0, 0, box);
  EXPECT_NE(other, nullptr);
  EXPECT_NE(other, map);
  // Rows 8 bytes apart: not a multiple of 16.
  Descriptor2 narrow{device, device, 0, {100, 4}, {4, 1}};
  int64_t small[2] = {64, 4};
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, &narrow, 6, 0, 0, 0, 0, small), nullptr);
  kiln_status_t status = kiln_mgpu_take_error();
  EXPECT_EQ(message(status), "cuTensorMapEncodeTiled: CUDA_ERROR_INVALID_VALUE (invalid argument)");
  // A 128-byte swizzle spans at most 128 bytes of the box's rows.
  int64_t wide[2] = {64, 128};
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, &a, 6, 0, 3, 0, 0, wide), nullptr);
  kiln_status_free(kiln_mgpu_take_error());
  mgpuMemFree(device, stream);
  mgpuStreamDestroy(stream);
}

// The cache holds 2048 tensor maps (each distinct tensor and box of a process's models
// once); one more is refused with the reason, and the ones it has are still found.
TEST_F(MgpuFake, TensorMapsRunOut) {
  void *device = mgpuMemAlloc(1 << 20, nullptr, false);
  ASSERT_NE(device, nullptr);
  int64_t box[2] = {64, 64};
  std::vector<void *> maps;
  for (int64_t i = 0; i <= 2048; ++i) {
    Descriptor2 a{device, device, 8 * i, {64, 64}, {64, 1}};
    maps.push_back(mgpuTensorMapEncodeTiledMemref(2, &a, 6, 0, 3, 0, 0, box));
  }
  EXPECT_NE(maps[2047], nullptr);
  EXPECT_EQ(maps[2048], nullptr);
  kiln_status_t status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_RESOURCE_EXHAUSTED);
  EXPECT_EQ(message(status), "more than 2048 TMA tensor maps asked for");
  Descriptor2 first{device, device, 0, {64, 64}, {64, 1}};
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, &first, 6, 0, 3, 0, 0, box), maps[0]);
  mgpuMemFree(device, nullptr);
}

// Each device has its own copy of a map, in its own memory: the same tensor and box asked
// for on two devices give two maps (the cache is keyed by the device too).
TEST(MgpuTwoDevices, TensorMapsPerDevice) {
  int64_t box[2] = {64, 64};
  void *maps[2] = {};
  void *memory[2] = {};
  for (int d = 0; d < 2; ++d) {
    kiln_mgpu_set_device(d);
    memory[d] = mgpuMemAlloc(1 << 16, nullptr, false);
    ASSERT_NE(memory[d], nullptr);
    Descriptor2 a{memory[0], memory[0], 0, {64, 64}, {64, 1}};
    maps[d] = mgpuTensorMapEncodeTiledMemref(2, &a, 6, 0, 3, 0, 0, box);
    ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
    ASSERT_NE(maps[d], nullptr);
  }
  EXPECT_NE(maps[0], maps[1]);
  kiln_mgpu_set_device(0);
  Descriptor2 a{memory[0], memory[0], 0, {64, 64}, {64, 1}};
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, &a, 6, 0, 3, 0, 0, box), maps[0]);
  for (int d = 0; d < 2; ++d) {
    kiln_mgpu_set_device(d);
    mgpuMemFree(memory[d], nullptr);
  }
  kiln_mgpu_set_device(0);
  kiln_mgpu_release_cached();
  EXPECT_EQ(kiln_mgpu_take_error(), nullptr);
}

// A driver older than CUDA 12 lacks the encoder: the call says so.
TEST(GpuNoTma, TensorMapSaysWhy) {
  int64_t buffer[64] = {};
  Descriptor2 a{buffer, buffer, 0, {64, 64}, {64, 1}};
  int64_t box[2] = {64, 64};
  EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, &a, 6, 0, 3, 0, 0, box), nullptr);
  kiln_status_t status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_UNIMPLEMENTED);
  EXPECT_EQ(message(status), "the CUDA driver has no cuTensorMapEncodeTiled (TMA needs a CUDA 12 "
                             "driver or later)");
  kiln_mgpu_release_cached();
}

// A stream given back is the next one taken; kiln_mgpu_release_cached destroys the pool's.
TEST_F(MgpuFake, StreamPool) {
  void *first = mgpuStreamCreate();
  ASSERT_NE(first, nullptr);
  long long live = liveAllocations();
  void *second = mgpuStreamCreate();
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second, first);
  EXPECT_EQ(liveAllocations(), live + 1);
  mgpuStreamDestroy(second);
  mgpuStreamDestroy(first);
  EXPECT_EQ(liveAllocations(), live + 1); // both kept
  void *again = mgpuStreamCreate();
  EXPECT_TRUE(again == first || again == second);
  mgpuStreamDestroy(again);
  kiln_mgpu_release_cached();
  EXPECT_EQ(liveAllocations(), live - 1);
  EXPECT_EQ(kiln_mgpu_take_error(), nullptr);
}

// A copy of 1 MiB or more between device memory and pageable host memory goes through the
// thread's two pinned staging buffers in 4 MiB chunks, both ways, the bytes unchanged (a
// size that ends inside a chunk, more chunks than buffers); a smaller one does not; the
// buffers are made once and released with the streams.
TEST_F(MgpuFake, StagedCopies) {
  auto pinned = reinterpret_cast<long long (*)()>(dlsym(library, "fake_cuda_pinned_allocations"));
  ASSERT_NE(pinned, nullptr);
  long long live = liveAllocations(), pinnedBefore = pinned();
  const size_t bytes = (9u << 20) + 123;
  std::vector<unsigned char> host(bytes), back(bytes, 0);
  for (size_t i = 0; i < bytes; ++i)
    host[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
  void *device = mgpuMemAlloc(bytes, nullptr, false);
  ASSERT_NE(device, nullptr);
  mgpuMemcpy(device, host.data(), 1000, nullptr); // small: the driver's copy
  EXPECT_EQ(pinned(), pinnedBefore);
  for (int round = 0; round < 2; ++round) {
    mgpuMemcpy(device, host.data(), bytes, nullptr);
    mgpuMemcpy(back.data(), device, bytes, nullptr);
    ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
    EXPECT_TRUE(back == host) << "round " << round;
    EXPECT_EQ(pinned(), pinnedBefore + 2); // made once
    std::fill(back.begin(), back.end(), 0);
  }
  // Without pinned memory the driver copies, the same bytes.
  kiln_mgpu_release_cached();
  setenv("FAKE_CUDA_PINNED", "0", 1);
  mgpuMemcpy(device, host.data(), bytes, nullptr);
  mgpuMemcpy(back.data(), device, bytes, nullptr);
  unsetenv("FAKE_CUDA_PINNED");
  ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
  EXPECT_TRUE(back == host);
  EXPECT_EQ(pinned(), pinnedBefore + 2);
  mgpuMemFree(device, nullptr);
  EXPECT_EQ(liveAllocations(), live);
}

TEST_F(MgpuFake, PartitionArena) {
  int64_t slot[2] = {0, 0};
  void *first = kiln_mgpu_part_begin(slot, 1000);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(slot[1], 1); // fresh: the caller uploads its weights
  long long live = liveAllocations();
  kiln_mgpu_part_end(slot);
  EXPECT_EQ(kiln_mgpu_status(nullptr), KILN_STATUS_OK);
  // The next call finds the arena.
  EXPECT_EQ(kiln_mgpu_part_begin(slot, 1000), first);
  EXPECT_EQ(slot[1], 0);
  kiln_mgpu_part_end(slot);
  EXPECT_EQ(liveAllocations(), live);
  mgpuMemFree(first, nullptr);
  slot[0] = 0;

  // A call that fails after allocating leaves nothing behind, and reports the error.
  void *module = mgpuModuleLoadJIT(const_cast<char *>(kPtx), 2);
  ASSERT_NE(kiln_mgpu_part_begin(slot, 64), nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(module, "nope"), nullptr);
  kiln_mgpu_part_end(slot);
  EXPECT_EQ(slot[0], 0);
  char text[64];
  kiln_run_options_t options{};
  options.struct_size = sizeof(options);
  options.error_message = text;
  options.error_message_size = sizeof(text);
  EXPECT_EQ(kiln_mgpu_status(&options), KILN_STATUS_NOT_FOUND);
  EXPECT_STREQ(text, "the GPU module has no kernel 'nope'");
  EXPECT_EQ(kiln_mgpu_status(&options), KILN_STATUS_OK);
  mgpuModuleUnload(module);
}

TEST_F(MgpuFake, DeviceErrors) {
  kiln_mgpu_set_device(1);
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  kiln_status_t status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(message(status), "no CUDA device: /gpu:1 asked for, the driver sees 1 device");
  mgpuSetDefaultDevice(0);
  EXPECT_EQ(mgpuMemAlloc(16, nullptr, true), nullptr);
  status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_UNIMPLEMENTED);
  kiln_status_free(status);
  setenv("FAKE_CUDA_MEMORY", "4096", 1);
  EXPECT_EQ(mgpuMemAlloc(8192, nullptr, false), nullptr);
  unsetenv("FAKE_CUDA_MEMORY");
  status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_RESOURCE_EXHAUSTED);
  EXPECT_EQ(message(status), "cuMemAlloc: out of device memory for 8192 bytes on Fake GPU");
  // A module the driver rejects.
  void *module = mgpuModuleLoad(const_cast<char *>("not a module"), 12);
  EXPECT_EQ(mgpuModuleGetFunction(module, "add"), nullptr);
  status = kiln_mgpu_take_error();
  EXPECT_EQ(message(status),
            "cuModuleLoadData: CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid)");
  mgpuModuleUnload(module);
}

// A GPU partition's tensors go through the host to the CPU partition and back into device
// memory (the fake driver's device memory is host memory, so the round trip is visible).
TEST_F(MgpuFake, PartitionTransfers) {
  std::vector<float> host = {1, 2, 3, 4, 5, 6, 7, 8}, back(8, 0.0f);
  void *device = mgpuMemAlloc(host.size() * sizeof(float), nullptr, false);
  ASSERT_NE(device, nullptr);
  Exchange x = exchangeOf(device, host);
  EXPECT_EQ(runExchange(x), nullptr);
  EXPECT_EQ(x.seen, host);
  mgpuMemcpy(back.data(), device, back.size() * sizeof(float), nullptr);
  mgpuStreamSynchronize(nullptr);
  EXPECT_EQ(back, (std::vector<float>{2, 3, 4, 5, 6, 7, 8, 9}));
  mgpuMemFree(device, nullptr);
}

// A send whose copy to the host fails still hands the CPU partition its tensor, zeros (so
// that it finishes; not what the reused pinned buffer held from the call before), and the
// call fails with the driver's error; the next call, with the copy working again,
// exchanges the values.
TEST_F(MgpuFake, PartitionTransferFailure) {
  std::vector<float> host = {1, 2, 3, 4, 5, 6, 7, 8};
  void *device = mgpuMemAlloc(host.size() * sizeof(float), nullptr, false);
  ASSERT_NE(device, nullptr);
  Exchange x = exchangeOf(device, host);
  EXPECT_EQ(runExchange(x), nullptr);
  EXPECT_EQ(x.seen, host);
  setenv("FAKE_CUDA_FAIL_TO_HOST", "1", 1);
  kiln_status_t status = runExchange(x);
  unsetenv("FAKE_CUDA_FAIL_TO_HOST");
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INTERNAL);
  EXPECT_EQ(message(status), "cuMemcpyDtoHAsync: CUDA_ERROR_INVALID_VALUE (invalid argument)");
  EXPECT_EQ(x.seen, std::vector<float>(8, 0.0f));
  mgpuMemcpy(device, host.data(), host.size() * sizeof(float), nullptr);
  EXPECT_EQ(runExchange(x), nullptr);
  EXPECT_EQ(x.seen, host);
  mgpuMemFree(device, nullptr);
}

/// Many sends in one call: more than the 64 transfers kept in flight (the rest go the
/// synchronous way), of 64 KiB + 4 floats each, more than the pinned buffers made for the
/// small exchange before (so idle ones are grown), each a different slice of one device
/// buffer; the CPU side receives them all, in the opposite order.
constexpr int kManySends = 70;
constexpr size_t kManyFloats = 16 * 1024 + 4;

void manyGpuSide(void *const *args) {
  auto device = *static_cast<const uintptr_t *>(args[0]);
  for (int key = 0; key < kManySends; ++key)
    kiln_mgpu_partition_send(key, device + key * kManyFloats * sizeof(float),
                             kManyFloats * sizeof(float));
  kiln_mgpu_partition_status();
}

void manyCpuSide(void *const *args) {
  auto *got = static_cast<std::vector<std::vector<float>> *>(args[1]);
  for (int key = kManySends - 1; key >= 0; --key) {
    (*got)[key].resize(kManyFloats);
    kiln_partition_recv(key, reinterpret_cast<uintptr_t>((*got)[key].data()),
                        kManyFloats * sizeof(float));
  }
}

TEST_F(MgpuFake, PartitionManyTransfers) {
  std::vector<float> small = {1, 2, 3, 4, 5, 6, 7, 8};
  void *first = mgpuMemAlloc(small.size() * sizeof(float), nullptr, false);
  ASSERT_NE(first, nullptr);
  Exchange x = exchangeOf(first, small);
  ASSERT_EQ(runExchange(x), nullptr);
  std::vector<float> values(kManySends * kManyFloats);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i % 9973) - 17.0f;
  void *device = mgpuMemAlloc(values.size() * sizeof(float), nullptr, false);
  ASSERT_NE(device, nullptr);
  mgpuMemcpy(device, values.data(), values.size() * sizeof(float), nullptr);
  uintptr_t address = reinterpret_cast<uintptr_t>(device);
  std::vector<std::vector<float>> got(kManySends);
  void *args[] = {&address, &got};
  kiln_partition_t parts[] = {{manyGpuSide, args}, {manyCpuSide, args}};
  std::vector<std::string> names;
  for (int key = 0; key < kManySends; ++key)
    names.push_back("t" + std::to_string(key) + ":0;cpu");
  std::vector<const char *> keys;
  for (const std::string &name : names)
    keys.push_back(name.c_str());
  EXPECT_EQ(kiln_partitions_run(2, parts, kManySends, keys.data()), nullptr);
  for (int key = 0; key < kManySends; ++key)
    ASSERT_TRUE(std::equal(got[key].begin(), got[key].end(), values.begin() + key * kManyFloats))
        << "tensor " << key;
  mgpuMemFree(device, nullptr);
  mgpuMemFree(first, nullptr);
}

// A GPU partition's matrix products go to cuBLAS (here test/runtime/fake_cublas.c, on the
// fake driver's host-memory "device"): row-major operands in every storage order, written
// or added to, against a reference product in double.
TEST_F(MgpuFake, MatmulByCublas) {
  const int64_t m = 5, n = 3, k = 4;
  for (int32_t flags : {0, KILN_MATMUL_TRANSPOSE_A, KILN_MATMUL_TRANSPOSE_B,
                        KILN_MATMUL_TRANSPOSE_A | KILN_MATMUL_TRANSPOSE_B}) {
    for (bool overwrite : {true, false}) {
      std::vector<float> a(m * k), b(k * n), c(m * n, 0.5f), out(m * n);
      for (size_t i = 0; i < a.size(); ++i)
        a[i] = static_cast<float>(i % 7) - 2.5f;
      for (size_t i = 0; i < b.size(); ++i)
        b[i] = static_cast<float>(i % 5) * 0.25f - 1.0f;
      auto at = [&](int64_t i, int64_t l) {
        return (flags & KILN_MATMUL_TRANSPOSE_A) ? a[l * m + i] : a[i * k + l];
      };
      auto bt = [&](int64_t l, int64_t j) {
        return (flags & KILN_MATMUL_TRANSPOSE_B) ? b[j * k + l] : b[l * n + j];
      };
      void *da = mgpuMemAlloc(a.size() * 4, nullptr, false);
      void *db = mgpuMemAlloc(b.size() * 4, nullptr, false);
      void *dc = mgpuMemAlloc(c.size() * 4, nullptr, false);
      mgpuMemcpy(da, a.data(), a.size() * 4, nullptr);
      mgpuMemcpy(db, b.data(), b.size() * 4, nullptr);
      mgpuMemcpy(dc, c.data(), c.size() * 4, nullptr);
      kiln_mgpu_matmul_f32(reinterpret_cast<uintptr_t>(da), reinterpret_cast<uintptr_t>(db),
                           reinterpret_cast<uintptr_t>(dc), m, n, k,
                           flags | (overwrite ? KILN_MATMUL_OVERWRITE : 0));
      ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
      mgpuMemcpy(out.data(), dc, out.size() * 4, nullptr);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double want = overwrite ? 0.0 : 0.5;
          for (int64_t l = 0; l < k; ++l)
            want += double(at(i, l)) * double(bt(l, j));
          EXPECT_NEAR(out[i * n + j], want, 1e-5) << "flags " << flags << " at " << i << "," << j;
        }
      mgpuMemFree(da, nullptr);
      mgpuMemFree(db, nullptr);
      mgpuMemFree(dc, nullptr);
    }
  }
  // No depth: written as zeros, or left as it is.
  std::vector<float> c(6, 3.0f);
  void *dc = mgpuMemAlloc(c.size() * 4, nullptr, false);
  mgpuMemcpy(dc, c.data(), c.size() * 4, nullptr);
  kiln_mgpu_matmul_f32(0, 0, reinterpret_cast<uintptr_t>(dc), 2, 3, 0, 0);
  mgpuMemcpy(c.data(), dc, c.size() * 4, nullptr);
  EXPECT_EQ(c, std::vector<float>(6, 3.0f));
  kiln_mgpu_matmul_f32(0, 0, reinterpret_cast<uintptr_t>(dc), 2, 3, 0, KILN_MATMUL_OVERWRITE);
  mgpuMemcpy(c.data(), dc, c.size() * 4, nullptr);
  EXPECT_EQ(c, std::vector<float>(6, 0.0f));
  // Sizes beyond cuBLAS's int are an error, pending for the model.
  kiln_mgpu_matmul_f32(0, 0, reinterpret_cast<uintptr_t>(dc), int64_t(1) << 40, 3, 1, 0);
  kiln_status_t status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(message(status), "1 products of 1099511627776 x 3 x 1 do not fit cuBLAS's sizes");
  mgpuMemFree(dc, nullptr);
}

// A batch of products by one cublasSgemmStridedBatched: a broadcast operand is one matrix
// every product reads (stride 0), c's products m x n apart.
TEST_F(MgpuFake, BatchMatmulByCublas) {
  const int64_t batch = 3, m = 2, n = 4, k = 3;
  for (int32_t broadcast : {KILN_MATMUL_BROADCAST_A, KILN_MATMUL_BROADCAST_B}) {
    int64_t aCount = broadcast == KILN_MATMUL_BROADCAST_A ? 1 : batch;
    int64_t bCount = broadcast == KILN_MATMUL_BROADCAST_B ? 1 : batch;
    std::vector<float> a(aCount * m * k), b(bCount * k * n), out(batch * m * n);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = static_cast<float>(i % 5) - 1.5f;
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = static_cast<float>(i % 7) * 0.5f - 1.0f;
    void *da = mgpuMemAlloc(a.size() * 4, nullptr, false);
    void *db = mgpuMemAlloc(b.size() * 4, nullptr, false);
    void *dc = mgpuMemAlloc(out.size() * 4, nullptr, false);
    mgpuMemcpy(da, a.data(), a.size() * 4, nullptr);
    mgpuMemcpy(db, b.data(), b.size() * 4, nullptr);
    kiln_mgpu_batch_matmul_f32(reinterpret_cast<uintptr_t>(da), reinterpret_cast<uintptr_t>(db),
                               reinterpret_cast<uintptr_t>(dc), batch, m, n, k,
                               broadcast | KILN_MATMUL_OVERWRITE);
    ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
    mgpuMemcpy(out.data(), dc, out.size() * 4, nullptr);
    for (int64_t p = 0; p < batch; ++p)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const float *ap = a.data() + (aCount == 1 ? 0 : p * m * k);
          const float *bp = b.data() + (bCount == 1 ? 0 : p * k * n);
          double want = 0.0;
          for (int64_t l = 0; l < k; ++l)
            want += double(ap[i * k + l]) * double(bp[l * n + j]);
          EXPECT_NEAR(out[(p * m + i) * n + j], want, 1e-5) << "product " << p;
        }
    mgpuMemFree(da, nullptr);
    mgpuMemFree(db, nullptr);
    mgpuMemFree(dc, nullptr);
  }
}

// f16 products (cublasGemmStridedBatchedEx on f16 data, f32 sums, the result rounded
// once), overwriting and accumulating, batched; and TF32 f32 products, whose operands lose
// their low 13 mantissa bits (1 + 2^-20 is 1 to TF32).
TEST_F(MgpuFake, HalfAndTf32Products) {
  // Halves of small exact values: 1, 2, 0.5, -1, 1.5, 0.25, -0.5, 3.
  const uint16_t h[] = {0x3C00, 0x4000, 0x3800, 0xBC00, 0x3E00, 0x3400, 0xB800, 0x4200};
  const float v[] = {1.0f, 2.0f, 0.5f, -1.0f, 1.5f, 0.25f, -0.5f, 3.0f};
  auto toFloat = [](uint16_t x) { // normal halves and zero
    if ((x & 0x7fff) == 0)
      return 0.0f;
    float m = 1.0f + float(x & 0x3ff) / 1024.0f;
    return std::ldexp((x & 0x8000) ? -m : m, int((x >> 10) & 0x1f) - 15);
  };
  const int64_t batch = 2, m = 2, n = 3, k = 4;
  std::vector<uint16_t> a(batch * m * k), b(batch * k * n), c(batch * m * n, 0x3C00); // c = 1
  std::vector<float> af(a.size()), bf(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = h[i % 8], af[i] = v[i % 8];
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = h[(3 * i + 1) % 8], bf[i] = v[(3 * i + 1) % 8];
  void *da = mgpuMemAlloc(a.size() * 2, nullptr, false);
  void *db = mgpuMemAlloc(b.size() * 2, nullptr, false);
  void *dc = mgpuMemAlloc(c.size() * 2, nullptr, false);
  mgpuMemcpy(da, a.data(), a.size() * 2, nullptr);
  mgpuMemcpy(db, b.data(), b.size() * 2, nullptr);
  for (bool overwrite : {true, false}) {
    mgpuMemcpy(dc, c.data(), c.size() * 2, nullptr);
    kiln_mgpu_batch_matmul_f16(reinterpret_cast<uintptr_t>(da), reinterpret_cast<uintptr_t>(db),
                               reinterpret_cast<uintptr_t>(dc), batch, m, n, k,
                               overwrite ? KILN_MATMUL_OVERWRITE : 0);
    ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
    std::vector<uint16_t> out(c.size());
    mgpuMemcpy(out.data(), dc, out.size() * 2, nullptr);
    for (int64_t p = 0; p < batch; ++p)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          float want = overwrite ? 0.0f : 1.0f; // exact: multiples of 1/16, small
          for (int64_t l = 0; l < k; ++l)
            want += af[(p * m + i) * k + l] * bf[(p * k + l) * n + j];
          EXPECT_EQ(toFloat(out[(p * m + i) * n + j]), want)
              << "product " << p << " (" << i << ", " << j << ")";
        }
  }
  mgpuMemFree(da, nullptr);
  mgpuMemFree(db, nullptr);
  mgpuMemFree(dc, nullptr);

  const float one = 1.0f + std::ldexp(1.0f, -20);
  std::vector<float> x(4, one), y(4, 1.0f), z(1);
  void *dx = mgpuMemAlloc(16, nullptr, false);
  void *dy = mgpuMemAlloc(16, nullptr, false);
  void *dz = mgpuMemAlloc(4, nullptr, false);
  mgpuMemcpy(dx, x.data(), 16, nullptr);
  mgpuMemcpy(dy, y.data(), 16, nullptr);
  for (int32_t tf32 : {0, KILN_MGPU_MATMUL_TF32}) {
    kiln_mgpu_matmul_f32(reinterpret_cast<uintptr_t>(dx), reinterpret_cast<uintptr_t>(dy),
                         reinterpret_cast<uintptr_t>(dz), 1, 1, 4, KILN_MATMUL_OVERWRITE | tf32);
    ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
    mgpuMemcpy(z.data(), dz, 4, nullptr);
    EXPECT_EQ(z[0], tf32 ? 4.0f : 4.0f * one) << (tf32 ? "TF32" : "f32");
  }
  mgpuMemFree(dx, nullptr);
  mgpuMemFree(dy, nullptr);
  mgpuMemFree(dz, nullptr);
  // An arithmetic cuBLAS is not asked for.
  kiln_status_t status = kiln_gpu_gemm_batched(nullptr, static_cast<kiln_gpu_gemm_type_t>(7), 0, 0,
                                               1, 0, 0, 1, 1, 1, 1, 0, 0, 0, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(message(status), "no cuBLAS product of type 7");
}

// Without cuBLAS a product fails, saying which library could not be loaded and why.
// A convolution by cuDNN (test/runtime/fake_cudnn.c computes it on the fake device memory):
// NHWC input, the filter f x kh x kw x c/groups, symmetric padding, strides, dilations and
// groups as TensorFlow's Conv2D and DepthwiseConv2dNative compute them; the plan is kept
// and reused, the tensor-core algorithm the heuristics rank first passed over, and the
// workspace the chosen one needs supplied.
TEST_F(GpuFake, Conv2dByCudnn) {
  struct Case {
    int64_t n, h, w, c, f, kh, kw, sh, sw, dh, dw, ph, pw, groups;
  };
  for (const Case &t : {Case{2, 5, 6, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1},
                        Case{1, 7, 6, 2, 3, 3, 2, 2, 2, 1, 1, 1, 0, 1},
                        Case{1, 6, 6, 2, 2, 2, 2, 1, 1, 2, 2, 0, 0, 1},
                        Case{2, 5, 5, 4, 8, 3, 3, 1, 1, 1, 1, 1, 1, 4}}) {
    int64_t oh = (t.h + 2 * t.ph - ((t.kh - 1) * t.dh + 1)) / t.sh + 1;
    int64_t ow = (t.w + 2 * t.pw - ((t.kw - 1) * t.dw + 1)) / t.sw + 1;
    int64_t depth = t.c / t.groups;
    const kiln_gpu_conv2d_t conv = {t.n, t.h,  t.w,  t.c,  t.f,  t.kh, t.kw, oh,
                                    ow,  t.sh, t.sw, t.dh, t.dw, t.ph, t.pw, t.groups};
    std::vector<float> x(t.n * t.h * t.w * t.c), f(t.f * t.kh * t.kw * depth);
    std::vector<float> y(t.n * oh * ow * t.f, 0.5f), out(y.size());
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(i % 11) * 0.5f - 2.0f;
    for (size_t i = 0; i < f.size(); ++i)
      f[i] = static_cast<float>(i % 7) * 0.25f - 0.75f;
    // Twice each: the second call reuses the first's plan.
    for (bool overwrite : {true, false, true}) {
      kiln_gpu_ptr_t dx = 0, df = 0, dy = 0;
      ASSERT_EQ(kiln_gpu_alloc(gpu, x.size() * 4, &dx), nullptr);
      ASSERT_EQ(kiln_gpu_alloc(gpu, f.size() * 4, &df), nullptr);
      ASSERT_EQ(kiln_gpu_alloc(gpu, y.size() * 4, &dy), nullptr);
      ASSERT_EQ(kiln_gpu_copy_to_device(gpu, dx, x.data(), x.size() * 4, nullptr), nullptr);
      ASSERT_EQ(kiln_gpu_copy_to_device(gpu, df, f.data(), f.size() * 4, nullptr), nullptr);
      ASSERT_EQ(kiln_gpu_copy_to_device(gpu, dy, y.data(), y.size() * 4, nullptr), nullptr);
      ASSERT_EQ(kiln_gpu_conv2d_f32(gpu, &conv, overwrite, dx, df, dy, nullptr), nullptr);
      ASSERT_EQ(kiln_gpu_copy_to_host(gpu, out.data(), dy, out.size() * 4, nullptr), nullptr);
      for (int64_t b = 0; b < t.n; ++b)
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j)
            for (int64_t k = 0; k < t.f; ++k) {
              double want = overwrite ? 0.0 : 0.5;
              int64_t g = k / (t.f / t.groups);
              for (int64_t r = 0; r < t.kh; ++r)
                for (int64_t s = 0; s < t.kw; ++s) {
                  int64_t yy = i * t.sh - t.ph + r * t.dh, xx = j * t.sw - t.pw + s * t.dw;
                  if (yy < 0 || yy >= t.h || xx < 0 || xx >= t.w)
                    continue;
                  for (int64_t c = 0; c < depth; ++c)
                    want += double(x[((b * t.h + yy) * t.w + xx) * t.c + g * depth + c]) *
                            double(f[((k * t.kh + r) * t.kw + s) * depth + c]);
                }
              EXPECT_NEAR(out[((b * oh + i) * ow + j) * t.f + k], want, 1e-4)
                  << "groups " << t.groups << " at " << b << "," << i << "," << j << "," << k;
            }
      kiln_gpu_free(gpu, dx);
      kiln_gpu_free(gpu, df);
      kiln_gpu_free(gpu, dy);
    }
  }
  // The workspace the algorithm asked for is one allocation, kept until released.
  EXPECT_EQ(fake.liveAllocations(), 1);
  kiln_gpu_dnn_release(gpu);
}

// A convolution with its epilogue (kiln_gpu_conv2d_fused_f32): a bias, a residual and a Relu
// in one cudnnConvolutionBiasActivationForward when there is a bias (without a Relu only on
// implicit precomputed GEMM, which the fake, like cuDNN, insists on); without a bias, or
// where cuDNN says the fused call is not supported (FAKE_CUDNN_FUSED=0), the convolution
// and then cudnnAddTensor and cudnnActivationForward. The values are the same either way.
TEST_F(GpuFake, Conv2dWithEpilogueByCudnn) {
  const char *path = std::getenv("KILN_LIBCUDNN");
  ASSERT_NE(path, nullptr);
  void *dnn = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(dnn, nullptr) << dlerror();
  auto fused = reinterpret_cast<long long (*)()>(dlsym(dnn, "fake_cudnn_fused_calls"));
  auto separate = reinterpret_cast<long long (*)()>(dlsym(dnn, "fake_cudnn_epilogue_calls"));
  ASSERT_TRUE(fused && separate);
  const int64_t n = 2, h = 5, w = 6, c = 3, f = 4, oh = 5, ow = 6;
  const kiln_gpu_conv2d_t conv = {n, h, w, c, f, 3, 3, oh, ow, 1, 1, 1, 1, 1, 1, 1};
  std::vector<float> x(n * h * w * c), filter(f * 3 * 3 * c), bias(f), residual(n * oh * ow * f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i % 11) * 0.5f - 2.0f;
  for (size_t i = 0; i < filter.size(); ++i)
    filter[i] = static_cast<float>(i % 7) * 0.25f - 0.75f;
  for (size_t i = 0; i < bias.size(); ++i)
    bias[i] = static_cast<float>(i) - 1.5f;
  for (size_t i = 0; i < residual.size(); ++i)
    residual[i] = static_cast<float>(i % 5) - 2.0f;
  kiln_gpu_ptr_t dx = 0, df = 0, db = 0, dr = 0, dy = 0;
  ASSERT_EQ(kiln_gpu_alloc(gpu, x.size() * 4, &dx), nullptr);
  ASSERT_EQ(kiln_gpu_alloc(gpu, filter.size() * 4, &df), nullptr);
  ASSERT_EQ(kiln_gpu_alloc(gpu, bias.size() * 4, &db), nullptr);
  ASSERT_EQ(kiln_gpu_alloc(gpu, residual.size() * 4, &dr), nullptr);
  ASSERT_EQ(kiln_gpu_alloc(gpu, residual.size() * 4, &dy), nullptr);
  ASSERT_EQ(kiln_gpu_copy_to_device(gpu, dx, x.data(), x.size() * 4, nullptr), nullptr);
  ASSERT_EQ(kiln_gpu_copy_to_device(gpu, df, filter.data(), filter.size() * 4, nullptr), nullptr);
  ASSERT_EQ(kiln_gpu_copy_to_device(gpu, db, bias.data(), bias.size() * 4, nullptr), nullptr);
  ASSERT_EQ(kiln_gpu_copy_to_device(gpu, dr, residual.data(), residual.size() * 4, nullptr),
            nullptr);
  struct Case {
    float alpha;
    bool bias, residual, relu;
  };
  for (bool supported : {true, false}) {
    setenv("FAKE_CUDNN_FUSED", supported ? "1" : "0", 1);
    for (const Case &t : {Case{1.0f, true, false, true}, Case{0.5f, true, true, true},
                          Case{1.0f, true, false, false}, Case{2.0f, false, true, true}}) {
      const kiln_gpu_conv_epilogue_t epilogue = {t.alpha, t.bias ? db : 0, t.residual ? dr : 0,
                                                 t.relu ? 1 : 0};
      long long fusedBefore = fused(), separateBefore = separate();
      ASSERT_EQ(kiln_gpu_conv2d_fused_f32(gpu, &conv, &epilogue, dx, df, dy, nullptr), nullptr);
      bool oneCall = supported && t.bias;
      EXPECT_EQ(fused() - fusedBefore, oneCall ? 1 : 0);
      EXPECT_EQ(kiln_gpu_dnn_last_fused(), oneCall ? 1 : 0);
      EXPECT_EQ(separate() - separateBefore, oneCall ? 0 : t.bias + t.residual + t.relu);
      std::vector<float> out(residual.size());
      ASSERT_EQ(kiln_gpu_copy_to_host(gpu, out.data(), dy, out.size() * 4, nullptr), nullptr);
      for (int64_t b = 0; b < n; ++b)
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j)
            for (int64_t k = 0; k < f; ++k) {
              double sum = 0.0;
              for (int64_t r = 0; r < 3; ++r)
                for (int64_t s = 0; s < 3; ++s) {
                  int64_t yy = i - 1 + r, xx = j - 1 + s;
                  if (yy < 0 || yy >= h || xx < 0 || xx >= w)
                    continue;
                  for (int64_t q = 0; q < c; ++q)
                    sum += double(x[((b * h + yy) * w + xx) * c + q]) *
                           double(filter[((k * 3 + r) * 3 + s) * c + q]);
                }
              int64_t at = ((b * oh + i) * ow + j) * f + k;
              double want =
                  t.alpha * sum + (t.residual ? residual[at] : 0.0) + (t.bias ? bias[k] : 0.0);
              if (t.relu && want < 0.0)
                want = 0.0;
              EXPECT_NEAR(out[at], want, 1e-4)
                  << (supported ? "fused" : "separate") << " alpha " << t.alpha << " bias "
                  << t.bias << " residual " << t.residual << " relu " << t.relu << " at " << at;
            }
    }
    // The plans remember that cuDNN refused: released, the next ones ask again.
    kiln_gpu_dnn_release(gpu);
  }
  unsetenv("FAKE_CUDNN_FUSED");
  // A residual that is the output, or a relu flag other than 0 or 1, is refused.
  const kiln_gpu_conv_epilogue_t inPlace = {1.0f, db, dy, 1};
  kiln_status_t status = kiln_gpu_conv2d_fused_f32(gpu, &conv, &inPlace, dx, df, dy, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(message(status), "a convolution's epilogue must be given, its relu 0 or 1 and its "
                             "residual apart from the output");
  for (kiln_gpu_ptr_t p : {dx, df, db, dr, dy})
    kiln_gpu_free(gpu, p);
  kiln_gpu_dnn_release(gpu);
  dlclose(dnn);
}

// Through compiled code's entry point, errors are pending for the model: sizes cuDNN cannot
// take, named, and an output size that is not the convolution's, which cuDNN refuses.
TEST_F(MgpuFake, Conv2dErrors) {
  kiln_mgpu_conv2d_f32(0, 0, 0, 1, 4, 4, 3, 4, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 2, 0, 0, 1.0f, 0, 0.0f,
                       -kInf, kInf, 0);
  kiln_status_t status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(message(status),
            "a convolution of 1 x 4 x 4 x 3 by 4 x 3 x 3 x 1 (groups 2, strides 1,1, dilations "
            "1,1, padding 0,0) to 2 x 2 is not one cuDNN takes");
  kiln_mgpu_conv2d_f32(0, 0, 0, 1, 4, 4, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 0, 0, 1, 0, 0, 1.0f, 0, 0.0f,
                       -kInf, kInf, 0);
  status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(message(status), "cuDNN's convolution gives 1 x 2 x 2 x 2, not 1 x 2 x 3 x 3 (NCHW)");
  // An epilogue cuDNN cannot apply in the call: named, nothing run.
  kiln_mgpu_conv2d_f32(0, 0, 0, 1, 4, 4, 2, 2, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 1,
                       KILN_MGPU_CONV2D_OVERWRITE | KILN_MGPU_CONV2D_EPILOGUE, 0, 1.0f, 0, 0.0f,
                       0.0f, 6.0f, 0);
  status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(message(status), "an epilogue cuDNN cannot apply to a convolution: scale scalar, "
                             "bias scalar 0, clamp to [0, 6], activation 0");
  kiln_mgpu_conv2d_residual_f32(0, 0, 0, 1, 4, 4, 2, 2, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 1, 0, 64,
                                1.0f, 0, 0.0f, -kInf, kInf, KILN_ACTIVATION_SWISH, 128);
  status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(message(status), "an epilogue cuDNN cannot apply to a convolution: scale per "
                             "channel, bias scalar 0, clamp to [-inf, inf], activation 1, "
                             "accumulating");
}

// A product and its epilogue by one cublasLtMatmul (test/runtime/fake_cublaslt.c computes
// on the host): every storage order, with and without a bias, a Relu and a residual apart
// from the output or the output itself, scaled; the bias runs along the output's columns
// (cuBLASLt's rows: the operands are swapped). Pointers of any alignment get plans of their
// own (the fake refuses a pointer less aligned than the plan's algorithm assumed, as the
// library does). Epilogues cuBLASLt cannot apply, and k = 0, are errors naming what.
TEST_F(MgpuFake, MatmulEpilogueByCublasLt) {
  void *lt = dlopen(std::getenv("KILN_LIBCUBLASLT"), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lt, nullptr) << dlerror();
  auto live = reinterpret_cast<long long (*)()>(dlsym(lt, "fake_cublaslt_live"));
  ASSERT_NE(live, nullptr);
  const int64_t m = 5, n = 3, k = 4;
  std::vector<float> a(m * k + 1), b(k * n + 1), bias(n + 1), residual(m * n + 1);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>(i % 7) - 2.5f;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<float>(i % 5) * 0.25f - 1.0f;
  for (size_t i = 0; i < bias.size(); ++i)
    bias[i] = 0.75f - static_cast<float>(i);
  for (size_t i = 0; i < residual.size(); ++i)
    residual[i] = static_cast<float>(i % 4) - 1.5f;
  auto upload = [](const std::vector<float> &v) {
    void *d = mgpuMemAlloc(v.size() * 4, nullptr, false);
    mgpuMemcpy(d, const_cast<float *>(v.data()), v.size() * 4, nullptr);
    return reinterpret_cast<uintptr_t>(d);
  };
  uintptr_t da = upload(a), db = upload(b), dbias = upload(bias), dres = upload(residual);
  uintptr_t dc = upload(std::vector<float>(m * n + 1, 0.0f));
  const float alpha = 0.5f;
  // skew 1: every operand one float further on (4-byte alignment).
  for (int skew : {0, 1})
    for (int32_t transpose : {0, KILN_MATMUL_TRANSPOSE_A, KILN_MATMUL_TRANSPOSE_B,
                              KILN_MATMUL_TRANSPOSE_A | KILN_MATMUL_TRANSPOSE_B})
      for (bool withBias : {false, true})
        for (bool relu : {false, true})
          for (int res : {0, 1, 2}) { // none, apart, in place
            const float *av = a.data() + skew;
            const float *bv = b.data() + skew;
            auto at = [&](int64_t i, int64_t l) {
              return (transpose & KILN_MATMUL_TRANSPOSE_A) ? av[l * m + i] : av[i * k + l];
            };
            auto bt = [&](int64_t l, int64_t j) {
              return (transpose & KILN_MATMUL_TRANSPOSE_B) ? bv[j * k + l] : bv[l * n + j];
            };
            uintptr_t c = dc + 4 * skew, r = res == 1 ? dres + 4 * skew : res == 2 ? c : 0;
            // The in-place residual is the output's earlier contents: the residual's values.
            mgpuMemcpy(reinterpret_cast<void *>(c), residual.data() + skew, m * n * 4, nullptr);
            std::string what = "skew " + std::to_string(skew) + " flags " +
                               std::to_string(transpose) + " bias " + std::to_string(withBias) +
                               " relu " + std::to_string(relu) + " residual " + std::to_string(res);
            kiln_mgpu_matmul_residual_f32(da + 4 * skew, db + 4 * skew, c, m, n, k,
                                          transpose | KILN_MATMUL_OVERWRITE, 0, alpha,
                                          withBias ? dbias + 4 * skew : 0, 0.0f,
                                          relu ? 0.0f : -kInf, kInf, KILN_ACTIVATION_NONE, r);
            ASSERT_EQ(kiln_mgpu_take_error(), nullptr) << what;
            std::vector<float> out(m * n);
            mgpuMemcpy(out.data(), reinterpret_cast<void *>(c), out.size() * 4, nullptr);
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j) {
                double want = 0.0;
                for (int64_t l = 0; l < k; ++l)
                  want += double(at(i, l)) * double(bt(l, j));
                want = alpha * want + (res ? residual[skew + i * n + j] : 0.0) +
                       (withBias ? bias[skew + j] : 0.0);
                if (relu)
                  want = std::max(want, 0.0);
                EXPECT_NEAR(out[i * n + j], want, 1e-5) << what << " at " << i << "," << j;
              }
          }
  // TF32: the operands rounded to 10 mantissa bits (1 + 2^-12 becomes 1).
  std::vector<float> ones(m * k, 1.0f + 1.0f / 4096.0f), unit(k * n, 1.0f), out(m * n);
  uintptr_t dones = upload(ones), dunit = upload(unit);
  kiln_mgpu_matmul_epilogue_f32(dones, dunit, dc, m, n, k,
                                KILN_MATMUL_OVERWRITE | KILN_MGPU_MATMUL_TF32, 0, 1.0f, 0, 0.0f,
                                -kInf, kInf, KILN_ACTIVATION_NONE);
  ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
  mgpuMemcpy(out.data(), reinterpret_cast<void *>(dc), out.size() * 4, nullptr);
  EXPECT_EQ(out, std::vector<float>(m * n, 4.0f));
  kiln_mgpu_matmul_epilogue_f32(dones, dunit, dc, m, n, k, KILN_MATMUL_OVERWRITE, 0, 1.0f, 0, 0.0f,
                                -kInf, kInf, KILN_ACTIVATION_NONE);
  ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
  mgpuMemcpy(out.data(), reinterpret_cast<void *>(dc), out.size() * 4, nullptr);
  EXPECT_EQ(out, std::vector<float>(m * n, 4.0f + 4.0f / 4096.0f));
  // Epilogues cuBLASLt does not apply: named, nothing run.
  kiln_mgpu_matmul_epilogue_f32(da, db, dc, m, n, k, KILN_MATMUL_OVERWRITE, dbias, 1.0f, 0, 0.0f,
                                0.0f, 6.0f, KILN_ACTIVATION_NONE);
  kiln_status_t status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(message(status), "an epilogue cuBLASLt cannot apply to a product: scale per "
                             "channel, bias scalar 0, clamp to [0, 6], activation 0");
  kiln_mgpu_matmul_epilogue_f32(da, db, dc, m, n, k, 0, 0, 1.0f, 0, 0.5f, -kInf, kInf,
                                KILN_ACTIVATION_SWISH);
  status = kiln_mgpu_take_error();
  EXPECT_EQ(message(status), "an epilogue cuBLASLt cannot apply to a product: scale scalar, "
                             "bias scalar 0.5, clamp to [-inf, inf], activation 1, accumulating");
  kiln_mgpu_matmul_epilogue_f32(da, db, dc, m, n, 0, KILN_MATMUL_OVERWRITE, 0, 1.0f, 0, 0.0f, -kInf,
                                kInf, KILN_ACTIVATION_NONE);
  status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(message(status), "a 5 x 3 x 0 product does not fit cuBLASLt's sizes (k from 1)");
  for (uintptr_t d : {da, db, dbias, dres, dc, dones, dunit})
    mgpuMemFree(reinterpret_cast<void *>(d), nullptr);
  // The handle, plans and workspace go with the cached objects (TearDown checks the driver's).
  EXPECT_GT(live(), 0);
  kiln_mgpu_release_cached();
  EXPECT_EQ(live(), 0);
  dlclose(lt);
}

// cuBLASLt's heuristic may find no algorithm: the call fails naming the product.
TEST_F(MgpuFake, MatmulEpilogueWithoutAlgorithm) {
  setenv("FAKE_CUBLASLT_NO_ALGO", "1", 1);
  std::vector<float> zeros(64, 0.0f);
  void *d = mgpuMemAlloc(zeros.size() * 4, nullptr, false);
  mgpuMemcpy(d, zeros.data(), zeros.size() * 4, nullptr);
  uintptr_t p = reinterpret_cast<uintptr_t>(d);
  kiln_mgpu_matmul_residual_f32(p, p, p, 4, 4, 2, KILN_MATMUL_OVERWRITE | KILN_MATMUL_TRANSPOSE_B,
                                0, 1.0f, p, 0.0f, 0.0f, kInf, KILN_ACTIVATION_NONE, p);
  unsetenv("FAKE_CUBLASLT_NO_ALGO");
  kiln_status_t status = kiln_mgpu_take_error();
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INTERNAL);
  std::string text = message(status);
  EXPECT_EQ(text.rfind("cublasLtMatmulAlgoGetHeuristic: CUBLAS_STATUS_NOT_SUPPORTED", 0), 0u)
      << text;
  mgpuMemFree(d, nullptr);
}

// A library call runs on the stream the thread took last and returns without waiting for
// the device: what follows is queued after it. With KILN_GPU_STREAM=default (its own
// process: read once) that stream is the default one: mgpuStreamCreate makes none. A call
// outside any stream, as built, waits for the default stream before it returns.
TEST(MgpuStreams, LibraryCallsOnTheCurrentStream) {
  const char *libcuda = std::getenv("KILN_LIBCUDA");
  const char *libcublas = std::getenv("KILN_LIBCUBLAS");
  ASSERT_TRUE(libcuda && libcublas);
  void *library = dlopen(libcuda, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  void *blas = dlopen(libcublas, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(blas, nullptr) << dlerror();
  auto waits = reinterpret_cast<long long (*)()>(dlsym(library, "fake_cuda_default_stream_waits"));
  auto lastStream = reinterpret_cast<void *(*)()>(dlsym(blas, "fake_cublas_last_stream"));
  ASSERT_TRUE(waits && lastStream);
  const char *mode = std::getenv("KILN_GPU_STREAM");
  bool one = mode != nullptr && std::string(mode) == "default";
  void *stream = mgpuStreamCreate();
  ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
  EXPECT_EQ(stream == nullptr, one);
  std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8}, c(4, 0.0f);
  void *da = mgpuMemAlloc(16, stream, false);
  void *db = mgpuMemAlloc(16, stream, false);
  void *dc = mgpuMemAlloc(16, stream, false);
  mgpuMemcpy(da, a.data(), 16, stream);
  mgpuMemcpy(db, b.data(), 16, stream);
  auto product = [&] {
    kiln_mgpu_matmul_f32(reinterpret_cast<uintptr_t>(da), reinterpret_cast<uintptr_t>(db),
                         reinterpret_cast<uintptr_t>(dc), 2, 2, 2, KILN_MATMUL_OVERWRITE);
  };
  long long before = waits();
  product();
  EXPECT_EQ(waits() - before, 0);
  EXPECT_EQ(lastStream(), stream);
  mgpuMemcpy(c.data(), dc, 16, stream);
  mgpuStreamSynchronize(stream);
  ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
  EXPECT_EQ(c, (std::vector<float>{19, 22, 43, 50}));
  mgpuStreamDestroy(stream);
  // Outside a stream: the default one, waited for unless it is every call's stream.
  before = waits();
  product();
  EXPECT_EQ(lastStream(), nullptr);
  EXPECT_EQ(waits() - before, one ? 0 : 1);
  ASSERT_EQ(kiln_mgpu_take_error(), nullptr);
  mgpuMemFree(da, nullptr);
  mgpuMemFree(db, nullptr);
  mgpuMemFree(dc, nullptr);
  kiln_mgpu_release_cached();
  dlclose(blas);
  dlclose(library);
}

TEST(GpuNoCudnn, ConvolutionSaysWhy) {
  kiln_gpu_t *gpu = nullptr;
  ASSERT_EQ(kiln_gpu_open(0, &gpu), nullptr);
  const kiln_gpu_conv2d_t conv = {1, 3, 3, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 0, 0, 1};
  kiln_status_t status = kiln_gpu_conv2d_f32(gpu, &conv, 1, 0, 0, 0, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  std::string text = message(status);
  EXPECT_EQ(text.rfind("no cuDNN: cannot load ", 0), 0u) << text;
  EXPECT_NE(text.find(std::getenv("KILN_LIBCUDNN")), std::string::npos) << text;
  kiln_gpu_close(gpu);
}

// cuBLASLt's descriptors, layouts and preferences as the runtime makes them for every
// transpose, epilogue and arithmetic, with the library KILN_LIBCUBLASLT names: the real
// one where the CUDA toolkit is installed (it checks each attribute's size and value and
// needs no GPU for these), and the fake one.
TEST(BlasLtLibrary, DescriptorsTheLibraryAccepts) {
  kiln_status_t status = kiln_gpu_blaslt_check_descriptors();
  EXPECT_EQ(status, nullptr) << (status ? message(status) : "");
}

TEST(GpuNoCublasLt, ProductWithEpilogueSaysWhy) {
  kiln_gpu_t *gpu = nullptr;
  ASSERT_EQ(kiln_gpu_open(0, &gpu), nullptr);
  const kiln_gpu_gemm_epilogue_t epilogue = {1.0f, 0, 0, 1};
  kiln_status_t status =
      kiln_gpu_gemm_epilogue(gpu, KILN_GPU_GEMM_F32, 0, 0, 2, 2, 2, &epilogue, 0, 0, 0, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  std::string text = message(status);
  EXPECT_EQ(text.rfind("no cuBLASLt: cannot load ", 0), 0u) << text;
  EXPECT_NE(text.find(std::getenv("KILN_LIBCUBLASLT")), std::string::npos) << text;
  kiln_gpu_blaslt_release(gpu); // never loaded: nothing to do
  kiln_gpu_close(gpu);
}

TEST(GpuNoCublas, ProductSaysWhy) {
  kiln_gpu_t *gpu = nullptr;
  ASSERT_EQ(kiln_gpu_open(0, &gpu), nullptr);
  kiln_status_t status = kiln_gpu_sgemm(gpu, 0, 0, 1, 2, 2, 2, 0, 0, 0, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  std::string text = message(status);
  EXPECT_EQ(text.rfind("no cuBLAS: cannot load ", 0), 0u) << text;
  EXPECT_NE(text.find(std::getenv("KILN_LIBCUBLAS")), std::string::npos) << text;
  kiln_gpu_close(gpu);
}

} // namespace
