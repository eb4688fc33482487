// jx::random: jax.random's threefry2x32 PRNG, bit for bit.
#pragma once

#include <jx/array.h>

#include <cstdint>
#include <vector>

namespace jx::random {

// A jax.random.PRNGKey: two uint32 words (jax's key_data).
struct Key {
  uint32_t hi = 0, lo = 0;
  bool operator==(const Key &) const = default;
};

// jax.random.PRNGKey(seed).
Key PRNGKey(int64_t seed);
// jax.random.split(key, num).
std::vector<Key> split(const Key &key, int64_t num = 2);
// jax.random.fold_in(key, data).
Key fold_in(const Key &key, uint32_t data);
// jax.random.uniform(key, shape, dtype, minval, maxval).
Array uniform(const Key &key, const Shape &shape = {}, DType dtype = float64,
              const Array &minval = 0.0, const Array &maxval = 1.0);
// jax.random.normal(key, shape, dtype).
Array normal(const Key &key, const Shape &shape = {}, DType dtype = float64);

} // namespace jx::random
