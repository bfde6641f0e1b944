// kiln_kernel_conv2d_3x3_f32 (Winograd F(4x4, 3x3)) against a double-precision direct sum.
#include "kiln/kernels/conv2d.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kiln/runtime/parallel.h"

namespace {

struct Shape {
  int64_t n, h, w, c, f, pt, pl, pb, pr;
  int64_t oh() const { return h + pt + pb - 2; }
  int64_t ow() const { return w + pl + pr - 2; }
};

struct Problem {
  Shape s;
  std::vector<float> in, filter, out, bias;
  explicit Problem(const Shape &shape)
      : s(shape), in(s.n * s.h * s.w * s.c), filter(9 * s.c * s.f),
        out(s.n * s.oh() * s.ow() * s.f), bias(s.f) {
    std::mt19937 gen(static_cast<uint32_t>(s.c * 97 + s.h * 13 + s.f + s.pt));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float &v : in) v = dist(gen);
    for (float &v : filter) v = dist(gen);
    for (float &v : out) v = dist(gen);
    for (float &v : bias) v = dist(gen);
  }
  std::vector<float> Run(bool overwrite, bool epilogue = false) const {
    std::vector<float> got = out;
    int32_t flags = (overwrite ? KILN_CONV2D_OVERWRITE : 0) | (epilogue ? KILN_CONV2D_EPILOGUE : 0);
    kiln_kernel_conv2d_3x3_f32(reinterpret_cast<uintptr_t>(in.data()),
                               reinterpret_cast<uintptr_t>(filter.data()),
                               reinterpret_cast<uintptr_t>(got.data()), s.n, s.h, s.w, s.c, s.f,
                               s.oh(), s.ow(), s.pt, s.pl, flags, 0, 2.0f,
                               reinterpret_cast<uintptr_t>(bias.data()), 0.0f, 0.0f, 6.0f);
    return got;
  }
  // Max error of `got` against the convolution (plus the old output unless `overwrite`) in
  // double with explicit zero padding, then, with `epilogue`, min(max(2v + bias, 0), 6);
  // relative to the sum of |products| of each output (the scale rounding errors grow with).
  double Error(const std::vector<float> &got, bool overwrite, bool epilogue = false) const {
    double worst = 0;
    int64_t oh = s.oh(), ow = s.ow();
    for (int64_t b = 0; b < s.n; ++b)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x)
          for (int64_t j = 0; j < s.f; ++j) {
            int64_t at = ((b * oh + y) * ow + x) * s.f + j;
            double sum = overwrite ? 0.0 : out[at], magnitude = std::fabs(sum) + 1e-30;
            for (int64_t i = 0; i < 3; ++i)
              for (int64_t k = 0; k < 3; ++k) {
                int64_t iy = y + i - s.pt, ix = x + k - s.pl;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                for (int64_t ch = 0; ch < s.c; ++ch) {
                  double p = double(in[((b * s.h + iy) * s.w + ix) * s.c + ch]) *
                             filter[((i * 3 + k) * s.c + ch) * s.f + j];
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

// About 100 ulp of the sum of magnitudes: F(4x4, 3x3)'s transforms scale by up to 8 (and
// 1/24) before the products, so their rounding errors do too (2.7e-6 measured on these
// shapes); a wrong transform is off by the values themselves.
constexpr double kTolerance = 1e-5;

class Conv2dTest : public ::testing::Test {
 protected:
  void TearDown() override { kiln_parallel_set_threads(0); }
};

TEST_F(Conv2dTest, MatchesTheDirectSum) {
  kiln_parallel_set_threads(1);
  const Shape shapes[] = {
      {1, 4, 4, 1, 1, 1, 1, 1, 1},    {2, 7, 5, 3, 5, 1, 1, 1, 1},   // SAME, odd sizes
      {1, 6, 9, 8, 16, 0, 0, 0, 0},   {1, 5, 5, 4, 3, 0, 0, 0, 0},   // VALID
      {3, 14, 14, 32, 64, 1, 1, 1, 1}, {1, 9, 8, 17, 33, 2, 0, 1, 2}, // explicit, uneven
      {1, 3, 3, 16, 16, 1, 1, 1, 1},  {1, 16, 1, 24, 8, 1, 1, 1, 1},
  };
  for (const Shape &s : shapes) {
    Problem p(s);
    for (bool overwrite : {true, false})
      EXPECT_LT(p.Error(p.Run(overwrite), overwrite), kTolerance)
          << s.n << "x" << s.h << "x" << s.w << "x" << s.c << "->" << s.f << " overwrite "
          << overwrite;
    EXPECT_LT(p.Error(p.Run(true, true), true, true), kTolerance) << "epilogue";
  }
}

TEST_F(Conv2dTest, ResultsDoNotDependOnTheThreadCount) {
  Problem p({4, 20, 18, 32, 48, 1, 1, 1, 1});
  kiln_parallel_set_threads(1);
  std::vector<float> one = p.Run(true, true);
  for (int32_t threads : {2, 3, 8}) {
    kiln_parallel_set_threads(threads);
    std::vector<float> many = p.Run(true, true);
    ASSERT_EQ(0, std::memcmp(one.data(), many.data(), one.size() * sizeof(float)))
        << threads << " threads";
  }
}

TEST_F(Conv2dTest, NanInTheInputReachesOnlyItsOutputs) {
  Problem p({1, 8, 8, 4, 4, 1, 1, 1, 1});
  p.in[((0 * 8 + 5) * 8 + 5) * 4 + 2] = NAN; // input pixel (5, 5)
  std::vector<float> got = p.Run(true);
  for (int64_t y = 0; y < 8; ++y)
    for (int64_t x = 0; x < 8; ++x) {
      // Outputs whose window holds the pixel are NaN; Winograd's 4x4 input blocks must not
      // spread it to the rest of a 2x2 tile.
      bool reads = y >= 4 && y <= 6 && x >= 4 && x <= 6;
      EXPECT_EQ(reads, std::isnan(got[(y * 8 + x) * 4])) << y << "," << x;
    }
}

TEST_F(Conv2dTest, InfinitiesGiveTheDirectSumsInfinities) {
  // inf - inf inside the transforms would make NaN of outputs whose direct sum is +-inf.
  Problem p({1, 8, 8, 4, 4, 1, 1, 1, 1});
  for (float &v : p.filter) v = std::fabs(v) + 0.1f; // positive taps: inf stays +inf
  p.in[((0 * 8 + 2) * 8 + 3) * 4 + 1] = INFINITY;
  std::vector<float> got = p.Run(true);
  for (int64_t y = 0; y < 8; ++y)
    for (int64_t x = 0; x < 8; ++x) {
      bool reads = y >= 1 && y <= 3 && x >= 2 && x <= 4;
      float v = got[(y * 8 + x) * 4];
      EXPECT_EQ(reads, std::isinf(v) && v > 0) << y << "," << x << ": " << v;
      EXPECT_FALSE(std::isnan(v)) << y << "," << x;
    }
  // An infinite tap (top-left, input channel 1, output channel 1): channel 1 is infinite
  // where that tap reads the image (not the padding), every other output is finite.
  Problem q({1, 6, 6, 4, 4, 1, 1, 1, 1});
  for (float &v : q.in) v = std::fabs(v) + 0.1f;
  q.filter[(0 * 4 + 1) * 4 + 1] = INFINITY;
  std::vector<float> all = q.Run(true);
  for (int64_t y = 0; y < 6; ++y)
    for (int64_t x = 0; x < 6; ++x)
      for (int64_t j = 0; j < 4; ++j) {
        float v = all[(y * 6 + x) * 4 + j];
        bool infinite = j == 1 && y >= 1 && x >= 1;
        EXPECT_EQ(infinite, std::isinf(v)) << y << "," << x << "," << j << ": " << v;
        EXPECT_FALSE(std::isnan(v)) << y << "," << x << "," << j;
      }
}

} // namespace
