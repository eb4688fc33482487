// Tests for jx::io .npy reading and writing: round trips, NumPy-written files, hostile input.
#include "io/npy.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "jx/error.h"

#ifndef JX_GOLDEN_DIR
#define JX_GOLDEN_DIR "tests/golden"
#endif

namespace {

namespace fs = std::filesystem;
using jx::DType;
using jx::io::NpyArray;
using jx::io::read_npy;
using jx::io::write_npy;

std::string golden(const std::string &name) { return std::string(JX_GOLDEN_DIR) + "/npy/" + name; }

int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

template <class T> std::vector<T> values(const NpyArray &a) {
  std::vector<T> out(size_t(numel(a.shape)));
  EXPECT_GE(a.data->bytes(), out.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), a.data->data(), out.size() * sizeof(T));
  return out;
}

std::string read_bytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A .npy file image with `dict` as its header, padded like NumPy does.
std::string npy_bytes(const std::string &dict, const std::string &data = "", int major = 1) {
  size_t preamble = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((preamble + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(major);
  out += '\0';
  for (size_t i = 0; i < preamble - 8; ++i)
    out += char(header.size() >> (8 * i) & 0xff);
  return out + header + data;
}

// Checks that `fn` throws exactly E (or a subclass) with `part` in its message.
template <class E> void expect_error(const std::function<void()> &fn, const std::string &part) {
  try {
    fn();
    ADD_FAILURE() << "expected an exception mentioning \"" << part << "\"";
  } catch (const E &e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  } catch (const std::exception &e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

class NpyTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = fs::temp_directory_path() /
           ("jx_test_npy_" + std::to_string(rd()) + "_" + std::to_string(rd()));
    ASSERT_TRUE(fs::create_directories(dir_));
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string &name) const { return (dir_ / name).string(); }

  std::string write_file(const std::string &name, const std::string &bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }

  // Reading `bytes` must fail with E and a message containing `part`.
  template <class E> void expect_read_error(const std::string &bytes, const std::string &part) {
    std::string p = write_file("bad.npy", bytes);
    expect_error<E>([&] { read_npy(p); }, part);
  }

  fs::path dir_;
};

// ---- Round trips --------------------------------------------------------------------------

template <class T> void round_trip(const std::string &p, DType dtype) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {0}, {3}, {2, 3, 4}, {5, 0, 2}};
  for (const auto &shape : shapes) {
    std::vector<T> src(size_t(numel(shape)));
    for (size_t i = 0; i < src.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>)
        src[i] = i % 3 == 1;
      else
        src[i] = T(i * 7) - T(11);
    }
    // std::vector<bool> has no data(); copy into plain bytes.
    std::vector<unsigned char> raw(src.size() * sizeof(T));
    for (size_t i = 0; i < src.size(); ++i) {
      T v = src[i];
      std::memcpy(raw.data() + i * sizeof(T), &v, sizeof(T));
    }
    write_npy(p, dtype, shape, raw.data());
    NpyArray a = read_npy(p);
    EXPECT_EQ(a.dtype, dtype);
    EXPECT_EQ(a.shape, shape);
    ASSERT_GE(a.data->bytes(), raw.size());
    if (!raw.empty()) {
      EXPECT_EQ(std::memcmp(a.data->data(), raw.data(), raw.size()), 0);
    }
    // Same layout as np.save: 64-byte aligned version 1.0 header ending in a newline.
    std::string bytes = read_bytes(p);
    ASSERT_GE(bytes.size(), 10u);
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    size_t header_len = size_t(uint8_t(bytes[8])) | size_t(uint8_t(bytes[9])) << 8;
    EXPECT_EQ((10 + header_len) % 64, 0u);
    EXPECT_EQ(bytes[10 + header_len - 1], '\n');
    EXPECT_EQ(bytes.size(), 10 + header_len + raw.size());
  }
}

TEST_F(NpyTest, RoundTripBool) { round_trip<bool>(path("b.npy"), DType::bool_); }
TEST_F(NpyTest, RoundTripInt32) { round_trip<int32_t>(path("i4.npy"), DType::int32); }
TEST_F(NpyTest, RoundTripInt64) { round_trip<int64_t>(path("i8.npy"), DType::int64); }
TEST_F(NpyTest, RoundTripFloat32) { round_trip<float>(path("f4.npy"), DType::float32); }
TEST_F(NpyTest, RoundTripFloat64) { round_trip<double>(path("f8.npy"), DType::float64); }

TEST_F(NpyTest, WritesNumpyHeader) {
  double data[12] = {};
  write_npy(path("h.npy"), DType::float64, {3, 4}, data);
  std::string bytes = read_bytes(path("h.npy"));
  EXPECT_EQ(bytes.substr(10, 59), "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }");
  write_npy(path("h1.npy"), DType::bool_, {7}, data);
  EXPECT_NE(read_bytes(path("h1.npy"))
                .find("{'descr': '|b1', 'fortran_order': False, "
                      "'shape': (7,), }"),
            std::string::npos);
}

TEST_F(NpyTest, WritesVersion2WhenHeaderIsLarge) {
  std::vector<int64_t> shape(25000, 1); // "1, " x 25000 does not fit a 16-bit length.
  int32_t value = 42;
  write_npy(path("v2.npy"), DType::int32, shape, &value);
  std::string bytes = read_bytes(path("v2.npy"));
  ASSERT_GE(bytes.size(), 12u);
  EXPECT_EQ(bytes[6], '\x02');
  size_t header_len = 0;
  for (int i = 3; i >= 0; --i)
    header_len = header_len << 8 | uint8_t(bytes[8 + i]);
  EXPECT_GT(header_len, 65535u);
  EXPECT_EQ((12 + header_len) % 64, 0u);
  NpyArray a = read_npy(path("v2.npy"));
  EXPECT_EQ(a.shape, shape);
  EXPECT_EQ(values<int32_t>(a), std::vector<int32_t>{42});
}

TEST_F(NpyTest, WriteRejectsNegativeDimension) {
  expect_error<jx::ValueError>(
      [&] {
        write_npy(path("n.npy"), DType::int32, {2, -1}, nullptr);
      },
      "negative dimensions");
}

TEST_F(NpyTest, WriteToMissingDirectory) {
  int32_t v = 1;
  std::string p = path("no/such/dir/x.npy");
  expect_error<jx::IOError>([&] { write_npy(p, DType::int32, {1}, &v); },
                            "No such file or directory: '" + p + "'");
}

// A write that fails part way (here: past RLIMIT_FSIZE) leaves the file that was there whole, and
// no temporary file behind; it used to truncate the file, then remove it.
TEST_F(NpyTest, FailedWriteLeavesTheOldFileIntact) {
  const std::string p = write_file("keep.npy", "old contents");
  ::chmod(p.c_str(), 0640);
  struct rlimit old_limit;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN); // EFBIG instead of the signal
  struct rlimit limit = old_limit;
  limit.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  std::vector<double> big(4096);
  expect_error<jx::IOError>([&] { write_npy(p, DType::float64, {4096}, big.data()); },
                            "File too large: '" + p + "'");
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(read_bytes(p), "old contents");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
  // A complete write replaces the file and keeps its permissions.
  double v = 2.5;
  write_npy(p, DType::float64, {}, &v);
  EXPECT_EQ(values<double>(read_npy(p)), std::vector<double>{2.5});
  EXPECT_EQ(fs::status(p).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

// A device is written in place, as np.save does: writing /dev/full fails with ENOSPC, and the
// device stays (the clean-up of a failed write used to remove whatever was at the path).
TEST_F(NpyTest, FailedWriteToADeviceKeepsTheDevice) {
  if (!fs::is_character_file("/dev/full")) GTEST_SKIP() << "no /dev/full";
  int32_t v = 1;
  expect_error<jx::IOError>([&] { write_npy("/dev/full", DType::int32, {1}, &v); },
                            "No space left on device: '/dev/full'");
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  // Writing /dev/null succeeds in place; the device is not replaced by a file.
  write_npy("/dev/null", DType::int32, {1}, &v);
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

// Through a symbolic link the target is replaced and the link stays; a dangling link's target is
// created.
TEST_F(NpyTest, WriteThroughASymlinkReplacesItsTarget) {
  const std::string target = write_file("target.npy", "old");
  fs::create_symlink("target.npy", path("link.npy"));
  int32_t v = 7;
  write_npy(path("link.npy"), DType::int32, {1}, &v);
  EXPECT_TRUE(fs::is_symlink(path("link.npy")));
  EXPECT_EQ(values<int32_t>(read_npy(target)), std::vector<int32_t>{7});
  fs::create_symlink("new.npy", path("dangling.npy"));
  write_npy(path("dangling.npy"), DType::int32, {1}, &v);
  EXPECT_TRUE(fs::is_symlink(path("dangling.npy")));
  EXPECT_EQ(values<int32_t>(read_npy(path("new.npy"))), std::vector<int32_t>{7});
  expect_error<jx::IOError>([&] { write_npy(dir_.string(), DType::int32, {1}, &v); },
                            "Is a directory");
}

// /proc/self/fd/N of a memfd links to text that names no file ("/memfd:x (deleted)"): the open
// file is written in place, and nothing is created at the link's text.
TEST_F(NpyTest, WriteThroughAFileDescriptorLinkWritesThatFile) {
  const int fd = memfd_create("jx-npy-test", 0);
  ASSERT_GE(fd, 0);
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const std::string text = fs::read_symlink(link).string();
  const std::vector<int64_t> shape{0, 3};
  write_npy(link, DType::float64, shape, nullptr);
  const NpyArray a = read_npy(link);
  EXPECT_EQ(a.shape, shape);
  EXPECT_EQ(a.dtype, DType::float64);
  int32_t v = 5;
  write_npy(link, DType::int32, {1}, &v);
  EXPECT_EQ(values<int32_t>(read_npy(link)), std::vector<int32_t>{5});
  EXPECT_FALSE(fs::exists(text));
  ::close(fd);
}

// ---- Files written by NumPy (tests/golden/make_npy_golden.py) ------------------------------

TEST(NpyGolden, Bool) {
  NpyArray a = read_npy(golden("bool_2x3.npy"));
  EXPECT_EQ(a.dtype, DType::bool_);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<uint8_t>(a), (std::vector<uint8_t>{1, 0, 1, 0, 0, 1}));
}

TEST(NpyGolden, Int32) {
  NpyArray a = read_npy(golden("int32_4.npy"));
  EXPECT_EQ(a.dtype, DType::int32);
  EXPECT_EQ(a.shape, std::vector<int64_t>{4});
  EXPECT_EQ(values<int32_t>(a), (std::vector<int32_t>{1, -2, INT32_MAX, INT32_MIN}));
}

TEST(NpyGolden, Int64) {
  NpyArray a = read_npy(golden("int64_2x2.npy"));
  EXPECT_EQ(a.dtype, DType::int64);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values<int64_t>(a), (std::vector<int64_t>{1, -1, int64_t(1) << 62, INT64_MIN}));
}

TEST(NpyGolden, Float32) {
  NpyArray a = read_npy(golden("float32_3.npy"));
  EXPECT_EQ(a.dtype, DType::float32);
  EXPECT_EQ(a.shape, std::vector<int64_t>{3});
  EXPECT_EQ(values<float>(a), (std::vector<float>{0.5f, -1.25f, 3.0e38f}));
}

TEST(NpyGolden, Float64) {
  NpyArray a = read_npy(golden("float64_2x3.npy"));
  EXPECT_EQ(a.dtype, DType::float64);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<double>(a), (std::vector<double>{0.0, 0.1, -2.5, 1e300, -1e-300, 42.0}));
}

TEST(NpyGolden, ZeroDimensional) {
  NpyArray a = read_npy(golden("scalar_f8.npy"));
  EXPECT_EQ(a.dtype, DType::float64);
  EXPECT_TRUE(a.shape.empty());
  EXPECT_EQ(values<double>(a), std::vector<double>{3.25});
}

TEST(NpyGolden, Empty) {
  NpyArray a = read_npy(golden("empty_f8_0x3.npy"));
  EXPECT_EQ(a.dtype, DType::float64);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{0, 3}));
}

TEST(NpyGolden, FortranOrderIsTransposedToC) {
  NpyArray a = read_npy(golden("fortran_i4_2x3x4.npy"));
  EXPECT_EQ(a.dtype, DType::int32);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3, 4}));
  std::vector<int32_t> expected(24);
  for (int32_t i = 0; i < 24; ++i)
    expected[size_t(i)] = i;
  EXPECT_EQ(values<int32_t>(a), expected);
}

TEST(NpyGolden, BigEndianIsSwapped) {
  NpyArray f = read_npy(golden("bigendian_f8.npy"));
  EXPECT_EQ(f.dtype, DType::float64);
  EXPECT_EQ(values<double>(f), (std::vector<double>{1.0, -2.5, 1e300}));
  NpyArray i = read_npy(golden("bigendian_i4.npy"));
  EXPECT_EQ(i.dtype, DType::int32);
  EXPECT_EQ(values<int32_t>(i), (std::vector<int32_t>{1, -2, 0x01020304}));
}

TEST(NpyGolden, Version2And3) {
  NpyArray a = read_npy(golden("v2_f4.npy"));
  EXPECT_EQ(a.dtype, DType::float32);
  EXPECT_EQ(values<float>(a), (std::vector<float>{1.5f, 2.5f}));
  NpyArray b = read_npy(golden("v3_i8.npy"));
  EXPECT_EQ(b.dtype, DType::int64);
  EXPECT_EQ(values<int64_t>(b), (std::vector<int64_t>{7, -8}));
}

// ---- Header dialects -----------------------------------------------------------------------

TEST_F(NpyTest, HeaderVariations) {
  std::string data(16, '\0');
  for (const char *dict : {
           "{'shape': (2, 2), 'descr': '|b1', 'fortran_order': False}",
           "{\"descr\": \"|b1\", \"fortran_order\": False, \"shape\": (2,2)}",
           "  { 'fortran_order' : False ,'shape':( 2 , 2 , ) , 'descr':'|b1' , }  ",
           "{'descr': '|b1', 'fortran_order': False, 'shape': (2L, 2L), }",
       }) {
    NpyArray a = read_npy(write_file("v.npy", npy_bytes(dict, data)));
    EXPECT_EQ(a.dtype, DType::bool_) << dict;
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 2})) << dict;
  }
}

TEST_F(NpyTest, BoolBytesAreNormalized) {
  std::string dict = "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }";
  NpyArray a = read_npy(write_file("b.npy", npy_bytes(dict, std::string("\0\1\2\xff", 4))));
  EXPECT_EQ(values<uint8_t>(a), (std::vector<uint8_t>{0, 1, 1, 1}));
}

TEST_F(NpyTest, FortranOrderEdgeCases) {
  std::string empty = "{'descr': '<f8', 'fortran_order': True, 'shape': (0, 3), }";
  EXPECT_EQ(read_npy(write_file("e.npy", npy_bytes(empty))).shape, (std::vector<int64_t>{0, 3}));
  // 2x3 column-major bytes "adbecf" hold [[a, b, c], [d, e, f]].
  std::string bools = "{'descr': '|b1', 'fortran_order': True, 'shape': (2, 3), }";
  NpyArray a = read_npy(write_file("f.npy", npy_bytes(bools, std::string("\1\0\0\0\1\1", 6))));
  EXPECT_EQ(values<uint8_t>(a), (std::vector<uint8_t>{1, 0, 1, 0, 0, 1}));
}

// ---- Errors --------------------------------------------------------------------------------

TEST_F(NpyTest, MissingFile) {
  std::string p = path("x.npy");
  expect_error<jx::IOError>([&] { read_npy(p); }, "No such file or directory: '" + p + "'");
}

TEST_F(NpyTest, Directory) {
  expect_error<jx::IOError>([&] { read_npy(dir_.string()); }, "Is a directory");
}

// A FIFO has no writer: opening it for reading used to wait for one forever. It must fail at once
// (the test gives it 10 s, then opens the writing end itself so that a blocked reader returns).
TEST_F(NpyTest, FifoIsNotRead) {
  const std::string p = path("pipe.npy");
  ASSERT_EQ(mkfifo(p.c_str(), 0600), 0);
  std::promise<std::string> result;
  std::future<std::string> done = result.get_future();
  std::thread reader([&] {
    try {
      read_npy(p);
      result.set_value("no error");
    } catch (const jx::IOError &e) {
      result.set_value(e.what());
    } catch (const std::exception &e) {
      result.set_value(std::string("wrong exception type: ") + e.what());
    }
  });
  if (done.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "read_npy of a FIFO blocked";
    const int writer = ::open(p.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0) ::close(writer);
  }
  reader.join();
  const std::string message = done.get();
  EXPECT_NE(message.find("Not a regular file: '" + p + "'"), std::string::npos) << message;
}

TEST_F(NpyTest, DeviceIsNotRead) {
  expect_error<jx::IOError>([&] { read_npy("/dev/null"); }, "Not a regular file: '/dev/null'");
  expect_error<jx::IOError>([&] { read_npy("/dev/zero"); }, "Not a regular file: '/dev/zero'");
}

TEST_F(NpyTest, BadMagic) {
  expect_read_error<jx::IOError>("PK\3\4 this is a zip", "is not a .npy file");
  expect_read_error<jx::IOError>("", "is not a .npy file");
}

TEST_F(NpyTest, UnsupportedVersion) {
  std::string bytes =
      npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", std::string(8, '\0'));
  bytes[6] = 4;
  expect_read_error<jx::IOError>(bytes, "unsupported .npy format version 4.0");
}

TEST_F(NpyTest, TruncatedHeader) {
  std::string full = read_bytes(golden("float64_2x3.npy")); // 128-byte preamble + header
  expect_read_error<jx::IOError>(full.substr(0, 50), "expected 128 bytes, found 50");
  expect_read_error<jx::IOError>(full.substr(0, 9), "expected 10 bytes, found 9");
  expect_read_error<jx::IOError>(full.substr(0, 7), "EOF while reading header");
}

TEST_F(NpyTest, TruncatedData) {
  std::string full = read_bytes(golden("float64_2x3.npy"));
  expect_read_error<jx::IOError>(full.substr(0, full.size() - 4),
                                 "EOF while reading array data of");
  expect_read_error<jx::IOError>(full.substr(0, full.size() - 4), "expected 48 bytes, found 44");
}

TEST_F(NpyTest, CorruptHeaderDict) {
  const std::string data(64, '\0');
  const std::pair<const char *, const char *> cases[] = {
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (3,), ", "unexpected end of header"},
      {"not a dict", "expected '{'"},
      {"", "expected '{'"},
      {"{'descr': '<f8, 'fortran_order': False, 'shape': (3,)}", "Cannot parse header"},
      {"{'descr': '<f8', 'fortran_order': False}", "missing 'shape'"},
      {"{'descr': '<f8', 'shape': (3,)}", "missing 'fortran_order'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'x': 1}", "unexpected key 'x'"},
      {"{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (3,)}", "duplicate"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': [3]}", "shape is not valid: [3]"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (3)}", "shape is not valid: (3)"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (3.5,)}", "Cannot parse header"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': ('3',)}", "shape is not valid"},
      {"{'descr': '<f8', 'fortran_order': 'no', 'shape': (3,)}", "fortran_order is not a valid"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}",
       "integer out of range"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4)}",
       "array size overflows"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (3,)} junk", "trailing characters"},
      {"{'descr': (((((((((((((((((((((((((((((('<f8',)))))))))))))))))))))))))))))), "
       "'fortran_order': False, 'shape': (3,)}",
       "nesting too deep"},
  };
  for (const auto &[dict, part] : cases) {
    SCOPED_TRACE(dict);
    expect_read_error<jx::IOError>(npy_bytes(dict, data), part);
  }
}

TEST_F(NpyTest, NegativeDimension) {
  expect_read_error<jx::IOError>(
      npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, -1), }"),
      "negative dimensions are not allowed");
}

TEST_F(NpyTest, Float16FromNumPy) {
  const NpyArray a = read_npy(golden("float16.npy"));
  EXPECT_EQ(a.dtype, DType::float16);
  ASSERT_EQ(a.data->bytes(), 2u);
  EXPECT_EQ(*a.data->as<uint16_t>(), 0x3c00); // 1.0
}

TEST_F(NpyTest, ComplexFromNumPy) {
  const NpyArray a = read_npy(golden("complex128.npy"));
  EXPECT_EQ(a.dtype, DType::complex128);
  EXPECT_EQ(values<std::complex<double>>(a), (std::vector<std::complex<double>>{{1, 2}}));
  // Big-endian: each part's bytes swapped in place, the parts kept in order.
  std::string parts("\x3f\x80\0\0\xc0\x20\0\0", 8); // 1.0f, -2.5f
  const NpyArray b = read_npy(write_file(
      "c.npy", npy_bytes("{'descr': '>c8', 'fortran_order': False, 'shape': (1,), }", parts)));
  EXPECT_EQ(b.dtype, DType::complex64);
  EXPECT_EQ(values<std::complex<float>>(b), (std::vector<std::complex<float>>{{1.0f, -2.5f}}));
}

TEST_F(NpyTest, UnsupportedDtype) {
  expect_error<jx::DTypeError>(
      [this] {
        read_npy(write_file("l.npy",
                            npy_bytes("{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }",
                                      std::string(16, 0))));
      },
      "'<f16'");
  expect_error<jx::DTypeError>([] { read_npy(golden("unicode_U3.npy")); }, "'<U3'");
  expect_read_error<jx::DTypeError>(
      npy_bytes("{'descr': '<V4', 'fortran_order': False, 'shape': (1,), }", std::string(4, 0)),
      "unsupported dtype '<V4'");
  expect_read_error<jx::DTypeError>(
      npy_bytes("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", std::string(8, 0)),
      "unsupported dtype '|O'");
  expect_read_error<jx::DTypeError>(
      npy_bytes("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }"),
      "[('a', '<f8')]");
}

// Every truncation and many single-byte corruptions of a valid file must either load or throw
// a jx error; ASan/UBSan catch anything worse.
TEST_F(NpyTest, HostileInputNeverCrashes) {
  std::string full = read_bytes(golden("fortran_i4_2x3x4.npy"));
  auto try_read = [&](const std::string &bytes) {
    std::string p = write_file("h.npy", bytes);
    try {
      read_npy(p);
    } catch (const jx::IOError &) {
    } catch (const jx::DTypeError &) {
    }
  };
  for (size_t n = 0; n <= full.size(); ++n)
    try_read(full.substr(0, n));
  for (size_t i = 0; i < 128; ++i) {
    for (char c : {'\0', '\xff', '(', '-', '9', '\'', '{', '}', ','}) {
      std::string bytes = full;
      bytes[i] = c;
      try_read(bytes);
    }
  }
}

} // namespace
