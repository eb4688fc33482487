// jax.lax's elementwise functions that are ops of the graph (ir/ops.def): no promotion, JAX's
// error for a dtype the op does not accept; complex operands computed as XLA expands the op.
#include <jx/error.h>
#include <jx/lax.h>
#include <jx/numpy.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "api/internal.h"

namespace jx::lax {

namespace {

namespace jnp = jx::numpy;
using ir::Op;

enum Accepts : unsigned { Integer = 1, Floating = 2, Complex = 4 };

// JAX's standard_unop dtype rule and its message.
void check_dtype(Op op, DType t, unsigned accepts) {
  if ((accepts & Integer && is_integer(t)) || (accepts & Floating && is_floating(t)) ||
      (accepts & Complex && is_complex(t)))
    return;
  std::vector<std::string> kinds;
  if (accepts & Integer) kinds.push_back("integer");
  if (accepts & Floating) kinds.push_back("floating");
  if (accepts & Complex) kinds.push_back("complexfloating");
  throw TypeError(fmt::format("{} does not accept dtype {}. Accepted dtypes are subtypes of {}.",
                              ir::op_name(op), dtype_name(t), fmt::join(kinds, ", ")));
}

Array unary(Op op, const Array &x, unsigned accepts) {
  check_dtype(op, x.dtype(), accepts);
  return Array(ir::unary(op, x.node()));
}

} // namespace

Array population_count(const Array &x) { return unary(Op::PopulationCount, x, Integer); }
Array clz(const Array &x) { return unary(Op::Clz, x, Integer); }

Array square(const Array &x) {
  if (is_complex(x.dtype())) return x * x;
  return unary(Op::Square, x, Integer | Floating | Complex);
}

Array rsqrt(const Array &x) {
  if (is_complex(x.dtype())) return 1.0 / jnp::sqrt(x);
  return unary(Op::Rsqrt, x, Floating | Complex);
}

Array logistic(const Array &x) {
  if (is_complex(x.dtype())) return 1.0 / (1.0 + jnp::exp(-x));
  return unary(Op::Logistic, x, Floating | Complex);
}

} // namespace jx::lax
