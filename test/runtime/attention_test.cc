// kiln_kernel_attention_f32 against softmax(scale * q k^T) v computed in double, in every
// layout, and the same bits at every thread count.
#include "kiln/kernels/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kiln/runtime/parallel.h"

namespace {

struct Shape {
  int64_t batch, heads, sq, sk, d, dv;
};

struct Problem {
  Shape s;
  int32_t flags;
  float scale;
  std::vector<float> q, k, v;
  std::vector<float> mask; // empty: no mask
  int64_t maskStride[3] = {0, 0, 0};
  Problem(Shape shape, int32_t f, float sc) : s(shape), flags(f), scale(sc) {
    std::mt19937 gen(static_cast<uint32_t>(s.sq * 131 + s.sk * 7 + s.d + f));
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    q.resize(s.batch * s.heads * s.sq * s.d);
    k.resize(s.batch * s.heads * s.sk * s.d);
    v.resize(s.batch * s.heads * s.sk * s.dv);
    for (float &x : q)
      x = dist(gen);
    for (float &x : k)
      x = dist(gen);
    for (float &x : v)
      x = dist(gen);
  }
  // Element (b, h, row, col) of an operand of `seq` rows and `width` columns.
  int64_t Index(int32_t flag, int64_t b, int64_t h, int64_t row, int64_t col, int64_t seq,
                int64_t width) const {
    return flags & flag ? ((b * seq + row) * s.heads + h) * width + col
                        : ((b * s.heads + h) * seq + row) * width + col;
  }
  std::vector<float> Run() const {
    std::vector<float> out(s.batch * s.heads * s.sq * s.dv, -7.0f);
    if (!mask.empty()) {
      kiln_kernel_attention_masked_f32(
          reinterpret_cast<uintptr_t>(q.data()), reinterpret_cast<uintptr_t>(k.data()),
          reinterpret_cast<uintptr_t>(v.data()), reinterpret_cast<uintptr_t>(mask.data()),
          reinterpret_cast<uintptr_t>(out.data()), s.batch, s.heads, s.sq, s.sk, s.d, s.dv, scale,
          maskStride[0], maskStride[1], maskStride[2], flags);
      return out;
    }
    kiln_kernel_attention_f32(
        reinterpret_cast<uintptr_t>(q.data()), reinterpret_cast<uintptr_t>(k.data()),
        reinterpret_cast<uintptr_t>(v.data()), reinterpret_cast<uintptr_t>(out.data()), s.batch,
        s.heads, s.sq, s.sk, s.d, s.dv, scale, flags);
    return out;
  }
  // Largest absolute difference from the double-precision result.
  double Error(const std::vector<float> &out) const {
    double worst = 0;
    std::vector<double> w(s.sk);
    for (int64_t b = 0; b < s.batch; ++b)
      for (int64_t h = 0; h < s.heads; ++h)
        for (int64_t i = 0; i < s.sq; ++i) {
          double top = -INFINITY, sum = 0;
          for (int64_t j = 0; j < s.sk; ++j) {
            double dot = 0;
            for (int64_t c = 0; c < s.d; ++c)
              dot += double(q[Index(KILN_ATTENTION_Q_SEQ_MAJOR, b, h, i, c, s.sq, s.d)]) *
                     k[Index(KILN_ATTENTION_K_SEQ_MAJOR, b, h, j, c, s.sk, s.d)];
            w[j] = dot * scale;
            if (!mask.empty())
              w[j] += mask[b * maskStride[0] + h * maskStride[1] + i * maskStride[2] + j];
            top = std::max(top, w[j]);
          }
          for (int64_t j = 0; j < s.sk; ++j)
            sum += w[j] = std::exp(w[j] - top);
          for (int64_t c = 0; c < s.dv; ++c) {
            double r = 0;
            for (int64_t j = 0; j < s.sk; ++j)
              r += w[j] / sum * v[Index(KILN_ATTENTION_V_SEQ_MAJOR, b, h, j, c, s.sk, s.dv)];
            double got = out[Index(KILN_ATTENTION_OUT_SEQ_MAJOR, b, h, i, c, s.sq, s.dv)];
            worst = std::max(worst, std::fabs(r - got));
          }
        }
    return worst;
  }
};

class AttentionTest : public ::testing::TestWithParam<int32_t> {
protected:
  void TearDown() override { kiln_parallel_set_threads(0); }
};

TEST_P(AttentionTest, MatchesReference) {
  kiln_parallel_set_threads(1);
  for (Shape s : {Shape{1, 1, 1, 1, 1, 1}, Shape{2, 3, 5, 7, 4, 6}, Shape{1, 4, 24, 40, 16, 16},
                  Shape{2, 2, 33, 129, 8, 24}, Shape{1, 12, 128, 128, 64, 64},
                  Shape{1, 2, 300, 100, 17, 9}}) {
    Problem p(s, GetParam(), 0.125f);
    EXPECT_LT(p.Error(p.Run()), 1e-5)
        << s.batch << "x" << s.heads << " " << s.sq << "x" << s.sk << "x" << s.d << "x" << s.dv;
  }
}

TEST_P(AttentionTest, ResultsDoNotDependOnTheThreadCount) {
  Problem p({2, 3, 200, 130, 32, 40}, GetParam(), 0.2f);
  kiln_parallel_set_threads(1);
  std::vector<float> one = p.Run();
  ASSERT_LT(p.Error(one), 1e-5);
  for (int32_t threads : {2, 3, 7}) {
    kiln_parallel_set_threads(threads);
    std::vector<float> many = p.Run();
    ASSERT_EQ(0, std::memcmp(one.data(), many.data(), one.size() * sizeof(float)))
        << "threads " << threads;
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, AttentionTest,
                         ::testing::Values(0,
                                           KILN_ATTENTION_Q_SEQ_MAJOR | KILN_ATTENTION_K_SEQ_MAJOR |
                                               KILN_ATTENTION_V_SEQ_MAJOR |
                                               KILN_ATTENTION_OUT_SEQ_MAJOR,
                                           KILN_ATTENTION_K_SEQ_MAJOR |
                                               KILN_ATTENTION_OUT_SEQ_MAJOR));

TEST(AttentionMask, BroadcastAndFullMasks) {
  kiln_parallel_set_threads(1);
  // BERT's [batch, 1, 1, sk]: keys masked with -1e9 per batch, every head and row alike.
  Problem bert({2, 3, 17, 21, 8, 5}, KILN_ATTENTION_Q_SEQ_MAJOR, 0.3f);
  bert.mask.assign(2 * 21, 0.0f);
  for (int64_t j = 0; j < 2 * 21; j += 3)
    bert.mask[j] = -1e9f;
  bert.maskStride[0] = 21;
  EXPECT_LT(bert.Error(bert.Run()), 1e-5);
  // A full [batch, heads, sq, sk] mask of small values, on two threads (same bits as one).
  Problem full({2, 2, 40, 33, 16, 9}, 0, 0.25f);
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  full.mask.resize(2 * 2 * 40 * 33);
  for (float &x : full.mask)
    x = dist(gen);
  full.maskStride[0] = 2 * 40 * 33;
  full.maskStride[1] = 40 * 33;
  full.maskStride[2] = 33;
  std::vector<float> one = full.Run();
  EXPECT_LT(full.Error(one), 1e-5);
  kiln_parallel_set_threads(2);
  std::vector<float> two = full.Run();
  EXPECT_EQ(0, std::memcmp(one.data(), two.data(), one.size() * sizeof(float)));
  // A row masked whole with -inf is NaN, as TensorFlow's Softmax makes it.
  Problem dead({1, 1, 2, 9, 3, 2}, 0, 1.0f);
  dead.mask.assign(2 * 9, 0.0f);
  for (int64_t j = 0; j < 9; ++j)
    dead.mask[j] = -INFINITY;
  dead.maskStride[2] = 9;
  std::vector<float> out = dead.Run();
  for (int64_t c = 0; c < 2; ++c)
    EXPECT_TRUE(std::isnan(out[c]));
  for (int64_t c = 2; c < 4; ++c)
    EXPECT_FALSE(std::isnan(out[c]));
}

TEST(AttentionEdges, LongKeysLargeScoresAndNoKeys) {
  kiln_parallel_set_threads(1);
  // More keys than the stack block holds: rows one at a time from malloc.
  Problem lng({1, 1, 3, 20000, 4, 5}, 0, 1.0f);
  EXPECT_LT(lng.Error(lng.Run()), 1e-5);
  // Scores far apart: most weights underflow to 0, the largest dominates.
  Problem big({1, 2, 9, 31, 8, 3}, 0, 40.0f);
  EXPECT_LT(big.Error(big.Run()), 1e-5);
  // No keys: a weighted sum over nothing.
  Problem none({1, 2, 3, 0, 4, 5}, 0, 1.0f);
  for (float x : none.Run())
    EXPECT_EQ(0.0f, x);
  // A NaN score makes its row NaN, as TensorFlow's Softmax does.
  Problem nan({1, 1, 2, 9, 3, 2}, 0, 1.0f);
  nan.k[3] = NAN; // key 1 of head 0, so both query rows meet it
  for (float x : nan.Run())
    EXPECT_TRUE(std::isnan(x));
}

} // namespace
