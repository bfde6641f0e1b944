// kiln_kernel_matmul_f32 and its ISA variants against a double-precision reference.
#include "kiln/kernels/matmul.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "../../runtime/kernels/matmul/gemm.h"
#include "kiln/runtime/parallel.h"

namespace {

struct Problem {
  int64_t m, n, k;
  int32_t flags;
  std::vector<float> a, b, c;
  Problem(int64_t m_, int64_t n_, int64_t k_, int32_t flags_)
      : m(m_), n(n_), k(k_), flags(flags_), a(m * k), b(k * n), c(m * n) {
    std::mt19937 gen(static_cast<uint32_t>(m * 131 + n * 7 + k + flags));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float &v : a)
      v = dist(gen);
    for (float &v : b)
      v = dist(gen);
    for (float &v : c)
      v = dist(gen);
  }
  float A(int64_t i, int64_t q) const {
    return flags & KILN_MATMUL_TRANSPOSE_A ? a[q * m + i] : a[i * k + q];
  }
  float B(int64_t q, int64_t j) const {
    return flags & KILN_MATMUL_TRANSPOSE_B ? b[j * k + q] : b[q * n + j];
  }
  // Max abs error of `got` against c + op(a) op(b) computed in double.
  double Error(const std::vector<float> &got) const {
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = c[i * n + j];
        for (int64_t q = 0; q < k; ++q)
          sum += double(A(i, q)) * double(B(q, j));
        worst = std::max(worst, std::fabs(sum - got[i * n + j]));
      }
    return worst;
  }
  kiln::kernels::GemmArgs Args(std::vector<float> &out) const {
    kiln::kernels::GemmArgs g{};
    g.a = a.data();
    g.b = b.data();
    g.c = out.data();
    g.m = m;
    g.n = n;
    g.k = k;
    bool ta = flags & KILN_MATMUL_TRANSPOSE_A, tb = flags & KILN_MATMUL_TRANSPOSE_B;
    g.ars = ta ? 1 : k;
    g.aks = ta ? m : 1;
    g.bks = tb ? 1 : n;
    g.bcs = tb ? k : 1;
    g.ldc = n;
    return g;
  }
  std::vector<float> Run() const {
    std::vector<float> out = c;
    kiln_kernel_matmul_f32(reinterpret_cast<uintptr_t>(a.data()),
                           reinterpret_cast<uintptr_t>(b.data()),
                           reinterpret_cast<uintptr_t>(out.data()), m, n, k, flags);
    return out;
  }
};

double Tolerance(int64_t k) { return 2e-6 * double(k) + 1e-5; }

const int64_t kSizes[] = {1, 2, 3, 4, 5, 6, 7, 13, 14, 15, 16, 17, 31, 32, 33, 57, 100, 257};

class MatmulTest : public ::testing::TestWithParam<int32_t> {
protected:
  void TearDown() override { kiln_parallel_set_threads(0); }
};

// The depth slices (abi.h): the fewest of at most 512, even shares rounded up to 16, the
// last the rest; they cover the depth exactly.
TEST(MatmulDepthSlices, AreTheFewestEvenSharesOfTheDepth) {
  EXPECT_EQ(1, kiln_matmul_depth_slice(0));
  EXPECT_EQ(1, kiln_matmul_depth_slice(1));
  EXPECT_EQ(512, kiln_matmul_depth_slice(512));
  EXPECT_EQ(272, kiln_matmul_depth_slice(513)); // 257 rounded up to 16
  EXPECT_EQ(288, kiln_matmul_depth_slice(576));
  EXPECT_EQ(512, kiln_matmul_depth_slice(1024));
  EXPECT_EQ(352, kiln_matmul_depth_slice(1025));
  EXPECT_EQ(384, kiln_matmul_depth_slice(768));
  for (int64_t k = 1; k <= 40000; ++k) {
    const int64_t step = kiln_matmul_depth_slice(k);
    ASSERT_LE(step, KILN_MATMUL_PACK_DEPTH) << k;
    ASSERT_EQ((k + KILN_MATMUL_PACK_DEPTH - 1) / KILN_MATMUL_PACK_DEPTH, (k + step - 1) / step)
        << k;
  }
}

TEST_P(MatmulTest, MatchesReferenceOnOddShapes) {
  kiln_parallel_set_threads(1);
  for (int64_t m : kSizes)
    for (int64_t n : {1, 5, 16, 31, 33, 64, 100})
      for (int64_t k : {1, 3, 17, 256, 300}) {
        Problem p(m, n, k, GetParam());
        ASSERT_LT(p.Error(p.Run()), Tolerance(k)) << m << "x" << n << "x" << k;
      }
}

TEST_P(MatmulTest, BothIsasMatchTheReferenceAndEachOther) {
  const bool avx512 = __builtin_cpu_supports("avx512f");
  for (int64_t m : {1, 3, 14, 29, 70})
    for (int64_t n : {1, 17, 32, 95})
      for (int64_t k : {5, 256, 513, 1024}) { // 1024: AVX-512 packs A (kGemmAliasStride)
        Problem p(m, n, k, GetParam());
        std::vector<float> two = p.c;
        kiln::kernels::gemmAvx2(p.Args(two), 0, m, 0, n);
        ASSERT_LT(p.Error(two), Tolerance(k)) << m << "x" << n << "x" << k;
        if (!avx512)
          continue;
        std::vector<float> wide = p.c;
        kiln::kernels::gemmAvx512(p.Args(wide), 0, m, 0, n);
        ASSERT_EQ(0, std::memcmp(two.data(), wide.data(), two.size() * sizeof(float)))
            << m << "x" << n << "x" << k;
      }
}

// Every path's result is, bit for bit, the scalar form of the arithmetic (gemm.h's
// referenceGemm: one fused multiply-add chain per depth slice, the slices added in order):
// slices of uneven depths (513: 272 + 241; 1025: three of 352, 352, 321), A and B stored
// transposed with partial panels (packed through the register transposes), rows in groups
// that meet every slice in turn (a tall product with B packed ahead), on 1 and 2 threads.
TEST_P(MatmulTest, EveryPathIsTheScalarFormOfItsSlices) {
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{29, 40, 513},
                         {70, 95, 1025},
                         {600, 64, 1100}, // B packed ahead: groups of rows
                         {300, 17, 576},
                         {15, 33, 2000}}) {
    Problem p(m, n, k, GetParam());
    std::vector<float> expected = p.c;
    kiln::kernels::referenceGemm(p.Args(expected), 0, m, 0, n);
    std::vector<float> packed(k * kiln_matmul_packed_b_width(n), NAN);
    kiln_kernel_matmul_pack_b_f32(reinterpret_cast<uintptr_t>(p.b.data()), k, n, p.flags,
                                  reinterpret_cast<uintptr_t>(packed.data()));
    for (int32_t threads : {1, 2}) {
      kiln_parallel_set_threads(threads);
      std::vector<float> got = p.Run();
      ASSERT_EQ(0, std::memcmp(expected.data(), got.data(), got.size() * sizeof(float)))
          << m << "x" << n << "x" << k << " threads " << threads;
      got = p.c;
      kiln_kernel_matmul_f32(
          reinterpret_cast<uintptr_t>(p.a.data()), reinterpret_cast<uintptr_t>(packed.data()),
          reinterpret_cast<uintptr_t>(got.data()), m, n, k, p.flags | KILN_MATMUL_PACKED_B);
      ASSERT_EQ(0, std::memcmp(expected.data(), got.data(), got.size() * sizeof(float)))
          << m << "x" << n << "x" << k << " packed B, threads " << threads;
    }
  }
}

// The few-row kernel (KILN_MATMUL_FEW_ROWS: several column tiles at once) is, bit for bit,
// the scalar form of the arithmetic, and with an epilogue the GEMM's own result, with B as
// stored and packed ahead, at 1 and 2 threads: columns in whole groups of tiles, in a
// partial group and in a partial tile, depths of one slice and of several. B stored
// transposed and more rows than KILN_MATMUL_FEW_ROWS_MAX ignore the flag (the GEMM's paths).
TEST_P(MatmulTest, TheFewRowKernelIsTheScalarFormOfItsSlices) {
  for (int64_t m : {1, 2, 3, 4})
    for (int64_t n : {1, 31, 64, 130, 300})
      for (int64_t k : {1, 7, 513, 1100}) {
        Problem p(m, n, k, GetParam() | KILN_MATMUL_FEW_ROWS);
        std::vector<float> scale(n);
        for (int64_t j = 0; j < n; ++j)
          scale[j] = 0.5f + 0.25f * float(j % 5);
        std::vector<float> packed(k * kiln_matmul_packed_b_width(n), NAN);
        kiln_kernel_matmul_pack_b_f32(reinterpret_cast<uintptr_t>(p.b.data()), k, n, p.flags,
                                      reinterpret_cast<uintptr_t>(packed.data()));
        // The product with or without the epilogue, B packed or not, on `threads`.
        auto run = [&](bool epilogue, bool bPacked, int32_t flags, int32_t threads) {
          kiln_parallel_set_threads(threads);
          std::vector<float> got = p.c;
          const float *b = bPacked ? packed.data() : p.b.data();
          flags |= bPacked ? KILN_MATMUL_PACKED_B : 0;
          if (epilogue)
            kiln_kernel_matmul_epilogue_f32(reinterpret_cast<uintptr_t>(p.a.data()),
                                            reinterpret_cast<uintptr_t>(b),
                                            reinterpret_cast<uintptr_t>(got.data()), m, n, k, flags,
                                            reinterpret_cast<uintptr_t>(scale.data()), 1.0f, 0,
                                            0.25f, 0.0f, 6.0f, KILN_ACTIVATION_NONE);
          else
            kiln_kernel_matmul_f32(reinterpret_cast<uintptr_t>(p.a.data()),
                                   reinterpret_cast<uintptr_t>(b),
                                   reinterpret_cast<uintptr_t>(got.data()), m, n, k, flags);
          return got;
        };
        for (bool epilogue : {false, true}) {
          std::vector<float> expected = p.c;
          if (epilogue) {
            expected = run(true, false, p.flags & ~KILN_MATMUL_FEW_ROWS, 1);
          } else {
            kiln::kernels::referenceGemm(p.Args(expected), 0, m, 0, n);
          }
          for (int32_t threads : {1, 2})
            for (bool bPacked : {false, true}) {
              std::vector<float> got = run(epilogue, bPacked, p.flags, threads);
              ASSERT_EQ(0, std::memcmp(expected.data(), got.data(), got.size() * sizeof(float)))
                  << m << "x" << n << "x" << k << " epilogue " << epilogue << " packed B "
                  << bPacked << " threads " << threads;
            }
        }
      }
}

TEST_P(MatmulTest, ResultsDoNotDependOnTheThreadCount) {
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{300, 200, 300},
                         {2, 1000, 700},
                         {1000, 3, 500},
                         {129, 129, 1029},
                         {300, 600, 100},    // direct, B packed in two column blocks
                         {49, 1280, 320},    // direct, few rows, B packed (MobileNetV2)
                         {700, 96, 64},      // 3 column tiles: rows on 2 threads, columns on 3
                         {28, 700, 1024}}) { // A's rows 4 KiB apart: A and B packed
    Problem p(m, n, k, GetParam());
    kiln_parallel_set_threads(1);
    std::vector<float> one = p.Run();
    ASSERT_LT(p.Error(one), Tolerance(k));
    for (int32_t threads : {2, 3, 5}) {
      kiln_parallel_set_threads(threads);
      std::vector<float> many = p.Run();
      ASSERT_EQ(0, std::memcmp(one.data(), many.data(), one.size() * sizeof(float)))
          << m << "x" << n << "x" << k << " threads " << threads;
    }
  }
}

TEST_P(MatmulTest, OverwriteIgnoresTheOldC) {
  for (auto [m, n, k] :
       {std::tuple<int64_t, int64_t, int64_t>{3, 40, 300}, {70, 33, 600}, {300, 200, 30}}) {
    Problem p(m, n, k, GetParam() | KILN_MATMUL_OVERWRITE);
    std::vector<float> out(p.c.size(), std::nanf(""));
    kiln_kernel_matmul_f32(reinterpret_cast<uintptr_t>(p.a.data()),
                           reinterpret_cast<uintptr_t>(p.b.data()),
                           reinterpret_cast<uintptr_t>(out.data()), m, n, k, p.flags);
    std::fill(p.c.begin(), p.c.end(), 0.0f); // the reference adds c
    ASSERT_LT(p.Error(out), Tolerance(k)) << m << "x" << n << "x" << k;
  }
  Problem empty(2, 3, 0, GetParam() | KILN_MATMUL_OVERWRITE);
  std::vector<float> out(6, 7.0f);
  kiln_kernel_matmul_f32(reinterpret_cast<uintptr_t>(empty.a.data()),
                         reinterpret_cast<uintptr_t>(empty.b.data()),
                         reinterpret_cast<uintptr_t>(out.data()), 2, 3, 0, empty.flags);
  EXPECT_EQ(out, std::vector<float>(6, 0.0f));
}

// The epilogue (a per-column scale, a scalar bias, then a clamp to [0, 6]: a batch norm and
// Relu6; or no clamp and Swish: a batch norm and Swish) against the reference product
// followed by the same arithmetic, on shapes that take the direct and the packed paths,
// with full and partial tiles; NaN in a column stays NaN.
TEST_P(MatmulTest, EpilogueAppliesPerColumn) {
  for (auto [m, n, k, swish] : {std::tuple<int64_t, int64_t, int64_t, bool>{3, 40, 300, false},
                                {70, 33, 600, false},
                                {300, 20, 30, false},
                                {200, 700, 1100, false},
                                {3, 40, 300, true},
                                {70, 33, 600, true},
                                {200, 700, 1100, true}}) {
    const float lo = swish ? -INFINITY : 0.0f, hi = swish ? INFINITY : 6.0f;
    Problem p(m, n, k, GetParam() | KILN_MATMUL_OVERWRITE);
    std::vector<float> scale(n);
    for (int64_t j = 0; j < n; ++j)
      scale[j] = j == 5 ? std::nanf("") : 0.5f + 0.25f * (j % 5);
    std::vector<float> out(p.c.size(), std::nanf(""));
    kiln_parallel_set_threads(2);
    kiln_kernel_matmul_epilogue_f32(reinterpret_cast<uintptr_t>(p.a.data()),
                                    reinterpret_cast<uintptr_t>(p.b.data()),
                                    reinterpret_cast<uintptr_t>(out.data()), m, n, k, p.flags,
                                    reinterpret_cast<uintptr_t>(scale.data()), 1.0f, 0, 0.25f, lo,
                                    hi, swish ? KILN_ACTIVATION_SWISH : KILN_ACTIVATION_NONE);
    std::fill(p.c.begin(), p.c.end(), 0.0f);
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float got = out[i * n + j];
        if (j == 5) {
          ASSERT_TRUE(std::isnan(got)) << i << "," << j;
          continue;
        }
        double sum = 0;
        for (int64_t q = 0; q < k; ++q)
          sum += double(p.A(i, q)) * double(p.B(q, j));
        double want = std::min(std::max(sum * scale[j] + 0.25, double(lo)), double(hi));
        if (swish)
          want = want / (1.0 + std::exp(-want));
        worst = std::max(worst, std::fabs(want - got));
      }
    ASSERT_LT(worst, Tolerance(k)) << m << "x" << n << "x" << k << " swish " << swish;
  }
}

// kiln_kernel_matmul_residual_f32 is the epilogue product, then the residual added and the
// bounds and activation applied, in that order, bit for bit: with the residual in its own
// buffer or in c itself (one depth slice, or more: then the kernel reads a copy), B packed
// or not, at 1 and 2 threads. A NaN in the residual stays NaN.
TEST_P(MatmulTest, ResidualIsAddedAfterTheBias) {
  using kiln::kernels::swish;
  for (auto [m, n, k, swishes] : {std::tuple<int64_t, int64_t, int64_t, bool>{3, 40, 64, false},
                                  {70, 33, 256, false},
                                  {300, 20, 30, true},
                                  {200, 72, 300, false},
                                  {3136, 64, 64, false},
                                  {49, 130, 600, true}}) {
    Problem p(m, n, k, GetParam() | KILN_MATMUL_OVERWRITE);
    std::vector<float> scale(n), residual(p.c.size());
    for (int64_t j = 0; j < n; ++j)
      scale[j] = 0.5f + 0.25f * (j % 5);
    std::mt19937 gen(static_cast<uint32_t>(m + n + k));
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    for (float &v : residual)
      v = dist(gen);
    residual[n + 3] = std::nanf("");
    const float lo = swishes ? -INFINITY : 0.0f, hi = swishes ? INFINITY : 6.0f;
    const int32_t act = swishes ? KILN_ACTIVATION_SWISH : KILN_ACTIVATION_NONE;
    auto addr = [](const float *v) { return reinterpret_cast<uintptr_t>(v); };
    // The product and its scale and bias alone, then the rest as the elementwise loop did.
    std::vector<float> want(p.c.size());
    kiln_parallel_set_threads(1);
    kiln_kernel_matmul_epilogue_f32(addr(p.a.data()), addr(p.b.data()), addr(want.data()), m, n, k,
                                    p.flags, addr(scale.data()), 1.0f, 0, 0.25f, -INFINITY,
                                    INFINITY, KILN_ACTIVATION_NONE);
    for (size_t i = 0; i < want.size(); ++i) {
      float v = want[i] + residual[i];
      v = v < lo ? lo : v;
      v = v > hi ? hi : v;
      want[i] = swishes ? swish(v) : v;
    }
    std::vector<float> packed(kiln_matmul_packed_b_width(n) * k);
    kiln_kernel_matmul_pack_b_f32(addr(p.b.data()), k, n, p.flags, addr(packed.data()));
    for (int threads : {1, 2})
      for (bool inPlace : {false, true})
        for (bool pack : {false, true}) {
          kiln_parallel_set_threads(threads);
          std::vector<float> out = inPlace ? residual : std::vector<float>(p.c.size(), 7.0f);
          kiln_kernel_matmul_residual_f32(
              addr(p.a.data()), addr(pack ? packed.data() : p.b.data()), addr(out.data()), m, n, k,
              p.flags | (pack ? KILN_MATMUL_PACKED_B : 0), addr(scale.data()), 1.0f, 0, 0.25f, lo,
              hi, act, addr(inPlace ? out.data() : residual.data()));
          ASSERT_TRUE(std::isnan(out[n + 3]));
          out[n + 3] = want[n + 3] = 0.0f;
          if (swishes) { // the kernel's vector Swish may contract into FMAs: a few ulp
            for (size_t i = 0; i < want.size(); ++i)
              ASSERT_LE(std::fabs(want[i] - out[i]), 4 * FLT_EPSILON * std::fabs(want[i]))
                  << i << " of " << m << "x" << n << "x" << k;
            continue;
          }
          ASSERT_EQ(0, std::memcmp(want.data(), out.data(), want.size() * sizeof(float)))
              << m << "x" << n << "x" << k << " threads " << threads << " in place " << inPlace
              << " packed " << pack;
        }
  }
}

// The Swish epilogue on chosen values (C = A times a row of ones, k = 1, so that C holds A's
// values exactly), in vector lanes and the masked ones of a partial tile: within 4 ulp of
// x / (1 + exp(-x)) in double where that is a normal float; zero below x = -87.34 (the
// kernel clamps exp's argument), and NaN for -inf (-inf * sigmoid(-inf), as TensorFlow
// computes it); NaN stays NaN, +inf stays +inf.
TEST_P(MatmulTest, SwishEpilogueIsAccurate) {
  std::vector<float> values = {0.0f,   -0.0f,  1e-30f,  -1e-30f, 1e-7f,  0.5f,     -0.5f,     1.0f,
                               -1.0f,  2.5f,   -2.5f,   6.0f,    -6.0f,  10.0f,    -10.0f,    17.3f,
                               -17.3f, 30.0f,  -30.0f,  80.0f,   -80.0f, 87.0f,    -87.0f,    88.5f,
                               -88.5f, 100.0f, -100.0f, 1e30f,   -1e30f, INFINITY, -INFINITY, NAN};
  for (float x = -20.0f; x <= 20.0f; x += 0.37f)
    values.push_back(x);
  const int64_t m = int64_t(values.size()), n = 37; // a partial tile for both ISAs
  std::vector<float> ones(n, 1.0f), out(m * n, 0.0f);
  kiln_parallel_set_threads(1);
  kiln_kernel_matmul_epilogue_f32(
      reinterpret_cast<uintptr_t>(values.data()), reinterpret_cast<uintptr_t>(ones.data()),
      reinterpret_cast<uintptr_t>(out.data()), m, n, 1, GetParam() | KILN_MATMUL_OVERWRITE, 0, 1.0f,
      0, 0.0f, -INFINITY, INFINITY, KILN_ACTIVATION_SWISH);
  for (int64_t i = 0; i < m; ++i) {
    double x = values[i], want = x / (1.0 + std::exp(-x));
    for (int64_t j = 0; j < n; ++j) {
      float got = out[i * n + j];
      if (std::isnan(x) || x == -INFINITY) {
        EXPECT_TRUE(std::isnan(got)) << x;
      } else if (x == INFINITY) {
        EXPECT_EQ(got, INFINITY);
      } else if (x < -87.34) {
        EXPECT_EQ(got, 0.0f) << x;
      } else if (std::fabs(want) < 1e-37) {
        EXPECT_LT(std::fabs(got), 1e-37) << x;
      } else {
        EXPECT_LE(std::fabs(got - want), 4 * std::fabs(want) * FLT_EPSILON) << x << " col " << j;
      }
    }
  }
}

TEST_P(MatmulTest, EmptyDimensionsLeaveCUnchanged) {
  Problem p(4, 5, 0, GetParam());
  EXPECT_EQ(p.Run(), p.c);
}

// B packed ahead of time (KILN_MATMUL_PACKED_B, as kiln-lower-pack-weights writes constant
// weights) gives the same bits as B unpacked, on every path the unpacked product takes
// (direct, direct with B packed per call, packed) and on both of its own (A in place, A
// packed), with several depth slices, partial panels and thread counts.
TEST_P(MatmulTest, PackedBGivesTheSameBits) {
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 10, 784},
                         {3, 45, 70},
                         {64, 256, 784},
                         {49, 97, 1100},
                         {300, 200, 300},
                         {1000, 75, 530},  // A in place: a narrow product (kGemmPackABFloats)
                         {1000, 150, 530}, // A packed, 6 rows after 71 tiles of 14
                         {129, 700, 40},
                         {30, 1100, 600},   // column blocks of both ISAs, two depth slices
                         {49, 64, 2048},    // A's rows 8 KiB apart: packed (kGemmAliasStride)
                         {14, 40, 1024},    // one full row tile, rows 4 KiB apart: packed
                         {13, 33, 1024}}) { // fewer rows than a tile: A in place
    Problem p(m, n, k, GetParam());
    std::vector<float> packed(k * kiln_matmul_packed_b_width(n), NAN);
    kiln_kernel_matmul_pack_b_f32(reinterpret_cast<uintptr_t>(p.b.data()), k, n, p.flags,
                                  reinterpret_cast<uintptr_t>(packed.data()));
    for (int32_t threads : {1, 3}) {
      kiln_parallel_set_threads(threads);
      std::vector<float> expected = p.Run(), got = p.c;
      kiln_kernel_matmul_f32(
          reinterpret_cast<uintptr_t>(p.a.data()), reinterpret_cast<uintptr_t>(packed.data()),
          reinterpret_cast<uintptr_t>(got.data()), m, n, k, p.flags | KILN_MATMUL_PACKED_B);
      ASSERT_EQ(0, std::memcmp(expected.data(), got.data(), got.size() * sizeof(float)))
          << m << "x" << n << "x" << k << " threads " << threads;
      // With an epilogue (a per-column bias, then a clamp), as compiled layers call it.
      std::vector<float> bias(n);
      for (int64_t j = 0; j < n; ++j)
        bias[j] = 0.125f * float(j % 7) - 0.25f;
      auto withEpilogue = [&](const float *b, int32_t flags) {
        std::vector<float> out(p.c.size(), std::nanf(""));
        kiln_kernel_matmul_epilogue_f32(
            reinterpret_cast<uintptr_t>(p.a.data()), reinterpret_cast<uintptr_t>(b),
            reinterpret_cast<uintptr_t>(out.data()), m, n, k, flags | KILN_MATMUL_OVERWRITE, 0,
            1.0f, reinterpret_cast<uintptr_t>(bias.data()), 0.0f, -1.0f, 1.0f,
            KILN_ACTIVATION_SWISH);
        return out;
      };
      expected = withEpilogue(p.b.data(), p.flags);
      got = withEpilogue(packed.data(), p.flags | KILN_MATMUL_PACKED_B);
      ASSERT_EQ(0, std::memcmp(expected.data(), got.data(), got.size() * sizeof(float)))
          << m << "x" << n << "x" << k << " threads " << threads << ", epilogue";
    }
  }
}

TEST_P(MatmulTest, BatchesMatchOneProductAtATime) {
  // Batches below, at and above the thread count, each operand batched or broadcast; every
  // product must be kiln_kernel_matmul_f32's, bit for bit, and c's other bytes untouched.
  for (auto [batch, m, n, k] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{1, 64, 64, 64},
                                {3, 17, 33, 5},
                                {12, 64, 64, 32}, // an attention's heads: scores
                                {12, 64, 32, 64}, // and values
                                {7, 1, 100, 600},
                                {5, 300, 20, 0}}) {
    for (int32_t broadcast : {0, KILN_MATMUL_BROADCAST_A, KILN_MATMUL_BROADCAST_B})
      for (bool overwrite : {false, true}) {
        int32_t flags = GetParam() | broadcast | (overwrite ? KILN_MATMUL_OVERWRITE : 0);
        int64_t as = broadcast == KILN_MATMUL_BROADCAST_A ? 1 : batch;
        int64_t bs = broadcast == KILN_MATMUL_BROADCAST_B ? 1 : batch;
        std::mt19937 gen(static_cast<uint32_t>(batch * 31 + m + n + k + flags));
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        std::vector<float> a(as * m * k), b(bs * k * n), c(batch * m * n + 5);
        for (float &v : a)
          v = dist(gen);
        for (float &v : b)
          v = dist(gen);
        for (float &v : c)
          v = dist(gen);
        std::vector<float> expected = c;
        for (int64_t i = 0; i < batch; ++i)
          kiln_kernel_matmul_f32(reinterpret_cast<uintptr_t>(a.data() + (as > 1 ? i * m * k : 0)),
                                 reinterpret_cast<uintptr_t>(b.data() + (bs > 1 ? i * k * n : 0)),
                                 reinterpret_cast<uintptr_t>(expected.data() + i * m * n), m, n, k,
                                 flags & ~broadcast);
        for (int32_t threads : {1, 2, 3, 5}) {
          kiln_parallel_set_threads(threads);
          std::vector<float> got = c;
          kiln_kernel_batch_matmul_f32(
              reinterpret_cast<uintptr_t>(a.data()), reinterpret_cast<uintptr_t>(b.data()),
              reinterpret_cast<uintptr_t>(got.data()), batch, m, n, k, flags);
          ASSERT_EQ(0, std::memcmp(expected.data(), got.data(), got.size() * sizeof(float)))
              << batch << " x " << m << "x" << n << "x" << k << " flags " << flags << " threads "
              << threads;
        }
      }
  }
  // Against the double-precision reference too, for one batched case.
  Problem p(20, 40, 70, GetParam());
  std::vector<float> a2 = p.a, b2 = p.b, c2(2 * p.c.size());
  a2.insert(a2.end(), p.a.begin(), p.a.end());
  b2.insert(b2.end(), p.b.begin(), p.b.end());
  kiln_kernel_batch_matmul_f32(
      reinterpret_cast<uintptr_t>(a2.data()), reinterpret_cast<uintptr_t>(b2.data()),
      reinterpret_cast<uintptr_t>(c2.data()), 2, p.m, p.n, p.k, p.flags | KILN_MATMUL_OVERWRITE);
  Problem zero = p;
  std::fill(zero.c.begin(), zero.c.end(), 0.0f);
  EXPECT_LT(zero.Error(std::vector<float>(c2.begin() + p.c.size(), c2.end())), Tolerance(p.k));
}

INSTANTIATE_TEST_SUITE_P(Flags, MatmulTest,
                         ::testing::Values(0, KILN_MATMUL_TRANSPOSE_A, KILN_MATMUL_TRANSPOSE_B,
                                           KILN_MATMUL_TRANSPOSE_A | KILN_MATMUL_TRANSPOSE_B));

} // namespace
