// What MPI itself moves between processes on this machine (run under mpirun -np 2): one-way
// latency of an 8-byte ping-pong, point-to-point bandwidth of 8 MiB messages each way at once,
// and MPI_Allreduce (sum) of 8 MiB of float64. Medians of --reps; --json for
// bench/peers/peers.py --group mpi.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/core.h>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median seconds of reps calls of f, every process starting together.
template <class F> double time_median(int reps, F &&f) {
  std::vector<double> times;
  f();
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    f();
    times.push_back(MPI_Wtime() - t0);
  }
  // The slowest process's time decides.
  std::vector<double> slowest(times.size());
  MPI_Allreduce(times.data(), slowest.data(), int(times.size()), MPI_DOUBLE, MPI_MAX,
                MPI_COMM_WORLD);
  return median(slowest);
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int reps = 20;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    if (!std::strcmp(argv[i], "--json")) json = true;
  }
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "mpi_limit runs with mpirun -np 2\n");
    MPI_Finalize();
    return 2;
  }
  const int peer = 1 - rank;
  // Latency: half a round trip of 8 bytes, averaged over 1000 round trips per rep.
  double word = 0;
  const double round_trips = time_median(reps, [&] {
    for (int i = 0; i < 1000; ++i) {
      if (rank == 0) {
        MPI_Send(&word, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
        MPI_Recv(&word, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&word, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&word, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
      }
    }
  });
  const double latency_us = round_trips / 1000 / 2 * 1e6;
  // Bandwidth: 8 MiB each way at once (what a halo or gather exchange does).
  const size_t n = (8u << 20) / sizeof(double);
  std::vector<double> out(n, 1.0 + rank), in(n, 0.0), sum(n, 0.0);
  const double exchange_s = time_median(reps, [&] {
    MPI_Sendrecv(out.data(), int(n), MPI_DOUBLE, peer, 1, in.data(), int(n), MPI_DOUBLE, peer, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  });
  const double bandwidth_gbs = double(n * sizeof(double)) / exchange_s / 1e9;
  const double allreduce_s = time_median(reps, [&] {
    MPI_Allreduce(out.data(), sum.data(), int(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  });
  if (rank == 0) {
    if (json)
      fmt::print("{{\"latency_us\": {:.3f}, \"exchange_8mib_ms\": {:.3f}, \"bandwidth_gbs\": "
                 "{:.2f}, \"allreduce_8mib_ms\": {:.3f}}}\n",
                 latency_us, exchange_s * 1e3, bandwidth_gbs, allreduce_s * 1e3);
    else
      fmt::print("MPI between 2 processes: latency {:.2f} us; 8 MiB each way at once {:.2f} ms "
                 "({:.2f} GB/s per direction); MPI_Allreduce of 8 MiB float64 {:.2f} ms\n",
                 latency_us, exchange_s * 1e3, bandwidth_gbs, allreduce_s * 1e3);
  }
  MPI_Finalize();
  return 0;
}
