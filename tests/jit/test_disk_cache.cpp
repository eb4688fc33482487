// The persistent kernel cache (JX_CACHE_DIR): the entry format rejects every corruption it is
// built to catch; entries are written atomically.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "jit/disk_cache.h"

namespace dc = jx::backend::disk_cache;
namespace fs = std::filesystem;

namespace {

dc::Entry sample_entry() {
  dc::Entry e;
  e.identity = "jx kernel cache test\nkernel 3 abc\n";
  e.kernels = {{"jx_kernel_0123456789abcdef", "define void @jx_kernel_0123456789abcdef() {}"},
               {"jx_kernel_fedcba9876543210", ""}};
  e.object = std::string("\x7f"
                         "ELF\0\0\1\2\3 object bytes",
                         20);
  return e;
}

void expect_equal(const dc::Entry &a, const dc::Entry &b) {
  EXPECT_EQ(a.identity, b.identity);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    EXPECT_EQ(a.kernels[i].name, b.kernels[i].name);
    EXPECT_EQ(a.kernels[i].ir, b.kernels[i].ir);
  }
  EXPECT_EQ(a.object, b.object);
}

// A fresh directory under the system's temporary directory, removed with everything in it.
class TempDir {
public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "jx_disk_cache_XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

std::string read_all(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_all(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The cache entries in dir, sorted.
std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> out;
  for (const fs::directory_entry &e : fs::directory_iterator(dir))
    out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

TEST(DiskCacheEntry, RoundTrips) {
  const dc::Entry entry = sample_entry();
  const std::string bytes = dc::encode(entry);
  ASSERT_EQ(bytes.substr(0, 8), "JXKCACHE");
  std::optional<dc::Entry> back = dc::decode(bytes);
  ASSERT_TRUE(back);
  expect_equal(*back, entry);

  const dc::Entry empty;
  std::optional<dc::Entry> empty_back = dc::decode(dc::encode(empty));
  ASSERT_TRUE(empty_back);
  expect_equal(*empty_back, empty);
}

TEST(DiskCacheEntry, RejectsEveryFlippedByte) {
  const std::string bytes = dc::encode(sample_entry());
  for (size_t i = 0; i < bytes.size(); ++i)
    for (unsigned char bit : {0x01, 0x80}) {
      std::string bad = bytes;
      bad[i] = char(bad[i] ^ bit);
      EXPECT_FALSE(dc::decode(bad)) << "byte " << i << " bit " << int(bit);
    }
}

TEST(DiskCacheEntry, RejectsTruncatedAndExtendedFiles) {
  const std::string bytes = dc::encode(sample_entry());
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(dc::decode(std::string_view(bytes).substr(0, n))) << n << " bytes";
  EXPECT_FALSE(dc::decode(bytes + '\0'));
}

TEST(DiskCacheEntry, RejectsAnotherMagicOrVersion) {
  const std::string bytes = dc::encode(sample_entry());
  std::string magic = bytes;
  magic.replace(0, 8, "JXKCACHF");
  EXPECT_FALSE(dc::decode(magic));
  // The version is not under the checksum: its own check rejects it.
  std::string version = bytes;
  const uint32_t next = dc::format_version + 1;
  std::memcpy(version.data() + 8, &next, sizeof next);
  EXPECT_FALSE(dc::decode(version));
}

TEST(DiskCacheEntry, RejectsAMalformedPayloadWithAValidChecksum) {
  // A payload whose kernel count promises more than it holds, with a correct header.
  std::string payload;
  auto put64 = [&](uint64_t v) { payload.append(reinterpret_cast<const char *>(&v), 8); };
  put64(0);                 // empty identity
  put64(uint64_t(1) << 60); // kernel count
  std::string bytes = "JXKCACHE";
  const uint32_t version = dc::format_version, header = dc::header_size;
  const uint64_t size = payload.size(), sum = dc::hash64(payload);
  bytes.append(reinterpret_cast<const char *>(&version), 4);
  bytes.append(reinterpret_cast<const char *>(&header), 4);
  bytes.append(reinterpret_cast<const char *>(&size), 8);
  bytes.append(reinterpret_cast<const char *>(&sum), 8);
  bytes += payload;
  EXPECT_FALSE(dc::decode(bytes));
}

TEST(DiskCacheFile, AtomicWriteCreatesTheDirectoryAndReplacesTheFile) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/a/b";
  const std::string path = dc::entry_path(dir, 0xabcdef);
  EXPECT_EQ(path, dir + "/0000000000abcdef.jxk");
  ASSERT_TRUE(dc::write_file_atomic(path, "first"));
  EXPECT_EQ(dc::read_file(path), std::optional<std::string>("first"));
  ASSERT_TRUE(dc::write_file_atomic(path, std::string("sec\0nd", 6)));
  EXPECT_EQ(dc::read_file(path), std::optional<std::string>(std::string("sec\0nd", 6)));
  EXPECT_EQ(entries(dir), std::vector<std::string>{path}); // no temporary files left behind
  EXPECT_FALSE(dc::read_file(dir + "/missing.jxk"));
  EXPECT_FALSE(dc::read_file(dir)); // not a regular file
}

TEST(DiskCacheFile, WriteErrorsAreReportedNotThrown) {
  TempDir tmp;
  write_all(tmp.path() + "/file", "x");
  // The directory would have to be created below a regular file.
  EXPECT_FALSE(dc::write_file_atomic(tmp.path() + "/file/dir/entry.jxk", "bytes"));
}
