#include "kiln/runtime/npy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

using kiln_test::ReadFileBytes;
using kiln_test::ScopedTempDir;
using kiln_test::WriteFileBytes;

// Builds a .npy file by hand: magic, version, little-endian header length (2 bytes for 1.0,
// 4 otherwise), `dict` padded with spaces and a '\n' to a multiple of 64 bytes, then `data`.
std::string MakeNpy(int major, const std::string &dict, const std::string &data) {
  size_t length_size = major == 1 ? 2 : 4;
  size_t preamble = 8 + length_size;
  size_t total = preamble + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  std::string header = dict + std::string(padded - total, ' ') + "\n";
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < length_size; ++i) {
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  return out + header + data;
}

std::string Bytes(const void *data, size_t size) {
  return std::string(static_cast<const char *>(data), size);
}

class NpyTest : public ::testing::Test {
protected:
  void TearDown() override { kiln_npy_array_free(&array_); }

  // Reads `path`, expecting an error with `code` whose message contains `path` and `what`.
  void ExpectReadError(const std::string &path, kiln_status_code_t code, const std::string &what) {
    kiln_status_t status = kiln_npy_read(path.c_str(), &array_);
    ASSERT_NE(status, nullptr) << "reading " << path << " should fail";
    std::string message = kiln_status_message(status);
    EXPECT_EQ(kiln_status_code(status), code) << message;
    EXPECT_NE(message.find("'" + path + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_EQ(array_.data, nullptr);
    EXPECT_EQ(array_.rank, 0);
    kiln_status_free(status);
  }

  ScopedTempDir dir_;
  kiln_npy_array_t array_{};
};

struct DtypeCase {
  int32_t dtype;
  int32_t read_dtype; // what the file reads back as
  const char *descr;
};

const DtypeCase kDtypeCases[] = {
    {KILN_DTYPE_F32, KILN_DTYPE_F32, "'<f4'"},
    {KILN_DTYPE_F64, KILN_DTYPE_F64, "'<f8'"},
    {KILN_DTYPE_F16, KILN_DTYPE_F16, "'<f2'"},
    {KILN_DTYPE_I8, KILN_DTYPE_I8, "'|i1'"},
    {KILN_DTYPE_I16, KILN_DTYPE_I16, "'<i2'"},
    {KILN_DTYPE_I32, KILN_DTYPE_I32, "'<i4'"},
    {KILN_DTYPE_I64, KILN_DTYPE_I64, "'<i8'"},
    {KILN_DTYPE_U8, KILN_DTYPE_U8, "'|u1'"},
    {KILN_DTYPE_U16, KILN_DTYPE_U16, "'<u2'"},
    {KILN_DTYPE_U32, KILN_DTYPE_U32, "'<u4'"},
    {KILN_DTYPE_U64, KILN_DTYPE_U64, "'<u8'"},
    {KILN_DTYPE_BOOL, KILN_DTYPE_BOOL, "'|b1'"},
    // bfloat16 is not a NumPy dtype: it is stored as raw uint16 and reads back as such.
    {KILN_DTYPE_BF16, KILN_DTYPE_U16, "'<u2'"},
};

TEST_F(NpyTest, RoundTripEveryDtypeAndShape) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {5}, {2, 3, 4}, {3, 0}};
  for (const DtypeCase &c : kDtypeCases) {
    for (const std::vector<int64_t> &shape : shapes) {
      SCOPED_TRACE(std::string(kiln_dtype_name(c.dtype)) + " rank " + std::to_string(shape.size()));
      int64_t count = 1;
      for (int64_t d : shape)
        count *= d;
      std::vector<unsigned char> data(static_cast<size_t>(count * kiln_dtype_size(c.dtype)));
      for (size_t i = 0; i < data.size(); ++i) {
        data[i] = c.dtype == KILN_DTYPE_BOOL ? static_cast<unsigned char>(i % 3 == 0)
                                             : static_cast<unsigned char>(i * 37 + c.dtype);
      }
      std::string path = dir_.Join("a.npy");
      kiln_status_t status = kiln_npy_write(
          path.c_str(), c.dtype, static_cast<int32_t>(shape.size()), shape.data(), data.data());
      ASSERT_EQ(status, nullptr) << kiln_status_message(status);

      std::string file = ReadFileBytes(path);
      ASSERT_GE(file.size(), 10u);
      size_t header_length = static_cast<unsigned char>(file[8]) |
                             (static_cast<size_t>(static_cast<unsigned char>(file[9])) << 8);
      size_t offset = 10 + header_length;
      EXPECT_EQ(offset % 64, 0u);
      EXPECT_EQ(file[offset - 1], '\n');
      EXPECT_EQ(file.size(), offset + data.size());
      EXPECT_NE(file.find(std::string("'descr': ") + c.descr), std::string::npos);

      kiln_npy_array_free(&array_);
      status = kiln_npy_read(path.c_str(), &array_);
      ASSERT_EQ(status, nullptr) << kiln_status_message(status);
      EXPECT_EQ(array_.dtype, c.read_dtype);
      ASSERT_EQ(array_.rank, static_cast<int32_t>(shape.size()));
      for (size_t d = 0; d < shape.size(); ++d)
        EXPECT_EQ(array_.dims[d], shape[d]);
      EXPECT_EQ(array_.byte_size, static_cast<int64_t>(data.size()));
      ASSERT_NE(array_.data, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(array_.data) % KILN_NPY_DATA_ALIGNMENT, 0u);
      EXPECT_EQ(Bytes(array_.data, data.size()), Bytes(data.data(), data.size()));
    }
  }
}

TEST_F(NpyTest, HeaderMatchesNumpyExactly) {
  // numpy.save("x.npy", np.arange(6, dtype=np.float32).reshape(2, 3)) produces this header:
  // the preamble, the dict, spaces and '\n' up to byte 128, where the data starts.
  const float values[6] = {0, 1, 2, 3, 4, 5};
  const int64_t dims[2] = {2, 3};
  std::string path = dir_.Join("x.npy");
  ASSERT_EQ(kiln_npy_write(path.c_str(), KILN_DTYPE_F32, 2, dims, values), nullptr);

  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  std::string expected("\x93NUMPY\x01\x00", 8);
  expected += static_cast<char>(118); // header length 118 = 128 - 10, little-endian
  expected += '\0';
  expected += dict;
  expected += std::string(128 - 1 - expected.size(), ' ');
  expected += '\n';
  ASSERT_EQ(expected.size(), 128u);
  expected += Bytes(values, sizeof(values));
  EXPECT_EQ(ReadFileBytes(path), expected);
}

TEST_F(NpyTest, HeaderShapeSpellings) {
  const int32_t scalar = 7;
  std::string path = dir_.Join("s.npy");
  ASSERT_EQ(kiln_npy_write(path.c_str(), KILN_DTYPE_I32, 0, nullptr, &scalar), nullptr);
  std::string file = ReadFileBytes(path);
  std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (), }";
  // No spare space for a scalar: the dict, then alignment spaces and '\n' up to byte 128.
  EXPECT_EQ(file.substr(10, 118), dict + std::string(118 - dict.size() - 1, ' ') + "\n");
  EXPECT_EQ(file.size(), 128u + 4u);

  const int64_t dims[1] = {4};
  const int32_t vector[4] = {1, 2, 3, 4};
  ASSERT_EQ(kiln_npy_write(path.c_str(), KILN_DTYPE_I32, 1, dims, vector), nullptr);
  file = ReadFileBytes(path);
  dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }";
  EXPECT_EQ(file.substr(10, 118), dict + std::string(118 - dict.size() - 1, ' ') + "\n");
  EXPECT_EQ(file.size(), 128u + 16u);
}

TEST_F(NpyTest, HeaderKeepsNumpysSpareSpace) {
  // numpy >= 1.24 adds 21 - len(repr(shape[0])) spaces after the dict, so that the header
  // can be rewritten in place when the array grows. For a rank-16 shape of ones the dict is
  // 101 bytes: 10 + 101 + 20 + 1 = 132 > 128, so numpy starts the data at 192.
  std::vector<int64_t> dims(16, 1);
  const float value = 1.5f;
  std::string path = dir_.Join("r16.npy");
  ASSERT_EQ(kiln_npy_write(path.c_str(), KILN_DTYPE_F32, 16, dims.data(), &value), nullptr);
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1";
  for (int i = 1; i < 16; ++i)
    dict += ", 1";
  dict += "), }";
  ASSERT_EQ(dict.size(), 101u);
  std::string file = ReadFileBytes(path);
  ASSERT_EQ(file.size(), 192u + 4u);
  EXPECT_EQ(static_cast<unsigned char>(file[8]), 182);
  EXPECT_EQ(file[9], '\0');
  EXPECT_EQ(file.substr(10, 182), dict + std::string(182 - 101 - 1, ' ') + "\n");
}

TEST_F(NpyTest, ReadsVersion2) {
  const int64_t values[3] = {-1, 2, 1LL << 40};
  std::string path = dir_.Join("v2.npy");
  WriteFileBytes(path, MakeNpy(2, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }",
                               Bytes(values, sizeof(values))));
  ASSERT_EQ(ReadFileBytes(path).size() % 64, sizeof(values));
  kiln_status_t status = kiln_npy_read(path.c_str(), &array_);
  ASSERT_EQ(status, nullptr) << kiln_status_message(status);
  EXPECT_EQ(array_.dtype, KILN_DTYPE_I64);
  ASSERT_EQ(array_.rank, 1);
  EXPECT_EQ(array_.dims[0], 3);
  EXPECT_EQ(array_.byte_size, 24);
  EXPECT_EQ(std::memcmp(array_.data, values, sizeof(values)), 0);
}

TEST_F(NpyTest, ReadsVersion3AndLenientHeaders) {
  // Keys in another order, double quotes, no trailing comma, and an old-style 'L' suffix.
  const uint8_t values[4] = {1, 0, 0, 1};
  std::string path = dir_.Join("v3.npy");
  WriteFileBytes(path, MakeNpy(3,
                               "{\"shape\": (2L, 2), \"fortran_order\": False, "
                               "\"descr\": \"|b1\"}",
                               Bytes(values, sizeof(values))));
  kiln_status_t status = kiln_npy_read(path.c_str(), &array_);
  ASSERT_EQ(status, nullptr) << kiln_status_message(status);
  EXPECT_EQ(array_.dtype, KILN_DTYPE_BOOL);
  ASSERT_EQ(array_.rank, 2);
  EXPECT_EQ(array_.dims[0], 2);
  EXPECT_EQ(array_.dims[1], 2);
  EXPECT_EQ(std::memcmp(array_.data, values, sizeof(values)), 0);
}

TEST_F(NpyTest, ReadsLittleEndianOneByteDescrs) {
  const int8_t values[2] = {-3, 4};
  std::string path = dir_.Join("i1.npy");
  WriteFileBytes(path, MakeNpy(1, "{'descr': '<i1', 'fortran_order': False, 'shape': (2,), }",
                               Bytes(values, sizeof(values))));
  ASSERT_EQ(kiln_npy_read(path.c_str(), &array_), nullptr);
  EXPECT_EQ(array_.dtype, KILN_DTYPE_I8);
}

TEST_F(NpyTest, IgnoresTrailingData) {
  const float values[2] = {1.0f, 2.0f};
  std::string path = dir_.Join("trailing.npy");
  WriteFileBytes(path, MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                               Bytes(values, sizeof(values))));
  ASSERT_EQ(kiln_npy_read(path.c_str(), &array_), nullptr);
  EXPECT_EQ(array_.byte_size, 4);
  EXPECT_EQ(static_cast<const float *>(array_.data)[0], 1.0f);
}

TEST_F(NpyTest, MissingFile) {
  std::string path = dir_.Join("does_not_exist.npy");
  kiln_status_t status = kiln_npy_read(path.c_str(), &array_);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_IO_ERROR);
  EXPECT_EQ(std::string(kiln_status_message(status)),
            "cannot open '" + path + "': No such file or directory");
  kiln_status_free(status);
}

TEST_F(NpyTest, DirectoryIsAnError) {
  ExpectReadError(dir_.path(), KILN_STATUS_IO_ERROR, "cannot read");
}

TEST_F(NpyTest, BadMagic) {
  std::string path = dir_.Join("text.npy");
  WriteFileBytes(path, "this is not a numpy file at all");
  ExpectReadError(path, KILN_STATUS_INVALID_ARGUMENT, "bad magic");
}

TEST_F(NpyTest, EmptyFile) {
  std::string path = dir_.Join("empty.npy");
  WriteFileBytes(path, "");
  ExpectReadError(path, KILN_STATUS_INVALID_ARGUMENT, "bad magic");
}

TEST_F(NpyTest, TruncatedData) {
  const float values[2] = {1.0f, 2.0f};
  std::string path = dir_.Join("short.npy");
  WriteFileBytes(path, MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                               Bytes(values, sizeof(values))));
  kiln_status_t status = kiln_npy_read(path.c_str(), &array_);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(kiln_status_message(status)),
            "'" + path + "': expected 24 bytes of data, found 8");
  kiln_status_free(status);
  EXPECT_EQ(array_.data, nullptr);
}

TEST_F(NpyTest, HugeShapeIsTruncatedNotAllocated) {
  std::string path = dir_.Join("huge.npy");
  WriteFileBytes(path, MakeNpy(1,
                               "{'descr': '<f8', 'fortran_order': False, "
                               "'shape': (100000000000, 100), }",
                               ""));
  ExpectReadError(path, KILN_STATUS_INVALID_ARGUMENT,
                  "expected 80000000000000 bytes of data, found 0");
}

TEST_F(NpyTest, OverflowingShape) {
  std::string path = dir_.Join("overflow.npy");
  WriteFileBytes(path, MakeNpy(1,
                               "{'descr': '<f8', 'fortran_order': False, "
                               "'shape': (9223372036854775807, 2), }",
                               ""));
  ExpectReadError(path, KILN_STATUS_INVALID_ARGUMENT, "overflow");
}

TEST_F(NpyTest, TruncatedHeader) {
  std::string full = MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "");
  std::string path = dir_.Join("header.npy");
  WriteFileBytes(path, full.substr(0, 40));
  ExpectReadError(path, KILN_STATUS_INVALID_ARGUMENT, "truncated header");
}

TEST_F(NpyTest, FortranOrderIsRejected) {
  std::string path = dir_.Join("fortran.npy");
  WriteFileBytes(path, MakeNpy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
                               std::string(16, '\0')));
  ExpectReadError(path, KILN_STATUS_UNIMPLEMENTED, "fortran_order");
}

TEST_F(NpyTest, BigEndianIsRejected) {
  std::string path = dir_.Join("big.npy");
  WriteFileBytes(path, MakeNpy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                               std::string(8, '\0')));
  ExpectReadError(path, KILN_STATUS_UNIMPLEMENTED, "big-endian descr '>f4'");
}

TEST_F(NpyTest, UnsupportedDescrs) {
  for (const char *descr : {"<c8", "|f4", "<U10", "f4", "=i4"}) {
    std::string path = dir_.Join("descr.npy");
    WriteFileBytes(path, MakeNpy(1,
                                 std::string("{'descr': '") + descr +
                                     "', 'fortran_order': False, 'shape': (2,), }",
                                 std::string(64, '\0')));
    ExpectReadError(path, KILN_STATUS_UNIMPLEMENTED,
                    std::string("unsupported descr '") + descr + "'");
  }
  std::string path = dir_.Join("struct.npy");
  WriteFileBytes(path, MakeNpy(1,
                               "{'descr': [('a', '<f4')], 'fortran_order': False, "
                               "'shape': (2,), }",
                               std::string(8, '\0')));
  ExpectReadError(path, KILN_STATUS_UNIMPLEMENTED, "structured");
}

TEST_F(NpyTest, UnsupportedVersion) {
  std::string file =
      MakeNpy(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", std::string(4, '\0'));
  file[6] = 4;
  std::string path = dir_.Join("v4.npy");
  WriteFileBytes(path, file);
  ExpectReadError(path, KILN_STATUS_UNIMPLEMENTED, "version 4.0");
}

TEST_F(NpyTest, MalformedHeaders) {
  const char *headers[] = {
      "{'descr': '<f4', 'fortran_order': False}",
      "{'descr': '<f4', 'shape': (2,)}",
      "{'fortran_order': False, 'shape': (2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }",
      "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}",
      "['descr', '<f4']",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } junk",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,",
  };
  for (const char *header : headers) {
    SCOPED_TRACE(header);
    std::string path = dir_.Join("malformed.npy");
    WriteFileBytes(path, MakeNpy(1, header, std::string(8, '\0')));
    ExpectReadError(path, KILN_STATUS_INVALID_ARGUMENT, "malformed .npy header");
  }
}

// NumPy refuses a header whose strings hold control characters (its literal_eval: "source
// code string cannot contain null bytes"); a NUL after the type must not end it early.
TEST_F(NpyTest, ControlCharactersInDescr) {
  for (const std::string &descr :
       {std::string("<f4\0", 4), std::string("<f4\n"), std::string("<\tf4")}) {
    SCOPED_TRACE(descr);
    std::string path = dir_.Join("nul.npy");
    WriteFileBytes(path, MakeNpy(1,
                                 "{'descr': '" + descr +
                                     "', 'fortran_order': False, "
                                     "'shape': (2,), }",
                                 std::string(8, '\0')));
    ExpectReadError(path, KILN_STATUS_INVALID_ARGUMENT,
                    "'descr' is not a short string of printable characters");
  }
}

TEST_F(NpyTest, TooManyDimensions) {
  std::string shape = "(1";
  for (int i = 1; i < 17; ++i)
    shape += ", 1";
  shape += ")";
  std::string path = dir_.Join("rank17.npy");
  WriteFileBytes(path,
                 MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }",
                         std::string(4, '\0')));
  ExpectReadError(path, KILN_STATUS_UNIMPLEMENTED, "more than 16 dimensions");
}

TEST_F(NpyTest, WriteErrors) {
  const int64_t dims[1] = {2};
  const int64_t negative[1] = {-1};
  const float values[2] = {1, 2};
  std::string path = dir_.Join("w.npy");
  kiln_status_t status = kiln_npy_write(path.c_str(), 42, 1, dims, values);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_status_message(status)).find(path), std::string::npos);
  kiln_status_free(status);
  status = kiln_npy_write(path.c_str(), KILN_DTYPE_F32, 1, negative, values);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  kiln_status_free(status);
  status = kiln_npy_write(path.c_str(), KILN_DTYPE_F32, 17, dims, values);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  kiln_status_free(status);
  status = kiln_npy_write(path.c_str(), KILN_DTYPE_F32, 1, dims, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_INVALID_ARGUMENT);
  kiln_status_free(status);

  std::string bad_path = dir_.Join("no_such_dir/w.npy");
  status = kiln_npy_write(bad_path.c_str(), KILN_DTYPE_F32, 1, dims, values);
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_IO_ERROR);
  EXPECT_EQ(std::string(kiln_status_message(status)),
            "cannot write '" + bad_path + "': No such file or directory");
  kiln_status_free(status);
}

TEST_F(NpyTest, ArrayFreeIsIdempotent) {
  kiln_npy_array_t array{};
  kiln_npy_array_free(&array);
  kiln_npy_array_free(&array);
  kiln_npy_array_free(nullptr);
}

TEST(DtypeNameTest, Names) {
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_F32), "float32");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_F64), "float64");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_F16), "float16");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_BF16), "bfloat16");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_I8), "int8");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_I16), "int16");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_I32), "int32");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_I64), "int64");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_U8), "uint8");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_U16), "uint16");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_U32), "uint32");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_U64), "uint64");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_BOOL), "bool");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_INVALID), "invalid");
  EXPECT_STREQ(kiln_dtype_name(1234), "invalid");
}

} // namespace
