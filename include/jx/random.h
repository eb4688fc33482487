// jx::random: jax.random's threefry2x32 PRNG, bit for bit, with keys as arrays.
//
// A key is JAX's raw key data: a uint32 Array of shape (2,) (jax.random.PRNGKey's legacy keys),
// and a batch of keys is a uint32 Array of shape (..., 2) (split(key, n) is (n, 2)). Being Arrays,
// keys are jit arguments and results, loop carries (fori_loop, scan, while_loop) and vmapped like
// any array (vmap over a (n, 2) batch gives each example its key), and fold_in takes traced data
// (a fori_loop's index). Every function is composed from jnp's uint32 ops (threefry2x32 is adds,
// xors and rotations), so a traced key is traced, batched, fused and compiled like any other
// value; a key whose value is known (not traced) takes a faster path to the same bits.
//
// All values equal JAX 0.10's with jax_threefry_partitionable=True (its default) and x64 on (the
// defaults below are float64, int64 and uint64, as JAX's with jax_enable_x64); the golden tests
// (tests/random/test_random_keys.cpp) check every function bit for bit, eagerly, under jit, vmap,
// scan and fori_loop.
//
// Typed keys: jax.random.key(seed) returns a scalar array of a key dtype (key<fry>[]). jx has no
// key dtypes: key(seed) returns the same raw uint32[2] array as PRNGKey(seed), key_data is the
// identity on raw keys and wrap_key_data checks its argument is key data (uint32, shape (..., 2))
// and returns it. So JAX code using either kind of key ports as written; what differs is a key's
// shape: a typed key array's shape lacks the trailing 2 (JAX's key(0).shape is (), jx's is (2,)).
#pragma once

#include <jx/array.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

namespace jx::random {

// A PRNG key, or a batch of them: a uint32 Array of shape (..., 2). (An alias, kept so that code
// naming the old key struct compiles: a key is an Array.)
using Key = Array;

// jax.random.PRNGKey(seed): [seed >> 32, seed & 0xFFFFFFFF] as uint32 (a 64-bit seed, as with
// x64 on).
Array PRNGKey(int64_t seed);
// jax.random.PRNGKey of a seed array (a scalar integer, traced or not: vmap over seeds works):
// 64-bit seeds give their two words, narrower ones [0, seed & 0xFFFFFFFF] as in JAX.
Array PRNGKey(const Array &seed);
// jax.random.key(seed): in jx the raw uint32[2] key, the same as PRNGKey(seed) (see above).
Array key(int64_t seed);
Array key(const Array &seed);
// jax.random.key_data(keys): the uint32 (..., 2) data of keys; the identity on jx's raw keys.
Array key_data(const Array &keys);
// jax.random.wrap_key_data(key_bits_array): jx's keys are the data itself, so this checks that
// the array is uint32 of shape (..., 2) (JAX's TypeError otherwise) and returns it.
Array wrap_key_data(const Array &key_bits_array);

// jax.random.split(key, num): num new keys, a (num, 2) array.
Array split(const Array &key, int64_t num = 2);
// jax.random.split(key, shape): keys of shape (*shape, 2).
Array split(const Array &key, const Shape &shape);
// jax.random.fold_in(key, data): a new key from key and a scalar integer data (traced or not;
// converted to uint32 as jnp.asarray(data, 'uint32') does).
Array fold_in(const Array &key, const Array &data);

// jax.random.bits(key, shape, dtype): uniform random unsigned integers (uint8, uint16, uint32,
// uint64).
Array bits(const Array &key, const Shape &shape = {}, DType dtype = DType::uint64);

// jax.random.uniform(key, shape, dtype, minval, maxval): floats in [minval, maxval) (float16,
// bfloat16, float32, float64). minval and maxval broadcast to shape.
Array uniform(const Array &key, const Shape &shape = {}, DType dtype = DType::float64,
              const Array &minval = 0.0, const Array &maxval = 1.0);
// jax.random.normal(key, shape, dtype): standard normal floats.
Array normal(const Array &key, const Shape &shape = {}, DType dtype = DType::float64);
// jax.random.randint(key, shape, minval, maxval, dtype): integers in [minval, maxval) (minval
// when maxval <= minval), by JAX's modulus of two words of random bits.
Array randint(const Array &key, const Shape &shape, const Array &minval, const Array &maxval,
              DType dtype = DType::int64);
// jax.random.bernoulli(key, p, shape, mode): bools, true with probability p (a float scalar or
// array; shape defaults to p's). mode "low" or "high" (twice the random bits, for tiny p).
Array bernoulli(const Array &key, const Array &p = 0.5,
                const std::optional<Shape> &shape = std::nullopt, std::string_view mode = "low");
// jax.random.exponential(key, shape, dtype): -log1p(-u).
Array exponential(const Array &key, const Shape &shape = {}, DType dtype = DType::float64);
// jax.random.gumbel(key, shape, dtype, mode): -log(-log(u)); mode "low" (default) or "high"
// (twice the random bits). JAX's "highest" (float32 only) is not in jx.
Array gumbel(const Array &key, const Shape &shape = {}, DType dtype = DType::float64,
             std::string_view mode = "low");
// jax.random.truncated_normal(key, lower, upper, shape, dtype): normal values in the open
// interval (lower, upper); shape defaults to the bounds' broadcast shape.
Array truncated_normal(const Array &key, const Array &lower, const Array &upper,
                       const std::optional<Shape> &shape = std::nullopt,
                       DType dtype = DType::float64);
// jax.random.categorical(key, logits, axis, shape, replace, mode): indices (int64) drawn with
// probabilities softmax(logits, axis), by the Gumbel-max trick (top-k without replacement).
Array categorical(const Array &key, const Array &logits, int64_t axis = -1,
                  const std::optional<Shape> &shape = std::nullopt, bool replace = true,
                  std::string_view mode = "low");
// jax.random.permutation(key, x, axis, independent): x shuffled along axis (each line on its own
// with independent), or arange(x) shuffled for an integer scalar x (which must be concrete).
Array permutation(const Array &key, const Array &x, int64_t axis = 0, bool independent = false);
// jax.random.choice(key, a, shape, replace, p, axis): samples of a's entries along axis (of
// arange(a) for an integer scalar a, which must be concrete), uniformly or with probabilities p.
Array choice(const Array &key, const Array &a, const Shape &shape = {}, bool replace = true,
             const std::optional<Array> &p = std::nullopt, int64_t axis = 0,
             std::string_view mode = "low");

} // namespace jx::random
