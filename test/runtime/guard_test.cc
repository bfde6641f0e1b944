// Every kernel reads and writes only its operands: each operand is placed against a page
// that faults when touched (kiln_test::GuardedBuffer), once ending at it and once starting
// after it, on shapes whose edges are narrower than the kernels' vectors and tiles. The
// results must also equal those computed from ordinary buffers, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kiln/kernels/conv2d.h"
#include "kiln/kernels/depthwise.h"
#include "kiln/kernels/matmul.h"
#include "kiln/kernels/pool.h"
#include "kiln/runtime/parallel.h"
#include "test_util.h"

namespace {

using Guarded = kiln_test::GuardedBuffer<float>;
using Side = Guarded::Side;

std::vector<float> Random(int64_t count, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(count));
  for (float &x : v)
    x = dist(gen);
  return v;
}

uintptr_t Address(const std::vector<float> &v) { return reinterpret_cast<uintptr_t>(v.data()); }

// Runs `call` (which takes the operands' addresses, the last one the output) on ordinary
// buffers, then on guarded ones against each side, and compares the outputs.
template <class Call>
void ExpectOnlyOperandsTouched(std::vector<std::vector<float>> operands, Call call,
                               const std::string &what) {
  std::vector<uintptr_t> plain;
  for (const auto &v : operands)
    plain.push_back(Address(v));
  std::vector<float> &out = operands.back();
  std::vector<float> initial = out;
  call(plain);
  for (Side side : {Side::kEnd, Side::kStart}) {
    std::vector<std::unique_ptr<Guarded>> guarded;
    std::vector<uintptr_t> addresses;
    for (size_t i = 0; i < operands.size(); ++i) {
      guarded.push_back(
          std::make_unique<Guarded>(i + 1 == operands.size() ? initial : operands[i], side));
      addresses.push_back(guarded.back()->address());
    }
    call(addresses);
    std::vector<float> got = guarded.back()->values();
    ASSERT_TRUE(out.empty() || std::memcmp(got.data(), out.data(), out.size() * sizeof(float)) == 0)
        << what << (side == Side::kEnd ? ", operands ending" : ", operands starting")
        << " at a guard page";
  }
}

class GuardTest : public ::testing::Test {
protected:
  void SetUp() override { kiln_parallel_set_threads(1); }
  void TearDown() override { kiln_parallel_set_threads(0); }
};

// Narrow B (the GEMM's direct path reads B in place), tall and short A, depths of one and
// two slices, every transpose, packed B and the epilogue.
TEST_F(GuardTest, Matmul) {
  for (int64_t m : {1, 3, 14, 15, 64, 300})
    for (int64_t n : {1, 5, 8, 15, 16, 17, 31, 33})
      for (int64_t k : {1, 7, 64, 513})
        for (int32_t flags : {0, KILN_MATMUL_TRANSPOSE_A, KILN_MATMUL_TRANSPOSE_B,
                              KILN_MATMUL_TRANSPOSE_A | KILN_MATMUL_TRANSPOSE_B}) {
          std::string what = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                             " flags " + std::to_string(flags);
          std::vector<float> a = Random(m * k, 1), b = Random(k * n, 2), c = Random(m * n, 3);
          ExpectOnlyOperandsTouched(
              {a, b, c},
              [&](const std::vector<uintptr_t> &p) {
                kiln_kernel_matmul_f32(p[0], p[1], p[2], m, n, k, flags);
              },
              what);
          std::vector<float> bias = Random(n, 4);
          ExpectOnlyOperandsTouched(
              {a, b, bias, c},
              [&](const std::vector<uintptr_t> &p) {
                kiln_kernel_matmul_epilogue_f32(p[0], p[1], p[3], m, n, k,
                                                flags | KILN_MATMUL_OVERWRITE, 0, 1.0f, p[2], 0.0f,
                                                -0.5f, 0.5f, KILN_ACTIVATION_SWISH);
              },
              what + ", epilogue");
          std::vector<float> packed(k * kiln_matmul_packed_b_width(n));
          ExpectOnlyOperandsTouched(
              {b, packed},
              [&](const std::vector<uintptr_t> &p) {
                kiln_kernel_matmul_pack_b_f32(p[0], k, n, flags, p[1]);
              },
              what + ", packing B");
          kiln_kernel_matmul_pack_b_f32(Address(b), k, n, flags, Address(packed));
          ExpectOnlyOperandsTouched(
              {a, packed, c},
              [&](const std::vector<uintptr_t> &p) {
                kiln_kernel_matmul_f32(p[0], p[1], p[2], m, n, k, flags | KILN_MATMUL_PACKED_B);
              },
              what + ", B packed");
        }
}

struct Window {
  int64_t n, h, w, c, f, kh, kw, sh, sw, pt, pl, pb, pr;
  int64_t oh() const { return (h + pt + pb - kh) / sh + 1; }
  int64_t ow() const { return (w + pl + pr - kw) / sw + 1; }
  std::string str() const {
    return std::to_string(n) + "x" + std::to_string(h) + "x" + std::to_string(w) + "x" +
           std::to_string(c) + " -> " + std::to_string(f) + ", " + std::to_string(kh) + "x" +
           std::to_string(kw) + " window, stride " + std::to_string(sh);
  }
};

// Channel counts below, at and above both ISAs' vector widths, images narrower than a
// register block, padding on every side.
const Window kWindows[] = {
    {1, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1},   {1, 5, 7, 3, 8, 3, 3, 1, 1, 1, 1, 1, 1},
    {2, 6, 5, 13, 17, 3, 3, 1, 1, 1, 1, 1, 1}, {1, 9, 11, 16, 33, 3, 3, 1, 1, 0, 0, 0, 0},
    {1, 4, 20, 24, 9, 3, 3, 2, 2, 0, 0, 1, 1}, {1, 7, 6, 5, 16, 5, 5, 1, 1, 2, 2, 2, 2},
    {1, 3, 3, 40, 1, 3, 3, 1, 1, 1, 1, 1, 1},
};

TEST_F(GuardTest, DepthwiseAndPointwiseDepthwise) {
  for (const Window &s : kWindows) {
    int64_t oh = s.oh(), ow = s.ow();
    for (int32_t flags : {0, KILN_DEPTHWISE_OVERWRITE | KILN_DEPTHWISE_EPILOGUE}) {
      ExpectOnlyOperandsTouched(
          {Random(s.n * s.h * s.w * s.c, 1), Random(s.kh * s.kw * s.c, 2), Random(s.c, 3),
           Random(s.n * oh * ow * s.c, 4)},
          [&](const std::vector<uintptr_t> &p) {
            kiln_kernel_depthwise_conv2d_f32(p[0], p[1], p[3], s.n, s.h, s.w, s.c, 1, s.kh, s.kw,
                                             oh, ow, s.sh, s.sw, 1, 1, s.pt, s.pl, flags, 0, 1.0f,
                                             p[2], 0.0f, -0.5f, 0.5f, KILN_ACTIVATION_SWISH);
          },
          "depthwise " + s.str() + " flags " + std::to_string(flags));
      int64_t cin = s.f;
      ExpectOnlyOperandsTouched(
          {Random(s.n * s.h * s.w * cin, 1), Random(cin * s.c, 2), Random(s.kh * s.kw * s.c, 3),
           Random(s.c, 4), Random(s.c, 5), Random(s.n * oh * ow * s.c, 6)},
          [&](const std::vector<uintptr_t> &p) {
            kiln_kernel_pointwise_depthwise_f32(
                p[0], p[1], p[2], p[5], s.n, s.h, s.w, cin, s.c, s.kh, s.kw, oh, ow, s.sh, s.sw, 1,
                1, s.pt, s.pl, flags, p[3], 1.0f, 0, 0.0f, 0.0f, 6.0f, KILN_ACTIVATION_SWISH, 0,
                1.0f, p[4], 0.0f, -1.0f, 1.0f, KILN_ACTIVATION_SWISH);
          },
          "pointwise + depthwise " + s.str() + " flags " + std::to_string(flags));
    }
  }
}

TEST_F(GuardTest, Convolutions) {
  for (const Window &s : kWindows) {
    int64_t oh = s.oh(), ow = s.ow();
    for (int32_t flags : {0, KILN_CONV2D_OVERWRITE | KILN_CONV2D_EPILOGUE,
                          KILN_CONV2D_OVERWRITE | KILN_CONV2D_EPILOGUE | KILN_CONV2D_MAX_POOL}) {
      bool pool = flags & KILN_CONV2D_MAX_POOL;
      int64_t outs = pool ? s.n * (oh / 2) * (ow / 2) * s.f : s.n * oh * ow * s.f;
      std::string what = s.str() + " flags " + std::to_string(flags);
      if (s.kh == 3 && s.kw == 3 && s.sh == 1)
        ExpectOnlyOperandsTouched(
            {Random(s.n * s.h * s.w * s.c, 1), Random(9 * s.c * s.f, 2), Random(s.f, 3),
             Random(outs, 4)},
            [&](const std::vector<uintptr_t> &p) {
              kiln_kernel_conv2d_3x3_f32(p[0], p[1], p[3], s.n, s.h, s.w, s.c, s.f, oh, ow, s.pt,
                                         s.pl, flags, 0, 1.0f, p[2], 0.0f, 0.0f, 6.0f,
                                         KILN_ACTIVATION_SWISH);
            },
            "3x3 " + what);
      ExpectOnlyOperandsTouched(
          {Random(s.n * s.h * s.w * s.c, 1), Random(s.kh * s.kw * s.c * s.f, 2), Random(s.f, 3),
           Random(outs, 4)},
          [&](const std::vector<uintptr_t> &p) {
            kiln_kernel_conv2d_direct_f32(p[0], p[1], p[3], s.n, s.h, s.w, s.c, s.f, s.kh, s.kw, oh,
                                          ow, s.sh, s.sw, 1, 1, s.pt, s.pl, flags, 0, 1.0f, p[2],
                                          0.0f, 0.0f, 6.0f, KILN_ACTIVATION_SWISH);
          },
          "direct " + what);
    }
  }
}

TEST_F(GuardTest, MaxPool) {
  for (const Window &s : kWindows) {
    if (s.pt >= s.kh || s.pl >= s.kw)
      continue;
    int64_t oh = s.oh(), ow = s.ow();
    ExpectOnlyOperandsTouched(
        {Random(s.n * s.h * s.w * s.c, 1), Random(s.n * oh * ow * s.c, 2)},
        [&](const std::vector<uintptr_t> &p) {
          kiln_kernel_max_pool2d_f32(p[0], p[1], s.n, s.h, s.w, s.c, oh, ow, s.kh, s.kw, s.sh, s.sw,
                                     s.pt, s.pl);
        },
        "max pool " + s.str());
  }
}

} // namespace
