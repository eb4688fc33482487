// The kernel disk cache against hostile files and directories: SHA-256 and HMAC against their
// published vectors; a directory others can write, or owned by someone else, or whose key file
// is not private, is ignored with one warning; forged or bad entries are rejected and replaced;
// FIFOs, links and oversized headers cost neither a hang nor a read of the body. Across
// processes the child is CacheSecurityChild.CompileAndCheck, run with a time limit.
#include <jx/jx.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "backend/disk_cache.h"
#include "backend/hmac.h"
#include "backend/orc_jit.h"
#include "test_util.h"

extern char **environ;

namespace jnp = jx::numpy;
namespace dc = jx::backend::disk_cache;
namespace fs = std::filesystem;
using jx::Array;

namespace {

std::string hex(const jx::backend::Digest &d, size_t bytes = 32) {
  std::string out;
  for (size_t i = 0; i < bytes; ++i)
    out += fmt::format("{:02x}", d[i]);
  return out;
}

std::string unhex(std::string_view h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out += char(std::stoi(std::string(h.substr(i, 2)), nullptr, 16));
  return out;
}

// A fresh directory under the system's temporary directory, removed with everything in it.
struct TempDir : test_util::TempDir {
  TempDir() : test_util::TempDir("jx_cache_security_") {}
};
using test_util::read_all;
using test_util::write_all;

// The cache entries (*.jxk) in dir, sorted.
std::vector<std::string> cache_entries(const std::string &dir) {
  std::vector<std::string> out;
  for (const fs::directory_entry &e : fs::directory_iterator(dir))
    if (e.path().extension() == ".jxk") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string key_of(const std::string &dir) { return read_all(dir + "/" + dc::key_file_name); }

// The number of lines of text that start with "jx: warning:".
size_t warning_count(const std::string &text) {
  size_t n = 0;
  for (size_t at = text.find("jx: warning:"); at != std::string::npos;
       at = text.find("jx: warning:", at + 1))
    ++n;
  return n;
}

// Compiles and runs kernels no other test of this binary compiles (so none is in memory) with
// the disk cache in dir; checks their values. `seed` makes each call's kernels new.
void compile_in_process(const std::string &dir, int seed) {
  jx::backend::set_disk_cache_dir(dir);
  const int n = 200 + seed;
  auto f = jx::jit([seed](const Array &x) { return jnp::exp(x) * (seed + 2) - x; })
               .lower(jx::ShapeDtypeStruct{{n}, jnp::float64})
               .compile();
  EXPECT_EQ(f(jnp::zeros({n})).to_vector<double>(), std::vector<double>(size_t(n), seed + 2.0));
  auto g = jx::jit([seed](const Array &x) { return jnp::tanh(x) * (seed + 3) + x; })
               .lower(jx::ShapeDtypeStruct{{n + 1}, jnp::float64})
               .compile();
  EXPECT_EQ(g(jnp::zeros({n + 1})).to_vector<double>(), std::vector<double>(size_t(n + 1), 0.0));
  jx::backend::set_disk_cache_dir("");
}

// A cache directory the cache must ignore: compiling with it prints one warning containing
// `why`, still computes the right values, and writes no entry there.
void expect_ignored(const std::string &dir, const std::string &why, int seed) {
  const jx::backend::DiskCacheStats before = jx::backend::disk_cache_stats();
  testing::internal::CaptureStderr();
  compile_in_process(dir, seed);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(warning_count(err), 1u) << err;
  EXPECT_NE(err.find(why), std::string::npos) << err;
  EXPECT_NE(err.find(dir), std::string::npos) << err;
  const jx::backend::DiskCacheStats after = jx::backend::disk_cache_stats();
  EXPECT_EQ(after.misses, before.misses);
  EXPECT_EQ(after.hits, before.hits);
  EXPECT_EQ(cache_entries(dir), std::vector<std::string>{});
}

// Runs f on a thread and waits at most `limit` for it; false when it did not return in time
// (the thread is then left blocked, detached: the process exits around it).
template <class F> bool returns_within(std::chrono::seconds limit, F f) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  std::thread([done, f]() mutable {
    f();
    done->set_value();
  }).detach();
  return finished.wait_for(limit) == std::future_status::ready;
}

} // namespace

TEST(Sha256, Fips180Vectors) {
  using jx::backend::sha256;
  EXPECT_EQ(hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(sha256(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Every split of a message across update() calls, around the block and padding boundaries.
  const std::string text(130, 'x');
  for (size_t n : {0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 130}) {
    const jx::backend::Digest whole = sha256(text.substr(0, n));
    for (size_t cut = 0; cut <= n; ++cut) {
      jx::backend::Sha256 s;
      s.update(std::string_view(text).substr(0, cut));
      s.update(std::string_view(text).substr(cut, n - cut));
      ASSERT_EQ(s.finish(), whole) << n << " bytes cut at " << cut;
    }
  }
}

TEST(HmacSha256, Rfc4231Vectors) {
  using jx::backend::hmac_sha256;
  struct Case {
    std::string key, data, mac;
  };
  const Case cases[] = {
      {std::string(20, '\x0b'), "Hi There",
       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"Jefe", "what do ya want for nothing?",
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {std::string(20, '\xaa'), std::string(50, '\xdd'),
       "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
      {unhex("0102030405060708090a0b0c0d0e0f10111213141516171819"), std::string(50, '\xcd'),
       "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
      {std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First",
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {std::string(131, '\xaa'),
       "This is a test using a larger than block-size key and a larger than block-size data. "
       "The key needs to be hashed before being used by the HMAC algorithm.",
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
  };
  for (const Case &c : cases)
    EXPECT_EQ(hex(hmac_sha256(c.key, {c.data})), c.mac) << c.data;
  // Test case 5: the MAC truncated to 128 bits.
  EXPECT_EQ(hex(hmac_sha256(std::string(20, '\x0c'), {"Test With Truncation"}), 16),
            "a3b6167473100ee06e0c796c2955552b");
  // A message in pieces authenticates as the whole.
  EXPECT_EQ(hmac_sha256("Jefe", {"what do ya ", "", "want for nothing?"}),
            hmac_sha256("Jefe", {"what do ya want for nothing?"}));
  EXPECT_TRUE(jx::backend::digest_equal(hmac_sha256("k", {"m"}), hmac_sha256("k", {"m"})));
  EXPECT_FALSE(jx::backend::digest_equal(hmac_sha256("k", {"m"}), hmac_sha256("k", {"n"})));
}

TEST(CacheDirectory, IsCreatedPrivateWithAPrivateKey) {
  TempDir tmp;
  const std::string path = tmp.path() + "/new/cache";
  std::string error;
  std::unique_ptr<dc::Directory> dir = dc::Directory::open(path, error);
  ASSERT_TRUE(dir) << error;
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((path + "/" + dc::key_file_name).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  EXPECT_EQ(dir->key().size(), dc::key_size);
  EXPECT_EQ(dir->key(), key_of(path));
  EXPECT_NE(dir->key(), std::string(dc::key_size, '\0'));
  // Opened again, the directory keeps its key; another directory gets another.
  std::unique_ptr<dc::Directory> again = dc::Directory::open(path, error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(again->key(), dir->key());
  std::unique_ptr<dc::Directory> other = dc::Directory::open(tmp.path() + "/other", error);
  ASSERT_TRUE(other) << error;
  EXPECT_NE(other->key(), dir->key());
  // An entry is written with mode 0600.
  ASSERT_TRUE(dir->write("0000000000000001.jxk", dc::encode({}, dir->key())));
  ASSERT_EQ(::stat((path + "/0000000000000001.jxk").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(CacheDirectory, WritableByOthersIsIgnoredWithOneWarning) {
  TempDir tmp;
  int seed = 0;
  for (mode_t mode : {0770, 0707, 0777, 01777, 0720}) {
    const std::string path = fmt::format("{}/mode{:o}", tmp.path(), mode);
    ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    std::string error;
    EXPECT_FALSE(dc::Directory::open(path, error)) << path;
    EXPECT_NE(error.find("is writable by"), std::string::npos) << error;
    expect_ignored(path, "is writable by", seed++);
    // Not even a key was written there.
    EXPECT_FALSE(fs::exists(path + "/" + dc::key_file_name));
  }
  // Made private, the directory is used.
  const std::string path = tmp.path() + "/mode777";
  ASSERT_EQ(::chmod(path.c_str(), 0755), 0);
  compile_in_process(path, 100);
  EXPECT_FALSE(cache_entries(path).empty());
}

TEST(CacheDirectory, OwnedBySomeoneElseIsIgnored) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a directory to another user needs root";
  TempDir tmp;
  const std::string path = tmp.path() + "/cache";
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  std::string error;
  EXPECT_FALSE(dc::Directory::open(path, error));
  EXPECT_NE(error.find("belongs to uid 65534"), std::string::npos) << error;
  expect_ignored(path, "belongs to uid 65534", 200);
  // A key file owned by someone else, in a directory of ours.
  ASSERT_EQ(::chown(path.c_str(), 0, 0), 0);
  ASSERT_TRUE(dc::Directory::open(path, error)) << error;
  ASSERT_EQ(::chown((path + "/" + dc::key_file_name).c_str(), 65534, 65534), 0);
  EXPECT_FALSE(dc::Directory::open(path, error));
  EXPECT_NE(error.find("belongs to uid 65534"), std::string::npos) << error;
}

TEST(CacheDirectory, KeyFileThatIsNotPrivateIsIgnored) {
  TempDir tmp;
  const std::string path = tmp.path() + "/cache", key = path + "/" + dc::key_file_name;
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  write_all(key, std::string(dc::key_size, 'k'));
  ASSERT_EQ(::chmod(key.c_str(), 0644), 0);
  std::string error;
  EXPECT_FALSE(dc::Directory::open(path, error));
  EXPECT_NE(error.find("has mode 0644; it must be 0600"), std::string::npos) << error;
  expect_ignored(path, "has mode 0644", 300);
  EXPECT_EQ(read_all(key), std::string(dc::key_size, 'k')); // left as it was

  // A key of the wrong size, a link to a key, and a FIFO: ignored, without blocking.
  ASSERT_EQ(::chmod(key.c_str(), 0600), 0);
  write_all(key, "short");
  EXPECT_FALSE(dc::Directory::open(path, error));
  EXPECT_NE(error.find("holds 5 bytes"), std::string::npos) << error;
  fs::remove(key);
  write_all(tmp.path() + "/elsewhere", std::string(dc::key_size, 'k'));
  ::chmod((tmp.path() + "/elsewhere").c_str(), 0600);
  fs::create_symlink(tmp.path() + "/elsewhere", key);
  EXPECT_FALSE(dc::Directory::open(path, error));
  fs::remove(key);
  ASSERT_EQ(::mkfifo(key.c_str(), 0600), 0);
  EXPECT_TRUE(returns_within(std::chrono::seconds(20), [path] {
    std::string why;
    EXPECT_FALSE(dc::Directory::open(path, why));
    EXPECT_NE(why.find("not a regular file"), std::string::npos) << why;
  }));
}

TEST(CacheDirectory, EntriesThatAreNotPlainFilesOfOursAreRejectedWithoutBlocking) {
  TempDir tmp;
  std::string error;
  std::unique_ptr<dc::Directory> dir = dc::Directory::open(tmp.path(), error);
  ASSERT_TRUE(dir) << error;
  dc::Entry entry;
  entry.identity = "id";
  const std::string good = dc::encode(entry, dir->key());
  ASSERT_TRUE(dir->write("good.jxk", good));
  std::string bytes;
  EXPECT_EQ(dir->read("good.jxk", bytes), dc::Directory::Read::ok);

  ASSERT_EQ(::mkfifo((tmp.path() + "/fifo.jxk").c_str(), 0600), 0);
  dc::Directory *d = dir.get();
  EXPECT_TRUE(returns_within(std::chrono::seconds(20), [d] {
    std::string b;
    EXPECT_EQ(d->read("fifo.jxk", b), dc::Directory::Read::rejected);
  }));
  // A link is not followed, even to a good entry.
  fs::create_symlink(tmp.path() + "/good.jxk", tmp.path() + "/link.jxk");
  EXPECT_EQ(dir->read("link.jxk", bytes), dc::Directory::Read::rejected);
  // Replacing a FIFO or a link replaces it, not what it points to.
  ASSERT_TRUE(dir->write("fifo.jxk", good));
  EXPECT_EQ(dir->read("fifo.jxk", bytes), dc::Directory::Read::ok);
  ASSERT_TRUE(dir->write("link.jxk", good + ""));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(tmp.path() + "/link.jxk")));
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown((tmp.path() + "/good.jxk").c_str(), 65534, 65534), 0);
    EXPECT_EQ(dir->read("good.jxk", bytes), dc::Directory::Read::rejected);
  }
}

TEST(CacheDirectory, HeadersAreCheckedBeforeTheBodyIsRead) {
  TempDir tmp;
  std::string error;
  std::unique_ptr<dc::Directory> dir = dc::Directory::open(tmp.path(), error);
  ASSERT_TRUE(dir) << error;
  dc::Entry entry;
  entry.identity = "id";
  entry.object = "obj";
  const std::string good = dc::encode(entry, dir->key());
  // A header announcing a payload beyond the size cap, one announcing another size than the
  // file has, and a file of another version: rejected from their first bytes.
  auto with_size = [&](uint64_t size) {
    std::string bytes = good;
    std::memcpy(bytes.data() + 16, &size, sizeof size);
    return bytes;
  };
  std::string bytes;
  for (const std::string &bad :
       {with_size(uint64_t(1) << 40), with_size(dc::max_file_bytes), with_size(good.size())}) {
    EXPECT_FALSE(dc::payload_size(bad) && *dc::payload_size(bad) == bad.size() - 56);
    write_all(tmp.path() + "/bad.jxk", bad);
    EXPECT_EQ(dir->read("bad.jxk", bytes), dc::Directory::Read::rejected);
  }
  // A sparse file of 768 MiB below a header announcing 1 TiB: rejected after reading the header
  // (reading the body would take 768 MiB of memory).
  const std::string big = tmp.path() + "/big.jxk";
  write_all(big, with_size(uint64_t(1) << 40));
  fs::resize_file(big, uint64_t(768) << 20);
  bytes = std::string();
  EXPECT_EQ(dir->read("big.jxk", bytes), dc::Directory::Read::rejected);
  EXPECT_LT(bytes.capacity(), size_t(1) << 20);
}

namespace {

// The child's work: one program, checked against values computed here.
void compile_and_check() {
  auto f = jx::jit([](const Array &x) {
             return jnp::exp(x - jnp::max(x, {.axis = 1, .keepdims = true})) * 3;
           })
               .lower(jx::ShapeDtypeStruct{{4, 50}, jnp::float64})
               .compile();
  Array x = jnp::cos(jnp::arange(200.0).reshape({4, 50}) * 0.7);
  const std::vector<double> xv = x.to_vector<double>(), got = f(x).to_vector<double>();
  ASSERT_EQ(got.size(), 200u);
  for (int r = 0; r < 4; ++r) {
    double m = -INFINITY;
    for (int c = 0; c < 50; ++c)
      m = std::max(m, xv[r * 50 + c]);
    for (int c = 0; c < 50; ++c) {
      const double want = std::exp(xv[r * 50 + c] - m) * 3;
      EXPECT_NEAR(got[r * 50 + c], want, 1e-14 * want) << r << "," << c;
    }
  }
}

// The peak resident memory of this process, in bytes (VmHWM: unlike getrusage's maxrss, it does
// not count the memory of the process that spawned this one).
uint64_t peak_memory() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("VmHWM:")) return std::stoull(line.substr(6)) * 1024;
  return 0;
}

struct ChildResult {
  int exit_code = -1; // 128 + signal when killed; -2 when it did not report; -3 when timed out
  jx::backend::DiskCacheStats stats;
  uint64_t peak_memory = 0;
  std::string err; // its stderr
};

// Runs this binary again with only CacheSecurityChild.CompileAndCheck and its disk cache in
// tmp/cache, and kills it if it has not finished within the limit.
ChildResult run_child(const TempDir &tmp, std::chrono::seconds limit = std::chrono::seconds(120)) {
  const std::string dir = tmp.path() + "/cache", out = tmp.path() + "/stats",
                    err = tmp.path() + "/stderr";
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e) {
    std::string_view v(*e);
    if (!v.starts_with("GTEST_") && !v.starts_with("JX_CACHE_DIR=")) env.emplace_back(v);
  }
  env.push_back("JX_CACHE_DIR=" + dir);
  env.push_back("JX_CACHE_SECURITY_TEST_OUT=" + out);
  std::vector<char *> envp;
  for (std::string &s : env)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string exe = "/proc/self/exe", flag = "--gtest_filter=CacheSecurityChild.CompileAndCheck";
  char *argv[] = {exe.data(), flag.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ChildResult result;
  pid_t pid;
  const int spawned = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return result;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return result;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      result.exit_code = -3;
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = read_all(err);
  std::istringstream in(read_all(out));
  if (!(in >> result.stats.hits >> result.stats.misses >> result.stats.rejected >>
        result.stats.write_failures >> result.peak_memory))
    result.exit_code = result.exit_code == 0 ? -2 : result.exit_code;
  std::error_code ec;
  fs::remove(out, ec);
  return result;
}

// A cold run's entries, each replaced by what `tamper` makes of it (with the directory's key),
// then a run that must reject every one, compute the right values, and rewrite them, and a third
// that loads them all. The first two runs' results go to *cold_out and *repaired_out.
template <class F>
void expect_rejected_and_replaced(F tamper, ChildResult *cold_out = nullptr,
                                  ChildResult *repaired_out = nullptr) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/cache";
  const ChildResult cold = run_child(tmp);
  if (cold_out) *cold_out = cold;
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  ASSERT_EQ(cold.stats.hits, 0u);
  const std::vector<std::string> files = cache_entries(dir);
  ASSERT_GE(files.size(), 2u); // the program and the values realized for it
  const std::string key = key_of(dir);
  std::vector<std::string> original;
  for (const std::string &f : files)
    original.push_back(read_all(f));
  for (size_t i = 0; i < files.size(); ++i)
    tamper(files[i], original, i, key);

  const ChildResult repaired = run_child(tmp, std::chrono::seconds(60));
  if (repaired_out) *repaired_out = repaired;
  ASSERT_EQ(repaired.exit_code, 0) << repaired.err; // its values were right: nothing bad ran
  EXPECT_EQ(repaired.stats.rejected, files.size());
  EXPECT_EQ(repaired.stats.hits, 0u);
  EXPECT_EQ(repaired.stats.misses, cold.stats.misses);
  EXPECT_EQ(repaired.stats.write_failures, 0u);
  EXPECT_EQ(warning_count(repaired.err), 0u) << repaired.err;
  EXPECT_EQ(cache_entries(dir), files);
  for (const std::string &f : files) {
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(f))) << f;
    EXPECT_TRUE(dc::decode(read_all(f), key)) << f;
  }
  const ChildResult warm = run_child(tmp);
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_EQ(warm.stats.hits, cold.stats.misses);
  EXPECT_EQ(warm.stats.rejected, 0u);
}

} // namespace

// Run only as the child of the tests below.
TEST(CacheSecurityChild, CompileAndCheck) {
  const char *out = std::getenv("JX_CACHE_SECURITY_TEST_OUT");
  if (!out) GTEST_SKIP() << "a helper that the CacheSecurity tests run in a child process";
  compile_and_check();
  const jx::backend::DiskCacheStats s = jx::backend::disk_cache_stats();
  std::ofstream(out) << s.hits << ' ' << s.misses << ' ' << s.rejected << ' ' << s.write_failures
                     << ' ' << peak_memory() << '\n';
}

// What someone who can write the directory but lacks the key can make: a changed object under
// a MAC of another key (with a plain checksum, recomputing it made the entry pass).
TEST(CacheSecurity, ForgedEntriesAreRejectedAndReplaced) {
  expect_rejected_and_replaced([](const std::string &file, const std::vector<std::string> &original,
                                  size_t i, const std::string &key) {
    std::optional<dc::Entry> entry = dc::decode(original[i], key);
    ASSERT_TRUE(entry);
    ASSERT_GT(entry->object.size(), 100u);
    entry->object[entry->object.size() - 100] ^= 0x10;
    std::string attacker_key = key;
    attacker_key[0] ^= 1;
    write_all(file, dc::encode(*entry, attacker_key));
  });
}

// Entries under the right key whose object cannot serve the batch (not an object file, or
// another batch's object): rejected before the JIT sees them, and replaced. Such an entry used
// to make every later compile of its batch fail.
TEST(CacheSecurity, AuthenticEntriesWithABadObjectAreReplaced) {
  expect_rejected_and_replaced([](const std::string &file, const std::vector<std::string> &original,
                                  size_t i, const std::string &key) {
    std::optional<dc::Entry> entry = dc::decode(original[i], key);
    ASSERT_TRUE(entry);
    if (i == 0) {
      entry->object = "not an object file";
    } else {
      std::optional<dc::Entry> other = dc::decode(original[(i + 1) % original.size()], key);
      ASSERT_TRUE(other);
      entry->object = other->object;
    }
    write_all(file, dc::encode(*entry, key));
  });
}

// A FIFO at an entry's path used to block the compile forever (open(2) waits for a writer).
TEST(CacheSecurity, FifosAndLinksAtEntryPathsDoNotBlockAndAreReplaced) {
  expect_rejected_and_replaced([](const std::string &file, const std::vector<std::string> &original,
                                  size_t i, const std::string &) {
    fs::remove(file);
    if (i % 2 == 0) {
      ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
    } else {
      // A link to a copy of the good entry: not followed.
      write_all(file + ".target", original[i]);
      fs::create_symlink(file + ".target", file);
    }
  });
}

// Entries that announce an impossible size: rejected from their header. They used to be read
// whole first (768 MiB of memory each here).
TEST(CacheSecurity, OversizedEntriesAreNotRead) {
  ChildResult cold, repaired;
  expect_rejected_and_replaced(
      [](const std::string &file, const std::vector<std::string> &original, size_t i,
         const std::string &) {
        std::string bytes = original[i].substr(0, 64);
        const uint64_t size = uint64_t(1) << 40;
        std::memcpy(bytes.data() + 16, &size, sizeof size);
        write_all(file, bytes);
        fs::resize_file(file, uint64_t(768) << 20); // sparse: no disk space
      },
      &cold, &repaired);
  EXPECT_GT(repaired.peak_memory, 0u);
  EXPECT_LT(repaired.peak_memory, cold.peak_memory + (uint64_t(256) << 20));
}

// One bad directory costs one warning in a child too, and its values are right.
TEST(CacheSecurity, AnUnsafeDirectoryIsIgnoredAcrossProcesses) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/cache";
  ASSERT_EQ(::mkdir(dir.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  const ChildResult child = run_child(tmp);
  ASSERT_EQ(child.exit_code, 0) << child.err;
  EXPECT_EQ(warning_count(child.err), 1u) << child.err;
  EXPECT_NE(child.err.find("is writable by group and others (mode 0777)"), std::string::npos)
      << child.err;
  EXPECT_EQ(child.stats.misses, 0u);
  EXPECT_EQ(child.stats.hits, 0u);
  EXPECT_TRUE(fs::is_empty(dir));
}
