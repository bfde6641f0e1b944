#include "kiln/runtime/status.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

TEST(StatusTest, NullIsOk) {
  EXPECT_EQ(kiln_status_code(nullptr), KILN_STATUS_OK);
  EXPECT_STREQ(kiln_status_message(nullptr), "");
  kiln_status_free(nullptr); // must be a no-op
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
  const kiln_status_code_t codes[] = {KILN_STATUS_INVALID_ARGUMENT, KILN_STATUS_NOT_FOUND,
                                      KILN_STATUS_OUT_OF_RANGE,     KILN_STATUS_RESOURCE_EXHAUSTED,
                                      KILN_STATUS_IO_ERROR,         KILN_STATUS_UNIMPLEMENTED,
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

// kiln_check_format fills {index} with the row-major coordinates of `position` and
// {value} with the value, signed or unsigned, and truncates to the buffer it is given.
std::string FormatCheck(const char *message, std::vector<int64_t> dims, int32_t is_unsigned,
                        int64_t position, int64_t value, int64_t size = 256) {
  kiln_check_info_t info{message, static_cast<int32_t>(dims.size()), is_unsigned, dims.data()};
  std::string out(static_cast<size_t>(size), '#');
  int64_t length = kiln_check_format(&info, position, value, out.data(), size);
  EXPECT_EQ(length,
            static_cast<int64_t>(strlen(out.c_str())) + (length >= size ? length - size + 1 : 0));
  return out.c_str();
}

TEST(CheckFormatTest, Placeholders) {
  EXPECT_EQ(FormatCheck("indices{index} = {value} is not in [0, 5)", {2, 3}, 0, 5, 7),
            "indices[1,2] = 7 is not in [0, 5)");
  EXPECT_EQ(FormatCheck("y{index} = {value}", {}, 0, 0, -3), "y = -3");
  EXPECT_EQ(FormatCheck("{value} {value}", {4}, 0, 0, INT64_MIN),
            "-9223372036854775808 -9223372036854775808");
  EXPECT_EQ(FormatCheck("{value}", {4}, 1, 0, -1), "18446744073709551615");
  EXPECT_EQ(FormatCheck("{index}", {3, 1, 4}, 0, 11, 0), "[2,0,3]");
  EXPECT_EQ(FormatCheck("no placeholders {inde", {1}, 0, 0, 0), "no placeholders {inde");
}

TEST(CheckFormatTest, TruncatesToTheBuffer) {
  EXPECT_EQ(FormatCheck("indices{index} = {value}", {10}, 0, 9, 12345, 12), "indices[9] ");
  EXPECT_EQ(FormatCheck("abc", {}, 0, 0, 0, 1), "");
  kiln_check_info_t info{"length {value}", 0, 0, nullptr};
  EXPECT_EQ(kiln_check_format(&info, 0, 100, nullptr, 0), 10);
}

// kiln_check_failed writes the failed check's message where the caller asked for it, and
// nowhere when the options are older than the field or give no buffer.
TEST(CheckFailedTest, WritesTheMessageForNewCallersOnly) {
  int64_t dims[] = {3};
  kiln_check_info_t checks[] = {{"first", 0, 0, nullptr}, {"y{index} is {value}", 1, 0, dims}};
  int64_t status[KILN_CHECK_STATUS_WORDS] = {2, 1, 0};
  char message[64] = "untouched";
  kiln_run_options_t options = {sizeof(kiln_run_options_t), 0, message, sizeof message};
  EXPECT_EQ(kiln_check_failed(&options, checks, status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(message, "y[1] is 0");

  strcpy(message, "untouched");
  options.struct_size = offsetof(kiln_run_options_t, error_message);
  EXPECT_EQ(kiln_check_failed(&options, checks, status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(message, "untouched");
  EXPECT_EQ(kiln_check_failed(nullptr, checks, status), KILN_STATUS_INVALID_ARGUMENT);
  options.struct_size = sizeof options;
  options.error_message = nullptr;
  EXPECT_EQ(kiln_check_failed(&options, checks, status), KILN_STATUS_INVALID_ARGUMENT);
}

// kiln_status_report hands a call's error to its caller: the code, the message where the
// caller asked for it (cut to the buffer), and the status freed (LeakSanitizer checks).
TEST(StatusReportTest, GivesTheCodeAndTheMessage) {
  char message[16] = "untouched";
  kiln_run_options_t options = {sizeof(kiln_run_options_t), 0, message, sizeof message};
  EXPECT_EQ(kiln_status_report(nullptr, &options), KILN_STATUS_OK);
  EXPECT_STREQ(message, "untouched");
  EXPECT_EQ(kiln_status_report(kiln_status_create(KILN_STATUS_NOT_FOUND, "no CUDA device: %d", 7),
                               &options),
            KILN_STATUS_NOT_FOUND);
  EXPECT_STREQ(message, "no CUDA device:");
  strcpy(message, "untouched");
  options.struct_size = offsetof(kiln_run_options_t, error_message);
  EXPECT_EQ(kiln_status_report(kiln_status_create(KILN_STATUS_INTERNAL, "x"), &options),
            KILN_STATUS_INTERNAL);
  EXPECT_STREQ(message, "untouched");
  EXPECT_EQ(kiln_status_report(kiln_status_create(KILN_STATUS_INTERNAL, "x"), nullptr),
            KILN_STATUS_INTERNAL);
}

} // namespace
