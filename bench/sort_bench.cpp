// Sorts, scans and gathers (issue 15): jnp.sort, jnp.argsort and jnp.cumsum of --n float64 normal
// values (default 16M), x[idx] with --m random int64 indices (default 1M) and x.at[idx].add(1.0)
// through jx::jit, beside a memcpy of the --n float64 into a pre-faulted buffer (what a pass over
// the array costs here), measured in one process, alternating rounds. --json prints one object
// per workload and line (bench/peers/peers.py --group sort adds NumPy's times).
#include <jx/jx.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fmt/core.h>
#include <string>
#include <tuple>
#include <vector>

#include "seed_util.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using seed_bench::Clock;
using seed_bench::median;
using seed_bench::ms_since;

} // namespace

int main(int argc, char **argv) {
  int64_t n = int64_t(1) << 24, m = int64_t(1) << 20;
  int rounds = 5;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--n" && i + 1 < argc) n = std::atoll(argv[++i]);
    if (arg == "--m" && i + 1 < argc) m = std::atoll(argv[++i]);
    if (arg == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    if (arg == "--json") json = true;
  }
  const Array x = jx::random::normal(jx::random::PRNGKey(0), {n}).block_until_ready();
  auto sort = jx::jit([](const Array &v) { return jnp::sort(v); });
  auto argsort = jx::jit([](const Array &v) { return jnp::argsort(v); });
  auto cumsum = jx::jit([](const Array &v) { return jnp::cumsum(v); });
  const Array idx = jnp::floor(jx::random::uniform(jx::random::PRNGKey(1), {m}) * double(n))
                        .astype(jnp::int64)
                        .block_until_ready();
  auto gather = jx::jit([](const Array &v, const Array &i) { return v(i); });
  auto scatter_add = jx::jit([](const Array &v, const Array &i) { return v.at(i).add(1.0); });
  std::vector<char> source(size_t(n) * 8), target(size_t(n) * 8);
  std::memcpy(source.data(), x.data(), source.size());
  std::memset(target.data(), 1, target.size()); // pre-faulted
  std::vector<double> sort_ms, argsort_ms, cumsum_ms, gather_ms, scatter_ms, copy_ms;
  sort(x).block_until_ready(); // compile and warm up
  argsort(x).block_until_ready();
  cumsum(x).block_until_ready();
  gather(x, idx).block_until_ready();
  scatter_add(x, idx).block_until_ready();
  for (int r = 0; r < rounds; ++r) {
    auto t = Clock::now();
    sort(x).block_until_ready();
    sort_ms.push_back(ms_since(t));
    t = Clock::now();
    argsort(x).block_until_ready();
    argsort_ms.push_back(ms_since(t));
    t = Clock::now();
    cumsum(x).block_until_ready();
    cumsum_ms.push_back(ms_since(t));
    t = Clock::now();
    gather(x, idx).block_until_ready();
    gather_ms.push_back(ms_since(t));
    t = Clock::now();
    scatter_add(x, idx).block_until_ready();
    scatter_ms.push_back(ms_since(t));
    t = Clock::now();
    std::memcpy(target.data(), source.data(), source.size());
    copy_ms.push_back(ms_since(t));
  }
  const double copy = median(copy_ms);
  const std::string sizes = fmt::format("{}", n), indexed = fmt::format("{}_of_{}", m, n);
  const std::tuple<const char *, std::string, double> rows[] = {
      {"sort", sizes, median(sort_ms)},
      {"argsort", sizes, median(argsort_ms)},
      {"cumsum", sizes, median(cumsum_ms)},
      {"gather", indexed, median(gather_ms)},
      {"scatter_add", indexed, median(scatter_ms)}};
  for (const auto &[name, size, ms] : rows) {
    if (json)
      fmt::print("{{\"name\": \"{}_{}\", \"jx_ms\": {:.3f}, \"copy_ms\": {:.3f}}}\n", name, size,
                 ms, copy);
    else
      fmt::print("{}_{}: jx {:.2f} ms, memcpy {:.2f} ms, jx / copy {:.2f}\n", name, size, ms, copy,
                 ms / copy);
  }
}
