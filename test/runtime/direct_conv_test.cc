// kiln_kernel_conv2d_direct_f32 against a double-precision direct sum.
#include "kiln/kernels/conv2d.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "conv_reference.h"
#include "kiln/runtime/parallel.h"

namespace {

using Shape = kiln_test::ConvShape;

struct Problem : kiln_test::ConvProblem {
  using ConvProblem::ConvProblem;
  // With `pool`, the 2x2/2 max pool of the result (KILN_CONV2D_MAX_POOL), in a buffer of
  // that size. With `swish`, the epilogue's bounds are -6 and 6 and Swish follows them.
  std::vector<float> Run(bool overwrite, bool epilogue = false, bool pool = false,
                         bool swish = false) const {
    std::vector<float> got =
        pool ? std::vector<float>(s.n * (s.oh() / 2) * (s.ow() / 2) * s.f, NAN) : out;
    int32_t flags = (overwrite ? KILN_CONV2D_OVERWRITE : 0) |
                    (epilogue ? KILN_CONV2D_EPILOGUE : 0) | (pool ? KILN_CONV2D_MAX_POOL : 0);
    kiln_kernel_conv2d_direct_f32(
        reinterpret_cast<uintptr_t>(in.data()), reinterpret_cast<uintptr_t>(filter.data()),
        reinterpret_cast<uintptr_t>(got.data()), s.n, s.h, s.w, s.c, s.f, s.kh, s.kw, s.oh(),
        s.ow(), s.sh, s.sw, s.dh, s.dw, s.pt, s.pl, flags, 0, 2.0f,
        reinterpret_cast<uintptr_t>(bias.data()), 0.0f, swish ? -6.0f : 0.0f, 6.0f,
        swish ? KILN_ACTIVATION_SWISH : KILN_ACTIVATION_NONE);
    return got;
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
      {2, 28, 28, 1, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, // the small CNN's first layer
      {1, 17, 15, 3, 32, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1}, // MobileNetV2's, stride 2
      {1, 9, 11, 2, 37, 5, 3, 1, 2, 1, 1, 2, 1, 2, 1},  // channel tails, tall window
      {1, 7, 7, 4, 8, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},    // dilated, 8 channels
      {1, 12, 12, 1, 5, 9, 9, 1, 1, 1, 1, 4, 4, 4, 4},  // 81 taps: two parts
      {1, 4, 30, 3, 16, 1, 7, 1, 3, 1, 1, 0, 3, 0, 3},  // a row of windows
      {1, 3, 3, 2, 16, 3, 3, 1, 1, 1, 1, 5, 5, 5, 5},   // windows wholly in the padding
  };
  for (const Shape &s : shapes) {
    Problem p(s);
    for (bool overwrite : {true, false})
      EXPECT_LT(p.Error(p.Run(overwrite), overwrite), kTolerance)
          << s.h << "x" << s.w << "x" << s.c << "->" << s.f << " window " << s.kh << "x" << s.kw
          << " overwrite " << overwrite;
    EXPECT_LT(p.Error(p.Run(true, true), true, true), kTolerance) << "epilogue";
    EXPECT_LT(p.Error(p.Run(true, true, false, true), true, true, true), kTolerance)
        << "swish " << s.h << "x" << s.w << "x" << s.c << "->" << s.f << " window " << s.kh << "x"
        << s.kw;
  }
}

TEST_F(DirectConvTest, ResultsDoNotDependOnTheThreadCount) {
  Problem p(Shape{3, 20, 21, 3, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  for (bool swish : {false, true}) {
    kiln_parallel_set_threads(1);
    std::vector<float> one = p.Run(true, true, false, swish);
    for (int threads : {2, 3}) {
      kiln_parallel_set_threads(threads);
      EXPECT_EQ(p.Run(true, true, false, swish), one) << threads << " threads, swish " << swish;
    }
  }
}

TEST_F(DirectConvTest, NanInTheInputReachesOnlyItsOutputs) {
  Problem p(Shape{1, 8, 8, 1, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  p.in[3 * 8 + 5] = NAN;
  std::vector<float> got = p.Run(true);
  for (int64_t y = 0; y < 8; ++y)
    for (int64_t x = 0; x < 8; ++x) {
      bool reads = std::abs(y - 3) <= 1 && std::abs(x - 5) <= 1;
      EXPECT_EQ(reads, std::isnan(got[(y * 8 + x) * 16 + 7])) << y << "," << x;
    }
}

TEST_F(DirectConvTest, MaxPoolIsThePoolOfTheResult) {
  const Shape shapes[] = {
      {2, 28, 28, 1, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, // the small CNN's first layer
      {1, 13, 11, 3, 37, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}, // odd sizes, a channel tail
      {1, 15, 15, 3, 16, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1}, // stride 2
  };
  for (const Shape &s : shapes) {
    Problem p(s);
    p.in[3] = NAN;
    for (int32_t threads : {1, 3}) {
      kiln_parallel_set_threads(threads);
      std::vector<float> want = kiln_test::MaxPool2x2(p.Run(true, true), s.n, s.oh(), s.ow(), s.f);
      EXPECT_EQ(p.Run(true, true, true), want) << s.h << "x" << s.w << " " << threads << " threads";
    }
  }
}

} // namespace
