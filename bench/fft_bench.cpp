// jnp.fft (issue 35's targets): a 1-D complex128 transform of 2^20 values, the rfft2 of a 2048 x
// 2048 float32 array and a complex128 transform of prime length 10007, each through jx::jit,
// medians of --rounds calls after a warm-up. --json prints one object per workload and line
// (bench/peers/peers.py --group fft adds NumPy's and JAX's times).
#include <jx/jx.h>

#include <cstdlib>
#include <fmt/core.h>
#include <functional>
#include <string>
#include <vector>

#include "seed_util.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using seed_bench::Clock;
using seed_bench::median;
using seed_bench::ms_since;

Array complex_signal(int64_t n) {
  const Array re = jx::random::normal(jx::random::PRNGKey(0), {n});
  const Array im = jx::random::normal(jx::random::PRNGKey(1), {n});
  return (re + im * std::complex<double>(0, 1)).block_until_ready();
}

} // namespace

int main(int argc, char **argv) {
  int rounds = 7;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    if (arg == "--json") json = true;
  }
  const Array long_signal = complex_signal(int64_t(1) << 20), prime_signal = complex_signal(10007);
  const Array image =
      jx::random::normal(jx::random::PRNGKey(2), {2048, 2048}).astype(jx::float32).block_until_ready();
  auto fft = jx::jit([](const Array &a) { return jnp::fft::fft(a); });
  auto rfft2 = jx::jit([](const Array &a) { return jnp::fft::rfft2(a); });
  struct Workload {
    const char *name;
    std::function<Array()> call;
  };
  const Workload workloads[] = {{"fft_c128_1048576", [&] { return fft(long_signal); }},
                                {"rfft2_f32_2048x2048", [&] { return rfft2(image); }},
                                {"fft_c128_prime_10007", [&] { return fft(prime_signal); }}};
  for (const Workload &w : workloads) {
    w.call().block_until_ready(); // compile, plan and warm up
    std::vector<double> ms;
    for (int r = 0; r < rounds; ++r) {
      const auto t = Clock::now();
      w.call().block_until_ready();
      ms.push_back(ms_since(t));
    }
    if (json)
      fmt::print("{{\"name\": \"{}\", \"jx_ms\": {:.4f}}}\n", w.name, median(ms));
    else
      fmt::print("{}: jx {:.3f} ms\n", w.name, median(ms));
  }
}
