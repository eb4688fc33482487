// The generator of the consumer's ahead-of-time functions (jx_add_aot_library in CMakeLists.txt).
#include <jx/aot.h>
#include <jx/jx.h>

namespace jnp = jx::numpy;

// f64[1000], f64[1000] -> (f64[] sum(exp(x) * y + 1), f64[1000] 2 sin(x)): the JIT test's function.
JX_AOT_FUNCTION(exp_dot) {
  jx::ShapeDtypeStruct vector{{1000}, jx::float64};
  return jx::jit([](const jx::Array &x, const jx::Array &y) {
           return std::make_tuple(jnp::sum(jnp::exp(x) * y + 1.0), jnp::sin(x) * 2.0);
         })
      .lower(vector, vector);
}

// f32[4,3] -> f32[3]: column sums of x * x.
JX_AOT_FUNCTION(column_norms) {
  return jx::jit([](const jx::Array &x) { return jnp::sum(x * x, {0}); })
      .lower(jx::ShapeDtypeStruct{{4, 3}, jx::float32});
}
