// Cumulative reductions: lax.cumsum/cumprod/cummax/cummin (ops.def's library ops, computed in
// order along the axis by the runtime, as NumPy's accumulate) and the jnp functions over them.
#include <jx/lax.h>
#include <jx/numpy.h>

#include <fmt/format.h>

#include "api/internal.h"

namespace jx::lax {

namespace {

Array cumulative(ir::Op op, std::string_view name, const Array &x, int64_t axis, bool reverse) {
  if (x.dtype() == DType::bool_)
    throw TypeError(fmt::format("lax.{} does not accept dtype bool", name));
  const int64_t a = api::normalize_axis(axis, x.ndim());
  return api::wrap(ir::cumulative(op, api::node_of(x), a, reverse));
}

} // namespace

Array cumsum(const Array &operand, int64_t axis, bool reverse) {
  return cumulative(ir::Op::CumSum, "cumsum", operand, axis, reverse);
}
Array cumprod(const Array &operand, int64_t axis, bool reverse) {
  return cumulative(ir::Op::CumProd, "cumprod", operand, axis, reverse);
}
Array cummax(const Array &operand, int64_t axis, bool reverse) {
  return cumulative(ir::Op::CumMax, "cummax", operand, axis, reverse);
}
Array cummin(const Array &operand, int64_t axis, bool reverse) {
  return cumulative(ir::Op::CumMin, "cummin", operand, axis, reverse);
}

} // namespace jx::lax

namespace jx::numpy {

namespace {

Array accumulator(const Array &x) { return x.astype(api::accumulator_dtype(x.dtype())); }

Array running(bool product, const Array &x, std::optional<int64_t> axis) {
  const Array in = accumulator(axis ? x : ravel(x));
  const int64_t a = axis.value_or(0);
  return product ? lax::cumprod(in, a) : lax::cumsum(in, a);
}

// The array API's cumulative_sum/prod: an axis unless the array is 1-D; include_initial puts the
// identity first.
Array cumulative(bool product, const Array &x, std::optional<int64_t> axis, bool include_initial) {
  if (x.ndim() == 0)
    throw ValueError(fmt::format("The input must be non-scalar to take a cumulative {}, however a "
                                 "scalar value or scalar array was given.",
                                 product ? "product" : "sum"));
  if (!axis && x.ndim() > 1)
    throw ValueError(fmt::format("The input array has rank {}, however axis was not set to an "
                                 "explicit value. The axis argument is only optional for "
                                 "one-dimensional arrays.",
                                 x.ndim()));
  const int64_t a = api::normalize_axis(axis.value_or(0), x.ndim());
  Array out = running(product, x, a);
  if (!include_initial) return out;
  Shape first = out.shape();
  first[a] = 1;
  return concatenate({full(first, product ? 1 : 0, out.dtype()), out}, a);
}

} // namespace

Array cumsum(const Array &x, std::optional<int64_t> axis) { return running(false, x, axis); }
Array cumprod(const Array &x, std::optional<int64_t> axis) { return running(true, x, axis); }
Array cumulative_sum(const Array &x, const CumulativeOptions &o) {
  return cumulative(false, x, o.axis, o.include_initial);
}
Array cumulative_prod(const Array &x, const CumulativeOptions &o) {
  return cumulative(true, x, o.axis, o.include_initial);
}
Array nancumsum(const Array &x, std::optional<int64_t> axis) {
  return cumsum(is_inexact(x.dtype()) ? where(isnan(x), zeros_like(x), x) : x, axis);
}
Array nancumprod(const Array &x, std::optional<int64_t> axis) {
  return cumprod(is_inexact(x.dtype()) ? where(isnan(x), ones_like(x), x) : x, axis);
}

// NumPy's: each step's jump beyond discont is brought into [-period/2, period/2) by whole periods
// (+period/2 for a positive jump of exactly half a period), and the corrections accumulate.
Array unwrap(const Array &p, const UnwrapOptions &o) {
  const double period = o.period;
  const Array x = api::to_inexact(p);
  const int64_t a = api::normalize_axis(o.axis, x.ndim());
  const Array dd = diff(x, 1, a);
  const double high = period / 2, low = -high;
  Array ddmod = remainder(dd - low, period) + low;
  ddmod = where(logical_and(ddmod == low, dd > 0), full_like(ddmod, high), ddmod);
  Array correction = ddmod - dd;
  correction = where(abs(dd) < o.discont.value_or(high), zeros_like(correction), correction);
  const Array rest = api::slice_along(x, a, 1, none) + cumsum(correction, a);
  return concatenate({api::slice_along(x, a, 0, 1), rest}, a);
}

} // namespace jx::numpy
