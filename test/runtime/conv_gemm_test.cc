// kiln_kernel_conv2d_gemm_f32 against a double-precision direct sum, and bit for bit against
// kiln_kernel_matmul_f32 of the explicit patches matrix. Its three paths: A packed from the
// windows (a filter not packed ahead, or a wide product: the last shape), and blocks of rows
// gathered and read in place (a packed filter and a narrow product: the others).
#include "kiln/kernels/conv2d.h"
#include "kiln/kernels/matmul.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "conv_reference.h"
#include "kiln/runtime/parallel.h"

namespace {

using Shape = kiln_test::ConvShape;

uintptr_t Address(const std::vector<float> &v) { return reinterpret_cast<uintptr_t>(v.data()); }

struct Problem : kiln_test::ConvProblem {
  using ConvProblem::ConvProblem;
  int64_t Depth() const { return s.kh * s.kw * s.c; }
  // The filter as the packed matrix KILN_CONV2D_PACKED_FILTER reads.
  std::vector<float> PackedFilter() const {
    std::vector<float> packed(Depth() * kiln_matmul_packed_b_width(s.f));
    kiln_kernel_matmul_pack_b_f32(Address(filter), Depth(), s.f, 0, Address(packed));
    return packed;
  }
  // With `swish`, the epilogue's bounds are -6 and 6 and Swish follows them.
  std::vector<float> Run(bool overwrite, bool epilogue = false, bool swish = false,
                         bool packed = false) const {
    std::vector<float> got = out;
    std::vector<float> packedFilter = packed ? PackedFilter() : std::vector<float>();
    int32_t flags = (overwrite ? KILN_CONV2D_OVERWRITE : 0) |
                    (epilogue ? KILN_CONV2D_EPILOGUE : 0) |
                    (packed ? KILN_CONV2D_PACKED_FILTER : 0);
    kiln_kernel_conv2d_gemm_f32(Address(in), packed ? Address(packedFilter) : Address(filter),
                                Address(got), s.n, s.h, s.w, s.c, s.f, s.kh, s.kw, s.oh(), s.ow(),
                                s.sh, s.sw, s.dh, s.dw, s.pt, s.pl, flags, 0, 2.0f, Address(bias),
                                0.0f, swish ? -6.0f : 0.0f, 6.0f,
                                swish ? KILN_ACTIVATION_SWISH : KILN_ACTIVATION_NONE);
    return got;
  }
  // The windows as an explicit (n*oh*ow) x (kh*kw*c) matrix, zeros outside the input.
  std::vector<float> Patches() const {
    std::vector<float> patches;
    for (int64_t b = 0; b < s.n; ++b)
      for (int64_t y = 0; y < s.oh(); ++y)
        for (int64_t x = 0; x < s.ow(); ++x)
          for (int64_t i = 0; i < s.kh; ++i)
            for (int64_t k = 0; k < s.kw; ++k)
              for (int64_t ch = 0; ch < s.c; ++ch) {
                int64_t iy = y * s.sh + i * s.dh - s.pt, ix = x * s.sw + k * s.dw - s.pl;
                bool inside = iy >= 0 && iy < s.h && ix >= 0 && ix < s.w;
                patches.push_back(inside ? in[((b * s.h + iy) * s.w + ix) * s.c + ch] : 0.0f);
              }
    return patches;
  }
};

// A sum of fused multiply-adds in one order: within a few ulp of the sum of magnitudes.
constexpr double kTolerance = 1e-6;

class ConvGemmTest : public ::testing::Test {
protected:
  void TearDown() override { kiln_parallel_set_threads(0); }
};

const Shape kShapes[] = {
    // n, h, w, c, f, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr
    {2, 1, 300, 1, 32, 1, 80, 1, 4, 1, 1, 0, 38, 0, 38}, // the audio model's first layer
    {1, 1, 75, 37, 40, 1, 3, 1, 1, 1, 1, 0, 1, 0, 1},    // a 1-D layer, channel tails
    {1, 17, 17, 24, 33, 7, 1, 1, 1, 1, 1, 3, 0, 3, 0},   // InceptionV3's 7x1
    {1, 17, 17, 24, 33, 1, 7, 1, 1, 1, 1, 0, 3, 0, 3},   // and 1x7
    {2, 11, 13, 20, 48, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},   // 5x5, depth 500: two slices
    {1, 15, 16, 33, 70, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1},   // 3x3, stride 2
    {1, 14, 14, 64, 40, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0},   // 1x1, stride 2
    {1, 9, 9, 12, 17, 3, 3, 1, 1, 2, 3, 2, 3, 2, 3},     // dilated
    {1, 3, 3, 5, 16, 3, 3, 1, 1, 1, 1, 5, 5, 5, 5},      // windows wholly in the padding
    {1, 30, 30, 3, 64, 7, 7, 2, 2, 1, 1, 2, 2, 3, 3},    // an image model's 7x7 stem
    {1, 17, 17, 32, 288, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},  // wide: A packed from the windows
};

std::string Describe(const Shape &s) {
  return std::to_string(s.h) + "x" + std::to_string(s.w) + "x" + std::to_string(s.c) + "->" +
         std::to_string(s.f) + " window " + std::to_string(s.kh) + "x" + std::to_string(s.kw) +
         " stride " + std::to_string(s.sh) + "x" + std::to_string(s.sw);
}

TEST_F(ConvGemmTest, MatchesTheDirectSum) {
  kiln_parallel_set_threads(1);
  for (const Shape &s : kShapes) {
    Problem p(s);
    for (bool overwrite : {true, false})
      EXPECT_LT(p.Error(p.Run(overwrite), overwrite), kTolerance)
          << Describe(s) << " overwrite " << overwrite;
    EXPECT_LT(p.Error(p.Run(true, true), true, true), kTolerance) << "epilogue " << Describe(s);
    EXPECT_LT(p.Error(p.Run(true, true, true), true, true, true), kTolerance)
        << "swish " << Describe(s);
  }
}

TEST_F(ConvGemmTest, IsTheMatrixProductOfThePatchesBitForBit) {
  for (int threads : {1, 2}) {
    kiln_parallel_set_threads(threads);
    for (const Shape &s : kShapes) {
      Problem p(s);
      std::vector<float> want(p.out.size());
      std::vector<float> patches = p.Patches();
      kiln_kernel_matmul_f32(Address(patches), Address(p.filter), Address(want),
                             s.n * s.oh() * s.ow(), s.f, p.Depth(), KILN_MATMUL_OVERWRITE);
      EXPECT_EQ(p.Run(true), want) << Describe(s) << ", " << threads << " threads";
      EXPECT_EQ(p.Run(true, false, false, true), want)
          << "packed filter " << Describe(s) << ", " << threads << " threads";
    }
  }
}

TEST_F(ConvGemmTest, ResultsDoNotDependOnTheThreadCount) {
  Problem p(Shape{3, 1, 400, 16, 40, 1, 5, 1, 2, 1, 1, 0, 2, 0, 2});
  for (bool swish : {false, true}) {
    kiln_parallel_set_threads(1);
    std::vector<float> one = p.Run(true, true, swish, true);
    for (int threads : {2, 3}) {
      kiln_parallel_set_threads(threads);
      EXPECT_EQ(p.Run(true, true, swish, true), one) << threads << " threads, swish " << swish;
    }
  }
}

TEST_F(ConvGemmTest, NanInTheInputReachesOnlyItsOutputs) {
  Problem p(Shape{1, 8, 8, 2, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  p.in[(3 * 8 + 5) * 2 + 1] = NAN;
  std::vector<float> got = p.Run(true);
  for (int64_t y = 0; y < 8; ++y)
    for (int64_t x = 0; x < 8; ++x) {
      bool reads = std::abs(y - 3) <= 1 && std::abs(x - 5) <= 1;
      EXPECT_EQ(reads, std::isnan(got[(y * 8 + x) * 16 + 7])) << y << "," << x;
    }
}

TEST_F(ConvGemmTest, EmptyChannelsGiveTheEpilogueOfZero) {
  Problem p(Shape{1, 4, 4, 0, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  std::vector<float> got = p.Run(true, true);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], std::min(std::max(p.bias[i % 8], 0.0f), 6.0f)) << i;
}

} // namespace
