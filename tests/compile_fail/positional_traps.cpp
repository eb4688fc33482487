// Compile-fail probes (issue 32, "no silent positional traps"): tests/compile_fail/CMakeLists.txt
// runs the compiler on this file with -fsyntax-only, once as it is (the control, which must
// compile: the keyword forms and the positional forms NumPy shares) and once per trap with
// -DTRAP=<n>, which adds one call that must not compile because NumPy would read its last
// argument as another parameter. A trap test thus fails to compile for that call alone.
#include <jx/jx.h>

#include <optional>

namespace jnp = jx::numpy;
using jx::Array;

void control(const Array &x, const Array &mask) {
  // Positional forms that mean what NumPy's mean.
  jnp::sum(x);
  jnp::sum(x, 0);
  jnp::sum(x, {0, 1});
  jnp::sum(x, std::nullopt);
  jnp::mean(x, -1);
  jnp::std(x, -1);
  jnp::argmax(x, 0);
  jnp::linspace(0, 1, 50);
  jnp::linspace(0, 1, 50, false);
  jnp::cumsum(x, 0);
  jnp::sort(x, -1);
  jnp::quantile(x, 0.5, 0);
  jnp::take(x, jnp::array({0}), 0);
  jnp::histogram(x, 10);
  jnp::eye(3, 4, 1);
  jnp::isclose(x, x, 1e-5, 1e-8, true);
  // The same calls' keywords, as options structs.
  jnp::std(x, {.axis = -1, .ddof = 0, .keepdims = true, .where = mask});
  jnp::sum(x, {.axis = 0, .keepdims = true});
  jnp::sum(x, {.axis = {0, 1}, .keepdims = true, .initial = 1, .where = mask});
  jnp::mean(x, {.axis = 0, .keepdims = true});
  jnp::var(x, {.axis = 0, .ddof = 1});
  jnp::max(x, {.axis = 0, .keepdims = true, .initial = 0.0, .where = mask});
  jnp::argmax(x, {.axis = 0, .keepdims = true});
  jnp::count_nonzero(x, {.axis = 0, .keepdims = true});
  jnp::sort(x, {.axis = -1, .descending = true});
  jnp::linspace(0, 1, {.num = 5, .axis = 0});
  jnp::quantile(x, 0.5, {.axis = 0, .method = "lower"});
  jnp::unique(x, {.axis = 0});
  jnp::isin(x, x, {.invert = true});
  jnp::nan_to_num(x, {.nan = 0.0});
  jnp::gradient(x, {.axis = 0});
  jnp::pad(x, 1, {.constant_values = 0});
  jnp::take(x, jnp::array({0}), {.axis = 0, .mode = "clip"});
  jnp::histogram(x, {.bins = int64_t(10), .weights = x});
  jnp::linalg::cholesky(x, {.upper = true});
  jx::nn::standardize(x, {.axis = -1, .epsilon = 1e-3});
}

#ifdef TRAP
void trap(const Array &x) {
#if TRAP == 1
  jnp::std(x, -1, true); // NumPy: std(x, axis=-1, dtype=True)
#elif TRAP == 2
  jnp::sum(x, 0, true); // NumPy: sum(x, axis=0, dtype=True)
#elif TRAP == 3
  jnp::mean(x, 0, true); // NumPy: mean(x, axis=0, dtype=True)
#elif TRAP == 4
  jnp::var(x, 0, 1); // NumPy: var(x, axis=0, dtype=1), not ddof
#elif TRAP == 5
  jnp::max(x, 0, true); // NumPy: max(x, axis=0, out=True)
#elif TRAP == 6
  jnp::argmax(x, 0, true); // NumPy: argmax(x, axis=0, out=True)
#elif TRAP == 7
  jnp::sum(x, true); // a bool is no axis
#elif TRAP == 8
  jnp::sort(x, -1, true); // descending is keyword-only
#elif TRAP == 9
  jnp::linspace(0, 1, 5, true, 1); // NumPy: retstep=1, not axis
#elif TRAP == 10
  jnp::unique(x, 0); // NumPy: return_index=0, not axis
#elif TRAP == 11
  jnp::isin(x, x, true); // NumPy: assume_unique=True, not invert
#elif TRAP == 12
  jnp::nan_to_num(x, 0.0); // NumPy: copy=0.0, not nan
#elif TRAP == 13
  jnp::gradient(x, 0); // NumPy: spacing 0, not axis
#elif TRAP == 14
  jnp::pad(x, 1, 5); // NumPy: mode=5, not constant_values
#elif TRAP == 15
  jnp::count_nonzero(x, 0, true); // keepdims is keyword-only
#elif TRAP == 16
  jnp::quantile(x, 0.5, 0, "lower"); // NumPy: out="lower", not method
#elif TRAP == 17
  jnp::histogram(x, 10, std::nullopt, x); // NumPy: density=x, not weights
#elif TRAP == 18
  jnp::linalg::cholesky(x, true); // upper is keyword-only
#elif TRAP == 19
  jx::nn::standardize(x, -1, 1e-3); // JAX: mean=1e-3, not epsilon
#endif
}
#endif
