// jx::distributed under mpirun (tests/CMakeLists.txt runs this with 1, 2 and 4 processes, 8
// global devices): every process computes its devices' boxes, halos and gathers move as MPI
// messages, and the results are bit for bit the one-process program's.
#include <jx/jx.h>

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "compile/distribute.h"
#include "compile/executable.h"
#include "diff/compare.h"
#include "diff/random_graph.h"
#include "heat/heat_step.h"
#include "runtime/collectives.h"
#include "seeds.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using jx::P;
using jx::Sharding;

std::vector<double> gathered(const Array &x) {
  return jx::multihost_utils::process_allgather(x).to_vector<double>();
}

TEST(Distributed, ProcessesAndDevices) {
  const int processes = jx::process_count(), local = jx::local_device_count();
  EXPECT_EQ(jx::device_count(), processes * local);
  EXPECT_EQ(int(jx::devices().size()), processes * local);
  EXPECT_EQ(processes * local, 8);
  const std::vector<jx::Device> mine = jx::local_devices();
  ASSERT_EQ(int(mine.size()), local);
  for (const jx::Device &d : mine)
    EXPECT_EQ(d.process_index(), jx::process_index());
  EXPECT_EQ(jx::devices().back().process_index(), processes - 1);
  EXPECT_THROW(jx::distributed::initialize(), jx::Error);
}

// The seed's (1,1), (8,1) and (1,8) layouts and a 2x4 mesh over the 8 global devices.
std::vector<Sharding> seed_layouts() {
  return {seeds::diff_layout(1, 1), seeds::diff_layout(8, 1), seeds::diff_layout(1, 8),
          jx::NamedSharding(jx::make_mesh({2, 4}, {"x", "y"}), P("x", "y"))};
}

// Seed 000 in each layout: bit-identical to the unsharded program.
TEST(Distributed, DiffSeedMatchesOneProcess) {
  const Array x = jx::random::normal(jx::random::PRNGKey(0), {256, 192}, jx::float64);
  const std::vector<double> expected = jx::jit(seeds::calc_fd_kernel)(x).to_vector<double>();
  const std::vector<Sharding> shardings = seed_layouts();
  for (const Sharding &s : shardings) {
    auto f = jx::jit(seeds::calc_fd_kernel, {.in_shardings = {s}, .out_shardings = {s}});
    const Array out = f(jx::device_put(x, s));
    EXPECT_EQ(gathered(out), expected) << s.str();
    EXPECT_TRUE(out.sharding() == s);
  }
  // (8,1): every process but the first receives the row above its rows, and computes the rest
  // of its rows while that row is in flight; cost_analysis() counts the bytes moved between
  // processes, one row per process edge.
  auto compiled = jx::jit(seeds::calc_fd_kernel,
                          {.in_shardings = {shardings[1]}, .out_shardings = {shardings[1]}})
                      .lower(jx::ShapeDtypeStruct{{256, 192}, jx::float64})
                      .compile();
  if (jx::process_count() > 1) {
    EXPECT_EQ(compiled.cost_analysis().communication_bytes,
              double((jx::process_count() - 1) * 192 * 8));
  }
  if (jx::process_index() > 0) {
    const std::string text = compiled.as_text();
    EXPECT_NE(text.find("mpi receives 1536 bytes from process"), std::string::npos) << text;
    EXPECT_NE(text.find("overlap: "), std::string::npos) << text;
  }
}

// Bytes of memory behind x in this process.
size_t held_bytes(const Array &x) { return x.node()->local_value()->bytes(); }

// A result holds this process's shards only (the window of their bounding box), never the
// global array: its share of the bytes, nothing where it has no shard; fed back as the next
// call's argument it is read in place. (Rows of at least 64 elements per process: narrower
// column splits are computed in row bands over all devices, for bits equal to one process's.)
TEST(Distributed, ProcessesHoldOnlyTheirShards) {
  const int processes = jx::process_count(), me = jx::process_index();
  const Array x = jx::random::normal(jx::random::PRNGKey(0), {64, 1024}, jx::float64);
  const size_t total = 64 * 1024 * 8;
  const std::vector<Sharding> layouts = seed_layouts();
  for (size_t k = 0; k < layouts.size(); ++k) {
    auto f = jx::jit(seeds::calc_fd_kernel,
                     {.in_shardings = {layouts[k]}, .out_shardings = {layouts[k]}});
    const Array once = f(jx::device_put(x, layouts[k])), twice = f(once);
    // (1,1): the whole on device 0's process, nothing elsewhere. Where a process's rows start
    // past row 0, plus the row above them that the seed reads (the margin that lets the result be
    // read in place as the next call's argument).
    const size_t share = k == 0 ? (me == 0 ? total : 0) : total / size_t(processes);
    const int64_t rows = k == 1 ? 64 / processes : processes == 1 ? 64 : 32;
    const bool below = k == 1 ? me > 0 : me * jx::local_device_count() >= 4;
    const size_t margin = below && (k == 1 || k == 3) ? share / size_t(rows) : 0;
    EXPECT_EQ(held_bytes(once), share + margin) << layouts[k].str();
    EXPECT_EQ(held_bytes(twice), share + margin) << layouts[k].str();
    const std::vector<double> reference =
        jx::jit(seeds::calc_fd_kernel)(jx::jit(seeds::calc_fd_kernel)(x)).to_vector<double>();
    EXPECT_EQ(gathered(twice), reference) << layouts[k].str();
  }
  // Made from process-local data: its rows only.
  const Sharding rows = layouts[1];
  const Array local = jx::make_array_from_process_local_data(
      rows, jnp::ones({64 / processes, 1024}, jx::float64), jx::Shape{64, 1024});
  EXPECT_EQ(held_bytes(local), total / size_t(processes));
}

// Every pair of the seed's layouts: the argument placed one way, the result the other (an
// all-to-all between processes where the layouts cross).
TEST(Distributed, ReshardsBetweenEveryPairOfLayouts) {
  const Array x = jx::random::normal(jx::random::PRNGKey(2), {128, 96}, jx::float64);
  const std::vector<double> expected = jx::jit(seeds::calc_fd_kernel)(x).to_vector<double>();
  const std::vector<Sharding> layouts = seed_layouts();
  for (const Sharding &from : layouts)
    for (const Sharding &to : layouts) {
      auto f = jx::jit(seeds::calc_fd_kernel, {.in_shardings = {from}, .out_shardings = {to}});
      const Array out = f(jx::device_put(x, from));
      EXPECT_EQ(gathered(out), expected) << from.str() << " -> " << to.str();
      EXPECT_TRUE(out.sharding() == to);
    }
}

// Loops whose carries are sharded run their bodies per process: each iteration's halos cross
// processes inside the body, and the carries stay shards between iterations.
TEST(Distributed, LoopsRunTheirBodiesAcrossProcesses) {
  const Array u = jx::random::normal(jx::random::PRNGKey(4), {40, 64});
  const Sharding s = jx::NamedSharding(jx::make_mesh({2, 4}, {"x", "y"}), P("x", "y"));
  auto heat = [](const Array &v) {
    return jx::lax::fori_loop(
        0, 25, [](const Array &, const Array &w) { return heat::step(w); }, v);
  };
  // Halves each value until the largest is under 1: the condition reads the sharded carry.
  auto halve = [](const Array &v) {
    return jx::lax::while_loop([](const Array &w) { return jnp::max(jnp::abs(w)) >= 1.0; },
                               [](const Array &w) { return w * 0.5 + jnp::roll(w, 1, 0) * 0.0; },
                               v);
  };
  for (const auto &f :
       {std::function<Array(const Array &)>(heat), std::function<Array(const Array &)>(halve)}) {
    const std::vector<double> expected = jx::jit(f)(u).to_vector<double>();
    auto sharded = jx::jit(f, {.in_shardings = {s}, .out_shardings = {s}});
    const Array out = sharded(jx::device_put(u, s));
    EXPECT_EQ(gathered(out), expected);
    if (jx::process_count() > 1) {
      const std::string text =
          sharded.lower(jx::ShapeDtypeStruct{{40, 64}, jx::float64}).compile().as_text();
      const size_t body = text.find("region ");
      ASSERT_NE(body, std::string::npos) << text;
      EXPECT_NE(text.find("mpi ", body), std::string::npos) << text;
    }
  }
}

// Seed 001 as the demo shards it: its (200 functions, 100 intervals) result over the 8 devices
// along the functions.
TEST(Distributed, SimpsonSeedMatchesOneProcess) {
  auto integrate = [](const Array &a, const Array &b) {
    return seeds::simps([](const Array &x) { return seeds::funcN(x); }, a, b, 512);
  };
  const Array a = jnp::arange(0, 10, 0.1), b = a + 0.05;
  const std::vector<double> expected = jx::jit(integrate)(a, b).to_vector<double>();
  const Sharding functions = jx::NamedSharding(jx::make_mesh({8}, {"d"}), P("d", nullptr));
  const Array out = jx::jit(integrate, {.out_shardings = {functions}})(a, b);
  EXPECT_EQ(gathered(out), expected);
}

// Random graphs of the differential generator under random placements over the 8 global
// devices: each process's boxes, gathered, give the unplaced program's bits.
TEST(Distributed, RandomPlacedGraphsMatchUnplaced) {
  const uint64_t graphs = 200 / uint64_t(jx::process_count() > 1 ? 1 : 4);
  const int processes = jx::process_count(), me = jx::process_index();
  int failures = 0;
  for (uint64_t seed = 0; seed < graphs; ++seed) {
    jx::diff::GeneratedGraph g = jx::diff::random_graph(seed);
    std::mt19937_64 rng(seed);
    const jx::ir::NodePtr root = g.root.node();
    jx::sharding::Placement placement;
    // Rows (or the only axis) split over 8 devices, or rows and columns over 2 x 4.
    const jx::Shape &shape = root->shape;
    const bool grid = shape.size() >= 2 && rng() % 2;
    for (int d = 0; d < 8; ++d) {
      jx::sharding::DeviceBox box{d, std::vector<int64_t>(shape.size(), 0), shape};
      if (!shape.empty()) {
        const int64_t ways0 = grid ? 2 : 8, k0 = grid ? d / 4 : d;
        box.lo[0] = shape[0] * k0 / ways0;
        box.hi[0] = shape[0] * (k0 + 1) / ways0;
        if (grid) {
          box.lo[1] = shape[1] * (d % 4) / 4;
          box.hi[1] = shape[1] * (d % 4 + 1) / 4;
        }
      }
      placement.push_back(box);
    }
    const jx::runtime::BufferPtr whole = jx::compile::Executable({}, {root}).run({})[0];
    const jx::compile::Executable placed({}, {root}, true, {}, {placement}, {}, true);
    const jx::runtime::BufferPtr local = placed.run({})[0];
    // This process's window of the result, then every process's part.
    const size_t item = jx::itemsize(root->dtype);
    jx::runtime::BufferPtr all = jx::runtime::make_buffer(size_t(root->size()) * item);
    jx::runtime::copy_window(local->as<char>(), local->holds(shape), all->as<char>(),
                             jx::runtime::Window::whole(shape), item);
    if (placed.distributed()) {
      void *address[] = {all->data()};
      jx::runtime::communicator()->exchange(
          jx::compile::allgather_exchange(placement, shape, root->dtype, me, processes,
                                          jx::local_device_count()),
          address);
    }
    const jx::diff::CompareResult r = jx::diff::compare_buffers(g.root, whole, all, {});
    if (!r.ok && ++failures <= 5)
      ADD_FAILURE() << "seed " << seed << " (" << g.description << "): " << r.message;
  }
  EXPECT_EQ(failures, 0);
}

// Arrays made from each process's own data, its shards, and the errors of reading the rest.
TEST(Distributed, ProcessLocalData) {
  const int processes = jx::process_count(), me = jx::process_index();
  const Sharding rows = jx::NamedSharding(jx::make_mesh({8}, {"x"}), P("x", nullptr));
  const int64_t local_rows = 8 / processes * 3;
  const Array mine = jnp::full({local_rows, 5}, double(me));
  const Array x = jx::make_array_from_process_local_data(rows, mine);
  ASSERT_EQ(x.shape(), (jx::Shape{24, 5}));
  EXPECT_EQ(x.is_fully_addressable(), processes == 1);
  x.block_until_ready();
  const std::vector<jx::Shard> shards = x.addressable_shards();
  EXPECT_EQ(int(shards.size()), jx::local_device_count());
  for (const jx::Shard &s : shards)
    EXPECT_EQ(s.data.to_vector<double>(), std::vector<double>(15, double(me)));
  std::vector<double> expected;
  for (int p = 0; p < processes; ++p)
    expected.insert(expected.end(), size_t(local_rows * 5), double(p));
  EXPECT_EQ(gathered(x), expected);
  // A jitted function of it runs on every process's shards.
  const Array y = jx::jit([](const Array &a) { return a * 2 + 1; },
                          {.in_shardings = {rows}, .out_shardings = {rows}})(x);
  for (double &v : expected)
    v = v * 2 + 1;
  EXPECT_EQ(gathered(y), expected);
  // A callback per shard gives the same array.
  const Array z = jx::make_array_from_callback({24, 5}, rows, [](const std::vector<jx::Slice> &i) {
    return jnp::full({*i[0].stop - *i[0].start, 5},
                     double(*i[0].start / (24 / jx::process_count())));
  });
  EXPECT_EQ(gathered(z), gathered(x));
  if (processes > 1) {
    EXPECT_THROW(x.to_vector<double>(), jx::Error);
    EXPECT_THROW((void)(x + 1).to_vector<double>(), jx::Error);
    EXPECT_THROW(jnp::save("/tmp/jx_not_addressable.npy", x), jx::Error);
    EXPECT_THROW(jx::make_array_from_process_local_data(rows, jnp::zeros({local_rows + 1, 5}),
                                                        jx::Shape{24, 5}),
                 jx::ValueError);
  }
  // broadcast_one_to_all: process 0's value everywhere.
  const Array b = jx::multihost_utils::broadcast_one_to_all(jnp::full({3}, double(me + 7)));
  EXPECT_EQ(b.to_vector<double>(), std::vector<double>(3, 7.0));
  jx::multihost_utils::sync_global_devices("process local data");
}

// A program that differs between processes is refused on its first call, on every process.
TEST(Distributed, DifferentProgramsAreRefused) {
  if (jx::process_count() == 1) GTEST_SKIP() << "one process";
  const Sharding rows = jx::NamedSharding(jx::make_mesh({8}, {"x"}), P("x"));
  const double k = jx::process_index() == 0 ? 2.0 : 3.0;
  auto f =
      jx::jit([&](const Array &a) { return jnp::sin(a) * (jx::process_index() == 0 ? a : a + k); },
              {.in_shardings = {rows}, .out_shardings = {rows}});
  try {
    f(jx::device_put(jnp::ones({64}), rows));
    ADD_FAILURE() << "no error";
  } catch (const jx::Error &e) {
    EXPECT_NE(std::string(e.what()).find("compiled a different program than process"),
              std::string::npos)
        << e.what();
  }
}

// Arrays of other shapes or dtypes on different processes: every process raises the same
// ValueError before any data moves (one process used to read mixed data while another failed in
// MPI), and the communicator stays usable.
TEST(Distributed, GathersOfDifferentArraysAreRefusedEverywhere) {
  if (jx::process_count() == 1) GTEST_SKIP() << "one process";
  const int me = jx::process_index();
  auto refused = [](const std::function<void()> &f, const std::string &part) {
    try {
      f();
      ADD_FAILURE() << "no error; expected: " << part;
    } catch (const jx::ValueError &e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  refused([&] { jx::multihost_utils::broadcast_one_to_all(jnp::zeros({me + 1})); },
          "broadcast_one_to_all needs an array of one shape and dtype on every process, but got "
          "float64[1] on process 0, float64[2] on process 1");
  refused(
      [&] {
        jx::multihost_utils::broadcast_one_to_all(
            jnp::zeros({2}, me == 0 ? jx::float32 : jx::float64));
      },
      "float32[2] on process 0, float64[2] on process 1");
  const Sharding rows = jx::NamedSharding(jx::make_mesh({8}, {"x"}), P("x"));
  const Array x = jx::device_put(jnp::ones({8 * (me + 1)}), rows);
  refused([&] { jx::multihost_utils::process_allgather(x); },
          "process_allgather needs an array of one shape and dtype on every process, but got "
          "float64[8] on process 0, float64[16] on process 1");
  const Array b = jx::multihost_utils::broadcast_one_to_all(jnp::full({3}, double(me + 7)));
  EXPECT_EQ(b.to_vector<double>(), std::vector<double>(3, 7.0));
}

} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  jx::distributed::initialize();
  // One process's report is enough.
  if (jx::process_index() != 0)
    delete ::testing::UnitTest::GetInstance()->listeners().Release(
        ::testing::UnitTest::GetInstance()->listeners().default_result_printer());
  const int failed = RUN_ALL_TESTS();
  jx::distributed::shutdown();
  return failed;
}
