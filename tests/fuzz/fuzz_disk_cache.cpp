// libFuzzer target for the kernel disk cache's entry reader (decode, payload_size) under a fixed
// key. When the first byte is odd the rest gets a valid header and HMAC, so that mutations reach
// the payload parser; when even it is read as it is. A decoded entry must encode back to the same
// bytes; anything else but a rejection is a finding.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backend/disk_cache.h"
#include "backend/hmac.h"

namespace dc = jx::backend::disk_cache;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string key(dc::key_size, 'k');
  if (size == 0) return 0;
  const bool seal = data[0] & 1;
  std::string bytes(reinterpret_cast<const char *>(data) + 1, size - 1);
  if (seal) {
    // Header fields per disk_cache.h: magic, version, header size, payload size, then the HMAC of
    // the first 24 bytes and the payload.
    if (bytes.size() < dc::header_size) bytes.resize(dc::header_size);
    const uint32_t version = dc::format_version, header = dc::header_size;
    const uint64_t payload = bytes.size() - dc::header_size;
    std::memcpy(bytes.data(), "JXKCACHE", 8);
    std::memcpy(bytes.data() + 8, &version, 4);
    std::memcpy(bytes.data() + 12, &header, 4);
    std::memcpy(bytes.data() + 16, &payload, 8);
    const jx::backend::Digest mac = jx::backend::hmac_sha256(
        key, {std::string_view(bytes).substr(0, 24), std::string_view(bytes).substr(56)});
    std::memcpy(bytes.data() + 24, mac.data(), mac.size());
  }
  const std::optional<uint64_t> announced = dc::payload_size(bytes);
  const std::optional<dc::Entry> entry = dc::decode(bytes, key);
  if (!entry) return 0;
  if (!announced || *announced != bytes.size() - dc::header_size) std::abort();
  if (dc::encode(*entry, key) != bytes) std::abort();
  return 0;
}
