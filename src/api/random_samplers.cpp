// jx::random's samplers beyond uniform and normal, each the composition jax/_src/random/core.py
// makes of random bits and uniform floats, op for op, so that their bits are JAX's: randint,
// bernoulli, exponential, gumbel, truncated_normal, categorical, permutation, choice.
#include <jx/numpy.h>
#include <jx/random.h>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "api/internal.h"
#include "api/random_internal.h"

namespace jx::random {

using api::node_of;
using api::wrap;
using namespace detail;
namespace jnp = jx::numpy;

namespace {

// _check_shape: the parameters' shapes broadcast with shape must give shape.
void check_param_shapes(std::string_view fn, const Shape &shape, const std::vector<Shape> &params) {
  std::vector<Shape> all{shape};
  all.insert(all.end(), params.begin(), params.end());
  const Shape b = api::broadcast_shapes(all);
  if (b != shape)
    throw ValueError(fmt::format(
        "{} parameter shapes must be broadcast-compatible with shape argument, and the result of "
        "broadcasting the shapes must equal the shape argument, but got result {} for shape "
        "argument {}.",
        fn, shape_str(b), shape_str(shape)));
}

// numpy.iinfo(t).min or .max of an integer dtype, exactly.
__int128 int_limit(DType t, bool max) {
  const int64_t bits = api::integer_limit(t, max);
  return t == DType::uint64 && max ? __int128(uint64_t(bits)) : __int128(bits);
}

// lax._const(val, v) for an integer v within val's dtype.
Array const_like(const Array &val, __int128 v) { return int_literal(int64_t(v), val.dtype()); }

// _convert_and_clip_integer: val (integer) in dtype, clipped to the values both dtypes hold.
Array convert_and_clip(const Array &val, DType dtype) {
  const __int128 lo = std::max(int_limit(dtype, false), int_limit(val.dtype(), false));
  const __int128 hi = std::min(int_limit(dtype, true), int_limit(val.dtype(), true));
  return jnp::clip(val, const_like(val, lo), const_like(val, hi)).astype(dtype);
}

DType unsigned_of(DType t) {
  switch (itemsize(t)) {
  case 1: return DType::uint8;
  case 2: return DType::uint16;
  case 4: return DType::uint32;
  default: return DType::uint64;
  }
}

// lax.rem of unsigned integers: XLA's x % 0 is x (randint's span wraps to 0 for a full range).
Array xla_rem(const Array &x, const Array &span) {
  const Array zero = int_literal(0, span.dtype()), one = int_literal(1, span.dtype());
  const Array is_zero = span == zero;
  return jnp::where(is_zero, x, x % jnp::where(is_zero, one, span));
}

// _randint for a dtype of 32 or 64 bits.
Array randint_impl(const Array &key, const Shape &shape, Array minval, Array maxval, DType dtype) {
  check_param_shapes("randint", shape, {minval.shape(), maxval.shape()});
  if (!is_integer(minval.dtype())) minval = minval.astype(DType::int64);
  if (!is_integer(maxval.dtype())) maxval = maxval.astype(DType::int64);
  // Where maxval is past dtype's largest value (randint(key, shape, 0, 2**32, uint32)).
  const Array maxval_out_of_range =
      maxval >
      convert_and_clip(int_literal(int64_t(int_limit(dtype, true)), dtype), maxval.dtype());
  minval = convert_and_clip(minval, dtype);
  maxval = convert_and_clip(maxval, dtype);
  const int nbits = int(itemsize(dtype)) * 8;
  auto [k1, k2] = split2(key);
  const Array higher_bits = random_bits(k1, nbits, shape),
              lower_bits = random_bits(k2, nbits, shape);
  const DType udt = unsigned_of(dtype);
  const Array one = int_literal(1, udt);
  Array span = (maxval - minval).astype(udt);
  // span 1 where maxval <= minval (minval is returned), one more where maxval was out of range.
  span = jnp::where(maxval <= minval, one, span);
  span = jnp::where(maxval_out_of_range & (maxval > minval), span + one, span);
  // The remainder of a 2 * nbits random number: 2^nbits % span from (2^(nbits/2) % span)^2.
  Array multiplier = xla_rem(int_literal(int64_t(1) << (nbits / 2), udt), span);
  multiplier = xla_rem(multiplier * multiplier, span);
  Array offset = xla_rem(higher_bits, span) * multiplier + xla_rem(lower_bits, span);
  offset = xla_rem(offset, span);
  return jnp::broadcast_to(minval + offset.astype(dtype), shape);
}

// The k largest along the last axis, largest first, ties by index: lax.top_k's indices (int32),
// as a stable ascending sort of the negated values.
Array top_k_indices(const Array &x, int64_t k) {
  const Array order = jnp::argsort(-x, -1);
  return api::slice_along(order, -1, 0, k).astype(DType::int32);
}

// _shuffle: x sorted along axis by fresh random 32-bit keys, enough rounds that ties are
// unlikely (tjablin's bound: ceil(3 ln(size) / ln(2^32 - 1))). The sort is stable; XLA's need not
// be, which only matters where two keys tie.
Array shuffle(Array key, Array x, int64_t axis) {
  const double size = double(std::max<int64_t>(1, x.size()));
  const int rounds = int(std::ceil(3 * std::log(size) / std::log(double(UINT32_MAX))));
  for (int i = 0; i < rounds; ++i) {
    auto [next, subkey] = split2(key);
    key = next;
    const Array sort_keys = random_bits(subkey, 32, x.shape());
    x = jnp::take_along_axis(x, jnp::argsort(sort_keys, axis), axis);
  }
  return x;
}

} // namespace

Array randint(const Array &key, const Shape &shape, const Array &minval, const Array &maxval,
              DType dtype) {
  check_key(key, "randint");
  if (!is_integer(dtype))
    throw DTypeError(fmt::format("randint only accepts integer dtypes, got {}", dtype_name(dtype)));
  check_shape(shape);
  if (itemsize(dtype) >= 4) return randint_impl(key, shape, minval, maxval, dtype);
  // Narrower integers are sampled in 32 bits (less bias), their bounds clipped to dtype's range.
  const Array lo = jnp::clip(minval.astype(DType::int32), int64_t(int_limit(dtype, false)),
                             int64_t(int_limit(dtype, true)));
  const Array hi = jnp::clip(maxval.astype(DType::int32), int64_t(int_limit(dtype, false)),
                             int64_t(int_limit(dtype, true)) + 1);
  return randint_impl(key, shape, lo, hi, DType::int32).astype(dtype);
}

Array bernoulli(const Array &key, const Array &p, const std::optional<Shape> &shape,
                std::string_view mode) {
  if (mode != "high" && mode != "low")
    throw ValueError(fmt::format("got mode='{}', expected 'high' or 'low'", mode));
  check_key(key, "bernoulli");
  const DType dtype = p.dtype();
  if (!is_floating(dtype))
    throw DTypeError(fmt::format("bernoulli probability `p` must have a floating dtype, got {}.",
                                 dtype_name(dtype)));
  const Shape s = shape ? *shape : p.shape();
  check_shape(s);
  if (shape) check_param_shapes("bernoulli", s, {p.shape()});
  const Array prob = p.astype(dtype); // strongly typed, as lax.convert_element_type
  if (mode == "low") return unit_uniform(key, s, dtype) < prob;
  // Twice the bits: u1 + u2 * 2^-nmant is uniform on a finer grid.
  Shape two = s;
  two.insert(two.begin(), 2);
  const Array u = unit_uniform(key, two, dtype);
  const Array u2 = u[1] * float_literal(std::ldexp(1.0, -mantissa_bits(dtype)), dtype);
  return u2 < prob - u[0];
}

Array exponential(const Array &key, const Shape &shape, DType dtype) {
  check_key(key, "exponential");
  check_float(dtype, "exponential");
  check_shape(shape);
  // 1 - u in (0, 1]: its log.
  return -jnp::log1p(-unit_uniform(key, shape, dtype));
}

Array gumbel(const Array &key, const Shape &shape, DType dtype, std::string_view mode) {
  check_key(key, "gumbel");
  check_float(dtype, "gumbel");
  check_shape(shape);
  if (mode != "high" && mode != "low")
    throw ValueError(
        fmt::format("Must provide valid mode for gumbel got: {} (jx has 'low' and 'high')", mode));
  const double tiny = std::ldexp(1.0, dtype == DType::float16   ? -14
                                      : dtype == DType::float64 ? -1022
                                                                : -126);
  if (mode == "low")
    return -jnp::log(-jnp::log(
        scaled_uniform(key, shape, dtype, float_literal(tiny, dtype), float_literal(1.0, dtype))));
  Shape two = shape;
  two.insert(two.begin(), 2);
  const Array u = unit_uniform(key, two, dtype);
  const Array high = u[0], low = u[1];
  const Array finer = high + float_literal(std::ldexp(1.0, -mantissa_bits(dtype)), dtype) * low +
                      float_literal(tiny, dtype);
  const Array x = jnp::where(high >= float_literal(0.5, dtype), high, finer);
  return -jnp::log(-jnp::log1p(-x));
}

Array truncated_normal(const Array &key, const Array &lower, const Array &upper,
                       const std::optional<Shape> &shape, DType dtype) {
  check_key(key, "truncated_normal");
  check_float(dtype, "truncated_normal");
  Shape s;
  if (shape) {
    s = *shape;
    check_shape(s);
    check_param_shapes("truncated_normal", s, {lower.shape(), upper.shape()});
  } else {
    s = api::broadcast_shapes({lower.shape(), upper.shape()});
  }
  const Array sqrt2 = float_literal(std::sqrt(2.0), dtype);
  const Array lo = lower.astype(dtype), hi = upper.astype(dtype);
  const Array a = wrap(ir::unary(ir::Op::Erf, node_of(lo / sqrt2)));
  const Array b = wrap(ir::unary(ir::Op::Erf, node_of(hi / sqrt2)));
  const Array u = scaled_uniform(key, s, dtype, a, b);
  const Array out = sqrt2 * wrap(ir::unary(ir::Op::ErfInv, node_of(u)));
  // Into the open interval (lower, upper): rounding (or u == a) may reach a bound.
  const Array inf = float_literal(std::numeric_limits<double>::infinity(), dtype);
  return jnp::clip(out, jnp::nextafter(lo, inf), jnp::nextafter(hi, -inf));
}

Array categorical(const Array &key, const Array &logits, int64_t axis,
                  const std::optional<Shape> &shape, bool replace, std::string_view mode) {
  check_key(key, "categorical");
  const int64_t ndim = logits.ndim();
  const int64_t ax = api::normalize_axis(axis, std::max<int64_t>(ndim, 1));
  Shape batch_shape = logits.shape();
  if (ndim > 0) batch_shape.erase(batch_shape.begin() + ax);
  Shape s = batch_shape;
  if (shape) {
    s = *shape;
    check_shape(s);
    check_param_shapes("categorical", s, {batch_shape});
  }
  const size_t prefix = s.size() - batch_shape.size();
  if (replace) {
    // Gumbel noise of shape (*prefix, *shape's batch part with logits' axis inserted), plus the
    // logits; argmax along that axis.
    Shape noise_shape(s.begin(), s.end());
    noise_shape.insert(noise_shape.begin() + int64_t(prefix) + ax, logits.shape()[ax]);
    std::vector<int64_t> new_axes;
    for (size_t i = 0; i < prefix; ++i)
      new_axes.push_back(int64_t(i));
    const Array noisy = gumbel(key, noise_shape, logits.dtype(), mode) +
                        (prefix ? jnp::expand_dims(logits, new_axes) : logits);
    return jnp::argmax(noisy, ax - ndim);
  }
  const Array noisy = logits + gumbel(key, logits.shape(), logits.dtype(), mode);
  int64_t k = 1;
  for (size_t i = 0; i < prefix; ++i)
    k *= s[i];
  if (k > logits.shape()[ax])
    throw ValueError(fmt::format(
        "Number of samples without replacement ({}) cannot exceed number of categories ({}).", k,
        logits.shape()[ax]));
  // top_k's indices, (*batch_shape, k), with the k axis moved first, reshaped to shape.
  const Array indices = top_k_indices(jnp::moveaxis(noisy, ax, -1), k);
  return jnp::moveaxis(indices, -1, 0).reshape(s);
}

Array permutation(const Array &key, const Array &x, int64_t axis, bool independent) {
  check_key(key, "permutation");
  if (x.ndim() == 0) {
    if (!is_integer(x.dtype())) throw TypeError("x must be an integer or at least 1-dimensional");
    api::normalize_axis(axis, 1);
    return shuffle(key, jnp::arange(concrete_int(x, "argument x of jax.random.permutation()")), 0);
  }
  axis = api::normalize_axis(axis, x.ndim());
  if (independent || x.ndim() == 1) return shuffle(key, x, axis);
  const Array order = shuffle(key, jnp::arange(x.shape()[axis]), 0);
  return jnp::take(x, order, axis);
}

Array choice(const Array &key, const Array &a, const Shape &shape, bool replace,
             const std::optional<Array> &p, int64_t axis, std::string_view mode) {
  check_key(key, "choice");
  check_shape(shape);
  int64_t n_inputs;
  if (a.ndim() == 0) {
    n_inputs = concrete_int(a, "The error occurred in jax.random.choice()");
  } else {
    axis = api::normalize_axis(axis, a.ndim());
    n_inputs = a.shape()[axis];
  }
  const int64_t n_draws = shape_size(shape);
  if (n_draws == 0) return jnp::zeros(shape, a.dtype());
  if (n_inputs <= 0) throw ValueError("a must be greater than 0 unless no samples are taken");
  if (!replace && n_draws > n_inputs)
    throw ValueError(fmt::format("Cannot take a larger sample (size {}) than population (size {}) "
                                 "when 'replace=False'",
                                 n_draws, n_inputs));
  Array result;
  if (!p) {
    if (replace) {
      const Array ind = randint(key, shape, 0, n_inputs);
      result = a.ndim() == 0 ? ind : jnp::take(a, ind, axis);
    } else {
      const Array perm = permutation(key, a.ndim() == 0 ? Array(n_inputs) : a, axis);
      result = api::slice_along(perm, a.ndim() == 0 ? 0 : axis, 0, n_draws);
    }
  } else {
    const Array prob = api::to_inexact(*p);
    if (prob.shape() != Shape{n_inputs})
      throw ValueError(fmt::format("p must be None or a 1D vector with the same size as "
                                   "a.shape[axis]. p has shape {} and a.shape[axis] is {}.",
                                   shape_str(prob.shape()), n_inputs));
    Array ind;
    if (replace) {
      const Array cumulative = jnp::cumsum(prob);
      const Array r = cumulative[-1] * (1 - uniform(key, shape, cumulative.dtype()));
      ind = jnp::searchsorted(cumulative, r).astype(DType::int64);
    } else {
      // The Gumbel top-k trick.
      const Array g = gumbel(key, {n_inputs}, prob.dtype(), mode) + jnp::log(prob);
      ind = top_k_indices(g, n_draws).astype(DType::int64);
    }
    result = a.ndim() == 0 ? ind : jnp::take(a, ind, axis);
  }
  Shape out = shape;
  if (a.ndim() != 0) {
    out.assign(a.shape().begin(), a.shape().begin() + axis);
    out.insert(out.end(), shape.begin(), shape.end());
    out.insert(out.end(), a.shape().begin() + axis + 1, a.shape().end());
  }
  return result.reshape(out);
}

} // namespace jx::random
