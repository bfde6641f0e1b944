#include "kiln/runtime/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>

namespace {

bool IsAligned(const void *ptr, int64_t alignment) {
  return reinterpret_cast<uintptr_t>(ptr) % static_cast<uintptr_t>(alignment) == 0;
}

class ArenaTest : public ::testing::Test {
protected:
  void TearDown() override { kiln_arena_release(arena_); }
  void Create(int64_t capacity, int64_t alignment) {
    kiln_status_t status = kiln_arena_create(capacity, alignment, &arena_);
    ASSERT_EQ(status, nullptr) << kiln_status_message(status);
    ASSERT_NE(arena_, nullptr);
  }
  kiln_arena_t *arena_ = nullptr;
};

TEST(AlignedAllocTest, AlignsAndAllowsWriting) {
  for (int64_t alignment : {1, 2, 8, 16, 64, 256, 4096}) {
    void *ptr = kiln_aligned_alloc(100, alignment);
    ASSERT_NE(ptr, nullptr) << alignment;
    EXPECT_TRUE(IsAligned(ptr, alignment)) << alignment;
    std::memset(ptr, 0xab, 100);
    kiln_aligned_free(ptr);
  }
}

TEST(AlignedAllocTest, SizeZeroGivesUniquePointers) {
  void *a = kiln_aligned_alloc(0, 64);
  void *b = kiln_aligned_alloc(0, 64);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_TRUE(IsAligned(a, 64));
  kiln_aligned_free(a);
  kiln_aligned_free(b);
  kiln_aligned_free(nullptr);
}

TEST(AlignedAllocTest, RejectsBadArguments) {
  EXPECT_EQ(kiln_aligned_alloc(16, 3), nullptr);
  EXPECT_EQ(kiln_aligned_alloc(16, 0), nullptr);
  EXPECT_EQ(kiln_aligned_alloc(-1, 8), nullptr);
}

TEST_F(ArenaTest, CapacityAndUsed) {
  Create(1024, 64);
  EXPECT_EQ(kiln_arena_capacity(arena_), 1024);
  EXPECT_EQ(kiln_arena_used(arena_), 0);
  void *ptr = nullptr;
  ASSERT_EQ(kiln_arena_alloc(arena_, 10, 1, &ptr), nullptr);
  EXPECT_TRUE(IsAligned(ptr, 64)); // the block itself is aligned
  EXPECT_EQ(kiln_arena_used(arena_), 10);
}

TEST_F(ArenaTest, AllocationsAreAlignedAndDisjoint) {
  Create(4096, 16);
  char *previous_end = nullptr;
  const int64_t alignments[] = {1, 8, 64, 2, 256, 16, 128};
  const int64_t sizes[] = {3, 17, 100, 1, 5, 64, 33};
  for (int i = 0; i < 7; ++i) {
    void *ptr = nullptr;
    kiln_status_t status = kiln_arena_alloc(arena_, sizes[i], alignments[i], &ptr);
    ASSERT_EQ(status, nullptr) << kiln_status_message(status);
    EXPECT_TRUE(IsAligned(ptr, alignments[i])) << i;
    char *begin = static_cast<char *>(ptr);
    if (previous_end != nullptr) {
      EXPECT_GE(begin, previous_end) << i;
      EXPECT_LT(begin - previous_end, alignments[i]) << "padding is minimal for " << i;
    }
    std::memset(ptr, i, static_cast<size_t>(sizes[i]));
    previous_end = begin + sizes[i];
  }
}

TEST_F(ArenaTest, ExhaustionReportsSizes) {
  Create(100, 64);
  void *ptr = nullptr;
  ASSERT_EQ(kiln_arena_alloc(arena_, 60, 1, &ptr), nullptr);
  kiln_status_t status = kiln_arena_alloc(arena_, 64, 8, &ptr);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_RESOURCE_EXHAUSTED);
  std::string message = kiln_status_message(status);
  EXPECT_NE(message.find("requested 64 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("used 60 of 100"), std::string::npos) << message;
  EXPECT_EQ(ptr, nullptr);
  EXPECT_EQ(kiln_arena_used(arena_), 60) << "a failed allocation changes nothing";
  kiln_status_free(status);
  // What is left still fits.
  ASSERT_EQ(kiln_arena_alloc(arena_, 40, 1, &ptr), nullptr);
  EXPECT_EQ(kiln_arena_used(arena_), 100);
  status = kiln_arena_alloc(arena_, 1, 1, &ptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_RESOURCE_EXHAUSTED);
  kiln_status_free(status);
}

TEST_F(ArenaTest, PaddingCountsTowardsCapacity) {
  Create(128, 64);
  void *ptr = nullptr;
  ASSERT_EQ(kiln_arena_alloc(arena_, 1, 1, &ptr), nullptr);
  // 63 bytes of padding + 65 bytes = 128 - 1 + 1 > free space (127).
  kiln_status_t status = kiln_arena_alloc(arena_, 65, 64, &ptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_RESOURCE_EXHAUSTED);
  kiln_status_free(status);
  ASSERT_EQ(kiln_arena_alloc(arena_, 64, 64, &ptr), nullptr);
  EXPECT_EQ(kiln_arena_used(arena_), 128);
}

TEST_F(ArenaTest, ResetReusesTheBlock) {
  Create(256, 64);
  void *first = nullptr;
  ASSERT_EQ(kiln_arena_alloc(arena_, 200, 64, &first), nullptr);
  void *ptr = nullptr;
  kiln_status_t status = kiln_arena_alloc(arena_, 100, 1, &ptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_RESOURCE_EXHAUSTED);
  kiln_status_free(status);
  kiln_arena_reset(arena_);
  EXPECT_EQ(kiln_arena_used(arena_), 0);
  EXPECT_EQ(kiln_arena_capacity(arena_), 256);
  void *again = nullptr;
  ASSERT_EQ(kiln_arena_alloc(arena_, 256, 64, &again), nullptr);
  EXPECT_EQ(again, first);
}

TEST_F(ArenaTest, ZeroCapacity) {
  Create(0, 64);
  void *ptr = nullptr;
  EXPECT_EQ(kiln_arena_alloc(arena_, 0, 1, &ptr), nullptr);
  kiln_status_t status = kiln_arena_alloc(arena_, 1, 1, &ptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_RESOURCE_EXHAUSTED);
  kiln_status_free(status);
}

TEST_F(ArenaTest, RejectsBadAllocArguments) {
  Create(64, 8);
  void *ptr = reinterpret_cast<void *>(1);
  kiln_status_t status = kiln_arena_alloc(arena_, 8, 3, &ptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_status_message(status)).find("power of two"), std::string::npos);
  EXPECT_EQ(ptr, nullptr);
  kiln_status_free(status);
  status = kiln_arena_alloc(arena_, 8, 0, &ptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  kiln_status_free(status);
  status = kiln_arena_alloc(arena_, -1, 8, &ptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  kiln_status_free(status);
  status = kiln_arena_alloc(nullptr, 8, 8, &ptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  kiln_status_free(status);
}

TEST(ArenaCreateTest, RejectsBadArguments) {
  kiln_arena_t *arena = reinterpret_cast<kiln_arena_t *>(1);
  kiln_status_t status = kiln_arena_create(64, 48, &arena);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(arena, nullptr);
  kiln_status_free(status);
  status = kiln_arena_create(-5, 64, &arena);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  kiln_status_free(status);
  status = kiln_arena_create(64, 64, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  kiln_status_free(status);
}

TEST(ArenaCreateTest, NullArenaQueries) {
  EXPECT_EQ(kiln_arena_used(nullptr), 0);
  EXPECT_EQ(kiln_arena_capacity(nullptr), 0);
  kiln_arena_reset(nullptr);
  kiln_arena_release(nullptr);
}

} // namespace
