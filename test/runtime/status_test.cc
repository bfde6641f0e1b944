#include "kiln/runtime/status.h"

#include <gtest/gtest.h>

#include <string>

namespace {

TEST(StatusTest, NullIsOk) {
  EXPECT_EQ(kiln_status_code(nullptr), KILN_STATUS_OK);
  EXPECT_STREQ(kiln_status_message(nullptr), "");
  kiln_status_free(nullptr);  // must be a no-op
}

TEST(StatusTest, CreateFormatsMessage) {
  kiln_status_t status =
      kiln_status_create(KILN_STATUS_INVALID_ARGUMENT, "bad %s: %d of %lld", "thing", 3, 7LL);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_status_message(status), "bad thing: 3 of 7");
  kiln_status_free(status);
}

TEST(StatusTest, KeepsEveryCode) {
  const kiln_status_code_t codes[] = {
      KILN_STATUS_INVALID_ARGUMENT, KILN_STATUS_NOT_FOUND,     KILN_STATUS_OUT_OF_RANGE,
      KILN_STATUS_RESOURCE_EXHAUSTED, KILN_STATUS_IO_ERROR, KILN_STATUS_UNIMPLEMENTED,
      KILN_STATUS_INTERNAL};
  for (kiln_status_code_t code : codes) {
    kiln_status_t status = kiln_status_create(code, "code %d", static_cast<int>(code));
    ASSERT_NE(status, nullptr);
    EXPECT_EQ(kiln_status_code(status), code);
    EXPECT_EQ(std::string(kiln_status_message(status)), "code " + std::to_string(code));
    kiln_status_free(status);
  }
}

TEST(StatusTest, OkCodeGivesNull) {
  EXPECT_EQ(kiln_status_create(KILN_STATUS_OK, "ignored %d", 1), nullptr);
}

TEST(StatusTest, NullFormatGivesEmptyMessage) {
  kiln_status_t status = kiln_status_create(KILN_STATUS_INTERNAL, nullptr);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INTERNAL);
  EXPECT_STREQ(kiln_status_message(status), "");
  kiln_status_free(status);
}

TEST(StatusTest, LongMessageIsNotTruncated) {
  std::string long_text(5000, 'x');
  kiln_status_t status = kiln_status_create(KILN_STATUS_IO_ERROR, "<%s>", long_text.c_str());
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(std::string(kiln_status_message(status)), "<" + long_text + ">");
  kiln_status_free(status);
}

TEST(StatusTest, CodeStrings) {
  EXPECT_STREQ(kiln_status_code_string(KILN_STATUS_OK), "OK");
  EXPECT_STREQ(kiln_status_code_string(KILN_STATUS_INVALID_ARGUMENT), "INVALID_ARGUMENT");
  EXPECT_STREQ(kiln_status_code_string(KILN_STATUS_NOT_FOUND), "NOT_FOUND");
  EXPECT_STREQ(kiln_status_code_string(KILN_STATUS_OUT_OF_RANGE), "OUT_OF_RANGE");
  EXPECT_STREQ(kiln_status_code_string(KILN_STATUS_RESOURCE_EXHAUSTED), "RESOURCE_EXHAUSTED");
  EXPECT_STREQ(kiln_status_code_string(KILN_STATUS_IO_ERROR), "IO_ERROR");
  EXPECT_STREQ(kiln_status_code_string(KILN_STATUS_UNIMPLEMENTED), "UNIMPLEMENTED");
  EXPECT_STREQ(kiln_status_code_string(KILN_STATUS_INTERNAL), "INTERNAL");
  EXPECT_STREQ(kiln_status_code_string(static_cast<kiln_status_code_t>(99)), "UNKNOWN");
}

}  // namespace
