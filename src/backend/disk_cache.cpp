// Encoding, decoding and atomic file I/O for the persistent kernel cache (see disk_cache.h).
#include "backend/disk_cache.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <random>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/hmac.h"

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

// The MAC covers the header's fields before it (magic, version, sizes) and the payload.
constexpr size_t mac_offset = 24;

Digest entry_mac(std::string_view key, std::string_view header, std::string_view payload) {
  return hmac_sha256(key, {header.substr(0, mac_offset), payload});
}

// Reads exactly size bytes; false at end of file or on an error.
bool read_exact(int fd, char *out, size_t size) {
  for (size_t done = 0; done < size;) {
    const ssize_t n = ::read(fd, out + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

bool write_all(int fd, std::string_view bytes) {
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

// Unpredictable bytes from the kernel (getrandom, the source of /dev/urandom), or from
// std::random_device where that call is missing.
void random_bytes(char *out, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::getrandom(out + done, size - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  if (done < size) {
    std::random_device device;
    for (; done < size; ++done)
      out[done] = char(device());
  }
}

// A name for a temporary file beside `name` that no other writer picks.
std::string temporary_name(const std::string &name) {
  uint64_t r = 0;
  random_bytes(reinterpret_cast<char *>(&r), sizeof r);
  return fmt::format("{}.tmp.{:016x}", name, r);
}

// Writes bytes to a new file of mode 0600 in the directory; its name, or "" on failure.
std::string write_temporary(int dir, const std::string &name, std::string_view bytes) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string tmp = temporary_name(name);
    const int fd =
        ::openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      return "";
    }
    bool ok = write_all(fd, bytes);
    ok = ::close(fd) == 0 && ok;
    if (ok) return tmp;
    ::unlinkat(dir, tmp.c_str(), 0);
    return "";
  }
  return "";
}

std::string describe_writers(mode_t mode) {
  const bool group = mode & S_IWGRP, others = mode & S_IWOTH;
  return group && others ? "group and others" : group ? "its group" : "others";
}

// Reads the key file, creating it first when missing. "" on success, else why it cannot be used.
std::string load_key(int dir, const std::string &dir_path, std::string &key) {
  const std::string path = dir_path + "/" + key_file_name;
  int fd = ::openat(dir, key_file_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    // Written whole under a temporary name, then linked: a concurrent process sees no key or the
    // whole key, and link(2), unlike rename, never replaces another process's key.
    char fresh[key_size];
    random_bytes(fresh, key_size);
    const std::string tmp = write_temporary(dir, key_file_name, std::string_view(fresh, key_size));
    if (tmp.empty())
      return fmt::format("cannot create the key file {}: {}", path, std::strerror(errno));
    const int linked = ::linkat(dir, tmp.c_str(), dir, key_file_name, 0);
    const int link_errno = errno;
    ::unlinkat(dir, tmp.c_str(), 0);
    if (linked != 0 && link_errno != EEXIST)
      return fmt::format("cannot create the key file {}: {}", path, std::strerror(link_errno));
    fd = ::openat(dir, key_file_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  }
  if (fd < 0) return fmt::format("cannot open the key file {}: {}", path, std::strerror(errno));
  struct stat st;
  std::string error;
  if (::fstat(fd, &st) != 0)
    error = fmt::format("cannot stat the key file {}: {}", path, std::strerror(errno));
  else if (!S_ISREG(st.st_mode))
    error = fmt::format("the key file {} is not a regular file", path);
  else if (st.st_uid != ::geteuid())
    error = fmt::format("the key file {} belongs to uid {}, not to this user (uid {})", path,
                        st.st_uid, ::geteuid());
  else if ((st.st_mode & 077) != 0)
    error =
        fmt::format("the key file {} has mode {:04o}; it must be 0600", path, st.st_mode & 07777);
  else if (st.st_size != off_t(key_size))
    error = fmt::format("the key file {} holds {} bytes, not {}", path, st.st_size, key_size);
  else {
    key.resize(key_size);
    if (!read_exact(fd, key.data(), key_size))
      error = fmt::format("cannot read the key file {}", path);
  }
  ::close(fd);
  return error;
}

} // namespace

uint64_t hash64(std::string_view data) {
  return llvm::xxh3_64bits(llvm::StringRef(data.data(), data.size()));
}

std::string encode(const Entry &entry, std::string_view key) {
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
  const Digest mac = entry_mac(key, out, payload);
  out.append(reinterpret_cast<const char *>(mac.data()), mac.size());
  out += payload;
  return out;
}

std::optional<uint64_t> payload_size(std::string_view header) {
  if (header.size() < header_size || std::memcmp(header.data(), magic, sizeof magic) != 0)
    return std::nullopt;
  Reader in(header.substr(sizeof magic, mac_offset - sizeof magic));
  uint32_t version = 0, header_bytes = 0;
  uint64_t size = 0;
  in.get(version);
  in.get(header_bytes);
  in.get(size);
  if (version != format_version || header_bytes != header_size ||
      size > max_file_bytes - header_size)
    return std::nullopt;
  return size;
}

std::optional<Entry> decode(std::string_view bytes, std::string_view key) {
  const std::optional<uint64_t> size = payload_size(bytes);
  if (!size || *size != bytes.size() - header_size) return std::nullopt;
  std::string_view payload = bytes.substr(header_size);
  Digest stored;
  std::memcpy(stored.data(), bytes.data() + mac_offset, stored.size());
  if (key.size() != key_size || !digest_equal(entry_mac(key, bytes, payload), stored))
    return std::nullopt;

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

std::string entry_name(uint64_t key) { return fmt::format("{:016x}.jxk", key); }

std::unique_ptr<Directory> Directory::open(const std::string &path, std::string &error) {
  try {
    if (path.empty()) {
      error = "the cache directory's name is empty";
      return nullptr;
    }
    // Parents as the user's umask makes them; the cache itself private from the start.
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
      error = fmt::format("cannot create {}: {}", path, std::strerror(errno));
      return nullptr;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      error = fmt::format("cannot open {}: {}", path, std::strerror(errno));
      return nullptr;
    }
    std::unique_ptr<Directory> dir(new Directory(fd, path));
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      error = fmt::format("cannot stat {}: {}", path, std::strerror(errno));
      return nullptr;
    }
    if (st.st_uid != ::geteuid()) {
      error = fmt::format("{} belongs to uid {}, not to this user (uid {})", path, st.st_uid,
                          ::geteuid());
      return nullptr;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
      error = fmt::format("{} is writable by {} (mode {:04o}); make it private with chmod go-w",
                          path, describe_writers(st.st_mode), st.st_mode & 07777);
      return nullptr;
    }
    error = load_key(fd, path, dir->key_);
    if (!error.empty()) return nullptr;
    return dir;
  } catch (const std::exception &e) { // e.g. bad_alloc: the cache is only an optimization
    error = fmt::format("cannot use {}: {}", path, e.what());
    return nullptr;
  }
}

Directory::~Directory() { ::close(fd_); }

Directory::Read Directory::read(const std::string &name, std::string &bytes) const {
  const int fd = ::openat(fd_, name.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? Read::missing : Read::rejected;
  Read result = Read::rejected;
  struct stat st;
  char header[header_size];
  std::optional<uint64_t> size;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
      uint64_t(st.st_size) >= header_size && uint64_t(st.st_size) <= max_file_bytes &&
      read_exact(fd, header, header_size) &&
      (size = payload_size(std::string_view(header, header_size))) &&
      *size == uint64_t(st.st_size) - header_size) {
    try {
      bytes.assign(header, header_size);
      bytes.resize(header_size + *size);
      if (read_exact(fd, bytes.data() + header_size, *size)) result = Read::ok;
    } catch (const std::bad_alloc &) {
    }
  }
  ::close(fd);
  return result;
}

bool Directory::write(const std::string &name, std::string_view bytes) const {
  const std::string tmp = write_temporary(fd_, name, bytes);
  if (tmp.empty()) return false;
  if (::renameat(fd_, tmp.c_str(), fd_, name.c_str()) == 0) return true;
  ::unlinkat(fd_, tmp.c_str(), 0);
  return false;
}

} // namespace jx::backend::disk_cache
