// jx across processes (run under mpirun -np 2 with JX_NUM_CPU_DEVICES=4): seed 000 in the (8,1)
// layout over 8 global devices, and an all-reduce of 8 MiB (the sum of a (2, 1 Mi) float64 array
// whose rows live on two processes, replicated). Prints medians of --reps calls (the slowest
// process's), the bytes this process moved over MPI and what cost_analysis() lists; --json for
// bench/peers/peers.py --group mpi.
#include <jx/jx.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fmt/core.h>
#include <fstream>
#include <string>
#include <vector>

#include "ir/node.h"
#include "runtime/buffer.h"
#include "seeds.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using Clock = std::chrono::steady_clock;

// Each process's `values` as one row of a (processes, k) array on every process.
Array from_every_process(const std::vector<double> &values) {
  std::vector<jx::Device> firsts;
  for (int p = 0; p < jx::process_count(); ++p)
    firsts.push_back(jx::Device{p * jx::local_device_count()});
  const jx::Sharding per_process = jx::NamedSharding(
      jx::Mesh(jx::DeviceArray{{int64_t(firsts.size())}, firsts}, {"p"}), jx::P("p"));
  return jx::multihost_utils::process_allgather(jx::make_array_from_process_local_data(
      per_process, jnp::array(values, jx::Shape{1, int64_t(values.size())})));
}

// The median over reps of the slowest process's time per call, in ms (each call starts together:
// sync_global_devices first).
template <class F> double median_ms(int reps, F &&call) {
  call();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    jx::multihost_utils::sync_global_devices("rep");
    const auto t0 = Clock::now();
    call();
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  times = jnp::max(from_every_process(times), 0).to_vector<double>();
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// VmHWM: this process's peak resident set, in KiB.
double peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("VmHWM:")) return std::stod(line.substr(6));
  return 0;
}

// Bytes all processes together receive over MPI per call, from each plan's "mpi receives" lines.
long long received_bytes(const std::string &plan) {
  long long mine = 0;
  for (size_t at = plan.find("mpi receives "); at != std::string::npos;
       at = plan.find("mpi receives ", at + 1))
    mine += std::atoll(plan.c_str() + at + 13);
  return (long long)jnp::sum(from_every_process({double(mine)})).item<double>();
}

} // namespace

int main(int argc, char **argv) {
  int64_t n = 4096;
  int reps = 20;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--n") && i + 1 < argc)
      n = std::max<int64_t>(8, std::atoll(argv[++i]));
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    if (!std::strcmp(argv[i], "--json")) json = true;
  }
  jx::distributed::initialize();
  const int me = jx::process_index();

  // Seed 000, (8,1): each process's rows from its own callback; halos cross the process edge.
  const std::vector<jx::Device> devices = jx::devices();
  const jx::Sharding rows = seeds::diff_layout(8, 1);
  const Array x = jx::make_array_from_callback({n, n}, rows, [&](const std::vector<jx::Slice> &i) {
    return jx::random::normal(jx::random::fold_in(jx::random::PRNGKey(0), int(*i[0].start)),
                              {*i[0].stop - *i[0].start, n}, jx::float64);
  });
  auto diff = jx::jit(seeds::calc_fd_kernel, {.in_shardings = {rows}, .out_shardings = {rows}})
                  .lower(jx::ShapeDtypeStruct{{n, n}, jx::float64})
                  .compile();
  const double diff_ms = median_ms(reps, [&] { diff(x).block_until_ready(); });
  // Each process holds its own rows of x and of the result: the peak resident set so far, the
  // largest over processes.
  const double peak_rss_mib =
      jnp::max(from_every_process({peak_rss_kib() / 1024.0})).item<double>();
  const long long diff_bytes = received_bytes(diff.as_text());
  // The bytes behind x and the result in this process (the global arrays: 8 n^2 each), the
  // largest over processes.
  const Array result = diff(x);
  const double held_mib =
      jnp::max(from_every_process({double(x.node()->local_value()->bytes() +
                                          result.node()->local_value()->bytes()) /
                                   double(1 << 20)}))
          .item<double>();
  const double diff_listed = diff.cost_analysis().communication_bytes;

  // All-reduce of 8 MiB: rows of a (2, 1 Mi) array on the first device and the middle one (one
  // per process of 2), summed into a replicated result.
  const int64_t m = (8 << 20) / 8;
  const jx::Mesh pair(jx::DeviceArray{{2}, {devices[0], devices[devices.size() / 2]}}, {"p"});
  const jx::Sharding split = jx::NamedSharding(pair, jx::P("p")),
                     replicated = jx::NamedSharding(pair, jx::P());
  const Array parts =
      jx::make_array_from_callback({2, m}, split, [&](const std::vector<jx::Slice> &) {
        return jnp::full({1, m}, 1.0 + me);
      });
  auto allreduce = jx::jit([](const Array &a) { return jnp::sum(a, 0); },
                           {.in_shardings = {split}, .out_shardings = {replicated}})
                       .lower(jx::ShapeDtypeStruct{{2, m}, jx::float64})
                       .compile();
  const double allreduce_ms = median_ms(reps, [&] { allreduce(parts).block_until_ready(); });
  const long long allreduce_bytes = received_bytes(allreduce.as_text());

  if (me == 0) {
    if (json)
      fmt::print(
          "{{\"processes\": {}, \"n\": {}, \"diff_8x1_ms\": {:.3f}, \"diff_mpi_bytes\": {}, "
          "\"diff_listed_bytes\": {:.0f}, \"peak_rss_mib\": {:.1f}, \"held_mib\": {:.2f}, "
          "\"allreduce_8mib_ms\": {:.3f}, \"allreduce_mpi_bytes\": {}}}\n",
          jx::process_count(), n, diff_ms, diff_bytes, diff_listed, peak_rss_mib, held_mib,
          allreduce_ms, allreduce_bytes);
    else
      fmt::print("{} processes x {} devices: diff seed (8,1) n={} median {:.2f} ms, {} bytes "
                 "received over MPI per call (cost_analysis().communication_bytes: {:.0f}), peak "
                 "RSS {:.0f} MiB per process, x and the result held in {:.2f} MiB per process; "
                 "all-reduce of 8 MiB median {:.2f} ms ({} bytes received)\n",
                 jx::process_count(), jx::local_device_count(), n, diff_ms, diff_bytes, diff_listed,
                 peak_rss_mib, held_mib, allreduce_ms, allreduce_bytes);
  }
  jx::distributed::shutdown();
  return 0;
}
