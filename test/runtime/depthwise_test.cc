// kiln_kernel_depthwise_conv2d_f32 against a double-precision reference.
#include "kiln/kernels/depthwise.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kiln/kernels/matmul.h"
#include "kiln/runtime/parallel.h"

namespace {

struct Shape {
  int64_t n, h, w, c, m, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  int64_t oh() const { return (h + pt + pb - ((kh - 1) * dh + 1)) / sh + 1; }
  int64_t ow() const { return (w + pl + pr - ((kw - 1) * dw + 1)) / sw + 1; }
};

struct Problem {
  Shape s;
  std::vector<float> in, filter, out;
  explicit Problem(const Shape &shape)
      : s(shape), in(s.n * s.h * s.w * s.c), filter(s.kh * s.kw * s.c * s.m),
        out(s.n * s.oh() * s.ow() * s.c * s.m) {
    std::mt19937 gen(static_cast<uint32_t>(s.c * 97 + s.h * 13 + s.kh + s.m));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float &v : in)
      v = dist(gen);
    for (float &v : filter)
      v = dist(gen);
    for (float &v : out)
      v = dist(gen);
  }
  std::vector<float> Run(bool overwrite, const float *scale = nullptr, float bias = 0.0f,
                         float lo = 0.0f, float hi = 0.0f,
                         int32_t activation = KILN_ACTIVATION_NONE) const {
    std::vector<float> got = out;
    int32_t flags =
        (overwrite ? KILN_DEPTHWISE_OVERWRITE : 0) | (scale ? KILN_DEPTHWISE_EPILOGUE : 0);
    kiln_kernel_depthwise_conv2d_f32(
        reinterpret_cast<uintptr_t>(in.data()), reinterpret_cast<uintptr_t>(filter.data()),
        reinterpret_cast<uintptr_t>(got.data()), s.n, s.h, s.w, s.c, s.m, s.kh, s.kw, s.oh(),
        s.ow(), s.sh, s.sw, s.dh, s.dw, s.pt, s.pl, flags, reinterpret_cast<uintptr_t>(scale), 1.0f,
        0, bias, lo, hi, activation);
    return got;
  }
  // Max abs error of `got` against the convolution (plus the old output unless
  // `overwrite`) computed in double with explicit zero padding, then the epilogue
  // min(max(v * scale[ch] + bias, lo), hi) if `scale` is set, and Swish after it with
  // `swish`.
  double Error(const std::vector<float> &got, bool overwrite, const float *scale = nullptr,
               float bias = 0.0f, float lo = 0.0f, float hi = 0.0f, bool swish = false) const {
    double worst = 0;
    int64_t oh = s.oh(), ow = s.ow();
    for (int64_t b = 0; b < s.n; ++b)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x)
          for (int64_t ch = 0; ch < s.c; ++ch)
            for (int64_t j = 0; j < s.m; ++j) {
              int64_t at = (((b * oh + y) * ow + x) * s.c + ch) * s.m + j;
              double sum = overwrite ? 0.0 : out[at];
              for (int64_t i = 0; i < s.kh; ++i)
                for (int64_t k = 0; k < s.kw; ++k) {
                  int64_t iy = y * s.sh + i * s.dh - s.pt, ix = x * s.sw + k * s.dw - s.pl;
                  if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w)
                    continue;
                  sum += double(in[((b * s.h + iy) * s.w + ix) * s.c + ch]) *
                         double(filter[((i * s.kw + k) * s.c + ch) * s.m + j]);
                }
              if (scale)
                sum = std::min<double>(std::max<double>(sum * scale[ch * s.m + j] + bias, lo), hi);
              if (scale && swish)
                sum = sum / (1.0 + std::exp(-sum));
              worst = std::max(worst, std::fabs(sum - got[at]));
            }
    return worst;
  }
};

class DepthwiseTest : public ::testing::TestWithParam<Shape> {
protected:
  void TearDown() override { kiln_parallel_set_threads(0); }
};

TEST_P(DepthwiseTest, MatchesReference) {
  Problem p(GetParam());
  for (bool overwrite : {true, false}) {
    kiln_parallel_set_threads(1);
    std::vector<float> got = p.Run(overwrite);
    EXPECT_LT(p.Error(got, overwrite), 1e-5) << "overwrite " << overwrite;
  }
}

TEST_P(DepthwiseTest, Epilogue) {
  Problem p(GetParam());
  std::vector<float> scale(p.s.c * p.s.m);
  for (size_t i = 0; i < scale.size(); ++i)
    scale[i] = 0.25f + 0.125f * float(i % 7);
  kiln_parallel_set_threads(2);
  // A Relu6 after a per-channel scale and a bias, as a fused batch norm gives.
  std::vector<float> got = p.Run(true, scale.data(), 0.1f, 0.0f, 6.0f);
  EXPECT_LT(p.Error(got, true, scale.data(), 0.1f, 0.0f, 6.0f), 1e-5);
  // Swish after them, as EfficientNet's batch norms give (unbounded: exp's whole range).
  const float inf = INFINITY;
  got = p.Run(true, scale.data(), 0.1f, -inf, inf, KILN_ACTIVATION_SWISH);
  EXPECT_LT(p.Error(got, true, scale.data(), 0.1f, -inf, inf, true), 1e-5);
}

TEST_P(DepthwiseTest, SameBitsForEveryThreadCount) {
  Problem p(GetParam());
  kiln_parallel_set_threads(1);
  std::vector<float> one = p.Run(true);
  for (int threads : {2, 3, 8}) {
    kiln_parallel_set_threads(threads);
    EXPECT_EQ(p.Run(true), one) << threads << " threads";
  }
}

// n, h, w, c, m, kh, kw, strides, dilations, pads (top, left, bottom, right). Channel
// counts cover whole vectors (16 and 8 lanes) and tails; the test binary also runs with
// KILN_KERNEL_ISA=avx2 (test/runtime/CMakeLists.txt).
INSTANTIATE_TEST_SUITE_P(
    Shapes, DepthwiseTest,
    ::testing::Values(Shape{1, 9, 8, 32, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
                      Shape{2, 11, 10, 45, 1, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1},
                      Shape{1, 7, 9, 13, 1, 5, 3, 1, 2, 2, 1, 4, 1, 4, 1},
                      Shape{1, 6, 6, 3, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
                      Shape{3, 5, 4, 8, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
                      Shape{1, 2, 2, 40, 1, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2},
                      Shape{1, 40, 33, 96, 1, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1},
                      // runs of whole windows, dilated across; a 5x5 window
                      Shape{1, 9, 12, 24, 1, 3, 3, 1, 1, 1, 2, 1, 2, 1, 2},
                      Shape{1, 10, 14, 16, 1, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},
                      // the fast path: runs of whole windows longer than a register
                      // block with a channel tail (24 = 16 + 8, 13), stride 2 with a
                      // 5x5 window, and rows narrower than a block
                      Shape{1, 12, 37, 24, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
                      Shape{2, 9, 26, 13, 1, 3, 3, 2, 2, 1, 1, 0, 1, 1, 1},
                      Shape{1, 13, 31, 20, 1, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2},
                      Shape{1, 4, 5, 48, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
                      // 7x7 windows (ConvNeXt's): long rows, short rows, stride 2
                      Shape{1, 11, 29, 24, 1, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3},
                      Shape{2, 7, 7, 13, 1, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3},
                      Shape{1, 15, 35, 16, 1, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3}));

// kiln_kernel_pointwise_depthwise_f32 against kiln_kernel_matmul_epilogue_f32 followed by
// kiln_kernel_depthwise_conv2d_f32, which it must equal bit for bit.
struct FusedShape {
  Shape s; // its c is the 1x1 convolution's output channels, m must be 1
  int64_t cin;
};

class PointwiseDepthwiseTest : public ::testing::TestWithParam<FusedShape> {
protected:
  void TearDown() override { kiln_parallel_set_threads(0); }
};

TEST_P(PointwiseDepthwiseTest, EqualsTheTwoKernels) {
  const Shape &s = GetParam().s;
  int64_t cin = GetParam().cin;
  std::mt19937 gen(static_cast<uint32_t>(cin * 31 + s.c));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto random = [&](int64_t count) {
    std::vector<float> v(count);
    for (float &x : v)
      x = dist(gen);
    return v;
  };
  std::vector<float> input = random(s.n * s.h * s.w * cin), weights = random(cin * s.c),
                     filter = random(s.kh * s.kw * s.c), scale1 = random(s.c), bias1 = random(s.c),
                     bias2 = random(s.c);
  auto addr = [](const std::vector<float> &v) { return reinterpret_cast<uintptr_t>(v.data()); };
  int64_t oh = s.oh(), ow = s.ow();
  for (int variant = 0; variant < 4; ++variant) {
    bool second = variant & 1;
    int32_t flags = second ? KILN_DEPTHWISE_EPILOGUE : 0;
    int32_t act = variant & 2 ? KILN_ACTIVATION_SWISH : KILN_ACTIVATION_NONE;
    kiln_parallel_set_threads(1);
    std::vector<float> mid(s.n * s.h * s.w * s.c), expected(s.n * oh * ow * s.c);
    kiln_kernel_matmul_epilogue_f32(addr(input), addr(weights), addr(mid), s.n * s.h * s.w, s.c,
                                    cin, KILN_MATMUL_OVERWRITE, addr(scale1), 1.0f, addr(bias1),
                                    0.0f, 0.0f, 6.0f, act);
    kiln_kernel_depthwise_conv2d_f32(addr(mid), addr(filter), addr(expected), s.n, s.h, s.w, s.c, 1,
                                     s.kh, s.kw, oh, ow, s.sh, s.sw, s.dh, s.dw, s.pt, s.pl,
                                     KILN_DEPTHWISE_OVERWRITE | flags, 0, 0.5f, addr(bias2), 0.0f,
                                     -1.0f, 1.0f, act);
    for (int threads : {1, 2, 3}) {
      kiln_parallel_set_threads(threads);
      std::vector<float> got(expected.size(), NAN);
      kiln_kernel_pointwise_depthwise_f32(
          addr(input), addr(weights), addr(filter), addr(got), s.n, s.h, s.w, cin, s.c, s.kh, s.kw,
          oh, ow, s.sh, s.sw, s.dh, s.dw, s.pt, s.pl, flags, addr(scale1), 1.0f, addr(bias1), 0.0f,
          0.0f, 6.0f, act, 0, 0.5f, addr(bias2), 0.0f, -1.0f, 1.0f, act);
      EXPECT_EQ(got, expected) << threads << " threads, second epilogue " << second
                               << ", activation " << act;
    }
  }
}

// The fast path (3x3 and 5x5, strides 1 and 2, channel tails, several images, depths of
// one and two GEMM slices) and windows it does not take (dilated, 1x2), which go one
// element at a time.
INSTANTIATE_TEST_SUITE_P(
    Shapes, PointwiseDepthwiseTest,
    ::testing::Values(FusedShape{{1, 12, 21, 24, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, 8},
                      FusedShape{{2, 13, 17, 40, 1, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1}, 16},
                      FusedShape{{1, 9, 20, 16, 1, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2}, 5},
                      FusedShape{{1, 6, 7, 19, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, 600},
                      FusedShape{{1, 7, 8, 12, 1, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2}, 9},
                      FusedShape{{1, 5, 6, 10, 1, 1, 2, 1, 1, 1, 1, 0, 0, 0, 1}, 4},
                      FusedShape{{1, 9, 19, 16, 1, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3}, 8}));

} // namespace
