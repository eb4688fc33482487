// jx::random's keys and bits: keys are uint32 (..., 2) arrays; threefry2x32 is composed from jnp's
// uint32 ops, so traced keys (jit arguments, loop carries, vmapped batches) trace like any value.
// A key whose value is known takes faster paths to the same bits: split and fold_in compute the
// new key at once, uniform and normal read a random_uniform leaf (the runtime's threefry core).
#include <jx/numpy.h>
#include <jx/random.h>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>

#include "api/internal.h"
#include "api/random_internal.h"
#include "runtime/threefry.h"

namespace jx::random {

using api::node_of;
using api::NodePtr;
using api::wrap;
namespace jnp = jx::numpy;

namespace {

// Graphs this small that read no traced value are evaluated at once to find a key's words.
constexpr size_t max_known_nodes = 64;

// Whether n's pending graph reads no traced value and has at most max_known_nodes nodes.
bool small_and_untraced(const NodePtr &n) {
  std::vector<const ir::Node *> stack{n.get()}, seen;
  while (!stack.empty()) {
    const ir::Node *x = stack.back();
    stack.pop_back();
    if (std::find(seen.begin(), seen.end(), x) != seen.end()) continue;
    if (x->value()) continue; // data already: a leaf here
    if (x->op == ir::Op::Parameter || x->regions || seen.size() >= max_known_nodes) return false;
    seen.push_back(x);
    for (const NodePtr &in : x->inputs)
      stack.push_back(in.get());
  }
  return true;
}

} // namespace

namespace detail {

void check_key_data(const Array &key) {
  if (key.ndim() < 1)
    throw TypeError(fmt::format("JAX encountered invalid PRNG key data: expected key_data.ndim >= "
                                "1; got ndim={}",
                                key.ndim()));
  if (key.shape().back() != 2)
    throw TypeError(fmt::format("JAX encountered invalid PRNG key data: expected key_data.shape to "
                                "end with (2,); got shape={}",
                                shape_str(key.shape())));
  if (key.dtype() != DType::uint32)
    throw TypeError(fmt::format("JAX encountered invalid PRNG key data: expected key_data.dtype = "
                                "uint32; got dtype={}",
                                dtype_name(key.dtype())));
}

void check_key(const Array &key, std::string_view fn) {
  check_key_data(key);
  if (key.ndim() != 1)
    throw ValueError(fmt::format("{} accepts a single key, but was given a key array of shape {} "
                                 "!= (). Use jx::vmap for batching.",
                                 fn, shape_str(key.shape())));
}

void check_float(DType dtype, std::string_view fn) {
  if (!is_floating(dtype))
    throw DTypeError(
        fmt::format("dtype argument to `{}` must be a float dtype, got {}", fn, dtype_name(dtype)));
}

void check_shape(const Shape &shape) {
  for (int64_t d : shape)
    if (d < 0) throw ValueError("negative dimensions are not allowed");
}

Array int_literal(int64_t bits, DType dtype) { return wrap(ir::literal_int(bits, dtype, false)); }
Array float_literal(double value, DType dtype) { return wrap(ir::literal(value, dtype, false)); }

int mantissa_bits(DType dtype) {
  switch (dtype) {
  case DType::float16: return 10;
  case DType::bfloat16: return 7;
  case DType::float32: return 23;
  default: return 52;
  }
}

std::optional<Array> known_value(const Array &x) {
  const NodePtr &n = node_of(x);
  if (n->value()) return x;
  if (small_and_untraced(n)) // the reference evaluator: a few scalar ops, no kernel to compile
    return Array(
        ir::constant(api::evaluate_with(api::Backend::Interpreter, n), n->dtype, n->shape));
  if (ir::tracing()) return std::nullopt;
  api::realize(n);
  return x;
}

int64_t concrete_int(const Array &x, std::string_view what) {
  std::optional<Array> v = known_value(x);
  if (!v)
    throw ConcretizationTypeError(fmt::format(
        "Abstract tracer value encountered where concrete value is expected: {}", what));
  return v->item<int64_t>();
}

} // namespace detail

using namespace detail;

namespace {

Array u32(uint32_t v) { return int_literal(int64_t(v), DType::uint32); }

std::optional<std::vector<uint32_t>> known_words(const Array &x) {
  std::optional<Array> v = known_value(x);
  if (!v) return std::nullopt;
  return v->to_vector<uint32_t>();
}

std::optional<random_impl::Key> known_key(const Array &key) {
  std::optional<std::vector<uint32_t>> w = known_words(key);
  if (!w) return std::nullopt;
  return random_impl::Key{(*w)[0], (*w)[1]};
}

// A (..., 2) uint32 key array of these keys.
Array key_array(const std::vector<random_impl::Key> &keys, Shape shape) {
  std::vector<uint32_t> words;
  words.reserve(2 * keys.size());
  for (const random_impl::Key &k : keys)
    words.insert(words.end(), {k.hi, k.lo});
  shape.push_back(2);
  return jnp::array(words, shape);
}

// The two words of a single key as uint32 scalars: literals for a known key, else the key's
// elements (traced).
std::pair<Array, Array> key_words(const Array &key) {
  if (std::optional<random_impl::Key> k = known_key(key)) return {u32(k->hi), u32(k->lo)};
  return {key[0], key[1]};
}

Array rotate_left(const Array &x, uint32_t r) { return (x << u32(r)) | (x >> u32(32 - r)); }

// jax's threefry2x32 (20 rounds) of the counter pairs (x0, x1) under key (k0, k1), broadcast
// together: the rounds of threefry2x32.py's _threefry2x32_lowering, in uint32 (adds wrap).
std::pair<Array, Array> threefry2x32(const Array &k0, const Array &k1, Array x0, Array x1) {
  static constexpr uint32_t rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const Array ks[3] = {k0, k1, k0 ^ k1 ^ u32(0x1BD11BDA)};
  x0 = x0 + ks[0];
  x1 = x1 + ks[1];
  for (uint32_t i = 0; i < 5; ++i) {
    for (uint32_t r : rotations[i % 2]) {
      x0 = x0 + x1;
      x1 = x0 ^ rotate_left(x1, r);
    }
    // The key words plus the round number first: scalars (adds wrap, so the order is free).
    x0 = x0 + ks[(i + 1) % 3];
    x1 = x1 + (ks[(i + 2) % 3] + u32(i + 1));
  }
  return {x0, x1};
}

// prng.iota_2x32_shape(shape): the 64-bit row-major index of each element as (high, low) words.
std::pair<Array, Array> counters(const Shape &shape) {
  const int64_t n = shape_size(shape);
  if (n <= int64_t(UINT32_MAX)) {
    Array lo = wrap(ir::reshape(ir::iota(DType::uint32, {n}, 0), shape));
    return {jnp::broadcast_to(u32(0), shape), lo};
  }
  const Array index = wrap(ir::reshape(ir::iota(DType::uint64, {n}, 0), shape));
  return {(index >> int_literal(32, DType::uint64)).astype(DType::uint32),
          index.astype(DType::uint32)};
}

// threefry2x32 of the counters of shape under a single key.
std::pair<Array, Array> hash_counters(const Array &key, const Shape &shape) {
  auto [k0, k1] = key_words(key);
  auto [c0, c1] = counters(shape);
  return threefry2x32(k0, k1, c0, c1);
}

// JAX's key from a seed array: threefry_seed.
Array seed_key(const Array &seed, std::string_view fn) {
  if (seed.ndim() != 0)
    throw TypeError(fmt::format("{} accepts a scalar seed, but was given an array of shape {} != "
                                "(). Use jx::vmap for batching",
                                fn, shape_str(seed.shape())));
  if (!is_integer(seed.dtype()))
    throw TypeError(
        fmt::format("PRNG key seed must be an integer; got a {} seed", dtype_name(seed.dtype())));
  // The high word: a logical shift right by 32 (zero for seeds of 32 bits or fewer, as XLA
  // shifts past the width); the low word: the seed converted (sign-extended) to uint32.
  const Array hi =
      itemsize(seed.dtype()) == 8
          ? (seed.astype(DType::uint64) >> int_literal(32, DType::uint64)).astype(DType::uint32)
          : jnp::broadcast_to(u32(0), {});
  return jnp::stack({hi, seed.astype(DType::uint32)});
}

} // namespace

namespace detail {

std::pair<Array, Array> split2(const Array &key) {
  const Array keys = split(key, 2);
  return {keys[0], keys[1]};
}

Array random_bits(const Array &key, int bit_width, const Shape &shape) {
  check_shape(shape);
  auto [o0, o1] = hash_counters(key, shape);
  switch (bit_width) {
  case 64:
    return (o0.astype(DType::uint64) << int_literal(32, DType::uint64)) | o1.astype(DType::uint64);
  case 32: return o0 ^ o1;
  case 16: return (o0 ^ o1).astype(DType::uint16);
  case 8: return (o0 ^ o1).astype(DType::uint8);
  }
  throw TypeError("requires 8-, 16-, 32- or 64-bit field width.");
}

Array unit_uniform(const Array &key, const Shape &shape, DType dtype) {
  if (dtype == DType::float32 || dtype == DType::float64)
    if (std::optional<random_impl::Key> k = known_key(key))
      return wrap(ir::random_uniform(k->hi, k->lo, dtype, shape));
  // The top nmant bits of nbits random bits (8 where nmant < 8, as bfloat16's 7) over 1.0, minus
  // 1, is those bits times 2^-nmant: exact, so no bitcast is needed for JAX's bits.
  const int nbits = int(itemsize(dtype)) * 8, nmant = mantissa_bits(dtype);
  const int rng_bits = nmant < 8 ? 8 : nbits;
  const DType uint_dtype = nbits == 16   ? DType::uint16
                           : nbits == 32 ? DType::uint32
                                         : DType::uint64;
  const Array bits = random_bits(key, rng_bits, shape).astype(uint_dtype);
  const Array mantissa = bits >> int_literal(rng_bits - nmant, uint_dtype);
  return mantissa.astype(dtype) * float_literal(std::ldexp(1.0, -nmant), dtype);
}

Array scaled_uniform(const Array &key, const Shape &shape, DType dtype, const Array &minval,
                     const Array &maxval) {
  Array lo = jnp::broadcast_to(minval.astype(dtype), shape);
  Array hi = jnp::broadcast_to(maxval.astype(dtype), shape);
  Array f = unit_uniform(key, shape, dtype);
  // One rounding, as XLA:CPU contracts jax.random.uniform's f * (hi - lo) + lo; float16 and
  // bfloat16 arithmetic XLA:CPU runs in float32 op by op, each result rounded back: no contraction.
  const Array scaled = is_storage_float(dtype)
                           ? f * (hi - lo) + lo
                           : wrap(ir::fma(node_of(f), node_of(hi - lo), node_of(lo)));
  return jnp::maximum(lo, scaled);
}

} // namespace detail

Array PRNGKey(int64_t seed) { return key_array({random_impl::prng_key(seed)}, {}); }
Array PRNGKey(const Array &seed) { return seed_key(seed, "PRNGKey"); }
Array key(int64_t seed) { return PRNGKey(seed); }
Array key(const Array &seed) { return seed_key(seed, "key"); }

Array key_data(const Array &keys) {
  check_key_data(keys);
  return keys;
}

Array wrap_key_data(const Array &key_bits_array) {
  check_key_data(key_bits_array);
  return key_bits_array;
}

Array split(const Array &key, int64_t num) {
  if (num < 0) throw ValueError("split: num must be non-negative");
  return split(key, Shape{num});
}

Array split(const Array &key, const Shape &shape) {
  check_key(key, "split");
  check_shape(shape);
  // The keys are a (*shape, 2) uint32 array: its size checks apply before anything is made.
  Shape key_shape = shape;
  key_shape.push_back(2);
  const int64_t num = checked_size(key_shape, sizeof(uint32_t)) / 2;
  if (std::optional<random_impl::Key> k = known_key(key)) {
    try {
      return key_array(random_impl::split(*k, num), shape);
    } catch (const std::bad_alloc &) {
      throw MemoryError(fmt::format("Unable to allocate {} keys for split", num));
    }
  }
  auto [o0, o1] = hash_counters(key, shape);
  return jnp::stack({o0, o1}, int64_t(shape.size()));
}

Array fold_in(const Array &key, const Array &data) {
  check_key(key, "fold_in");
  if (data.ndim() != 0)
    throw TypeError(fmt::format("fold_in accepts a scalar, but was given an array of shape {} != "
                                "(). Use jx::vmap for batching.",
                                shape_str(data.shape())));
  // jnp.asarray(data, dtype='uint32'): integers wrap, floats truncate.
  const Array word = data.astype(DType::uint32);
  if (std::optional<random_impl::Key> k = known_key(key))
    if (std::optional<std::vector<uint32_t>> d = known_words(word))
      return key_array({random_impl::fold_in(*k, (*d)[0])}, {});
  // threefry_2x32(key, threefry_seed(data)): the counter pair (0, data), its two output words.
  auto [k0, k1] = key_words(key);
  auto [o0, o1] = threefry2x32(k0, k1, u32(0), word);
  return jnp::stack({o0, o1});
}

Array bits(const Array &key, const Shape &shape, DType dtype) {
  check_key(key, "bits");
  if (!is_unsigned(dtype))
    throw DTypeError(fmt::format("dtype argument to `bits` must be an unsigned int dtype, got {}",
                                 dtype_name(dtype)));
  return random_bits(key, int(itemsize(dtype)) * 8, shape);
}

Array uniform(const Array &key, const Shape &shape, DType dtype, const Array &minval,
              const Array &maxval) {
  check_key(key, "uniform");
  check_float(dtype, "uniform");
  check_shape(shape);
  return scaled_uniform(key, shape, dtype, minval, maxval);
}

Array normal(const Array &key, const Shape &shape, DType dtype) {
  check_key(key, "normal");
  check_float(dtype, "normal");
  check_shape(shape);
  // JAX's _normal_real: u uniform in [nextafter(-1, 0), 1), then sqrt(2) * erf_inv(u), in dtype.
  // nextafter(-1, 0) is -(1 - 2^-(nmant + 1)), exact in every float dtype.
  const double lo = -(1.0 - std::ldexp(1.0, -(mantissa_bits(dtype) + 1)));
  Array u = scaled_uniform(key, shape, dtype, float_literal(lo, dtype), float_literal(1.0, dtype));
  Array e = wrap(ir::unary(ir::Op::ErfInv, node_of(u)));
  return float_literal(std::sqrt(2.0), dtype) * e;
}

} // namespace jx::random
