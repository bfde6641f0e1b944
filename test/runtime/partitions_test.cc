// kiln_partitions_run (kiln/runtime/partitions.h): partitions run at once, each on a thread
// of its own, and hand each other tensors through kiln_partition_send/recv.
#include "kiln/runtime/partitions.h"

#include "kiln/runtime/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace {

const char *const kKeys[] = {"x:0;/cpu:1", "y:0;/cpu:0", "z:0;/cpu:1"};

uintptr_t Address(const void *p) { return reinterpret_cast<uintptr_t>(p); }

// Partition 0 sends x, waits for y = 2x from partition 1, and sends z = y + 1 back; neither
// can finish unless both run at the same time.
struct PingPong {
  float x[4] = {1, 2, 3, 4}, y[4] = {}, z[4] = {};
  float yOn1[4] = {}, zOn1[4] = {};
  std::thread::id threads[2];
};

void Partition0(void *const *args) {
  auto *s = static_cast<PingPong *>(args[0]);
  s->threads[0] = std::this_thread::get_id();
  kiln_partition_send(0, Address(s->x), sizeof(s->x));
  kiln_partition_recv(1, Address(s->y), sizeof(s->y));
  for (int i = 0; i < 4; ++i)
    s->z[i] = s->y[i] + 1;
  kiln_partition_send(2, Address(s->z), sizeof(s->z));
}

void Partition1(void *const *args) {
  auto *s = static_cast<PingPong *>(args[0]);
  s->threads[1] = std::this_thread::get_id();
  float x[4];
  kiln_partition_recv(0, Address(x), sizeof(x));
  for (int i = 0; i < 4; ++i)
    s->yOn1[i] = 2 * x[i];
  kiln_partition_send(1, Address(s->yOn1), sizeof(s->yOn1));
  kiln_partition_recv(2, Address(s->zOn1), sizeof(s->zOn1));
}

TEST(Partitions, RunConcurrentlyAndExchangeTensors) {
  for (int step = 0; step < 50; ++step) { // every run starts with an empty rendezvous
    PingPong s;
    void *args[] = {&s};
    kiln_partition_t parts[] = {{Partition0, args}, {Partition1, args}};
    ASSERT_EQ(kiln_partitions_run(2, parts, 3, kKeys), nullptr);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(s.y[i], 2 * s.x[i]);
      EXPECT_EQ(s.zOn1[i], 2 * s.x[i] + 1);
    }
    EXPECT_NE(s.threads[0], s.threads[1]);
    EXPECT_EQ(s.threads[1], std::this_thread::get_id()); // the last runs on the caller
  }
}

void SendsFour(void *const *) {
  float v[4] = {};
  kiln_partition_send(0, Address(v), sizeof(v));
}
std::atomic<int> afterFailure{0};
void ReceivesTwo(void *const *) {
  float v[2];
  kiln_partition_recv(0, Address(v), sizeof(v));
  kiln_partition_recv(1, Address(v), sizeof(v)); // skipped: the first transfer failed
  ++afterFailure;
}

TEST(Partitions, ReturnTheFirstTransferError) {
  kiln_partition_t parts[] = {{SendsFour, nullptr}, {ReceivesTwo, nullptr}};
  kiln_status_t s = kiln_partitions_run(2, parts, 3, kKeys);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(kiln_status_code(s), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(kiln_status_message(s)),
            "tensor 'x:0;/cpu:1' was sent with 16 bytes but received into 8");
  kiln_status_free(s);
  EXPECT_EQ(afterFailure.load(), 1);
}

// A partition whose own work failed (a GPU partition's device error) says so and goes on
// with its transfers: the call fails with its error, the other partition still finishes,
// and a failed transfer after it does not replace the first error.
std::atomic<int> received{0};
void FailsThenSends(void *const *) {
  kiln_partition_fail(kiln_status_create(KILN_STATUS_NOT_FOUND, "no CUDA device: test"));
  float v[4] = {1, 2, 3, 4};
  kiln_partition_send(0, Address(v), sizeof(v));
  kiln_partition_fail(kiln_status_create(KILN_STATUS_INTERNAL, "second"));
  kiln_partition_fail(nullptr);
}
void ReceivesFour(void *const *) {
  float v[4] = {};
  kiln_partition_recv(0, Address(v), sizeof(v));
  received = static_cast<int>(v[0] + v[1] + v[2] + v[3]);
}

TEST(Partitions, AFailedPartitionKeepsTransferring) {
  kiln_partition_t parts[] = {{FailsThenSends, nullptr}, {ReceivesFour, nullptr}};
  kiln_status_t s = kiln_partitions_run(2, parts, 3, kKeys);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(kiln_status_code(s), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(std::string(kiln_status_message(s)), "no CUDA device: test");
  kiln_status_free(s);
  EXPECT_EQ(received.load(), 10);
  // Outside a run the status is freed (LeakSanitizer would see it otherwise).
  kiln_partition_fail(kiln_status_create(KILN_STATUS_INTERNAL, "outside"));
}

void BadKey(void *const *) {
  float v = 0;
  kiln_partition_send(7, Address(&v), sizeof(v));
}

TEST(Partitions, RejectAKeyOutsideTheTable) {
  kiln_partition_t parts[] = {{BadKey, nullptr}};
  kiln_status_t s = kiln_partitions_run(1, parts, 3, kKeys);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(kiln_status_code(s), KILN_STATUS_INTERNAL);
  kiln_status_free(s);
}

std::atomic<int> budget{0};
void ReadBudget(void *const *) { budget = kiln_parallel_threads(); }

TEST(Partitions, InheritTheCallersThreadBudget) {
  int32_t previous = kiln_parallel_set_threads(3);
  kiln_partition_t parts[] = {{ReadBudget, nullptr}, {SendsFour, nullptr}};
  kiln_status_t s = kiln_partitions_run(2, parts, 3, kKeys);
  kiln_parallel_set_threads(previous);
  EXPECT_EQ(s, nullptr); // an unreceived send is dropped with the run
  EXPECT_EQ(budget.load(), 3);
}

TEST(Partitions, NoPartitionsAndTransfersOutsideARunDoNothing) {
  EXPECT_EQ(kiln_partitions_run(0, nullptr, 0, nullptr), nullptr);
  float v = 1;
  kiln_partition_send(0, Address(&v), sizeof(v));
  kiln_partition_recv(0, Address(&v), sizeof(v)); // would block inside a run
  EXPECT_EQ(v, 1);
}

} // namespace
