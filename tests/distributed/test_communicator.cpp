// An application that uses MPI itself hands jx a communicator: jx runs on a duplicate of it (here
// the two processes of MPI_COMM_WORLD split off by the application) and leaves MPI_Init and
// MPI_Finalize to the application. Options that disagree with MPI are refused.
#include <jx/jx.h>
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace jnp = jx::numpy;
using jx::Array;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm mine;
  MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &mine);
  bool ok = true;
  try {
    jx::distributed::initialize({.num_processes = 3, .mpi_communicator = &mine});
    ok = false;
  } catch (const jx::ValueError &) {
  }
  jx::distributed::initialize({.num_processes = 2, .process_id = rank, .mpi_communicator = &mine});
  ok = ok && jx::process_count() == 2 && jx::process_index() == rank;
  const jx::Sharding rows = jx::NamedSharding(jx::make_mesh({8}, {"x"}), jx::P("x"));
  const Array x = jnp::arange(64.0);
  const Array y =
      jx::jit([](const Array &a) { return jnp::roll(a, 3) * 2; },
              {.in_shardings = {rows}, .out_shardings = {rows}})(jx::device_put(x, rows));
  ok = ok && jx::multihost_utils::process_allgather(y).to_vector<double>() ==
                 (jnp::roll(x, 3) * 2).to_vector<double>();
  jx::distributed::shutdown();
  // MPI is the application's still.
  int finalized = 1;
  MPI_Finalized(&finalized);
  ok = ok && !finalized;
  MPI_Comm_free(&mine);
  MPI_Finalize();
  std::printf("process %d: %s\n", rank, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
