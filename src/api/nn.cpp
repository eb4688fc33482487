// jax.nn: each activation as JAX composes it (so values and derivatives agree with JAX's), relu
// and relu6 with JAX's custom derivatives (0 at the kinks).
#include <jx/nn.h>
#include <jx/scipy.h>
#include <jx/transforms.h>

#include <fmt/format.h>

#include <cmath>
#include <numbers>

#include "api/internal.h"
#include "transforms/custom.h"

namespace jx::nn {

namespace jnp = jx::numpy;
using api::node_of;
using api::NodePtr;
using api::to_inexact;
using api::wrap;

namespace {

// value, with the derivative t * (0 < x) for relu, t * (0 < x < 6) for relu6.
Array clipped_linear(const Array &value, const Array &x, bool capped) {
  static const int64_t relu_rule = transforms::register_jvp_rule(
      [](const std::vector<NodePtr> &x, const std::vector<NodePtr> &t) {
        const NodePtr zero = ir::broadcast(ir::literal(0, x[0]->dtype, false), x[0]->shape, {});
        return ir::select(ir::binary(ir::Op::Gt, x[0], zero), t[0], zero);
      });
  static const int64_t relu6_rule = transforms::register_jvp_rule(
      [](const std::vector<NodePtr> &x, const std::vector<NodePtr> &t) {
        const NodePtr zero = ir::broadcast(ir::literal(0, x[0]->dtype, false), x[0]->shape, {});
        const NodePtr six = ir::broadcast(ir::literal(6, x[0]->dtype, false), x[0]->shape, {});
        const NodePtr inside = ir::binary(ir::Op::And, ir::binary(ir::Op::Gt, x[0], zero),
                                          ir::binary(ir::Op::Lt, x[0], six));
        return ir::select(inside, t[0], zero);
      });
  return wrap(
      transforms::custom_jvp_node(capped ? relu6_rule : relu_rule, node_of(value), {node_of(x)}));
}

} // namespace

Array relu(const Array &x) {
  if (!is_floating(x.dtype())) return jnp::maximum(x, 0);
  return clipped_linear(jnp::maximum(x, 0), x, false);
}
Array relu6(const Array &x) {
  if (!is_floating(x.dtype())) return jnp::minimum(jnp::maximum(x, 0), 6);
  return clipped_linear(jnp::minimum(jnp::maximum(x, 0), 6.0), x, true);
}
Array sigmoid(const Array &x) { return scipy::special::expit(x); }
Array softplus(const Array &x) { return jnp::logaddexp(x, 0); }
Array log_sigmoid(const Array &x) { return -softplus(-to_inexact(x)); }
Array sparse_plus(const Array &x) {
  const Array f = to_inexact(x);
  return jnp::where(f <= -1.0, jnp::zeros_like(f), jnp::where(f >= 1.0, f, (f + 1) * (f + 1) / 4));
}
Array sparse_sigmoid(const Array &x) { return 0.5 * jnp::clip(to_inexact(x) + 1.0, 0.0, 2.0); }
Array soft_sign(const Array &x) {
  const Array f = to_inexact(x);
  return f / (jnp::abs(f) + 1);
}
Array silu(const Array &x) { return to_inexact(x) * sigmoid(x); }
Array swish(const Array &x) { return silu(x); }
Array hard_sigmoid(const Array &x) { return relu6(to_inexact(x) + 3.0) / 6.0; }
Array hard_silu(const Array &x) { return to_inexact(x) * hard_sigmoid(x); }
Array hard_swish(const Array &x) { return hard_silu(x); }
Array hard_tanh(const Array &x) {
  const Array f = to_inexact(x);
  return jnp::where(f > 1, jnp::ones_like(f), jnp::where(f < -1, -jnp::ones_like(f), f));
}
Array tanh(const Array &x) { return jnp::tanh(x); }
Array identity(const Array &x) { return x; }
Array leaky_relu(const Array &x, double negative_slope) {
  const Array f = to_inexact(x);
  return jnp::where(f >= 0, f, negative_slope * f);
}
Array elu(const Array &x, double alpha) {
  const Array f = to_inexact(x);
  const Array safe = jnp::where(f > 0, jnp::zeros_like(f), f);
  return jnp::where(f > 0, f, alpha * jnp::expm1(safe));
}
Array celu(const Array &x, double alpha) {
  const Array f = to_inexact(x);
  return jnp::maximum(f, 0.0) + alpha * jnp::expm1(jnp::minimum(f, 0.0) / alpha);
}
Array selu(const Array &x) {
  constexpr double alpha = 1.6732632423543772848170429916717;
  constexpr double scale = 1.0507009873554804934193349852946;
  return scale * elu(x, alpha);
}
Array gelu(const Array &x, bool approximate) {
  const Array f = to_inexact(x);
  if (approximate) {
    const double sqrt_2_over_pi = std::sqrt(2 / std::numbers::pi);
    const Array cdf = 0.5 * (1.0 + jnp::tanh(sqrt_2_over_pi * (f + 0.044715 * (f * f * f))));
    return f * cdf;
  }
  return f * (scipy::special::erf(f / std::numbers::sqrt2) + 1) / 2;
}
Array glu(const Array &x, int64_t axis) {
  const int64_t a = api::normalize_axis(axis, x.ndim());
  if (x.shape()[a] % 2 != 0) throw ValueError("axis size must be divisible by 2");
  const std::vector<Array> halves = jnp::split(x, 2, a);
  return halves[0] * sigmoid(halves[1]);
}
Array mish(const Array &x) { return to_inexact(x) * jnp::tanh(softplus(x)); }
Array squareplus(const Array &x, double b) {
  const Array f = to_inexact(x);
  return (f + jnp::sqrt(jnp::square(f) + b)) / 2;
}
Array log1mexp(const Array &x) {
  const Array f = to_inexact(x);
  return jnp::where(f < std::numbers::ln2, jnp::log(-jnp::expm1(-f)), jnp::log1p(-jnp::exp(-f)));
}
Array softmax(const Array &x, const jnp::Axes &axis) { return scipy::special::softmax(x, axis); }
Array log_softmax(const Array &x, const jnp::Axes &axis) {
  return scipy::special::log_softmax(x, axis);
}
Array logsumexp(const Array &a, const jnp::AxisOptions &options) {
  return scipy::special::logsumexp(a, options);
}
Array logmeanexp(const Array &a, const jnp::AxisOptions &options) {
  int64_t count = 1;
  for (int64_t i : api::normalize_axes(options.axis, a.ndim()))
    count *= a.shape()[i];
  return logsumexp(a, options) - std::log(double(count));
}
Array standardize(const Array &x, const StandardizeOptions &o) {
  const Array f = to_inexact(x);
  const Array mean = jnp::mean(f, {.axis = o.axis, .keepdims = true});
  const Array variance =
      jnp::mean(jnp::square(f), {.axis = o.axis, .keepdims = true}) - jnp::square(mean);
  return (f - mean) * (1.0 / jnp::sqrt(variance + o.epsilon));
}
Array one_hot(const Array &x, int64_t num_classes, DType dtype) {
  if (num_classes < 0)
    throw ValueError(fmt::format("num_classes must be non-negative, got {}", num_classes));
  const Array classes = jnp::arange(num_classes, x.dtype());
  return (jnp::expand_dims(x, -1) == classes).astype(dtype);
}

} // namespace jx::nn
