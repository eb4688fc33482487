// Both seeds across processes (make demo runs it with mpirun -np 2, 4 devices each: 8 global
// devices): seed 000 in the (8,1) and (1,8) layouts, seed 001 with its (200 functions, 100
// intervals) result sharded over functions. Each process computes its devices' boxes; the
// results, gathered, are compared bit for bit with the same program run whole in one process.
#include <jx/jx.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fmt/core.h>
#include <vector>

#include "seeds.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using Clock = std::chrono::steady_clock;

// Median ms of reps calls (each process's own clock; every call is collective).
template <class F> double median_ms(int reps, F &&call) {
  call();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    call();
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

bool same_bits(const Array &a, const Array &b) {
  const Array whole = jx::multihost_utils::process_allgather(a);
  return whole.shape() == b.shape() &&
         std::memcmp(whole.data(), b.data(), size_t(b.size()) * jx::itemsize(b.dtype())) == 0;
}

} // namespace

int main() {
  jx::distributed::initialize();
  const bool first = jx::process_index() == 0;
  if (first)
    fmt::print("{} processes x {} devices ({} global)\n", jx::process_count(),
               jx::local_device_count(), jx::device_count());

  const int64_t n = 4096;
  const Array x = jx::random::normal(jx::random::PRNGKey(0), {n, n}, jx::float64);
  const Array one_process = jx::jit(seeds::calc_fd_kernel)(x);
  for (auto [rows, cols] : {std::pair{8, 1}, std::pair{1, 8}}) {
    const jx::Sharding s = seeds::diff_layout(rows, cols);
    auto f = jx::jit(seeds::calc_fd_kernel, {.in_shardings = {s}, .out_shardings = {s}});
    const Array placed = jx::device_put(x, s);
    const Array y = f(placed);
    const double ms = median_ms(10, [&] { f(placed).block_until_ready(); });
    const bool exact = same_bits(y, one_process);
    if (first)
      fmt::print("diff seed {}x{} ({}, {}): median {:.2f} ms on process 0, {} addressable shards "
                 "here, {}\n",
                 n, n, rows, cols, ms, y.addressable_shards().size(),
                 exact ? "bit-identical to one process" : "MISMATCH");
  }

  const Array a = jnp::arange(0, 10, 0.1), b = a + 0.05;
  auto integrate = [](const Array &lo, const Array &hi) {
    return seeds::simps([](const Array &t) { return seeds::funcN(t); }, lo, hi, 512);
  };
  const Array whole = jx::jit(integrate)(a, b);
  const jx::Sharding functions = jx::NamedSharding(jx::make_mesh({8}, {"d"}), jx::P("d", nullptr));
  auto sharded = jx::jit(integrate, {.out_shardings = {functions}});
  const Array S = sharded(a, b);
  const double ms = median_ms(10, [&] { sharded(a, b).block_until_ready(); });
  const bool exact = same_bits(S, whole);
  if (first)
    fmt::print("simpson seed, result (200, 100) sharded over functions: median {:.2f} ms on "
               "process 0, {}\n",
               ms, exact ? "bit-identical to one process" : "MISMATCH");
  jx::distributed::shutdown();
  return 0;
}
