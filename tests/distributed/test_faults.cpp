// A process that raises instead of calling a program across processes, or (argument "exit") dies
// between two calls: the others fail with a jx::Error after JX_COLLECTIVE_TIMEOUT_S (2 s here),
// never hang, and refuse later calls at once (then a survivor of a dead peer exits without
// jx::distributed::shutdown, whose MPI_Finalize may wait for the dead peer). Each process prints
// "FAULT-OK <index>" when it saw what it should (tests/CMakeLists.txt matches both lines; a dying
// process prints its line first).
// A dead peer reaches the survivors only when mpirun lets them run on: orte_enable_recovery.
#include <jx/jx.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

namespace jnp = jx::numpy;
using jx::Array;

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

} // namespace

int main(int argc, char **argv) {
  const bool exits = argc > 1 && std::string(argv[1]) == "exit";
  jx::distributed::initialize();
  const int me = jx::process_index();
  const jx::Sharding rows = jx::NamedSharding(jx::make_mesh({8}, {"x"}), jx::P("x"));
  auto f = jx::jit([](const Array &a) { return jnp::roll(a, 1) * 2; },
                   {.in_shardings = {rows}, .out_shardings = {rows}});
  const Array x = jx::device_put(jnp::arange(64.0), rows);
  bool ok = false;
  if (exits && me == 1) {
    // One call together, then this process is gone without a word to MPI.
    f(x).block_until_ready();
    std::printf("FAULT-OK 1\n");
    std::fflush(stdout);
    std::_Exit(3);
  }
  if (exits) f(x).block_until_ready();
  if (me == 1) {
    // This process raises in its own code and never joins the call.
    try {
      (void)jnp::reshape(x, {7, 9});
    } catch (const jx::Error &) {
      ok = true;
    }
    // Stays alive past the others' timeout, so theirs is the timeout and not a dead peer.
    std::this_thread::sleep_for(std::chrono::seconds(5));
  } else {
    const auto start = std::chrono::steady_clock::now();
    try {
      f(x);
    } catch (const jx::Error &e) {
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ok = contains(e.what(), "did not complete within 2 s") && seconds < 4;
      if (!ok) std::printf("process %d: %.1f s: %s\n", me, seconds, e.what());
    }
    try {
      f(x);
      ok = false;
    } catch (const jx::Error &e) {
      ok = ok && contains(e.what(), "an earlier exchange failed");
    }
  }
  // A survivor of a dead peer does not shut down: MPI_Finalize waits for every process, and Open
  // MPI 4.1's wait for one that exited without a word can last forever (1 run in 25 here). It
  // leaves MPI as the dead peer did (mpirun's recovery mode lets it).
  if (exits) {
    std::printf(ok ? "FAULT-OK %d\n" : "FAULT-FAILED %d\n", me);
    std::fflush(stdout);
    std::_Exit(ok ? 0 : 1);
  }
  jx::distributed::shutdown();
  // MPI cannot start twice in one process.
  try {
    jx::distributed::initialize();
    ok = false;
  } catch (const jx::Error &) {
  }
  if (ok) std::printf("FAULT-OK %d\n", me);
  std::fflush(stdout);
  return ok ? 0 : 1;
}
