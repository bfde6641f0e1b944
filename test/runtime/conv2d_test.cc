// kiln_kernel_conv2d_3x3_f32 (Winograd F(4x4, 3x3)) against a double-precision direct sum.
#include "kiln/kernels/conv2d.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <thread>

#include "conv_reference.h"
#include "kiln/runtime/arena.h"
#include "kiln/runtime/parallel.h"

namespace {

// A 3x3 convolution with unit strides: batch, image, channels in and out, pads.
struct Shape {
  int64_t n, h, w, c, f, pt, pl, pb, pr;
};

struct Problem : kiln_test::ConvProblem {
  explicit Problem(const Shape &t)
      : ConvProblem({t.n, t.h, t.w, t.c, t.f, 3, 3, 1, 1, 1, 1, t.pt, t.pl, t.pb, t.pr}) {}
  // With `pool`, the 2x2/2 max pool of the result (KILN_CONV2D_MAX_POOL), in a buffer of
  // that size. With `swish`, the epilogue's bounds are -6 and 6 and Swish follows them.
  // With `cache`, through kiln_kernel_conv2d_3x3_cached_f32 with that slot.
  std::vector<float> Run(bool overwrite, bool epilogue = false, bool pool = false,
                         bool swish = false, uintptr_t *cache = nullptr) const {
    std::vector<float> got =
        pool ? std::vector<float>(s.n * (s.oh() / 2) * (s.ow() / 2) * s.f, NAN) : out;
    int32_t flags = (overwrite ? KILN_CONV2D_OVERWRITE : 0) |
                    (epilogue ? KILN_CONV2D_EPILOGUE : 0) | (pool ? KILN_CONV2D_MAX_POOL : 0);
    if (cache) {
      kiln_kernel_conv2d_3x3_cached_f32(
          reinterpret_cast<uintptr_t>(in.data()), reinterpret_cast<uintptr_t>(filter.data()),
          reinterpret_cast<uintptr_t>(cache), reinterpret_cast<uintptr_t>(got.data()), s.n, s.h,
          s.w, s.c, s.f, s.oh(), s.ow(), s.pt, s.pl, flags, 0, 2.0f,
          reinterpret_cast<uintptr_t>(bias.data()), 0.0f, swish ? -6.0f : 0.0f, 6.0f,
          swish ? KILN_ACTIVATION_SWISH : KILN_ACTIVATION_NONE);
      return got;
    }
    kiln_kernel_conv2d_3x3_f32(
        reinterpret_cast<uintptr_t>(in.data()), reinterpret_cast<uintptr_t>(filter.data()),
        reinterpret_cast<uintptr_t>(got.data()), s.n, s.h, s.w, s.c, s.f, s.oh(), s.ow(), s.pt,
        s.pl, flags, 0, 2.0f, reinterpret_cast<uintptr_t>(bias.data()), 0.0f, swish ? -6.0f : 0.0f,
        6.0f, swish ? KILN_ACTIVATION_SWISH : KILN_ACTIVATION_NONE);
    return got;
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
      {1, 4, 4, 1, 1, 1, 1, 1, 1},     {2, 7, 5, 3, 5, 1, 1, 1, 1},   // SAME, odd sizes
      {1, 6, 9, 8, 16, 0, 0, 0, 0},    {1, 5, 5, 4, 3, 0, 0, 0, 0},   // VALID
      {3, 14, 14, 32, 64, 1, 1, 1, 1}, {1, 9, 8, 17, 33, 2, 0, 1, 2}, // explicit, uneven
      {1, 3, 3, 16, 16, 1, 1, 1, 1},   {1, 16, 1, 24, 8, 1, 1, 1, 1},
  };
  for (const Shape &s : shapes) {
    Problem p(s);
    for (bool overwrite : {true, false})
      EXPECT_LT(p.Error(p.Run(overwrite), overwrite), kTolerance)
          << s.n << "x" << s.h << "x" << s.w << "x" << s.c << "->" << s.f << " overwrite "
          << overwrite;
    EXPECT_LT(p.Error(p.Run(true, true), true, true), kTolerance) << "epilogue";
    EXPECT_LT(p.Error(p.Run(true, true, false, true), true, true, true), kTolerance) << "swish";
  }
}

TEST_F(Conv2dTest, ResultsDoNotDependOnTheThreadCount) {
  Problem p({4, 20, 18, 32, 48, 1, 1, 1, 1});
  kiln_parallel_set_threads(1);
  std::vector<float> one = p.Run(true, true, false, true);
  for (int32_t threads : {2, 3, 8}) {
    kiln_parallel_set_threads(threads);
    std::vector<float> many = p.Run(true, true, false, true);
    ASSERT_EQ(0, std::memcmp(one.data(), many.data(), one.size() * sizeof(float)))
        << threads << " threads";
  }
}

// A deep layer's few tiles (one block) and many output channels: with more threads than
// blocks, each block's channels are split among them (96 and 80 channels at 2 threads;
// 64, 64 and 48 at 3). The results must equal the direct sum, accumulated or not, with the epilogue
// and pooled, and be bitwise those of one thread; a NaN pixel's tiles (the direct sum, done once
// for all channels) too.
TEST_F(Conv2dTest, ChannelSplitsOfFewTilesMatchOneThread) {
  Problem p({1, 8, 8, 24, 176, 1, 1, 1, 1});
  for (int32_t threads : {1, 2, 3})
    for (bool overwrite : {true, false}) {
      kiln_parallel_set_threads(threads);
      EXPECT_LT(p.Error(p.Run(overwrite), overwrite), kTolerance)
          << threads << " threads, overwrite " << overwrite;
    }
  Problem nan = p;
  nan.in[(3 * 8 + 5) * 24 + 7] = NAN;
  for (bool pool : {false, true})
    for (bool overwrite : {true, false}) {
      if (pool && !overwrite)
        continue; // pooling overwrites
      kiln_parallel_set_threads(1);
      std::vector<float> one = nan.Run(overwrite, true, pool);
      for (int32_t threads : {2, 3, 4}) {
        kiln_parallel_set_threads(threads);
        std::vector<float> many = nan.Run(overwrite, true, pool);
        ASSERT_EQ(0, std::memcmp(one.data(), many.data(), one.size() * sizeof(float)))
            << threads << " threads, pool " << pool << ", overwrite " << overwrite;
      }
    }
}

TEST_F(Conv2dTest, NanInTheInputReachesOnlyItsOutputs) {
  Problem p({1, 8, 8, 4, 4, 1, 1, 1, 1});
  p.in[((0 * 8 + 5) * 8 + 5) * 4 + 2] = NAN; // input pixel (5, 5)
  std::vector<float> got = p.Run(true);
  for (int64_t y = 0; y < 8; ++y)
    for (int64_t x = 0; x < 8; ++x) {
      // Outputs whose window holds the pixel are NaN; Winograd's 6x6 input blocks must not
      // spread it to the rest of a 4x4 tile.
      bool reads = y >= 4 && y <= 6 && x >= 4 && x <= 6;
      EXPECT_EQ(reads, std::isnan(got[(y * 8 + x) * 4])) << y << "," << x;
    }
}

TEST_F(Conv2dTest, InfinitiesGiveTheDirectSumsInfinities) {
  // inf - inf inside the transforms would make NaN of outputs whose direct sum is +-inf.
  Problem p({1, 8, 8, 4, 4, 1, 1, 1, 1});
  for (float &v : p.filter)
    v = std::fabs(v) + 0.1f; // positive taps: inf stays +inf
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
  for (float &v : q.in)
    v = std::fabs(v) + 0.1f;
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

// The filter transform runs on the thread budget, in parts of the input channels (about
// 92 channels of 16 outputs each): every part computes the same U, and a non-finite tap in
// any part's share sends the whole layer to the direct sum.
TEST_F(Conv2dTest, FilterTransformSplitsMatchOneThread) {
  Problem p({1, 8, 8, 256, 16, 1, 1, 1, 1});
  kiln_parallel_set_threads(1);
  std::vector<float> one = p.Run(true);
  EXPECT_LT(p.Error(one, true), kTolerance);
  kiln_parallel_set_threads(3);
  std::vector<float> three = p.Run(true);
  ASSERT_EQ(0, std::memcmp(one.data(), three.data(), one.size() * sizeof(float)));
  // An infinite tap (centre, input channel 250, output channel 5): only output channel 5
  // becomes infinite, wherever the tap reads the image.
  for (float &v : p.in)
    v = std::fabs(v) + 0.1f;
  for (float &v : p.filter)
    v = std::fabs(v);
  p.filter[(4 * 256 + 250) * 16 + 5] = INFINITY;
  for (int32_t threads : {1, 3}) {
    kiln_parallel_set_threads(threads);
    std::vector<float> got = p.Run(true);
    for (int64_t i = 0; i < int64_t(got.size()); ++i) {
      EXPECT_EQ(i % 16 == 5, std::isinf(got[i])) << i << ", " << threads << " threads";
      EXPECT_FALSE(std::isnan(got[i])) << i;
    }
  }
}

TEST_F(Conv2dTest, MaxPoolIsThePoolOfTheResult) {
  // Even and odd sizes (the last row and column dropped), a NaN, tiles split across blocks.
  const Shape shapes[] = {{2, 14, 14, 32, 64, 1, 1, 1, 1},
                          {1, 9, 11, 16, 24, 1, 1, 1, 1},
                          {3, 14, 14, 32, 64, 1, 1, 1, 1},
                          {1, 7, 6, 17, 33, 0, 0, 0, 0}};
  for (const Shape &t : shapes) {
    Problem p(t);
    p.in[5 * p.s.c + 1] = NAN; // pixel (0, 5): its tiles take the direct sum
    for (int32_t threads : {1, 3}) {
      kiln_parallel_set_threads(threads);
      std::vector<float> want =
          kiln_test::MaxPool2x2(p.Run(true, true), p.s.n, p.s.oh(), p.s.ow(), p.s.f);
      std::vector<float> got = p.Run(true, true, true);
      ASSERT_EQ(got.size(), want.size());
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float)))
          << t.h << "x" << t.w << " " << threads << " threads";
    }
  }
}

// A cache slot as a compiled model holds one: freed at the end of each test (the kernel
// allocates with kiln_aligned_alloc; 1 marks a non-finite filter).
struct Cache {
  uintptr_t slot = 0;
  ~Cache() {
    if (slot > 1)
      kiln_aligned_free(reinterpret_cast<void *>(slot));
  }
};

TEST_F(Conv2dTest, CachedFilterGivesTheSameResultsBitForBit) {
  const Shape shapes[] = {{2, 14, 14, 32, 64, 1, 1, 1, 1}, {1, 9, 8, 17, 33, 2, 0, 1, 2}};
  for (const Shape &t : shapes) {
    Problem p(t);
    Cache cache;
    for (int32_t threads : {1, 2}) {
      kiln_parallel_set_threads(threads);
      for (bool pool : {false, true}) {
        std::vector<float> want = p.Run(true, true, pool);
        EXPECT_EQ(p.Run(true, true, pool, false, &cache.slot), want)
            << t.h << "x" << t.w << " pool " << pool << ", " << threads << " threads";
        EXPECT_GT(cache.slot, uintptr_t(1));
      }
    }
  }
}

TEST_F(Conv2dTest, CachedFilterIsTransformedOnTheFirstCallOnly) {
  // The slot's transform stands for the filter from then on: a filter changed afterwards
  // is not read again (the compiler passes a slot only with constant weights).
  Problem p(Shape{1, 8, 8, 16, 16, 1, 1, 1, 1});
  Cache cache;
  std::vector<float> first = p.Run(true, false, false, false, &cache.slot);
  uintptr_t kept = cache.slot;
  for (float &v : p.filter)
    v = -v;
  EXPECT_EQ(p.Run(true, false, false, false, &cache.slot), first);
  EXPECT_EQ(cache.slot, kept);
  EXPECT_NE(p.Run(true), first);
}

TEST_F(Conv2dTest, CachedNonFiniteFilterTakesTheDirectSum) {
  Problem p(Shape{1, 8, 8, 16, 16, 1, 1, 1, 1});
  p.filter[7] = INFINITY;
  Cache cache;
  std::vector<float> want = p.Run(true, true);
  EXPECT_EQ(p.Run(true, true, false, false, &cache.slot), want);
  EXPECT_EQ(cache.slot, uintptr_t(1));
  EXPECT_EQ(p.Run(true, true, false, false, &cache.slot), want);
}

TEST_F(Conv2dTest, ConcurrentFirstCallsAgreeOnOneTransform) {
  Problem p(Shape{1, 12, 12, 32, 32, 1, 1, 1, 1});
  std::vector<float> want = p.Run(true);
  Cache cache;
  std::vector<std::vector<float>> got(4);
  std::vector<std::thread> threads;
  for (auto &g : got)
    threads.emplace_back([&p, &cache, &g] { g = p.Run(true, false, false, false, &cache.slot); });
  for (auto &t : threads)
    t.join();
  for (const auto &g : got)
    EXPECT_EQ(g, want);
  EXPECT_GT(cache.slot, uintptr_t(1));
}

} // namespace
