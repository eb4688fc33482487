// The persistent kernel cache's entries: one file per compiled batch of kernels under
// JX_CACHE_DIR, named by the batch's key. No LLVM types in this header.
//
// File layout (host byte order; entries are only read on the machine kind that wrote them):
//   header  magic "JXKCACHE" (8 bytes), format version (u32), header size (u32),
//           payload size (u64), xxh3-64 checksum of the payload (u64)
//   payload identity, kernel count (u64), per kernel {name, optimized IR}, object file;
//           each string as a u64 length and its bytes
// Any mismatch (magic, version, sizes, checksum, malformed payload, trailing bytes) makes the
// entry unreadable: the caller recompiles and never hands such bytes to the JIT.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jx::backend::disk_cache {

inline constexpr uint32_t format_version = 1;
inline constexpr size_t header_size = 32;

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

std::string encode(const Entry &entry);
// The entry, or nullopt for anything encode did not produce (corrupt, truncated, other version).
std::optional<Entry> decode(std::string_view bytes);

// 64-bit xxh3 of data (the checksum, also used for keys and kernel names).
uint64_t hash64(std::string_view data);

// `<dir>/<16 hex digits of key>.jxk`
std::string entry_path(const std::string &dir, uint64_t key);

// The file's bytes; nullopt when it is missing, unreadable or larger than max_file_bytes.
std::optional<std::string> read_file(const std::string &path);
// Writes bytes to path atomically (a temporary file in the same directory, then a rename),
// creating the directory first if needed. Returns false on any I/O error; never throws.
bool write_file_atomic(const std::string &path, std::string_view bytes);

inline constexpr uint64_t max_file_bytes = uint64_t(1) << 30;

} // namespace jx::backend::disk_cache
