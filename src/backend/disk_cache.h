// The persistent kernel cache's entries: one file per compiled batch of kernels under
// JX_CACHE_DIR, named by the batch's key, authenticated with the user's secret key. No LLVM types
// in this header.
//
// The directory is used only when it belongs to this user and no one else may write to it (as
// ccache and pip require): whoever can write it chooses the code jx runs. It holds the key,
// `jx-cache-key` (32 random bytes, mode 0600), so that an entry copied in from elsewhere, or
// edited, fails its HMAC even where the directory's protection is defeated.
//
// File layout (host byte order; entries are only read on the machine kind that wrote them):
//   header  magic "JXKCACHE" (8 bytes), format version (u32), header size (u32),
//           payload size (u64), HMAC-SHA256 (32 bytes) of the header's first 24 bytes and the
//           payload, under the directory's key
//   payload identity, kernel count (u64), per kernel {name, optimized IR}, object file;
//           each string as a u64 length and its bytes
// Any mismatch (magic, version, sizes, HMAC, malformed payload, trailing bytes) makes the entry
// unreadable: the caller recompiles and never hands such bytes to the JIT.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jx::backend::disk_cache {

inline constexpr uint32_t format_version = 2;
inline constexpr size_t header_size = 56;
inline constexpr size_t key_size = 32;
// Larger files are never read: no batch of kernels comes near it.
inline constexpr uint64_t max_file_bytes = uint64_t(1) << 30;
inline constexpr const char *key_file_name = "jx-cache-key";

struct Entry {
  // The exact text the entry's key was hashed from; compared on load, so that two batches whose
  // keys collide never share an object.
  std::string identity;
  struct Kernel {
    std::string name; // symbol in the object file
    std::string ir;   // optimized LLVM IR of the kernel, for Compiled::as_text
  };
  std::vector<Kernel> kernels;
  std::string object; // relocatable object file holding every kernel
};

// The entry's file bytes, authenticated with key.
std::string encode(const Entry &entry, std::string_view key);
// The entry, or nullopt for anything encode did not produce with this key (forged, corrupt,
// truncated, other version).
std::optional<Entry> decode(std::string_view bytes, std::string_view key);
// The payload size a header announces, or nullopt when its magic, version or header size is
// wrong or the file would exceed max_file_bytes. Needs only the first header_size bytes.
std::optional<uint64_t> payload_size(std::string_view header);

// 64-bit xxh3 of data (used for keys and kernel names).
uint64_t hash64(std::string_view data);

// `<16 hex digits of key>.jxk`
std::string entry_name(uint64_t key);

// An opened cache directory that passed its checks, with its key. Entries are opened relative to
// it, so that the directory cannot be swapped after it was checked.
class Directory {
public:
  // Opens path (creating it with mode 0700 when missing) and its key file (creating it when
  // missing). nullptr when either fails its checks or cannot be used; `error` then says why in
  // a sentence naming the path. Never throws.
  static std::unique_ptr<Directory> open(const std::string &path, std::string &error);
  ~Directory();
  Directory(const Directory &) = delete;
  Directory &operator=(const Directory &) = delete;

  const std::string &path() const { return path_; }
  std::string_view key() const { return key_; }

  enum class Read { missing, rejected, ok };
  // Entry `name`'s bytes. The file is opened without following links and without blocking (a
  // FIFO is rejected, not waited on), must be a regular file owned by this user, and its header
  // is checked before its payload is read. `ok` says nothing about the HMAC: decode checks it.
  Read read(const std::string &name, std::string &bytes) const;
  // Writes entry `name` atomically: a temporary file of mode 0600 in the directory, then a
  // rename. False on any I/O error; never throws.
  bool write(const std::string &name, std::string_view bytes) const;

private:
  Directory(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

  int fd_;
  std::string path_;
  std::string key_;
};

} // namespace jx::backend::disk_cache
