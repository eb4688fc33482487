// jax.scipy.special: the special functions ML and statistics code calls (namespace jsp =
// jx::scipy::special).
#pragma once

#include <jx/array.h>
#include <jx/numpy.h>

namespace jx::scipy::special {

Array erf(const Array &x);
Array erfc(const Array &x);
Array erfinv(const Array &x);
// log|Gamma(x)| and its derivative, by XLA's Lanczos approximation (as jax.lax.lgamma, digamma).
Array gammaln(const Array &x);
Array digamma(const Array &x);
Array gamma(const Array &x);
Array beta(const Array &a, const Array &b);
Array betaln(const Array &a, const Array &b);
// x * log(y) and x * log1p(y), 0 where x == 0.
Array xlogy(const Array &x, const Array &y);
Array xlog1py(const Array &x, const Array &y);
Array entr(const Array &x);
Array rel_entr(const Array &x, const Array &y);
Array kl_div(const Array &x, const Array &y);
Array expit(const Array &x);
Array logit(const Array &x);
Array ndtr(const Array &x);
// logsumexp(a, axis); keepdims by keyword (scipy's third positional is b):
// logsumexp(a, {.axis = 0, .keepdims = true}).
Array logsumexp(const Array &a, const numpy::AxisOptions &options);
template <class = void> Array logsumexp(const Array &a, const numpy::Axes &axis = {}) {
  return logsumexp(a, {.axis = axis});
}
Array softmax(const Array &x, const numpy::Axes &axis = {});
Array log_softmax(const Array &x, const numpy::Axes &axis = {});
Array i0(const Array &x);
Array i0e(const Array &x);
Array sinc(const Array &x);

} // namespace jx::scipy::special
