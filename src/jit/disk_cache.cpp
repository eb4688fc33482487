// Encoding, decoding and atomic file I/O for the persistent kernel cache (see disk_cache.h).
#include "jit/disk_cache.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/Support/xxhash.h>

namespace jx::backend::disk_cache {
namespace {

constexpr char magic[8] = {'J', 'X', 'K', 'C', 'A', 'C', 'H', 'E'};

template <class T> void put(std::string &out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

void put_string(std::string &out, std::string_view s) {
  put<uint64_t>(out, s.size());
  out.append(s);
}

// Bounds-checked reads from a payload.
class Reader {
public:
  explicit Reader(std::string_view data) : data_(data) {}

  template <class T> bool get(T &value) {
    if (data_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(&value, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }

  bool get_string(std::string &s) {
    uint64_t size = 0;
    if (!get(size) || data_.size() - pos_ < size) return false;
    s.assign(data_.data() + pos_, size);
    pos_ += size;
    return true;
  }

  bool at_end() const { return pos_ == data_.size(); }
  size_t remaining() const { return data_.size() - pos_; }

private:
  std::string_view data_;
  size_t pos_ = 0;
};

} // namespace

uint64_t hash64(std::string_view data) {
  return llvm::xxh3_64bits(llvm::StringRef(data.data(), data.size()));
}

std::string encode(const Entry &entry) {
  std::string payload;
  size_t size = 8 * (3 + 2 * entry.kernels.size()) + entry.identity.size() + entry.object.size();
  for (const Entry::Kernel &k : entry.kernels)
    size += k.name.size() + k.ir.size();
  payload.reserve(size);
  put_string(payload, entry.identity);
  put<uint64_t>(payload, entry.kernels.size());
  for (const Entry::Kernel &k : entry.kernels) {
    put_string(payload, k.name);
    put_string(payload, k.ir);
  }
  put_string(payload, entry.object);

  std::string out;
  out.reserve(header_size + payload.size());
  out.append(magic, sizeof magic);
  put<uint32_t>(out, format_version);
  put<uint32_t>(out, header_size);
  put<uint64_t>(out, payload.size());
  put<uint64_t>(out, hash64(payload));
  out += payload;
  return out;
}

std::optional<Entry> decode(std::string_view bytes) {
  if (bytes.size() < header_size || std::memcmp(bytes.data(), magic, sizeof magic) != 0)
    return std::nullopt;
  Reader header(bytes.substr(sizeof magic, header_size - sizeof magic));
  uint32_t version = 0, header_bytes = 0;
  uint64_t payload_size = 0, checksum = 0;
  header.get(version);
  header.get(header_bytes);
  header.get(payload_size);
  header.get(checksum);
  if (version != format_version || header_bytes != header_size ||
      payload_size != bytes.size() - header_size)
    return std::nullopt;
  std::string_view payload = bytes.substr(header_size);
  if (hash64(payload) != checksum) return std::nullopt;

  Reader in(payload);
  Entry entry;
  uint64_t count = 0;
  if (!in.get_string(entry.identity) || !in.get(count)) return std::nullopt;
  // Each kernel takes at least its two length fields: a bound before reserving.
  if (count > in.remaining() / 16) return std::nullopt;
  entry.kernels.resize(count);
  for (Entry::Kernel &k : entry.kernels)
    if (!in.get_string(k.name) || !in.get_string(k.ir)) return std::nullopt;
  if (!in.get_string(entry.object) || !in.at_end()) return std::nullopt;
  return entry;
}

std::string entry_path(const std::string &dir, uint64_t key) {
  return fmt::format("{}/{:016x}.jxk", dir, key);
}

std::optional<std::string> read_file(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::string> out;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && uint64_t(st.st_size) <= max_file_bytes) {
    std::string bytes(size_t(st.st_size), '\0');
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += size_t(n);
    }
    // A file that shrank while being read comes back short and fails decode's size check.
    bytes.resize(done);
    out = std::move(bytes);
  }
  ::close(fd);
  return out;
}

bool write_file_atomic(const std::string &path, std::string_view bytes) {
  try {
    const std::filesystem::path target(path);
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec) return false;
    std::string tmp = path + ".tmp.XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) return false;
    bool ok = true;
    for (size_t done = 0; ok && done < bytes.size();) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        ok = false;
      else
        done += size_t(n);
    }
    // Readable by whoever may read the directory, as a file written with open(2) would be.
    ok = ::fchmod(fd, 0644) == 0 && ok;
    ok = ::close(fd) == 0 && ok;
    if (ok) ok = std::rename(tmp.c_str(), path.c_str()) == 0;
    if (!ok) ::unlink(tmp.c_str());
    return ok;
  } catch (...) { // best effort: a cache that cannot be written is only slower
    return false;
  }
}

} // namespace jx::backend::disk_cache
