// The transformations beside their baselines (issue 13): per workload, jx::jit(f) against
// jx::jit(value_and_grad(f)) (the gradient's cost over the forward call), and for vmap the
// batched function written by hand against jx::jit(vmap(f)) of the per-example one. Both sides are
// compiled once with jit(f).lower(specs...).compile() and timed in the same process, calls
// alternating between them round by round, so that load on a shared machine hits both alike.
// Compile time cold and peak RSS come from child processes (this program run with --child): a
// fresh process has an empty in-memory kernel cache, and the disk cache is off (JX_CACHE_DIR is
// removed from the child's environment). The memory of a step is its peak RSS: VmHWM's growth
// from before its arguments are copied in (from host copies made earlier) to the end of a warm-up
// and three calls, so arguments, outputs and temporaries all count and the compiler's memory does
// not. Freed memory must leave the process to be measured: the allocator's cache is off
// (JX_ALLOCATOR_CACHE_MB=0) and glibc's mmap threshold is fixed at 128 KiB (by default it grows
// with each large block freed, after which large blocks come from a heap that keeps freed
// memory resident). Beside it, the footprint Compiled::memory_analysis() plans (arguments +
// outputs + temporaries, as JAX's).
// --json prints one object per workload and line for bench/peers/peers.py --group grad.
#include <jx/jx.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/core.h>
#include <functional>
#include <malloc.h>
#include <optional>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <utility>
#include <vector>

#include "seed_util.h"
#include "seeds.h"

extern char **environ;

namespace {

namespace jnp = jx::numpy;
using jx::Array;
using seed_bench::Clock;
using seed_bench::ms_since;

using Inputs = std::vector<Array>;
// A compiled function and its kernel plan (Compiled::as_text, for --text).
struct Call {
  std::function<std::vector<Array>(const Inputs &)> run;
  std::function<std::string()> text;
  std::function<jx::MemoryAnalysis()> memory;
  std::vector<Array> operator()(const Inputs &args) const { return run(args); }
};

std::vector<Array> as_list(const Array &a) { return {a}; }
std::vector<Array> as_list(std::vector<Array> v) { return v; }

// jit(f).lower(specs...).compile() for a function of N arrays, its outputs as one list.
template <size_t N, class F> Call compile(F f, const std::vector<jx::ShapeDtypeStruct> &specs) {
  auto compiled = [&]<size_t... I>(std::index_sequence<I...>) {
    return jx::jit(f).lower(specs.at(I)...).compile();
  }
  (std::make_index_sequence<N>{});
  return {[compiled](const Inputs &args) { return as_list(compiled.call(args)); },
          [compiled] { return compiled.as_text(); },
          [compiled] { return compiled.memory_analysis(); }};
}

// value_and_grad(f, argnums) as one list (value, gradients...), which jit can return.
template <class F> auto value_and_grads(F f, std::vector<int> argnums) {
  return [f, argnums](const auto &...args) {
    auto [value, grads] = jx::value_and_grad(f, argnums)(args...);
    grads.insert(grads.begin(), value);
    return grads;
  };
}

struct Workload {
  std::string name, dtype;
  std::string base, transformed; // what the two sides are
  double target;                 // transformed / base at most this (0: none)
  std::function<Inputs()> inputs;
  std::function<Call()> compile_base, compile_transformed;
};

std::vector<jx::ShapeDtypeStruct> specs_of(const Inputs &in) {
  std::vector<jx::ShapeDtypeStruct> specs;
  for (const Array &a : in)
    specs.push_back({a.shape(), a.dtype()});
  return specs;
}

Inputs realized(Inputs in) {
  for (Array &a : in)
    a.block_until_ready();
  return in;
}

Array log_softmax(const Array &z) {
  auto m = jnp::max(z, {.axis = 1, .keepdims = true});
  return z - m - jnp::log(jnp::sum(jnp::exp(z - m), {.axis = 1, .keepdims = true}));
}

// Rows of one-hot labels over `classes`, drawn from `key`.
Array onehot(const jx::random::Key &key, int64_t rows, int64_t classes, jx::DType dtype) {
  auto labels = jnp::argmax(jx::random::normal(key, {rows, classes}), 1);
  return (labels(jx::slice(), jx::newaxis) == jnp::arange(classes)).astype(dtype);
}

// The seed's funcN with its exponent scaled by s (examples/grad/simpson_grad.cpp), summed over
// the 200 functions by 100 intervals: a scalar of a, b and s.
Array simpson_total(const Array &a, const Array &b, const Array &s) {
  auto f = [&](const Array &x) {
    return seeds::funcN(x) * jnp::exp(-(s - 1) * x(jx::slice(), jx::newaxis, jx::slice()));
  };
  return jnp::sum(seeds::simps(f, a, b, 512));
}

// examples/grad/mlp.cpp's loss: 784-512-512-10 ReLU, softmax cross-entropy.
Array mlp_loss(const Array &w1, const Array &b1, const Array &w2, const Array &b2, const Array &w3,
               const Array &b3, const Array &x, const Array &y) {
  auto h1 = jnp::maximum(jnp::matmul(x, w1) + b1, 0);
  auto h2 = jnp::maximum(jnp::matmul(h1, w2) + b2, 0);
  auto logits = jnp::matmul(h2, w3) + b3;
  return -jnp::mean(jnp::sum(y * log_softmax(logits), 1));
}

// fusion_bench's chain10 (mul, add, neg, exp, mul, add, sqrt, sub, mul, div), summed.
Array chain_sum(const Array &x) {
  auto t = jnp::exp(-(x * 1.5 + 0.5)) * x;
  t = jnp::sqrt(t + 1.0) - x;
  return jnp::sum(t * t / 3.0);
}

Array softmax_xent(const Array &logits, const Array &y) {
  return -jnp::mean(jnp::sum(y * log_softmax(logits), 1));
}

Array matmul_sq(const Array &a, const Array &b) { return jnp::sum(jnp::square(jnp::matmul(a, b))); }

// The diff seed in a loss: its gradient is the stencil's transpose (a difference the other way).
Array diff_loss(const Array &x) { return jnp::sum(jnp::square(seeds::calc_fd_kernel(x))); }

Array softmax_rows(const Array &x) {
  auto e = jnp::exp(x - jnp::max(x, {.axis = 1, .keepdims = true}));
  return e / jnp::sum(e, {.axis = 1, .keepdims = true});
}

// One example's softmax: x is a row.
Array softmax_row(const Array &x) {
  auto e = jnp::exp(x - jnp::max(x));
  return e / jnp::sum(e);
}

template <size_t N, class F> std::function<Call()> lazy(F f, std::function<Inputs()> inputs) {
  return [f, inputs] { return compile<N>(f, specs_of(inputs())); };
}

std::vector<Workload> workloads() {
  using jx::random::PRNGKey;
  using jx::random::split;
  std::vector<Workload> list;
  auto add = [&](std::string name, std::string dtype, std::string base, std::string transformed,
                 double target, std::function<Inputs()> inputs, std::function<Call()> b,
                 std::function<Call()> t) {
    list.push_back({std::move(name), std::move(dtype), std::move(base), std::move(transformed),
                    target, std::move(inputs), std::move(b), std::move(t)});
  };

  // simps' derivative at x = 0 is not finite (x^0.1): the intervals move right by 0.1.
  std::function<Inputs()> simpson_in = [] {
    auto a = jnp::arange(0, 10, 0.1) + 0.1;
    return Inputs{a, a + 0.05, jnp::array(1.0, jx::float64)};
  };
  add("simpson", "float64", "jit(f)", "jit(value_and_grad(f, (0, 1, 2)))", 3.0, simpson_in,
      lazy<3>(simpson_total, simpson_in),
      lazy<3>(value_and_grads(simpson_total, {0, 1, 2}), simpson_in));

  std::function<Inputs()> mlp_in = [] {
    auto k = split(PRNGKey(1), 5);
    auto dense = [](const jx::random::Key &key, int64_t in, int64_t out) {
      return jx::random::normal(key, {in, out}, jx::float32) * std::sqrt(2.0 / double(in));
    };
    return Inputs{dense(k[0], 784, 512),
                  jnp::zeros({512}, jx::float32),
                  dense(k[1], 512, 512),
                  jnp::zeros({512}, jx::float32),
                  dense(k[2], 512, 10),
                  jnp::zeros({10}, jx::float32),
                  jx::random::normal(k[3], {256, 784}, jx::float32),
                  onehot(k[4], 256, 10, jx::float32)};
  };
  add("mlp", "float32", "jit(loss)", "jit(value_and_grad(loss, params))", 0, mlp_in,
      lazy<8>(mlp_loss, mlp_in), lazy<8>(value_and_grads(mlp_loss, {0, 1, 2, 3, 4, 5}), mlp_in));

  // Uniform [0, 1), so that sqrt's argument stays positive.
  std::function<Inputs()> chain_in = [] {
    return Inputs{jx::random::uniform(PRNGKey(2), {4096, 1024})};
  };
  add("chain", "float64", "jit(f)", "jit(value_and_grad(f))", 0, chain_in,
      lazy<1>(chain_sum, chain_in), lazy<1>(value_and_grads(chain_sum, {0}), chain_in));

  std::function<Inputs()> xent_in = [] {
    auto k = split(PRNGKey(3), 2);
    return Inputs{jx::random::normal(k[0], {4096, 1024}), onehot(k[1], 4096, 1024, jx::float64)};
  };
  add("softmax_xent", "float64", "jit(f)", "jit(value_and_grad(f))", 0, xent_in,
      lazy<2>(softmax_xent, xent_in), lazy<2>(value_and_grads(softmax_xent, {0}), xent_in));

  std::function<Inputs()> diff_in = [] {
    return Inputs{jx::random::normal(PRNGKey(6), {4096, 4096})};
  };
  add("diff", "float64", "jit(f)", "jit(value_and_grad(f))", 0, diff_in,
      lazy<1>(diff_loss, diff_in), lazy<1>(value_and_grads(diff_loss, {0}), diff_in));

  std::function<Inputs()> matmul_in = [] {
    auto k = split(PRNGKey(4), 2);
    return Inputs{jx::random::normal(k[0], {1024, 1024}), jx::random::normal(k[1], {1024, 1024})};
  };
  add("matmul_sq", "float64", "jit(f)", "jit(value_and_grad(f, (0, 1)))", 0, matmul_in,
      lazy<2>(matmul_sq, matmul_in), lazy<2>(value_and_grads(matmul_sq, {0, 1}), matmul_in));

  std::function<Inputs()> rows_in = [] {
    return Inputs{jx::random::normal(PRNGKey(5), {4096, 1024})};
  };
  add("vmap_softmax", "float64", "jit(batched by hand)", "jit(vmap(per-row f))", 1.1, rows_in,
      lazy<1>(softmax_rows, rows_in), lazy<1>(jx::vmap(softmax_row), rows_in));
  return list;
}

// The median over all timed calls of each side, the calls alternating in rounds of `reps`.
std::pair<double, double> median_pair(const Call &base, const Call &transformed,
                                      const Inputs &inputs, int rounds, int reps) {
  std::vector<double> times[2];
  const Call *calls[2] = {&base, &transformed};
  std::optional<std::vector<Array>> result;
  auto run = [&](const Call &c) {
    result.reset(); // the previous result's buffers are recycled, as in a steady loop
    result = c(inputs);
    for (const Array &a : *result)
      a.block_until_ready();
  };
  for (const Call *c : calls)
    run(*c); // warm-up
  for (int r = 0; r < rounds; ++r)
    for (int side = 0; side < 2; ++side)
      for (int i = 0; i < reps; ++i) {
        auto start = Clock::now();
        run(*calls[side]);
        times[side].push_back(ms_since(start));
      }
  for (auto &t : times)
    std::sort(t.begin(), t.end());
  return {times[0][times[0].size() / 2], times[1][times[1].size() / 2]};
}

// An array's bytes on the host, to be copied into a fresh array.
struct HostArray {
  jx::Shape shape;
  jx::DType dtype;
  std::vector<double> f64;
  std::vector<float> f32;
};

HostArray to_host(const Array &a) {
  HostArray h{a.shape(), a.dtype(), {}, {}};
  if (a.dtype() == jx::float64)
    h.f64 = a.to_vector<double>();
  else if (a.dtype() == jx::float32)
    h.f32 = a.to_vector<float>();
  else
    throw jx::TypeError("grad_bench: inputs are float32 or float64");
  return h;
}

Array from_host(const HostArray &h) {
  return h.dtype == jx::float64 ? jnp::array(h.f64, h.shape) : jnp::array(h.f32, h.shape);
}

double mib(int64_t bytes) { return double(bytes) / double(1 << 20); }

// --child NAME base|transformed: compile cold, then the step's peak RSS (see the top). Prints
// "compile_ms peak_rss_mib planned_mib".
int child(const Workload &w, bool transformed) {
  mallopt(M_MMAP_THRESHOLD, 128 << 10);
  std::vector<HostArray> host;
  for (const Array &a : realized(w.inputs()))
    host.push_back(to_host(a));
  auto t0 = Clock::now();
  const Call call = transformed ? w.compile_transformed() : w.compile_base();
  const double compile_ms = ms_since(t0);
  seed_bench::reset_peak_rss();
  const double before = seed_bench::peak_rss_mib();
  {
    Inputs inputs;
    for (const HostArray &h : host)
      inputs.push_back(realized({from_host(h)})[0]);
    for (int i = 0; i < 4; ++i)
      for (const Array &a : call(inputs))
        a.block_until_ready();
  }
  const jx::MemoryAnalysis m = call.memory();
  fmt::print("{:.3f} {:.3f} {:.3f}\n", compile_ms, seed_bench::peak_rss_mib() - before,
             mib(m.argument_size_in_bytes + m.output_size_in_bytes + m.temp_size_in_bytes));
  return 0;
}

struct ChildFigures {
  double compile_ms = -1, rss_mib = -1, planned_mib = -1; // -1: the child failed
};

// Runs this program as --child in a fresh process without JX_CACHE_DIR and without the
// allocator's cache.
ChildFigures run_child(const std::string &name, bool transformed) {
  std::vector<std::string> env_strings;
  for (char **e = environ; *e; ++e)
    if (!std::string_view(*e).starts_with("JX_CACHE_DIR=") &&
        !std::string_view(*e).starts_with("JX_ALLOCATOR_CACHE_MB="))
      env_strings.push_back(*e);
  env_strings.push_back("JX_ALLOCATOR_CACHE_MB=0");
  std::vector<char *> envp;
  for (std::string &s : env_strings)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string self = "/proc/self/exe", flag = "--child",
              side = transformed ? "transformed" : "base";
  std::string arg_name = name;
  char *argv[] = {self.data(), flag.data(), arg_name.data(), side.data(), nullptr};

  int fds[2];
  if (pipe(fds) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  pid_t pid;
  const int spawned = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string out;
  char buffer[256];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;)
    out.append(buffer, size_t(n));
  close(fds[0]);
  if (spawned != 0) return {};
  int status = 0;
  waitpid(pid, &status, 0);
  ChildFigures f;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      std::sscanf(out.c_str(), "%lf %lf %lf", &f.compile_ms, &f.rss_mib, &f.planned_mib) != 3)
    return {};
  return f;
}

std::string figure(double v) { return v < 0 ? "-" : fmt::format("{:.1f}", v); }

int usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s [--only NAME,...] [--rounds 5] [--reps 5] [--no-children] [--json] | "
               "--text NAME\n",
               argv0);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  int rounds = 5, reps = 5;
  bool json = false, children = true;
  std::vector<std::string> only;
  const std::vector<Workload> list = workloads();
  auto find = [&](const std::string &name) {
    return std::ranges::find_if(list, [&](const Workload &w) { return w.name == name; });
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--child" && i + 2 < argc) {
      auto w = find(argv[i + 1]);
      if (w == list.end()) return usage(argv[0]);
      return child(*w, std::string(argv[i + 2]) == "transformed");
    } else if (arg == "--text" && has_value) {
      auto w = find(argv[++i]);
      if (w == list.end()) return usage(argv[0]);
      fmt::print("{}\n", w->compile_transformed().text());
      return 0;
    } else if (arg == "--only" && has_value) {
      for (std::string s = argv[++i]; !s.empty();) {
        const size_t comma = std::min(s.find(','), s.size());
        if (find(s.substr(0, comma)) == list.end()) return usage(argv[0]);
        only.push_back(s.substr(0, comma));
        s.erase(0, std::min(comma + 1, s.size()));
      }
    } else if (arg == "--rounds" && has_value) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--reps" && has_value) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--no-children") {
      children = false;
    } else if (arg == "--json") {
      json = true;
    } else {
      return usage(argv[0]);
    }
  }

  if (!json) {
    fmt::print("jx transformations: medians of {} rounds x {} calls per side, alternating; "
               "compile cold and a step's peak RSS (arguments included) from fresh child "
               "processes without JX_CACHE_DIR; planned: memory_analysis' arguments + outputs + "
               "temporaries\n",
               rounds, reps);
    fmt::print("{:<13} | {:<7} | {:>8} | {:>8} | {:>6} | {:>6} | {:>11} | {:>12} | {:>8} | "
               "{:>9} | {:>9} | {:>11} | {}\n",
               "workload", "dtype", "base ms", "xform ms", "ratio", "target", "base cmp ms",
               "xform cmp ms", "base MiB", "xform MiB", "RSS ratio", "planned MiB",
               "base / transformed");
  }
  for (const Workload &w : list) {
    if (!only.empty() && std::ranges::count(only, w.name) == 0) continue;
    const Inputs inputs = realized(w.inputs());
    const Call base = w.compile_base(), transformed = w.compile_transformed();
    auto [base_ms, transformed_ms] = median_pair(base, transformed, inputs, rounds, reps);
    ChildFigures cb, ct;
    if (children) cb = run_child(w.name, false), ct = run_child(w.name, true);
    const double ratio = transformed_ms / base_ms;
    if (json) {
      auto num = [](double v) { return v < 0 ? std::string("null") : fmt::format("{:.6g}", v); };
      fmt::print("{{\"name\": \"{}\", \"dtype\": \"{}\", \"base_ms\": {:.6g}, \"transformed_ms\": "
                 "{:.6g}, \"ratio\": {:.4f}, \"target\": {}, \"base_compile_ms\": {}, "
                 "\"transformed_compile_ms\": {}, \"base_rss_mib\": {}, "
                 "\"transformed_rss_mib\": {}, \"base_planned_mib\": {}, "
                 "\"transformed_planned_mib\": {}}}\n",
                 w.name, w.dtype, base_ms, transformed_ms, ratio,
                 w.target > 0 ? fmt::format("{:g}", w.target) : "null", num(cb.compile_ms),
                 num(ct.compile_ms), num(cb.rss_mib), num(ct.rss_mib), num(cb.planned_mib),
                 num(ct.planned_mib));
    } else {
      const bool measured = cb.rss_mib > 0 && ct.rss_mib >= 0;
      fmt::print("{:<13} | {:<7} | {:>8.3f} | {:>8.3f} | {:>6.2f} | {:>6} | {:>11} | {:>12} | "
                 "{:>8} | {:>9} | {:>9} | {:>11} | {} / {}\n",
                 w.name, w.dtype, base_ms, transformed_ms, ratio,
                 w.target > 0 ? fmt::format("<={:g}", w.target) : "-", figure(cb.compile_ms),
                 figure(ct.compile_ms), figure(cb.rss_mib), figure(ct.rss_mib),
                 measured ? fmt::format("{:.2f}", ct.rss_mib / cb.rss_mib) : "-",
                 fmt::format("{} / {}", figure(cb.planned_mib), figure(ct.planned_mib)), w.base,
                 w.transformed);
    }
    std::fflush(stdout);
  }
  return 0;
}
