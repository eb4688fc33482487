// Processes started without mpirun (tests/CMakeLists.txt starts two from a shell): they meet at
// the coordinator_address given on the command line, run a program whose halos cross them, and
// print "COORD-OK <process_id>" when the result equals one process's bit for bit.
#include <jx/jx.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "seeds.h"

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  const int id = std::atoi(argv[2]);
  // Without mpirun, the coordinator needs to be told the processes (JAX's errors), each once.
  auto refused = [&](const jx::distributed::InitializeOptions &o, const std::string &message) {
    try {
      jx::distributed::initialize(o);
    } catch (const jx::ValueError &e) {
      return std::string(e.what()).find(message) != std::string::npos;
    }
    return false;
  };
  bool ok =
      refused({.coordinator_address = std::string(argv[1])},
              "Number of processes must be defined.") &&
      refused({.coordinator_address = std::string(argv[1]), .num_processes = 2},
              "The process id of the current process must be defined.") &&
      refused({.coordinator_address = std::string(argv[1]), .num_processes = 2, .process_id = 2},
              "process_id 2 is not in [0, num_processes=2)") &&
      refused({.coordinator_address = std::string("no-port"), .num_processes = 2, .process_id = id},
              "is not host:port") &&
      !jx::distributed::is_initialized();
  jx::distributed::initialize(
      {.coordinator_address = std::string(argv[1]), .num_processes = 2, .process_id = id});
  ok = ok && jx::process_index() == id && jx::process_count() == 2 &&
       jx::device_count() == 2 * jx::local_device_count();
  const jx::Array x = jx::random::normal(jx::random::PRNGKey(0), {64, 48}, jx::float64);
  const jx::Sharding rows = seeds::diff_layout(8, 1);
  auto f = jx::jit(seeds::calc_fd_kernel, {.in_shardings = {rows}, .out_shardings = {rows}});
  const jx::Array out = f(jx::device_put(x, rows));
  ok = ok && jx::multihost_utils::process_allgather(out).to_vector<double>() ==
                 jx::jit(seeds::calc_fd_kernel)(x).to_vector<double>();
  jx::distributed::shutdown();
  if (ok) std::printf("COORD-OK %d\n", id);
  std::fflush(stdout);
  return ok ? 0 : 1;
}
