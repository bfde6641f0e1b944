#include "kiln/runtime/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

namespace {

struct Recorder {
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  std::set<std::thread::id> threads;
  std::vector<std::atomic<int>> hits;
  explicit Recorder(int64_t count) : hits(count) {}
  static void Fn(void *ctx, int64_t begin, int64_t end) {
    auto *self = static_cast<Recorder *>(ctx);
    for (int64_t i = begin; i < end; ++i)
      self->hits[i]++;
    std::lock_guard<std::mutex> lock(self->mutex);
    self->chunks.emplace_back(begin, end);
    self->threads.insert(std::this_thread::get_id());
  }
};

class ParallelTest : public ::testing::Test {
protected:
  void TearDown() override { kiln_parallel_set_threads(0); }
};

TEST_F(ParallelTest, EveryItemRunsExactlyOnce) {
  for (int32_t threads : {1, 2, 3, 7}) {
    kiln_parallel_set_threads(threads);
    for (int64_t count : {1, 2, 5, 64, 1000}) {
      Recorder rec(count);
      kiln_parallel_for(count, 1, Recorder::Fn, &rec);
      for (int64_t i = 0; i < count; ++i)
        ASSERT_EQ(rec.hits[i], 1) << threads << " " << i;
      EXPECT_LE(static_cast<int64_t>(rec.chunks.size()), threads);
      EXPECT_LE(static_cast<int64_t>(rec.threads.size()), threads);
    }
  }
}

TEST_F(ParallelTest, ChunksDependOnlyOnCountGrainAndBudget) {
  kiln_parallel_set_threads(4);
  Recorder rec(10);
  kiln_parallel_for(10, 1, Recorder::Fn, &rec);
  std::set<std::pair<int64_t, int64_t>> got(rec.chunks.begin(), rec.chunks.end());
  std::set<std::pair<int64_t, int64_t>> want = {{0, 2}, {2, 5}, {5, 7}, {7, 10}};
  EXPECT_EQ(got, want);
}

TEST_F(ParallelTest, GrainLimitsTheNumberOfChunks) {
  kiln_parallel_set_threads(8);
  Recorder rec(10);
  kiln_parallel_for(10, 4, Recorder::Fn, &rec);
  EXPECT_EQ(rec.chunks.size(), 3u); // ceil(10 / 4)
  Recorder one(10);
  kiln_parallel_for(10, 100, Recorder::Fn, &one);
  ASSERT_EQ(one.chunks.size(), 1u);
  EXPECT_EQ(one.chunks[0], std::make_pair(int64_t{0}, int64_t{10}));
}

TEST_F(ParallelTest, UsesWorkerThreads) {
  kiln_parallel_set_threads(2);
  // Each chunk waits until both have started, so they must run on two threads.
  struct Meet {
    std::atomic<int> started{0};
    std::set<std::thread::id> threads;
    std::mutex mutex;
  } meet;
  kiln_parallel_for(
      2, 1,
      [](void *ctx, int64_t, int64_t) {
        auto *m = static_cast<Meet *>(ctx);
        m->started++;
        while (m->started < 2)
          std::this_thread::yield();
        std::lock_guard<std::mutex> lock(m->mutex);
        m->threads.insert(std::this_thread::get_id());
      },
      &meet);
  EXPECT_EQ(meet.threads.size(), 2u);
}

TEST_F(ParallelTest, NestedCallsRunInline) {
  kiln_parallel_set_threads(3);
  struct Outer {
    std::atomic<int64_t> inner{0};
  } outer;
  kiln_parallel_for(
      3, 1,
      [](void *ctx, int64_t, int64_t) {
        auto *o = static_cast<Outer *>(ctx);
        kiln_parallel_for(
            5, 1, [](void *c, int64_t b, int64_t e) { static_cast<Outer *>(c)->inner += e - b; },
            o);
      },
      &outer);
  EXPECT_EQ(outer.inner, 15);
}

TEST_F(ParallelTest, ConcurrentCallersAllFinish) {
  std::vector<std::thread> callers;
  std::atomic<int64_t> total{0};
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&total] {
      kiln_parallel_set_threads(2);
      for (int r = 0; r < 50; ++r)
        kiln_parallel_for(
            8, 1,
            [](void *ctx, int64_t b, int64_t e) {
              *static_cast<std::atomic<int64_t> *>(ctx) += e - b;
            },
            &total);
    });
  }
  for (auto &c : callers)
    c.join();
  EXPECT_EQ(total, 4 * 50 * 8);
}

TEST_F(ParallelTest, BudgetFollowsTheRunOptions) {
  EXPECT_EQ(kiln_parallel_threads(), kiln_parallel_cores());
  kiln_run_options_t options;
  std::memset(&options, 0, sizeof(options));
  options.struct_size = sizeof(options);
  options.num_threads = 3;
  int32_t previous = kiln_parallel_enter(&options);
  EXPECT_EQ(kiln_parallel_threads(), 3);
  kiln_parallel_exit(previous);
  EXPECT_EQ(kiln_parallel_threads(), kiln_parallel_cores());
  // NULL options, or a struct too old to have num_threads: all cores.
  previous = kiln_parallel_enter(nullptr);
  EXPECT_EQ(kiln_parallel_threads(), kiln_parallel_cores());
  kiln_parallel_exit(previous);
  options.struct_size = 4;
  previous = kiln_parallel_enter(&options);
  EXPECT_EQ(kiln_parallel_threads(), kiln_parallel_cores());
  kiln_parallel_exit(previous);
  kiln_parallel_set_threads(100000);
  EXPECT_EQ(kiln_parallel_threads(), KILN_PARALLEL_MAX_THREADS);
}

TEST_F(ParallelTest, WorkspaceIsPerThreadAlignedAndGrows) {
  auto *small = static_cast<char *>(kiln_parallel_workspace(100));
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % 64, 0u);
  std::memset(small, 1, 100);
  EXPECT_EQ(kiln_parallel_workspace(50), small);
  auto *big = static_cast<char *>(kiln_parallel_workspace(1 << 20));
  ASSERT_NE(big, nullptr);
  std::memset(big, 2, 1 << 20);
  void *other = nullptr;
  std::thread([&other] { other = kiln_parallel_workspace(100); }).join();
  EXPECT_NE(other, nullptr);
  EXPECT_NE(other, static_cast<void *>(big));
}

TEST_F(ParallelTest, NumberedWorkspacesAreApart) {
  void *first = kiln_parallel_workspace(4096);
  EXPECT_EQ(kiln_parallel_workspace_n(0, 4096), first);
  auto *filter = static_cast<char *>(kiln_parallel_workspace_n(KILN_WORKSPACE_FILTER, 4096));
  ASSERT_NE(filter, nullptr);
  EXPECT_NE(static_cast<void *>(filter), first);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(filter) % 64, 0u);
  std::memset(filter, 3, 4096);
  EXPECT_EQ(kiln_parallel_workspace_n(KILN_WORKSPACE_FILTER, 100), filter); // kept
  EXPECT_EQ(kiln_parallel_workspace_n(-1, 100), nullptr);
  EXPECT_EQ(kiln_parallel_workspace_n(KILN_PARALLEL_WORKSPACES, 100), nullptr);
}

} // namespace
