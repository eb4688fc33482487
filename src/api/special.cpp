// jax.scipy.special: the gamma family by XLA's Lanczos approximation (lax.lgamma, lax.digamma),
// the information-theory functions with JAX's conventions at 0, logistic functions, logsumexp and
// softmax, and the modified Bessel function i0 by Cephes' Chebyshev series (NumPy's).
#include <jx/numpy.h>
#include <jx/scipy.h>
#include <jx/transforms.h>

#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <span>

#include "api/internal.h"
#include "transforms/custom.h"

namespace jx::scipy::special {

namespace jnp = jx::numpy;
using api::to_inexact;

namespace {

// Lanczos' approximation with g = 7 and 9 terms (XLA's kLanczosCoefficients).
constexpr double lanczos_gamma = 7;
constexpr double lanczos_base = 0.99999999999980993227684700473478;
constexpr std::array<double, 8> lanczos_coefficients = {
    676.520368121885098567009190444019, -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,   -176.61502916214059906584551354,
    12.507343278686904814458936853,     -0.13857109526572011689554706,
    9.984369578019570859563e-6,         1.50563273514931155834e-7};

// The reflected argument: x < 0.5 uses Gamma(1 - x), so z is -x there and x - 1 elsewhere.
Array lanczos_z(const Array &x, const Array &reflect) { return jnp::where(reflect, -x, x - 1); }

// log(g + 0.5 + z) as log(g + 0.5) + log1p(z / (g + 0.5)).
Array lanczos_log_t(const Array &z) {
  return std::log(lanczos_gamma + 0.5) + jnp::log1p(z / (lanczos_gamma + 0.5));
}

// Chebyshev series sum (Cephes' chbevl).
Array chbevl(const Array &x, std::span<const double> coefficients) {
  Array b0 = jnp::full_like(x, coefficients[0]), b1 = jnp::zeros_like(x), b2 = b1;
  for (size_t i = 1; i < coefficients.size(); ++i) {
    b2 = b1;
    b1 = b0;
    b0 = x * b1 - b2 + coefficients[i];
  }
  return 0.5 * (b0 - b2);
}

constexpr std::array<double, 30> i0_a = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17,  -2.43127984654795469359E-16,
    1.71539128555513303061E-15,  -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12,  -1.72682629144155570723E-11,
    9.67580903537323691224E-11,  -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8,  6.04699502254191894932E-8,   -2.67079385394061173391E-7,
    1.11738753912010371815E-6,   -4.41673835845875056359E-6,  1.64484480707288970893E-5,
    -5.75419501008210370398E-5,  1.88502885095841655729E-4,   -5.76375574538582365885E-4,
    1.63947561694133579842E-3,   -4.32430999505057594430E-3,  1.05464603945949983183E-2,
    -2.37374148058994688156E-2,  4.93052842396707084878E-2,   -9.49010970480476444210E-2,
    1.71620901522208775349E-1,   -3.04682672343198398683E-1,  6.76795274409476084995E-1};
constexpr std::array<double, 25> i0_b = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17,  -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15,  3.81168066935262242075E-15,  -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14,  3.85277838274214270114E-13,
    7.18012445138366623367E-13,  -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11,  4.94060238822496958910E-10,
    3.39623202570838634515E-9,   2.26666899049817806459E-8,   2.04891858946906374183E-7,
    2.89137052083475648297E-6,   6.88975834691682398426E-5,   3.36911647825569408990E-3,
    8.04490411014108831608E-1};

} // namespace

namespace {
Array lanczos_gammaln(const Array &x) {
  const Array reflect = x < 0.5;
  const Array z = lanczos_z(x, reflect);
  Array sum = jnp::full_like(x, lanczos_base);
  for (size_t i = 0; i < lanczos_coefficients.size(); ++i)
    sum = sum + lanczos_coefficients[i] / (z + double(i) + 1);
  const Array t = (lanczos_gamma + 0.5) + z;
  const Array log_t = lanczos_log_t(z);
  const double log_sqrt_two_pi = (std::log(2.0) + std::log(std::numbers::pi)) / 2;
  // (z + 1/2 - t / log t) log t, not (z + 1/2) log t - t, which overflows for large z.
  const Array log_y = log_sqrt_two_pi + (z + 0.5 - t / log_t) * log_t + jnp::log(sum);
  // Reflection: log(pi) - lgamma(1 - x) - log|sin(pi x)|, with sin's argument reduced to
  // [0, 0.5] through |x|'s fractional part (exactly 0 at integers: a pole).
  const Array abs_x = jnp::abs(x);
  const Array frac = abs_x - jnp::floor(abs_x);
  const Array reduced = jnp::where(frac > 0.5, 1 - frac, frac);
  const Array denominator = jnp::log(jnp::sin(std::numbers::pi * reduced));
  const Array reflection = jnp::where(
      jnp::isfinite(denominator), std::log(std::numbers::pi) - denominator - log_y, -denominator);
  const Array result = jnp::where(reflect, reflection, log_y);
  return jnp::where(jnp::isinf(x), jnp::full_like(x, std::numeric_limits<double>::infinity()),
                    result);
}
} // namespace

// The derivative is digamma's (lax.lgamma's rule), not the composition's: its unselected
// reflection branch has infinite slope at the integers.
Array gammaln(const Array &input) {
  static const int64_t rule = transforms::register_jvp_rule(
      [](const std::vector<api::NodePtr> &x, const std::vector<api::NodePtr> &t) {
        return api::node_of(Array(t[0]) * digamma(Array(x[0])));
      });
  const Array x = to_inexact(input);
  return api::wrap(
      transforms::custom_jvp_node(rule, api::node_of(lanczos_gammaln(x)), {api::node_of(x)}));
}

Array digamma(const Array &input) {
  const Array x = to_inexact(input);
  const Array reflect = x < 0.5;
  const Array z = lanczos_z(x, reflect);
  Array num = jnp::zeros_like(x), denom = jnp::full_like(x, lanczos_base);
  for (size_t i = 0; i < lanczos_coefficients.size(); ++i) {
    const Array zi = z + double(i) + 1;
    num = num - lanczos_coefficients[i] / (zi * zi);
    denom = denom + lanczos_coefficients[i] / zi;
  }
  const Array t = (lanczos_gamma + 0.5) + z;
  const Array y = lanczos_log_t(z) + num / denom - lanczos_gamma / t;
  // digamma(1 - x) - pi cot(pi x), x shifted into [-0.5, 0.5] first for an accurate cotangent.
  const Array reduced = x + jnp::abs(jnp::floor(x + 0.5));
  const Array pi_x = std::numbers::pi * reduced;
  const Array reflection = y - std::numbers::pi * jnp::cos(pi_x) / jnp::sin(pi_x);
  const Array result = jnp::where(reflect, reflection, y);
  // Poles at zero and the negative integers.
  const Array pole = jnp::logical_and(x <= 0, x == jnp::floor(x));
  return jnp::where(pole, jnp::full_like(x, std::numeric_limits<double>::quiet_NaN()), result);
}

// sign(Gamma(x)) exp(lgamma(x)); at the poles scipy's: +-inf at +-0, NaN at negative integers.
Array gamma(const Array &input) {
  const Array x = to_inexact(input);
  const Array floor_x = jnp::floor(x);
  const Array sign = jnp::where(
      x > 0, jnp::ones_like(x),
      jnp::where(jnp::remainder(floor_x, 2) == 0, jnp::ones_like(x), -jnp::ones_like(x)));
  const Array value = sign * jnp::exp(gammaln(x));
  const Array at_pole = jnp::where(
      x == 0, jnp::copysign(jnp::full_like(x, std::numeric_limits<double>::infinity()), x),
      jnp::full_like(x, std::numeric_limits<double>::quiet_NaN()));
  return jnp::where(jnp::logical_and(x <= 0, x == floor_x), at_pole, value);
}

Array betaln(const Array &a, const Array &b) { return gammaln(a) + gammaln(b) - gammaln(a + b); }

Array beta(const Array &a, const Array &b) {
  const Array sign = gamma(a) * gamma(b) * gamma(a + b);
  return jnp::sign(sign) * jnp::exp(betaln(a, b));
}

Array xlogy(const Array &x, const Array &y) {
  const std::vector<Array> xy = jnp::broadcast_arrays({to_inexact(x), to_inexact(y)});
  const Array x_ok = xy[0] != 0;
  const Array safe_x = jnp::where(x_ok, xy[0], 1.0), safe_y = jnp::where(x_ok, xy[1], 1.0);
  return jnp::where(x_ok, safe_x * jnp::log(safe_y), jnp::zeros_like(safe_x));
}

Array xlog1py(const Array &x, const Array &y) {
  const std::vector<Array> xy = jnp::broadcast_arrays({to_inexact(x), to_inexact(y)});
  const Array x_ok = xy[0] != 0;
  const Array safe_x = jnp::where(x_ok, xy[0], 1.0), safe_y = jnp::where(x_ok, xy[1], 1.0);
  return jnp::where(x_ok, safe_x * jnp::log1p(safe_y), jnp::zeros_like(safe_x));
}

Array entr(const Array &x) {
  const Array f = to_inexact(x);
  return jnp::where(f < 0, jnp::full_like(f, -std::numeric_limits<double>::infinity()),
                    -xlogy(f, f));
}

Array rel_entr(const Array &x, const Array &y) {
  const std::vector<Array> xy = jnp::broadcast_arrays({to_inexact(x), to_inexact(y)});
  const Array &p = xy[0], &q = xy[1];
  const Array safe_p = jnp::where(p > 0, p, 1.0), safe_q = jnp::where(q > 0, q, 1.0);
  const Array inside = safe_p * jnp::log(safe_p / safe_q);
  const Array edge = jnp::where(jnp::logical_and(p == 0, q >= 0), jnp::zeros_like(p),
                                jnp::full_like(p, std::numeric_limits<double>::infinity()));
  return jnp::where(jnp::logical_and(p > 0, q > 0), inside, edge);
}

Array kl_div(const Array &x, const Array &y) {
  const std::vector<Array> xy = jnp::broadcast_arrays({to_inexact(x), to_inexact(y)});
  const Array &p = xy[0], &q = xy[1];
  const Array safe_p = jnp::where(p > 0, p, 1.0), safe_q = jnp::where(q > 0, q, 1.0);
  const Array inside = safe_p * jnp::log(safe_p / safe_q) - safe_p + safe_q;
  const Array edge = jnp::where(jnp::logical_and(p == 0, q >= 0), q,
                                jnp::full_like(p, std::numeric_limits<double>::infinity()));
  return jnp::where(jnp::logical_and(p > 0, q > 0), inside, edge);
}

// lax.logistic: 1 / (1 + exp(-x)).
Array expit(const Array &x) {
  const Array f = to_inexact(x);
  return 1.0 / (1.0 + jnp::exp(-f));
}

Array logit(const Array &x) {
  const Array f = to_inexact(x);
  return jnp::log(f / (1.0 - f));
}

// The standard normal CDF through erf near 0 and erfc in the tails (jax's ndtr).
Array ndtr(const Array &x) {
  const Array f = to_inexact(x);
  const double half_sqrt_2 = std::numbers::sqrt2 / 2;
  const Array w = f * half_sqrt_2;
  const Array z = jnp::abs(w);
  const Array tail = jnp::where(w > 0, 2.0 - erfc(z), erfc(z));
  return 0.5 * jnp::where(z < half_sqrt_2, 1.0 + erf(w), tail);
}

// log(sum(exp(a))) shifted by the finite maximum (held constant for derivatives), as jax's.
Array logsumexp(const Array &a, const jnp::AxisOptions &o) {
  const Array x = to_inexact(a);
  const Array amax = jnp::max(x, {.axis = o.axis, .keepdims = true});
  const Array shift = stop_gradient(jnp::where(jnp::isfinite(amax), amax, jnp::zeros_like(amax)));
  const Array sum = jnp::sum(jnp::exp(x - shift), {.axis = o.axis, .keepdims = o.keepdims});
  return jnp::log(jnp::abs(sum)) + (o.keepdims ? shift : jnp::squeeze(shift, o.axis));
}

Array softmax(const Array &x, const jnp::Axes &axis) {
  const Array f = to_inexact(x);
  const Array unnormalized =
      jnp::exp(f - stop_gradient(jnp::max(f, {.axis = axis, .keepdims = true})));
  return unnormalized / jnp::sum(unnormalized, {.axis = axis, .keepdims = true});
}

Array log_softmax(const Array &x, const jnp::Axes &axis) {
  const Array f = to_inexact(x);
  const Array shifted = f - stop_gradient(jnp::max(f, {.axis = axis, .keepdims = true}));
  return shifted - jnp::log(jnp::sum(jnp::exp(shifted), {.axis = axis, .keepdims = true}));
}

// exp(-|x|) I0(x): Cephes' series on [0, 8] and in 1/x beyond (NumPy's i0).
Array i0e(const Array &input) {
  const Array x = jnp::abs(to_inexact(input));
  const Array small = chbevl(x / 2.0 - 2.0, i0_a);
  const Array safe_x = jnp::where(x > 8.0, x, 8.0);
  const Array large = chbevl(32.0 / safe_x - 2.0, i0_b) / jnp::sqrt(safe_x);
  return jnp::where(x <= 8.0, small, large);
}

Array i0(const Array &x) { return jnp::exp(jnp::abs(to_inexact(x))) * i0e(x); }

Array sinc(const Array &x) { return jnp::sinc(x); }

} // namespace jx::scipy::special
