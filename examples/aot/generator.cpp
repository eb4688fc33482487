// The generator of examples/aot: both seeds as jx functions, compiled ahead of time by
// jx_add_aot_library (examples/CMakeLists.txt). The diff seed comes in the seed's three layouts
// over 8 devices, and its input (jax.random.normal(PRNGKey(0), (4096, 4096))) as a function too.
#include <jx/aot.h>
#include <jx/jx.h>

#include "../seeds.h"

namespace {

constexpr int64_t n = 4096;

// The seed's PositionalSharding over rows x cols of 8 CPU devices.
jx::Sharding diff_sharding(int rows, int cols) {
  jx::config::set_num_cpu_devices(8);
  std::vector<jx::Device> devices = jx::devices();
  devices.resize(size_t(rows * cols));
  return jx::PositionalSharding(jx::mesh_utils::create_device_mesh({rows * cols}, devices))
      .reshape(rows, cols);
}

auto diff_seed(int rows, int cols) {
  const jx::Sharding sharding = diff_sharding(rows, cols);
  return jx::jit(seeds::calc_fd_kernel, {.in_shardings = {sharding}, .out_shardings = {sharding}})
      .lower(jx::ShapeDtypeStruct{{n, n}, jx::float64});
}

} // namespace

JX_AOT_FUNCTION(simpson) {
  jx::ShapeDtypeStruct interval{{100}, jx::float64};
  return jx::jit([](const jx::Array &a, const jx::Array &b) {
           return seeds::simps([](const jx::Array &x) { return seeds::funcN(x); }, a, b, 512);
         })
      .lower(interval, interval);
}

JX_AOT_FUNCTION(diff_input) {
  return jx::jit([] {
           return jx::random::normal(jx::random::PRNGKey(0), {n, n}, jx::float64);
         })
      .lower();
}

JX_AOT_FUNCTION(diff_1x1) { return diff_seed(1, 1); }
JX_AOT_FUNCTION(diff_8x1) { return diff_seed(8, 1); }
JX_AOT_FUNCTION(diff_1x8) { return diff_seed(1, 8); }
