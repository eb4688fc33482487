// One explicit Euler step of the 2-D heat equation: u + 0.1 * laplacian(u), the diff seed's
// stencil along both axes with zero padding, the four neighbours added in NumPy's order
// (make_reference.py). The example, its tests and loop_bench share it, so that their bits agree.
#pragma once

#include <jx/jx.h>

namespace heat {

inline jx::Array step(const jx::Array &u) {
  namespace jnp = jx::numpy;
  const jx::Array p = jnp::pad(u, 1);
  const jx::Array up = p(jx::slice(0, -2), jx::slice(1, -1)),
                  down = p(jx::slice(2, jx::none), jx::slice(1, -1));
  const jx::Array left = p(jx::slice(1, -1), jx::slice(0, -2)),
                  right = p(jx::slice(1, -1), jx::slice(2, jx::none));
  return u + 0.1 * (up + down + left + right - 4.0 * u);
}

} // namespace heat
