// jx::random: keys and split are computed at once (two words); uniform and normal build graphs
// over a random_uniform leaf, in the same float ops and order as jax.random.
#include <jx/numpy.h>
#include <jx/random.h>

#include <cmath>
#include <fmt/format.h>

#include "api/internal.h"
#include "runtime/threefry.h"

namespace jx::random {

using api::NodePtr;
using api::wrap;
namespace jnp = jx::numpy;

namespace {

random_impl::Key impl(const Key &k) { return {k.hi, k.lo}; }
Key from_impl(const random_impl::Key &k) { return {k.hi, k.lo}; }

void check_float(DType dtype, std::string_view fn) {
  if (!is_floating(dtype))
    throw DTypeError(
        fmt::format("dtype argument to `{}` must be a float dtype, got {}", fn, dtype_name(dtype)));
}

void check_shape(const Shape &shape) {
  for (int64_t d : shape)
    if (d < 0) throw ValueError("negative dimensions are not allowed");
}

// Uniform floats in [0, 1): the top mantissa bits of threefry output, as jax.random.uniform.
Array unit_uniform(const Key &key, const Shape &shape, DType dtype) {
  return wrap(ir::random_uniform(key.hi, key.lo, dtype, shape));
}

} // namespace

Key PRNGKey(int64_t seed) { return from_impl(random_impl::prng_key(seed)); }

std::vector<Key> split(const Key &key, int64_t num) {
  if (num < 0) throw ValueError("split: num must be non-negative");
  // The keys are a (num, 2) uint32 array in JAX: its size checks apply (a huge num threw
  // std::length_error from the vector).
  checked_size({num, 2}, sizeof(uint32_t));
  try {
    std::vector<Key> out;
    for (const random_impl::Key &k : random_impl::split(impl(key), num))
      out.push_back(from_impl(k));
    return out;
  } catch (const std::bad_alloc &) {
    throw MemoryError(fmt::format("Unable to allocate {} keys for split", num));
  }
}

Key fold_in(const Key &key, uint32_t data) {
  return from_impl(random_impl::fold_in(impl(key), data));
}

Array uniform(const Key &key, const Shape &shape, DType dtype, const Array &minval,
              const Array &maxval) {
  check_float(dtype, "uniform");
  check_shape(shape);
  Array lo = jnp::broadcast_to(minval.astype(dtype), shape);
  Array hi = jnp::broadcast_to(maxval.astype(dtype), shape);
  Array f = unit_uniform(key, shape, dtype);
  // One rounding, as XLA:CPU contracts jax.random.uniform's f * (hi - lo) + lo.
  const Array scaled = api::wrap(ir::fma(api::node_of(f), api::node_of(hi - lo), api::node_of(lo)));
  return jnp::maximum(lo, scaled);
}

Array normal(const Key &key, const Shape &shape, DType dtype) {
  check_float(dtype, "normal");
  check_shape(shape);
  const double lo =
      dtype == DType::float32 ? double(std::nextafter(-1.0f, 0.0f)) : std::nextafter(-1.0, 0.0);
  Array u = uniform(key, shape, dtype, jnp::array(lo, dtype), jnp::array(1.0, dtype));
  Array e = wrap(ir::unary(ir::Op::ErfInv, api::node_of(u)));
  return jnp::array(std::sqrt(2.0), dtype) * e;
}

} // namespace jx::random
