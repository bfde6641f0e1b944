// The in-process transport of kiln/runtime/rendezvous.h: partitions on threads hand each
// other tensors by key.
#include "kiln/runtime/rendezvous.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace {

struct Transport {
  kiln_transport_t *t = kiln_local_rendezvous_create();
  ~Transport() { t->destroy(t); }
};

std::string Message(kiln_status_t s) {
  std::string m = kiln_status_message(s);
  kiln_status_free(s);
  return m;
}

TEST(Rendezvous, ReceiveAfterSend) {
  Transport r;
  const float sent[3] = {1.5f, -2.0f, 3.25f};
  ASSERT_EQ(r.t->send(r.t, "a:0;/cpu:1", sent, sizeof(sent)), nullptr);
  float got[3] = {};
  ASSERT_EQ(r.t->recv(r.t, "a:0;/cpu:1", got, sizeof(got)), nullptr);
  EXPECT_EQ(got[0], 1.5f);
  EXPECT_EQ(got[1], -2.0f);
  EXPECT_EQ(got[2], 3.25f);
}

TEST(Rendezvous, ReceiverWaitsForTheSenderOnAnotherThread) {
  Transport r;
  std::vector<int32_t> got(1000, 0);
  kiln_status_t status = nullptr;
  std::thread receiver([&] {
    status = r.t->recv(r.t, "big:0;/cpu:0", got.data(), int64_t(got.size() * sizeof(int32_t)));
  });
  std::vector<int32_t> sent(1000);
  for (int i = 0; i < 1000; ++i)
    sent[i] = i * 7;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(r.t->send(r.t, "big:0;/cpu:0", sent.data(), int64_t(sent.size() * sizeof(int32_t))),
            nullptr);
  receiver.join();
  EXPECT_EQ(status, nullptr);
  EXPECT_EQ(got, sent);
}

TEST(Rendezvous, KeysAreIndependentAndSendCopiesTheData) {
  Transport r;
  int a = 1, b = 2;
  ASSERT_EQ(r.t->send(r.t, "x:0;/cpu:1", &a, sizeof(a)), nullptr);
  ASSERT_EQ(r.t->send(r.t, "x:1;/cpu:1", &b, sizeof(b)), nullptr);
  a = b = 99; // the sender's buffers may be reused at once
  int got = 0;
  ASSERT_EQ(r.t->recv(r.t, "x:1;/cpu:1", &got, sizeof(got)), nullptr);
  EXPECT_EQ(got, 2);
  ASSERT_EQ(r.t->recv(r.t, "x:0;/cpu:1", &got, sizeof(got)), nullptr);
  EXPECT_EQ(got, 1);
}

TEST(Rendezvous, SizeMismatchAndDoubleSendAreErrorsNamingTheKey) {
  Transport r;
  float v[2] = {1, 2};
  ASSERT_EQ(r.t->send(r.t, "y:0;/cpu:1", v, sizeof(v)), nullptr);
  kiln_status_t twice = r.t->send(r.t, "y:0;/cpu:1", v, sizeof(v));
  ASSERT_NE(twice, nullptr);
  EXPECT_EQ(kiln_status_code(twice), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(Message(twice), "tensor 'y:0;/cpu:1' was sent twice before it was received");
  float small[1];
  kiln_status_t wrong = r.t->recv(r.t, "y:0;/cpu:1", small, sizeof(small));
  ASSERT_NE(wrong, nullptr);
  EXPECT_EQ(Message(wrong), "tensor 'y:0;/cpu:1' was sent with 8 bytes but received into 4");
}

TEST(Rendezvous, ResetForgetsUnreceivedTensors) {
  Transport r;
  int a = 5;
  ASSERT_EQ(r.t->send(r.t, "z:0;/cpu:1", &a, sizeof(a)), nullptr);
  r.t->reset(r.t);
  // The next step may send the key again.
  a = 6;
  ASSERT_EQ(r.t->send(r.t, "z:0;/cpu:1", &a, sizeof(a)), nullptr);
  int got = 0;
  ASSERT_EQ(r.t->recv(r.t, "z:0;/cpu:1", &got, sizeof(got)), nullptr);
  EXPECT_EQ(got, 6);
}

} // namespace
