// Ahead-of-time objects against the JIT on the seeds, in one process: the AOT functions are
// examples/aot/generator.cpp's (built for the host by jx_add_aot_library), the JIT ones are the
// same jx functions compiled with jx::jit. Calls alternate between the two so that both see the
// same machine state; prints medians and their ratio (target: AOT within 5% of JIT).
#include <jx/jx.h>

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "diff_1x1.h"
#include "diff_1x8.h"
#include "diff_8x1.h"
#include "seed_util.h"
#include "seeds.h"
#include "simpson.h"

namespace jnp = jx::numpy;
using jx::Array;
using seed_bench::Clock;
using seed_bench::median;
using seed_bench::ms_since;

namespace {

// Calls jit() and aot() in turn, rounds * reps times each, so that both see the same drift of
// clocks and caches; returns {jit median, aot median}.
std::pair<double, double> compare(int rounds, int reps, const std::function<void()> &jit,
                                  const std::function<void()> &aot) {
  std::vector<double> jit_ms, aot_ms;
  jit();
  aot();
  for (int i = 0; i < rounds * reps; ++i)
    for (auto [f, times] : {std::pair{&jit, &jit_ms}, std::pair{&aot, &aot_ms}}) {
      const auto t0 = Clock::now();
      (*f)();
      times->push_back(ms_since(t0));
    }
  return {median(jit_ms), median(aot_ms)};
}

void report(const std::string &name, std::pair<double, double> ms, bool same) {
  fmt::print("{:<22} jit {:7.2f} ms  aot {:7.2f} ms  aot/jit {:.3f}  {}\n", name, ms.first,
             ms.second, ms.second / ms.first, same ? "same bits" : "RESULTS DIFFER");
}

bool same_bits(const Array &jit, std::span<const double> aot) {
  const std::vector<double> values = jit.to_vector<double>();
  return values.size() == aot.size() &&
         std::memcmp(values.data(), aot.data(), aot.size() * sizeof(double)) == 0;
}

} // namespace

int main(int argc, char **argv) {
  int rounds = 5, reps = 20;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
  }
  jx::config::set_num_cpu_devices(8);

  // Simpson: the seed's 200 functions over 100 intervals.
  auto a = jnp::arange(0, 10, 0.1);
  auto b = a + 0.05;
  jx::ShapeDtypeStruct interval{{100}, jx::float64};
  auto simps = jx::jit([](const Array &lo, const Array &hi) {
                 return seeds::simps([](const Array &x) { return seeds::funcN(x); }, lo, hi, 512);
               })
                   .lower(interval, interval)
                   .compile();
  const std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>();
  // 64-byte aligned as the JIT's arrays: the kernel's 8-wide stores then never straddle lines.
  jx::aot::Buffer<double> S(200 * 100);
  Array S_jit = simps(a, b);
  const auto simpson_ms = compare(
      rounds, reps, [&] { S_jit = simps(a, b).block_until_ready(); },
      [&] { simpson_aot::call(av, bv, S); });
  report("simpson", simpson_ms, same_bits(S_jit, S));

  // The diff seed in its three layouts over 8 devices.
  const int64_t n = 4096;
  auto x = jx::random::normal(jx::random::PRNGKey(0), {n, n}, jx::float64).block_until_ready();
  const std::vector<double> x_values = x.to_vector<double>();
  // In the runtime's memory, as the JIT's arrays: with huge pages, the (1, 8) layout's kernels
  // striding across 512-column stripes miss the TLB far less than in a std::vector.
  jx::aot::Buffer<double> xv(size_t(n * n)), out(size_t(n * n));
  std::copy(x_values.begin(), x_values.end(), xv.begin());
  struct Layout {
    int rows, cols;
    void (*aot)(std::span<const double>, std::span<double>);
  };
  for (const Layout &layout : {Layout{1, 1, diff_1x1_aot::call}, Layout{8, 1, diff_8x1_aot::call},
                               Layout{1, 8, diff_1x8_aot::call}}) {
    std::vector<jx::Device> devices = jx::devices();
    devices.resize(size_t(layout.rows * layout.cols));
    const jx::Sharding sharding = jx::PositionalSharding(jx::mesh_utils::create_device_mesh(
                                                             {layout.rows * layout.cols}, devices))
                                      .reshape(layout.rows, layout.cols);
    Array placed = jx::device_put(x, sharding);
    auto calc_fd =
        jx::jit(seeds::calc_fd_kernel, {.in_shardings = {sharding}, .out_shardings = {sharding}})
            .lower(jx::ShapeDtypeStruct{{n, n}, jx::float64})
            .compile();
    Array result = calc_fd(placed);
    const auto ms = compare(
        rounds, reps, [&] { result = calc_fd(placed).block_until_ready(); },
        [&] { layout.aot(std::as_const(xv), out); });
    report(fmt::format("diff ({}, {})", layout.rows, layout.cols), ms, same_bits(result, out));
  }
  return 0;
}
