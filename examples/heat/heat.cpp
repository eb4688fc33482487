// A 2-D heat equation solved with jx::lax control flow: 1,000 explicit Euler steps of the diff
// seed's stencil along both axes (zero padding) in one fori_loop, one compiled program, checked
// against NumPy's result of the same steps (heat_numpy.npy, make_reference.py), on one device and
// on 8 (a 2x4 mesh: the loop's body runs on each device's part of the plate); then a while_loop
// Newton iteration for square roots, run until every residual is below a tolerance.
#include <jx/jx.h>

#include <chrono>
#include <cmath>
#include <fmt/core.h>
#include <string>

#include "heat_step.h"

namespace jnp = jx::numpy;
namespace lax = jx::lax;
using jx::Array;

int main() {
  jx::config::set_num_cpu_devices(8);
  constexpr int64_t n = 128, steps = 1000;
  // A hot block in a cold plate, as make_reference.py starts.
  const Array rows = jnp::arange(n)(jx::slice(), jx::newaxis), cols = jnp::arange(n);
  const Array u0 =
      jnp::where((rows >= n / 4) & (rows < n / 2) & (cols >= n / 4) & (cols < 3 * n / 4), 1.0, 0.0);
  auto loop = [](const Array &u) {
    return lax::fori_loop(
        0, steps, [](const Array &, const Array &v) { return heat::step(v); }, u);
  };
  auto solve = jx::jit(loop);
  auto t0 = std::chrono::steady_clock::now();
  const Array u = solve(u0).block_until_ready();
  const double first_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  t0 = std::chrono::steady_clock::now();
  solve(u0).block_until_ready();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const Array reference = jnp::load(std::string(JX_EXAMPLES_DIR) + "/heat/heat_numpy.npy");
  const double max_diff = jnp::max(jnp::abs(u - reference)).item<double>();
  const bool bitwise = jnp::all(u == reference).item<bool>();
  fmt::print("heat: {}x{} float64, {} steps in one fori_loop: {:.1f} ms (first call, with "
             "trace and compile: {:.1f} ms); heat left {:.6f} of {:.0f}; max |jx - NumPy| = "
             "{:.3g}{}\n",
             n, n, steps, ms, first_ms, jnp::sum(u).item<double>(), jnp::sum(u0).item<double>(),
             max_diff, bitwise ? " (bit for bit)" : "");

  // The same loop with the plate split over a 2x4 mesh of devices: the same bits.
  const jx::Sharding mesh = jx::NamedSharding(jx::make_mesh({2, 4}, {"x", "y"}), jx::P("x", "y"));
  auto sharded = jx::jit(loop, {.in_shardings = {mesh}, .out_shardings = {mesh}});
  const Array placed = jx::device_put(u0, mesh);
  sharded(placed).block_until_ready();
  t0 = std::chrono::steady_clock::now();
  const Array u8 = sharded(placed).block_until_ready();
  const double ms8 =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const bool same_on_8 = jnp::all(u8 == u).item<bool>();
  fmt::print("heat on 8 devices (2x4 mesh): {:.1f} ms, {}\n", ms8,
             same_on_8 ? "bit for bit the 1-device result" : "DIFFERS from the 1-device result");

  // Newton's iteration x <- (x + a / x) / 2 for sqrt(a), every element, until all residuals are
  // below the tolerance: a while_loop whose predicate is a reduction, with a step counter.
  const Array a = jnp::array(std::vector<double>{2.0, 10.0, 0.5, 1e6, 3.0});
  auto newton = jx::jit([](const Array &a) {
    auto done = lax::while_loop(
        [&](const lax::Arrays &c) { return jnp::max(jnp::abs(c[0] * c[0] - a) / a) > 1e-15; },
        [&](const lax::Arrays &c) {
          return lax::Arrays{(c[0] + a / c[0]) / 2.0, c[1] + 1};
        },
        lax::Arrays{jnp::ones_like(a), jnp::array(0.0, jx::int32).astype(jx::int32)});
    return jnp::concatenate({done[0], done[1].astype(jx::float64)(jx::newaxis)});
  });
  const std::vector<double> roots = newton(a).to_vector<double>();
  double worst = 0;
  const std::vector<double> values = a.to_vector<double>();
  for (size_t i = 0; i < values.size(); ++i)
    worst = std::max(worst, std::abs(roots[i] - std::sqrt(values[i])) / std::sqrt(values[i]));
  fmt::print("newton: sqrt of 5 values in {:.0f} iterations of one while_loop, max relative "
             "error {:.3g} against std::sqrt\n",
             roots.back(), worst);
  const bool ok = max_diff <= 1e-12 && same_on_8 && worst <= 4e-16;
  fmt::print("{}\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
