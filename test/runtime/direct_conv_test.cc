// kiln_kernel_conv2d_direct_f32 against a double-precision direct sum.
#include "kiln/kernels/conv2d.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kiln/runtime/parallel.h"

namespace {

struct Shape {
  int64_t n, h, w, c, f, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  int64_t oh() const { return (h + pt + pb - (kh - 1) * dh - 1) / sh + 1; }
  int64_t ow() const { return (w + pl + pr - (kw - 1) * dw - 1) / sw + 1; }
};

struct Problem {
  Shape s;
  std::vector<float> in, filter, out, bias;
  explicit Problem(const Shape &shape)
      : s(shape), in(s.n * s.h * s.w * s.c), filter(s.kh * s.kw * s.c * s.f),
        out(s.n * s.oh() * s.ow() * s.f), bias(s.f) {
    std::mt19937 gen(static_cast<uint32_t>(s.c * 101 + s.h * 17 + s.f + s.kh * 3 + s.sw));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float &v : in) v = dist(gen);
    for (float &v : filter) v = dist(gen);
    for (float &v : out) v = dist(gen);
    for (float &v : bias) v = dist(gen);
  }
  std::vector<float> Run(bool overwrite, bool epilogue = false) const {
    std::vector<float> got = out;
    int32_t flags = (overwrite ? KILN_CONV2D_OVERWRITE : 0) | (epilogue ? KILN_CONV2D_EPILOGUE : 0);
    kiln_kernel_conv2d_direct_f32(reinterpret_cast<uintptr_t>(in.data()),
                                  reinterpret_cast<uintptr_t>(filter.data()),
                                  reinterpret_cast<uintptr_t>(got.data()), s.n, s.h, s.w, s.c,
                                  s.f, s.kh, s.kw, s.oh(), s.ow(), s.sh, s.sw, s.dh, s.dw, s.pt,
                                  s.pl, flags, 0, 2.0f, reinterpret_cast<uintptr_t>(bias.data()),
                                  0.0f, 0.0f, 6.0f);
    return got;
  }
  // Max error of `got` against the convolution (plus the old output unless `overwrite`) in
  // double, then, with `epilogue`, min(max(2v + bias, 0), 6); relative to the sum of
  // |products| of each output.
  double Error(const std::vector<float> &got, bool overwrite, bool epilogue = false) const {
    double worst = 0;
    int64_t oh = s.oh(), ow = s.ow();
    for (int64_t b = 0; b < s.n; ++b)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x)
          for (int64_t j = 0; j < s.f; ++j) {
            int64_t at = ((b * oh + y) * ow + x) * s.f + j;
            double sum = overwrite ? 0.0 : out[at], magnitude = std::fabs(sum) + 1e-30;
            for (int64_t i = 0; i < s.kh; ++i)
              for (int64_t k = 0; k < s.kw; ++k) {
                int64_t iy = y * s.sh + i * s.dh - s.pt, ix = x * s.sw + k * s.dw - s.pl;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                for (int64_t ch = 0; ch < s.c; ++ch) {
                  double p = double(in[((b * s.h + iy) * s.w + ix) * s.c + ch]) *
                             filter[((i * s.kw + k) * s.c + ch) * s.f + j];
                  sum += p;
                  magnitude += std::fabs(p);
                }
              }
            if (epilogue)
              sum = std::min(std::max(2.0 * sum + bias[j], 0.0), 6.0);
            worst = std::max(worst, std::fabs(sum - got[at]) / (epilogue ? 2 * magnitude : magnitude));
          }
    return worst;
  }
};

// A sum of fused multiply-adds in one order: within a few ulp of the sum of magnitudes.
constexpr double kTolerance = 1e-6;

class DirectConvTest : public ::testing::Test {
 protected:
  void TearDown() override { kiln_parallel_set_threads(0); }
};

TEST_F(DirectConvTest, MatchesTheDirectSum) {
  kiln_parallel_set_threads(1);
  const Shape shapes[] = {
      // n, h, w, c, f, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr
      {2, 28, 28, 1, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   // the small CNN's first layer
      {1, 17, 15, 3, 32, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1},   // MobileNetV2's, stride 2
      {1, 9, 11, 2, 37, 5, 3, 1, 2, 1, 1, 2, 1, 2, 1},    // channel tails, tall window
      {1, 7, 7, 4, 8, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},      // dilated, 8 channels
      {1, 12, 12, 1, 5, 9, 9, 1, 1, 1, 1, 4, 4, 4, 4},    // 81 taps: two parts
      {1, 4, 30, 3, 16, 1, 7, 1, 3, 1, 1, 0, 3, 0, 3},    // a row of windows
      {1, 3, 3, 2, 16, 3, 3, 1, 1, 1, 1, 5, 5, 5, 5},     // windows wholly in the padding
  };
  for (const Shape &s : shapes) {
    Problem p(s);
    for (bool overwrite : {true, false})
      EXPECT_LT(p.Error(p.Run(overwrite), overwrite), kTolerance)
          << s.h << "x" << s.w << "x" << s.c << "->" << s.f << " window " << s.kh << "x" << s.kw
          << " overwrite " << overwrite;
    EXPECT_LT(p.Error(p.Run(true, true), true, true), kTolerance) << "epilogue";
  }
}

TEST_F(DirectConvTest, ResultsDoNotDependOnTheThreadCount) {
  Problem p({3, 20, 21, 3, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  kiln_parallel_set_threads(1);
  std::vector<float> one = p.Run(true, true);
  for (int threads : {2, 3}) {
    kiln_parallel_set_threads(threads);
    EXPECT_EQ(p.Run(true, true), one) << threads << " threads";
  }
}

TEST_F(DirectConvTest, NanInTheInputReachesOnlyItsOutputs) {
  Problem p({1, 8, 8, 1, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  p.in[3 * 8 + 5] = NAN;
  std::vector<float> got = p.Run(true);
  for (int64_t y = 0; y < 8; ++y)
    for (int64_t x = 0; x < 8; ++x) {
      bool reads = std::abs(y - 3) <= 1 && std::abs(x - 5) <= 1;
      EXPECT_EQ(reads, std::isnan(got[(y * 8 + x) * 16 + 7])) << y << "," << x;
    }
}

} // namespace
