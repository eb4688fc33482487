// jax.nn: activations and the normalizations around them.
#pragma once

#include <jx/array.h>
#include <jx/numpy.h>

#include <optional>

namespace jx::nn {

Array relu(const Array &x);
Array relu6(const Array &x);
Array sigmoid(const Array &x);
Array log_sigmoid(const Array &x);
Array softplus(const Array &x);
Array sparse_plus(const Array &x);
Array sparse_sigmoid(const Array &x);
Array soft_sign(const Array &x);
Array silu(const Array &x);
Array swish(const Array &x);
Array hard_sigmoid(const Array &x);
Array hard_silu(const Array &x);
Array hard_swish(const Array &x);
Array hard_tanh(const Array &x);
Array tanh(const Array &x);
Array identity(const Array &x);
Array leaky_relu(const Array &x, double negative_slope = 0.01);
Array elu(const Array &x, double alpha = 1.0);
Array celu(const Array &x, double alpha = 1.0);
Array selu(const Array &x);
// approximate: the tanh form (jax.nn.gelu's default), else the exact erf form.
Array gelu(const Array &x, bool approximate = true);
Array glu(const Array &x, int64_t axis = -1);
Array mish(const Array &x);
Array squareplus(const Array &x, double b = 4.0);
Array log1mexp(const Array &x);
Array softmax(const Array &x, const numpy::Axes &axis = -1);
Array log_softmax(const Array &x, const numpy::Axes &axis = -1);
// logsumexp(a, axis) and logmeanexp(a, axis); keepdims by keyword (JAX's third positionals are b
// and where): logsumexp(a, {.axis = -1, .keepdims = true}).
Array logsumexp(const Array &a, const numpy::AxisOptions &options);
Array logmeanexp(const Array &a, const numpy::AxisOptions &options);
template <class = void> Array logsumexp(const Array &a, const numpy::Axes &axis = {}) {
  return logsumexp(a, {.axis = axis});
}
template <class = void> Array logmeanexp(const Array &a, const numpy::Axes &axis = {}) {
  return logmeanexp(a, {.axis = axis});
}
// (x - mean) / sqrt(variance + epsilon) over axis: standardize(x, axis), epsilon by keyword (JAX's
// third positional is mean): standardize(x, {.axis = 0, .epsilon = 1e-3}).
struct StandardizeOptions {
  numpy::KeywordOnly keyword_only{};
  numpy::Axes axis = -1;
  double epsilon = 1e-5;
};
Array standardize(const Array &x, const StandardizeOptions &options);
template <class = void> Array standardize(const Array &x, const numpy::Axes &axis = -1) {
  return standardize(x, {.axis = axis});
}
// x's integers as one-hot vectors along a new last axis (out-of-range values: all zeros).
Array one_hot(const Array &x, int64_t num_classes, DType dtype = DType::float64);

} // namespace jx::nn
