// kiln_kernel_max_pool2d_f32 against a plain loop over the window.
#include "kiln/kernels/pool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kiln/runtime/parallel.h"

namespace {

struct Pool {
  int64_t n, h, w, c, kh, kw, sh, sw, pt, pl, oh, ow;
};

std::vector<float> MaxPool(const Pool &p, const std::vector<float> &in) {
  std::vector<float> out(p.n * p.oh * p.ow * p.c, 12345.0f);
  kiln_kernel_max_pool2d_f32(reinterpret_cast<uintptr_t>(in.data()),
                             reinterpret_cast<uintptr_t>(out.data()), p.n, p.h, p.w, p.c, p.oh,
                             p.ow, p.kh, p.kw, p.sh, p.sw, p.pt, p.pl);
  return out;
}

// TensorFlow's maximum over the window's pixels inside the input: from the lowest float,
// each greater value replacing it (NaNs are passed over).
std::vector<float> Reference(const Pool &p, const std::vector<float> &in) {
  std::vector<float> out(p.n * p.oh * p.ow * p.c);
  for (int64_t b = 0; b < p.n; ++b)
    for (int64_t y = 0; y < p.oh; ++y)
      for (int64_t x = 0; x < p.ow; ++x)
        for (int64_t ch = 0; ch < p.c; ++ch) {
          float m = std::numeric_limits<float>::lowest();
          for (int64_t i = 0; i < p.kh; ++i)
            for (int64_t k = 0; k < p.kw; ++k) {
              int64_t iy = y * p.sh + i - p.pt, ix = x * p.sw + k - p.pl;
              if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w)
                continue;
              float v = in[((b * p.h + iy) * p.w + ix) * p.c + ch];
              if (v > m)
                m = v;
            }
          out[((b * p.oh + y) * p.ow + x) * p.c + ch] = m;
        }
  return out;
}

std::vector<float> Input(const Pool &p) {
  std::vector<float> in(p.n * p.h * p.w * p.c);
  std::mt19937 gen(static_cast<uint32_t>(p.c * 31 + p.h * 7 + p.kh));
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (float &v : in)
    v = dist(gen);
  return in;
}

// Bit for bit (the sign of a zero included: the first of equal values is kept).
void ExpectSame(const std::vector<float> &got, const std::vector<float> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << i;
  EXPECT_EQ(got, want);
}

class MaxPoolTest : public ::testing::Test {
protected:
  void TearDown() override { kiln_parallel_set_threads(0); }
};

TEST_F(MaxPoolTest, MatchesTheWindowMaximum) {
  const Pool shapes[] = {
      {2, 28, 28, 32, 2, 2, 2, 2, 0, 0, 14, 14}, // the small CNN's pool: 4 vectors wide
      {1, 7, 9, 5, 3, 3, 2, 2, 1, 1, 4, 5},      // SAME 3x3/2, 5 channels (masked lanes)
      {1, 6, 6, 37, 3, 3, 1, 1, 1, 1, 6, 6},     // SAME 3x3/1, 4 vectors and a masked tail
      {2, 5, 4, 8, 5, 4, 1, 1, 0, 0, 1, 1},      // a window the size of the image
      {1, 9, 9, 3, 9, 9, 1, 1, 4, 4, 9, 9},      // 81-pixel windows: taken in parts
      {1, 3, 3, 4, 2, 2, 2, 2, 3, 3, 3, 3},      // windows wholly outside: the lowest float
  };
  for (const Pool &p : shapes) {
    SCOPED_TRACE(testing::Message()
                 << p.h << "x" << p.w << "x" << p.c << " window " << p.kh << "x" << p.kw);
    std::vector<float> in = Input(p);
    ExpectSame(MaxPool(p, in), Reference(p, in));
  }
}

TEST_F(MaxPoolTest, NansArePassedOverAsInTensorFlow) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Pool p{1, 8, 8, 20, 2, 2, 2, 2, 0, 0, 4, 4};
  std::vector<float> in = Input(p);
  auto at = [&](int y, int x, int ch) -> float & { return in[(y * 8 + x) * 20 + ch]; };
  auto out = [](const std::vector<float> &o, int y, int x, int ch) {
    return o[(y * 4 + x) * 20 + ch];
  };
  at(0, 0, 3) = nan, at(0, 1, 3) = 2.5f, at(1, 0, 3) = nan, at(1, 1, 3) = nan; // NaN first
  for (int i = 0; i < 4; ++i)
    at(2 + i / 2, 2 + i % 2, 17) = nan; // all NaN, tail lane
  at(4, 4, 0) = inf;
  for (int i = 0; i < 4; ++i)
    at(6 + i / 2, 6 + i % 2, 8) = -inf;                                        // all -inf
  at(0, 4, 5) = -0.0f, at(0, 5, 5) = 0.0f, at(1, 4, 5) = -1, at(1, 5, 5) = -1; // equal zeros
  std::vector<float> got = MaxPool(p, in);
  ExpectSame(got, Reference(p, in));
  EXPECT_EQ(out(got, 0, 0, 3), 2.5f);
  EXPECT_EQ(out(got, 1, 1, 17), std::numeric_limits<float>::lowest());
  EXPECT_EQ(out(got, 2, 2, 0), inf);
  EXPECT_EQ(out(got, 3, 3, 8), std::numeric_limits<float>::lowest());
  EXPECT_TRUE(std::signbit(out(got, 0, 2, 5)));
}

TEST_F(MaxPoolTest, ResultsDoNotDependOnTheThreadCount) {
  Pool p{4, 30, 30, 24, 3, 3, 2, 2, 1, 1, 15, 15};
  std::vector<float> in = Input(p);
  kiln_parallel_set_threads(1);
  std::vector<float> one = MaxPool(p, in);
  for (int threads : {2, 3}) {
    kiln_parallel_set_threads(threads);
    EXPECT_EQ(MaxPool(p, in), one) << threads << " threads";
  }
}

} // namespace
