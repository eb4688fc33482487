// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), self-contained: the disk cache authenticates
// its entries with them, so that only someone holding the user's key can write code jx will run.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace jx::backend {

using Digest = std::array<uint8_t, 32>;

// Incremental SHA-256: update() any number of times, then finish() once.
class Sha256 {
public:
  Sha256();
  void update(std::string_view data);
  Digest finish();

private:
  void block(const uint8_t *p);

  uint32_t h_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t length_ = 0; // bytes hashed so far
};

Digest sha256(std::string_view data);

// HMAC-SHA256 of the concatenation of parts, so that a message in several pieces need not be
// copied into one.
Digest hmac_sha256(std::string_view key, std::initializer_list<std::string_view> parts);

// Compares digests in time independent of where they differ.
bool digest_equal(const Digest &a, const Digest &b);

} // namespace jx::backend
