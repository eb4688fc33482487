// jx's side of the gemm group (issue 10, contractions at BLAS speed): square matmuls, skinny and
// matrix-vector products, batched and chained einsums, a transposed operand, a dense layer, the
// memory-bound neighbours transpose(x) + 1 and sum(x, 0), and a matmul sharded over 8 CPU
// devices. Each is compiled once with jx::jit(f).lower(ShapeDtypeStruct...).compile(); the
// inputs are realized (and placed), one untimed call warms up, then timed calls that each block
// on the result run until at least --min-reps calls and --min-time seconds (at most --max-reps).
// Prints compile time, median and min ms and GFLOP/s (2*M*N*K per product over the median);
// --json prints one object per workload and line for bench/peers/peers.py --group gemm.
#include <jx/jx.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "seed_util.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using jx::P;
using seed_bench::Clock;
using seed_bench::ms_since;

using Inputs = std::vector<Array>;
using Call = std::function<Array(const Inputs &)>;

// jit(f, options).lower(specs...).compile() for a function of one, two or three arrays.
template <class F>
Call compile(F f, const jx::JitOptions &options, const std::vector<jx::ShapeDtypeStruct> &s) {
  auto jitted = jx::jit(f, options);
  auto wrap = [](auto compiled) -> Call {
    return [compiled](const Inputs &args) { return compiled.call(args); };
  };
  if constexpr (std::is_invocable_v<F, const Array &>)
    return wrap(jitted.lower(s.at(0)).compile());
  else if constexpr (std::is_invocable_v<F, const Array &, const Array &>)
    return wrap(jitted.lower(s.at(0), s.at(1)).compile());
  else
    return wrap(jitted.lower(s.at(0), s.at(1), s.at(2)).compile());
}

struct Workload {
  std::string name;
  jx::DType dtype;
  std::vector<jx::Shape> shapes;        // of the inputs, normal samples
  std::vector<jx::Sharding> placements; // device_put of each input (sharded rows only)
  double flops;                         // 0: not a contraction
  std::function<Call()> compile;
};

const std::vector<std::string> all_groups{"square",     "skinny", "batched", "chain",
                                          "transposed", "dense",  "memory",  "sharded"};

struct Options {
  std::vector<int64_t> sizes{64, 256, 512, 1024, 2048, 4096};
  std::set<jx::DType> dtypes{jx::float32, jx::float64};
  std::set<std::string> groups{all_groups.begin(), all_groups.end()};
  int64_t shrink = 1;
  int min_reps = 3, max_reps = 1000;
  double min_time = 1.0;
  bool json = false;
};

// The workloads the options select, in table order.
std::vector<Workload> workloads(const Options &o) {
  std::vector<Workload> list;
  auto dim = [&](int64_t d) { return std::max<int64_t>(1, d / o.shrink); };
  auto add = [&](const std::string &group, std::string name, jx::DType dtype,
                 std::vector<jx::Shape> shapes, double flops, auto f, jx::JitOptions options = {},
                 std::vector<jx::Sharding> placements = {}) {
    if (!o.groups.contains(group) || !o.dtypes.contains(dtype)) return;
    std::vector<jx::ShapeDtypeStruct> specs;
    for (const jx::Shape &s : shapes)
      specs.push_back({s, dtype});
    list.push_back({std::move(name), dtype, std::move(shapes), std::move(placements), flops,
                    [f, options, specs] { return compile(f, options, specs); }});
  };
  auto matmul = [](const Array &a, const Array &b) { return jnp::matmul(a, b); };
  auto product = [](int64_t m, int64_t k, int64_t n) { return 2.0 * double(m * k) * double(n); };
  const std::vector<jx::DType> both{jx::float32, jx::float64};

  for (int64_t n : o.sizes)
    for (jx::DType d : both)
      add("square", fmt::format("matmul_{}", n), d, {{n, n}, {n, n}}, product(n, n, n), matmul);

  // Skinny: an outer-product-like rank-64 update, a 64x64 result of long dot products, and a
  // matrix-vector product written as a matmul.
  const int64_t big = dim(4096), thin = dim(64);
  for (jx::DType d : both) {
    add("skinny", fmt::format("matmul_{}x{}_{}x{}", big, thin, thin, big), d,
        {{big, thin}, {thin, big}}, product(big, thin, big), matmul);
    add("skinny", fmt::format("matmul_{}x{}_{}x{}", thin, big, big, thin), d,
        {{thin, big}, {big, thin}}, product(thin, big, thin), matmul);
    add("skinny", fmt::format("matmul_{}x{}_{}x1", big, big, big), d, {{big, big}, {big, 1}},
        product(big, big, 1), matmul);
  }

  const int64_t batch = dim(64), block = dim(128);
  for (jx::DType d : both)
    add("batched", fmt::format("einsum_bij_bjk_{}x{}", batch, block), d,
        {{batch, block, block}, {batch, block, block}},
        double(batch) * product(block, block, block),
        [](const Array &a, const Array &b) { return jnp::einsum("bij,bjk->bik", a, b); });

  // Two products of n^3 whichever pair einsum contracts first.
  const int64_t chain = dim(1024);
  for (jx::DType d : both)
    add("chain", fmt::format("einsum_ij_jk_kl_{}", chain), d,
        {{chain, chain}, {chain, chain}, {chain, chain}}, 2 * product(chain, chain, chain),
        [](const Array &a, const Array &b, const Array &c) {
          return jnp::einsum("ij,jk,kl->il", a, b, c);
        });

  for (int64_t n : {dim(1024), dim(2048)})
    for (jx::DType d : both)
      add("transposed", fmt::format("matmul_tn_{}", n), d, {{n, n}, {n, n}}, product(n, n, n),
          [](const Array &a, const Array &b) { return jnp::dot(jnp::transpose(a), b); });

  // A dense layer and its bare matmul, float32 as in a neural network.
  const int64_t rows = dim(4096), width = dim(1024);
  const std::string layer = fmt::format("{}x{}x{}", rows, width, width);
  add("dense", "dense_relu_" + layer, jx::float32, {{rows, width}, {width, width}, {width}},
      product(rows, width, width), [](const Array &x, const Array &w, const Array &b) {
        return jnp::maximum(jnp::matmul(x, w) + b, 0.0);
      });
  add("dense", "dense_matmul_" + layer, jx::float32, {{rows, width}, {width, width}},
      product(rows, width, width), matmul);

  // Memory-bound neighbours, against copy_limit's memcpy and read-once times.
  const int64_t square = dim(4096);
  add("memory", fmt::format("transpose_add_{}", square), jx::float64, {{square, square}}, 0,
      [](const Array &x) { return jnp::transpose(x) + 1.0; });
  add("memory", fmt::format("sum0_{}", square), jx::float64, {{square, square}}, 0,
      [](const Array &x) { return jnp::sum(x, {0}); });

  // Sharded over 8 devices: rows (8,1), and a 2x4 mesh with P('x', 'y') out. Each device gets
  // the rows of a and the columns of b its box of the product needs, so no device waits on
  // another. The unsharded row beside them is the square matmul of the same n.
  if (!o.groups.contains("sharded")) return list;
  const int64_t n = std::max<int64_t>(8, 2048 / o.shrink);
  if (!(o.groups.contains("square") && std::ranges::count(o.sizes, n)))
    add("sharded", fmt::format("matmul_{}", n), jx::float64, {{n, n}, {n, n}}, product(n, n, n),
        matmul);
  const jx::Mesh line = jx::make_mesh({8}, {"x"}), grid = jx::make_mesh({2, 4}, {"x", "y"});
  const jx::Sharding by_rows = jx::NamedSharding(line, P("x", nullptr)),
                     replicated = jx::NamedSharding(line, P());
  add("sharded", fmt::format("matmul_{}_8dev_8x1", n), jx::float64, {{n, n}, {n, n}},
      product(n, n, n), matmul, {.in_shardings = {by_rows, replicated}, .out_shardings = {by_rows}},
      {by_rows, replicated});
  const jx::Sharding grid_rows = jx::NamedSharding(grid, P("x", nullptr)),
                     grid_cols = jx::NamedSharding(grid, P(nullptr, "y")),
                     grid_out = jx::NamedSharding(grid, P("x", "y"));
  add("sharded", fmt::format("matmul_{}_8dev_2x4", n), jx::float64, {{n, n}, {n, n}},
      product(n, n, n), matmul,
      {.in_shardings = {grid_rows, grid_cols}, .out_shardings = {grid_out}},
      {grid_rows, grid_cols});
  return list;
}

struct Measured {
  double compile_ms, median_ms, min_ms;
  int reps;
};

Measured measure(const Workload &w, const Options &o, uint32_t seed) {
  Inputs inputs;
  auto keys = jx::random::split(jx::random::PRNGKey(seed), int64_t(w.shapes.size()));
  for (size_t i = 0; i < w.shapes.size(); ++i) {
    Array x = jx::random::normal(keys[int64_t(i)], w.shapes[i], w.dtype);
    if (i < w.placements.size()) x = jx::device_put(x, w.placements[i]);
    inputs.push_back(x.block_until_ready());
  }
  auto t0 = Clock::now();
  const Call call = w.compile();
  const double compile_ms = ms_since(t0);

  std::optional<Array> result = call(inputs).block_until_ready(); // warm-up
  std::vector<double> times;
  double total = 0;
  while ((int(times.size()) < o.min_reps || total < o.min_time * 1e3) &&
         int(times.size()) < o.max_reps) {
    result.reset(); // the previous result's buffer is recycled, as in a steady loop
    auto start = Clock::now();
    result = call(inputs).block_until_ready();
    times.push_back(ms_since(start));
    total += times.back();
  }
  std::sort(times.begin(), times.end());
  return {compile_ms, times[times.size() / 2], times[0], int(times.size())};
}

// "a,b,c" -> {"a", "b", "c"}
std::vector<std::string> split_list(const std::string &s) {
  std::vector<std::string> items;
  for (size_t begin = 0; begin <= s.size();) {
    size_t end = s.find(',', begin);
    if (end == std::string::npos) end = s.size();
    if (end > begin) items.push_back(s.substr(begin, end - begin));
    begin = end + 1;
  }
  return items;
}

int usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s [--sizes 64,256,...] [--dtypes float32,float64] [--groups %s] "
               "[--shrink K] [--min-reps N] [--min-time S] [--max-reps N] [--json]\n",
               argv0, fmt::format("{}", fmt::join(all_groups, ",")).c_str());
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--sizes" && has_value) {
      o.sizes.clear();
      for (const std::string &s : split_list(argv[++i])) {
        const int64_t n = std::atoll(s.c_str());
        if (n <= 0) return usage(argv[0]);
        o.sizes.push_back(n);
      }
    } else if (arg == "--dtypes" && has_value) {
      o.dtypes.clear();
      for (const std::string &s : split_list(argv[++i])) {
        if (s != "float32" && s != "float64") return usage(argv[0]);
        o.dtypes.insert(s == "float32" ? jx::float32 : jx::float64);
      }
    } else if (arg == "--groups" && has_value) {
      o.groups.clear();
      for (const std::string &s : split_list(argv[++i])) {
        if (std::ranges::count(all_groups, s) == 0) return usage(argv[0]);
        o.groups.insert(s);
      }
    } else if (arg == "--shrink" && has_value) {
      o.shrink = std::max<int64_t>(1, std::atoll(argv[++i]));
    } else if (arg == "--min-reps" && has_value) {
      o.min_reps = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--min-time" && has_value) {
      o.min_time = std::max(0.0, std::atof(argv[++i]));
    } else if (arg == "--max-reps" && has_value) {
      o.max_reps = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--json") {
      o.json = true;
    } else {
      return usage(argv[0]);
    }
  }
  o.max_reps = std::max(o.max_reps, o.min_reps);
  // The sharded rows run on 8 CPU devices (XLA's --xla_force_host_platform_device_count=8), to be
  // set before anything uses devices; the other rows do not use them.
  jx::config::set_num_cpu_devices(8);

  const std::vector<Workload> list = workloads(o);
  if (!o.json) {
    fmt::print("jx gemm group: medians of at least {} calls and {:g} s (at most {} calls) after a "
               "warm-up call{}\n",
               o.min_reps, o.min_time, o.max_reps,
               o.shrink > 1 ? fmt::format("; fixed sizes divided by {}", o.shrink) : "");
    fmt::print("{:<28} | {:<7} | {:>10} | {:>10} | {:>10} | {:>5} | {:>8}\n", "workload", "dtype",
               "compile ms", "median ms", "min ms", "calls", "GFLOP/s");
  }
  uint32_t seed = 0;
  for (const Workload &w : list) {
    const Measured m = measure(w, o, seed++);
    const std::optional<double> gflops =
        w.flops > 0 ? std::optional(w.flops / m.median_ms / 1e6) : std::nullopt;
    if (o.json) {
      fmt::print("{{\"name\": \"{}\", \"dtype\": \"{}\", \"median_ms\": {:.6g}, \"gflops\": {}, "
                 "\"compile_ms\": {:.1f}, \"min_ms\": {:.6g}, \"reps\": {}}}\n",
                 w.name, jx::dtype_name(w.dtype), m.median_ms,
                 gflops ? fmt::format("{:.2f}", *gflops) : "null", m.compile_ms, m.min_ms, m.reps);
    } else {
      fmt::print("{:<28} | {:<7} | {:>10.1f} | {:>10.4f} | {:>10.4f} | {:>5} | {:>8}\n", w.name,
                 jx::dtype_name(w.dtype), m.compile_ms, m.median_ms, m.min_ms, m.reps,
                 gflops ? fmt::format("{:.1f}", *gflops) : "-");
    }
    std::fflush(stdout);
  }
  return 0;
}
