// The persistent kernel cache (JX_CACHE_DIR): the entry format rejects every corruption it is
// built to catch, and across processes a second run loads its kernels from disk while a corrupt
// entry is recompiled (and rewritten), never executed. The in-memory cache hides the disk within
// one process, so the cross-process tests run this binary again as a child
// (DiskCacheChild.CompileAndCheck). What the cache does against hostile files and directories is
// in test_cache_security.cpp.
#include <jx/jx.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "backend/disk_cache.h"
#include "backend/hmac.h"
#include "backend/orc_jit.h"
#include "test_util.h"

namespace jnp = jx::numpy;
namespace dc = jx::backend::disk_cache;
namespace fs = std::filesystem;
using jx::Array;

namespace {

const std::string test_key(dc::key_size, 'k');

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
struct TempDir : test_util::TempDir {
  TempDir() : test_util::TempDir("jx_disk_cache_") {}
};
using test_util::read_all;
using test_util::write_all;

// The files in dir, sorted.
std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> out;
  for (const fs::directory_entry &e : fs::directory_iterator(dir))
    out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The cache entries (*.jxk) in dir, sorted.
std::vector<std::string> cache_entries(const std::string &dir) {
  std::vector<std::string> out = entries(dir);
  std::erase_if(out, [](const std::string &f) { return !f.ends_with(".jxk"); });
  return out;
}

// The entry in file, authenticated with the key of its directory.
std::optional<dc::Entry> decode_file(const std::string &file) {
  return dc::decode(read_all(file),
                    read_all((fs::path(file).parent_path() / dc::key_file_name).string()));
}

} // namespace

TEST(DiskCacheEntry, RoundTrips) {
  const dc::Entry entry = sample_entry();
  const std::string bytes = dc::encode(entry, test_key);
  ASSERT_EQ(bytes.substr(0, 8), "JXKCACHE");
  std::optional<dc::Entry> back = dc::decode(bytes, test_key);
  ASSERT_TRUE(back);
  expect_equal(*back, entry);

  const dc::Entry empty;
  std::optional<dc::Entry> empty_back = dc::decode(dc::encode(empty, test_key), test_key);
  ASSERT_TRUE(empty_back);
  expect_equal(*empty_back, empty);
}

TEST(DiskCacheEntry, RejectsEveryFlippedByte) {
  const std::string bytes = dc::encode(sample_entry(), test_key);
  for (size_t i = 0; i < bytes.size(); ++i)
    for (unsigned char bit : {0x01, 0x80}) {
      std::string bad = bytes;
      bad[i] = char(bad[i] ^ bit);
      EXPECT_FALSE(dc::decode(bad, test_key)) << "byte " << i << " bit " << int(bit);
    }
}

TEST(DiskCacheEntry, RejectsTruncatedAndExtendedFiles) {
  const std::string bytes = dc::encode(sample_entry(), test_key);
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(dc::decode(std::string_view(bytes).substr(0, n), test_key)) << n << " bytes";
  EXPECT_FALSE(dc::decode(bytes + '\0', test_key));
}

TEST(DiskCacheEntry, RejectsAnotherMagicOrVersion) {
  const std::string bytes = dc::encode(sample_entry(), test_key);
  std::string magic = bytes;
  magic.replace(0, 8, "JXKCACHF");
  EXPECT_FALSE(dc::decode(magic, test_key));
  std::string version = bytes;
  const uint32_t next = dc::format_version + 1;
  std::memcpy(version.data() + 8, &next, sizeof next);
  EXPECT_FALSE(dc::decode(version, test_key));
  EXPECT_FALSE(dc::payload_size(version));
  EXPECT_EQ(dc::payload_size(bytes), bytes.size() - dc::header_size);
}

TEST(DiskCacheEntry, RejectsAnotherKey) {
  const std::string bytes = dc::encode(sample_entry(), test_key);
  EXPECT_TRUE(dc::decode(bytes, test_key));
  std::string other = test_key;
  other[31] ^= 1;
  EXPECT_FALSE(dc::decode(bytes, other));
  EXPECT_FALSE(dc::decode(bytes, ""));
}

TEST(DiskCacheEntry, RejectsAMalformedPayloadWithAValidMac) {
  // A payload whose kernel count promises more than it holds, with a correct header.
  std::string payload;
  auto put64 = [&](uint64_t v) { payload.append(reinterpret_cast<const char *>(&v), 8); };
  put64(0);                 // empty identity
  put64(uint64_t(1) << 60); // kernel count
  std::string bytes = "JXKCACHE";
  const uint32_t version = dc::format_version, header = dc::header_size;
  const uint64_t size = payload.size();
  bytes.append(reinterpret_cast<const char *>(&version), 4);
  bytes.append(reinterpret_cast<const char *>(&header), 4);
  bytes.append(reinterpret_cast<const char *>(&size), 8);
  const jx::backend::Digest mac = jx::backend::hmac_sha256(test_key, {bytes, payload});
  bytes.append(reinterpret_cast<const char *>(mac.data()), mac.size());
  bytes += payload;
  ASSERT_EQ(dc::payload_size(bytes), payload.size());
  EXPECT_FALSE(dc::decode(bytes, test_key));
}

TEST(DiskCacheFile, AtomicWriteCreatesTheDirectoryAndReplacesTheFile) {
  TempDir tmp;
  const std::string path = tmp.path() + "/a/b";
  std::string error;
  std::unique_ptr<dc::Directory> dir = dc::Directory::open(path, error);
  ASSERT_TRUE(dir) << error;
  EXPECT_EQ(error, "");
  const std::string name = dc::entry_name(0xabcdef);
  EXPECT_EQ(name, "0000000000abcdef.jxk");
  dc::Entry entry = sample_entry();
  const std::string first = dc::encode(entry, dir->key());
  ASSERT_TRUE(dir->write(name, first));
  std::string bytes;
  ASSERT_EQ(dir->read(name, bytes), dc::Directory::Read::ok);
  EXPECT_EQ(bytes, first);
  entry.object += "more";
  const std::string second = dc::encode(entry, dir->key());
  ASSERT_TRUE(dir->write(name, second));
  ASSERT_EQ(dir->read(name, bytes), dc::Directory::Read::ok);
  EXPECT_EQ(bytes, second);
  // No temporary files left behind.
  EXPECT_EQ(entries(path),
            (std::vector<std::string>{path + "/" + name, path + "/" + dc::key_file_name}));
  EXPECT_EQ(dir->read("missing.jxk", bytes), dc::Directory::Read::missing);
  fs::create_directory(path + "/dir.jxk");
  EXPECT_EQ(dir->read("dir.jxk", bytes), dc::Directory::Read::rejected); // not a regular file
}

TEST(DiskCacheFile, UnusableDirectoriesAreReportedNotThrown) {
  TempDir tmp;
  write_all(tmp.path() + "/file", "x");
  // The directory would have to be created below a regular file.
  std::string error;
  EXPECT_FALSE(dc::Directory::open(tmp.path() + "/file/dir", error));
  EXPECT_NE(error.find(tmp.path() + "/file/dir"), std::string::npos) << error;
  EXPECT_FALSE(dc::Directory::open(tmp.path() + "/file", error));
  EXPECT_NE(error.find("Not a directory"), std::string::npos) << error;
  EXPECT_FALSE(dc::Directory::open("", error));
}

namespace {

// The child's work: two programs (each one batch of kernels, so one entry, besides the batches
// that realize their inputs), checked against values computed here in double precision.
void compile_and_check() {
  // Softmax over rows: a reduction kernel and an elementwise kernel.
  auto softmax = jx::jit([](const Array &x) {
                   Array e = jnp::exp(x - jnp::max(x, {.axis = 1, .keepdims = true}));
                   return e / jnp::sum(e, {.axis = 1, .keepdims = true});
                 })
                     .lower(jx::ShapeDtypeStruct{{8, 100}, jnp::float64})
                     .compile();
  Array x = jnp::sin(jnp::arange(800.0).reshape({8, 100}) * 0.37);
  std::vector<double> xv = x.to_vector<double>(), got = softmax(x).to_vector<double>();
  ASSERT_EQ(got.size(), 800u);
  for (int r = 0; r < 8; ++r) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < 100; ++c)
      m = std::max(m, xv[r * 100 + c]);
    for (int c = 0; c < 100; ++c)
      s += std::exp(xv[r * 100 + c] - m);
    for (int c = 0; c < 100; ++c) {
      const double want = std::exp(xv[r * 100 + c] - m) / s;
      EXPECT_NEAR(got[r * 100 + c], want, 1e-14 * want) << r << "," << c;
    }
  }
  const std::string text = softmax.as_text();
  EXPECT_NE(text.find("define void @jx_kernel_"), std::string::npos) << text;

  // A column reduction of tanh(a) * b next to a column maximum.
  auto columns = jx::jit([](const Array &a, const Array &b) {
                   return jnp::sum(jnp::tanh(a) * b, {0}) + jnp::max(a, {0});
                 })
                     .lower(jx::ShapeDtypeStruct{{64, 33}, jnp::float64},
                            jx::ShapeDtypeStruct{{33}, jnp::float64})
                     .compile();
  Array a = jnp::cos(jnp::arange(64.0 * 33).reshape({64, 33}) * 0.11);
  Array b = jnp::arange(33.0) - 16;
  std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>();
  std::vector<double> col = columns(a, b).to_vector<double>();
  ASSERT_EQ(col.size(), 33u);
  for (int c = 0; c < 33; ++c) {
    double s = 0, m = -INFINITY;
    for (int r = 0; r < 64; ++r) {
      s += std::tanh(av[r * 33 + c]) * bv[c];
      m = std::max(m, av[r * 33 + c]);
    }
    EXPECT_NEAR(col[c], s + m, 1e-12 * (std::abs(s) + std::abs(m))) << c;
  }
}

struct ChildResult {
  int exit_code = -1;
  jx::backend::DiskCacheStats stats;
};

// Runs this test binary again with only DiskCacheChild.CompileAndCheck, its disk cache in
// tmp/cache.
ChildResult run_child(const TempDir &tmp) {
  const std::string dir = tmp.path() + "/cache", out = tmp.path() + "/stats";
  ChildResult result;
  result.exit_code = test_util::run_self("DiskCacheChild.CompileAndCheck",
                                         {"JX_CACHE_DIR=" + dir, "JX_DISK_CACHE_TEST_OUT=" + out});
  if (result.exit_code < 0) return result;
  std::istringstream in(read_all(out));
  if (!(in >> result.stats.hits >> result.stats.misses >> result.stats.rejected >>
        result.stats.write_failures))
    result.exit_code = -2; // the child did not report: it did not run the check
  std::error_code ec;
  fs::remove(out, ec);
  return result;
}

// A run after `cold` filled the cache: every kernel comes from disk.
void expect_warm(const ChildResult &warm, const ChildResult &cold) {
  ASSERT_EQ(warm.exit_code, 0);
  EXPECT_EQ(warm.stats.hits, cold.stats.misses);
  EXPECT_EQ(warm.stats.misses, 0u);
  EXPECT_EQ(warm.stats.rejected, 0u);
}

} // namespace

// Run only as the child of the tests below.
TEST(DiskCacheChild, CompileAndCheck) {
  const char *out = std::getenv("JX_DISK_CACHE_TEST_OUT");
  if (!out) GTEST_SKIP() << "a helper that the DiskCache tests run in a child process";
  ASSERT_EQ(jx::backend::disk_cache_dir(), std::getenv("JX_CACHE_DIR"));
  compile_and_check();
  const jx::backend::DiskCacheStats s = jx::backend::disk_cache_stats();
  std::ofstream(out) << s.hits << ' ' << s.misses << ' ' << s.rejected << ' ' << s.write_failures
                     << '\n';
}

TEST(DiskCache, ASecondProcessLoadsTheKernelsFromDisk) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/cache"; // created on the first write
  const ChildResult cold = run_child(tmp);
  ASSERT_EQ(cold.exit_code, 0);
  EXPECT_EQ(cold.stats.hits, 0u);
  EXPECT_GE(cold.stats.misses, 3u); // at least the two programs' three kernels
  EXPECT_EQ(cold.stats.rejected, 0u);
  EXPECT_EQ(cold.stats.write_failures, 0u);
  const std::vector<std::string> files = cache_entries(dir);
  ASSERT_GE(files.size(), 2u); // at least one entry per program
  for (const std::string &f : files)
    EXPECT_TRUE(decode_file(f)) << f;

  expect_warm(run_child(tmp), cold);
  EXPECT_EQ(cache_entries(dir), files);
}

TEST(DiskCache, CorruptEntriesAreRecompiledAndRewrittenNeverRun) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/cache";
  const ChildResult cold = run_child(tmp);
  ASSERT_EQ(cold.exit_code, 0);
  const std::vector<std::string> files = cache_entries(dir);
  ASSERT_GE(files.size(), 2u);
  // Every other entry gets a flipped byte near its end (in the object code); the others are cut
  // in half.
  for (size_t i = 0; i < files.size(); ++i) {
    std::string bytes = read_all(files[i]);
    ASSERT_GT(bytes.size(), 200u);
    if (i % 2 == 0)
      bytes[bytes.size() - 100] ^= 0x10;
    else
      bytes.resize(bytes.size() / 2);
    write_all(files[i], bytes);
    EXPECT_FALSE(decode_file(files[i]));
  }

  // The child checks its values: the corrupt code did not run.
  const ChildResult repaired = run_child(tmp);
  ASSERT_EQ(repaired.exit_code, 0);
  EXPECT_EQ(repaired.stats.rejected, files.size());
  EXPECT_EQ(repaired.stats.hits, 0u);
  EXPECT_EQ(repaired.stats.misses, cold.stats.misses);
  EXPECT_EQ(repaired.stats.write_failures, 0u);
  EXPECT_EQ(cache_entries(dir), files);
  for (const std::string &f : files)
    EXPECT_TRUE(decode_file(f)) << f;

  expect_warm(run_child(tmp), cold);
}

TEST(DiskCache, InProcessMissesAreWrittenAndUnwritableDirectoriesIgnored) {
  const std::string saved = jx::backend::disk_cache_dir();
  TempDir tmp;
  jx::backend::set_disk_cache_dir(tmp.path());
  const jx::backend::DiskCacheStats before = jx::backend::disk_cache_stats();
  // Kernels no other test of this binary compiles, so none is in memory yet.
  auto f = jx::jit([](const Array &x) { return jnp::expm1(x) * 3 - x; })
               .lower(jx::ShapeDtypeStruct{{77}, jnp::float64})
               .compile();
  EXPECT_EQ(f(jnp::zeros({77})).to_vector<double>(), std::vector<double>(77, 0.0));
  jx::backend::DiskCacheStats after = jx::backend::disk_cache_stats();
  EXPECT_GE(after.misses, before.misses + 1);
  EXPECT_EQ(after.hits, before.hits);
  EXPECT_EQ(after.write_failures, before.write_failures);
  // The entry of f's one kernel holds its name, its optimized IR and the host's identity.
  bool found = false;
  for (const std::string &file : cache_entries(tmp.path())) {
    std::optional<dc::Entry> entry = decode_file(file);
    ASSERT_TRUE(entry) << file;
    EXPECT_NE(entry->identity.find("\nllvm "), std::string::npos) << entry->identity;
    EXPECT_NE(entry->identity.find("\ncpu "), std::string::npos) << entry->identity;
    for (const dc::Entry::Kernel &k : entry->kernels) {
      EXPECT_NE(k.ir.find("define void @" + k.name), std::string::npos) << k.ir;
      found = found || f.as_text().find(k.name) != std::string::npos;
    }
  }
  EXPECT_TRUE(found);

  // A cache directory that cannot be created: one warning, and the kernels still compile and
  // run, without the cache.
  write_all(tmp.path() + "/file", "x");
  jx::backend::set_disk_cache_dir(tmp.path() + "/file/cache");
  after = jx::backend::disk_cache_stats();
  testing::internal::CaptureStderr();
  auto g = jx::jit([](const Array &x) { return jnp::log1p(x) * 5 + x; })
               .lower(jx::ShapeDtypeStruct{{79}, jnp::float64})
               .compile();
  EXPECT_EQ(g(jnp::zeros({79})).to_vector<double>(), std::vector<double>(79, 0.0));
  auto h = jx::jit([](const Array &x) { return jnp::log1p(x) * 7 + x; })
               .lower(jx::ShapeDtypeStruct{{81}, jnp::float64})
               .compile();
  EXPECT_EQ(h(jnp::zeros({81})).to_vector<double>(), std::vector<double>(81, 0.0));
  const std::string warnings = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings, "jx: warning: not using the kernel cache directory: cannot create " +
                          tmp.path() + "/file/cache: Not a directory\n");
  const jx::backend::DiskCacheStats off = jx::backend::disk_cache_stats();
  EXPECT_EQ(off.misses, after.misses);
  EXPECT_EQ(off.write_failures, after.write_failures);
  jx::backend::set_disk_cache_dir(saved);
}
