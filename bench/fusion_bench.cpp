// What fusion buys: each workload compiled by jx::jit fused and unfused ({.fuse = false}, one
// materialized kernel per op, as eager NumPy runs), timed with Google Benchmark; a table of the
// medians and the unfused/fused ratios follows the benchmark output.
#include <jx/jx.h>

#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "seeds.h"

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using Inputs = std::vector<Array>;
using Compiled = std::function<Array(const Inputs &)>;

constexpr int repetitions = 5;

// Workload names in registration order, for the table.
std::vector<std::string> workloads;

// Realizes a workload's inputs once, on first use, so that --benchmark_filter skips the others.
class LazyInputs {
public:
  explicit LazyInputs(std::function<Inputs()> make) : make_(std::move(make)) {}
  const Inputs &get() {
    std::call_once(once_, [&] {
      inputs_ = make_();
      for (const Array &a : inputs_)
        a.block_until_ready();
    });
    return inputs_;
  }

private:
  std::function<Inputs()> make_;
  std::once_flag once_;
  Inputs inputs_;
};

// jit(f).lower(specs...).compile() for a function of one or two arrays.
template <class F> Compiled compile(F f, bool fuse, const Inputs &in) {
  auto jitted = jx::jit(f, {.fuse = fuse});
  auto spec = [&](size_t i) { return jx::ShapeDtypeStruct{in[i].shape(), in[i].dtype()}; };
  if constexpr (std::is_invocable_v<F, const Array &>) {
    auto compiled = jitted.lower(spec(0)).compile();
    return [compiled](const Inputs &args) { return compiled.call(args); };
  } else {
    auto compiled = jitted.lower(spec(0), spec(1)).compile();
    return [compiled](const Inputs &args) { return compiled.call(args); };
  }
}

// Registers <name>/fused and <name>/unfused. Compilation happens once, before the first timed
// iteration (Google Benchmark calls the body once per repetition and per iteration-count probe).
template <class F> void add(const std::string &name, F f, std::function<Inputs()> make_inputs) {
  workloads.push_back(name);
  auto inputs = std::make_shared<LazyInputs>(std::move(make_inputs));
  for (bool fuse : {true, false}) {
    auto compiled = std::make_shared<Compiled>();
    auto body = [=](benchmark::State &state) {
      const Inputs &in = inputs->get();
      if (!*compiled) *compiled = compile(f, fuse, in);
      for (auto _ : state)
        benchmark::DoNotOptimize((*compiled)(in).block_until_ready());
    };
    benchmark::RegisterBenchmark((name + (fuse ? "/fused" : "/unfused")).c_str(), body)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Repetitions(repetitions)
        ->ReportAggregatesOnly(true);
  }
}

Array simpson_stack(const Array &a, const Array &b) {
  return seeds::simps([](const Array &x) { return seeds::funcN(x); }, a, b, 512);
}

Array simpson_broadcast(const Array &a, const Array &b) {
  return seeds::simps([](const Array &x) { return seeds::funcN_broadcast(x); }, a, b, 512);
}

// Ten elementwise ops: mul, add, neg, exp, mul, add, sqrt, sub, mul, div.
Array chain10(const Array &x) {
  auto t = jnp::exp(-(x * 1.5 + 0.5)) * x;
  t = jnp::sqrt(t + 1.0) - x;
  return t * t / 3.0;
}

Array softmax(const Array &x) {
  auto e = jnp::exp(x - jnp::max(x, {.axis = 1, .keepdims = true}));
  return e / jnp::sum(e, {.axis = 1, .keepdims = true});
}

// Complex arithmetic and exp, elementwise (ir::finish's formulas on the parts).
Array complex_chain(const Array &z) {
  return jnp::exp(z * std::complex<double>(0, 0.5)) * z + z * z;
}

// A matmul written as broadcast-multiply-sum: a (256, 256, 256) product reduced over axis 1.
Array matmul_bcast(const Array &a, const Array &b) {
  return jnp::sum(a(jx::slice(), jx::slice(), jx::newaxis) * b(jx::newaxis), {1});
}

void register_workloads() {
  auto intervals = [] {
    auto a = jnp::arange(0, 10, 0.1);
    return Inputs{a, a + 0.05};
  };
  add("simpson_stack", simpson_stack, intervals);
  add("simpson_broadcast", simpson_broadcast, intervals);
  add("diff_4096", seeds::calc_fd_kernel, [] {
    return Inputs{jx::random::normal(jx::random::PRNGKey(0), {4096, 4096}, jx::float64)};
  });
  add("chain10_4096x1024", chain10, [] {
    return Inputs{jx::random::uniform(jx::random::PRNGKey(1), {4096, 1024}, jx::float64)};
  });
  add("softmax_4096x1024", softmax, [] {
    return Inputs{jx::random::normal(jx::random::PRNGKey(2), {4096, 1024}, jx::float64)};
  });
  add("complex_2048x1024", complex_chain, [] {
    auto keys = jx::random::split(jx::random::PRNGKey(4));
    return Inputs{jx::random::normal(keys[0], {2048, 1024}, jx::float64) +
                  jx::random::normal(keys[1], {2048, 1024}, jx::float64) *
                      std::complex<double>(0, 1)};
  });
  // Four real contractions of the parts, against NumPy's and JAX's zgemm.
  add(
      "cmatmul_512", [](const Array &a, const Array &b) { return jnp::matmul(a, b); },
      [] {
        auto keys = jx::random::split(jx::random::PRNGKey(5), 4);
        auto part = [&](size_t i) { return jx::random::normal(keys[i], {512, 512}, jx::float64); };
        return Inputs{part(0) + part(1) * std::complex<double>(0, 1),
                      part(2) + part(3) * std::complex<double>(0, 1)};
      });
  add("matmul_bcast_256", matmul_bcast, [] {
    auto keys = jx::random::split(jx::random::PRNGKey(3));
    return Inputs{jx::random::normal(keys[0], {256, 256}, jx::float64),
                  jx::random::normal(keys[1], {256, 256}, jx::float64)};
  });
}

// The console output as usual, plus the median real time of each benchmark for the table.
class MedianReporter : public benchmark::ConsoleReporter {
public:
  MedianReporter() : benchmark::ConsoleReporter(OO_None) {}

  void ReportRuns(const std::vector<Run> &runs) override {
    for (const Run &run : runs)
      if (run.aggregate_name == "median" && !run.error_occurred)
        medians_[run.run_name.function_name] = run.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }

  // Workloads filtered out (--benchmark_filter) or with only one side measured are left out.
  void print_table() const {
    std::vector<std::string> names;
    for (const std::string &name : workloads)
      if (medians_.contains(name + "/fused") && medians_.contains(name + "/unfused"))
        names.push_back(name);
    if (names.empty()) return;
    fmt::print("\nmedians of {} repetitions, real time\n", repetitions);
    fmt::print("{:<20} | {:>10} | {:>12} | {:>13}\n", "workload", "fused ms", "unfused ms",
               "unfused/fused");
    for (const std::string &name : names) {
      const double fused = medians_.at(name + "/fused"), unfused = medians_.at(name + "/unfused");
      fmt::print("{:<20} | {:>10.2f} | {:>12.2f} | {:>13.2f}\n", name, fused, unfused,
                 unfused / fused);
    }
  }

private:
  std::map<std::string, double> medians_;
};

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_workloads();
  MedianReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_table();
  benchmark::Shutdown();
  return 0;
}
