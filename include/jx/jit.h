// jx::jit: trace a C++ function once per signature, compile it to fused kernels, call it
// (jax.jit, with jax's lower(...).compile() staging).
#pragma once

#include <jx/tree.h>

#include <any>
#include <array>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace jx {

// Compiled::cost_analysis(), as XLA's: operation counts per call and the bytes the kernels read
// and write (each kernel's input and output buffers).
struct CostAnalysis {
  double flops = 0; // arithmetic, comparisons, selects; 2 per multiply-add of a contraction
  double transcendentals = 0; // exp, log, pow, sin, cos, tan, tanh, expm1, log1p, sqrt, erf_inv
  double bytes_accessed = 0;
  // Bytes devices read from other devices' shards (halo exchanges, gathers) in a sharded program;
  // in one compiled across processes (jx::distributed), the bytes its messages move between
  // processes per call, all processes together (a loop body's exchanges, per iteration, apart).
  double communication_bytes = 0;
};

// Compiled::memory_analysis(), as JAX's: what one call holds in memory. Temporaries are the
// per-call arena of intermediates (which share memory where their lifetimes do not overlap) and
// the largest scratch of partial sums a contraction split along k adds to it; the arena alone is
// what the runtime allocates per call (the "arena bytes" counter of a trace). In a program across
// processes, intermediates are this process's windows, each a buffer of its own (no arena).
// Aliased bytes are outputs that may take a donated argument's memory.
struct MemoryAnalysis {
  int64_t argument_size_in_bytes = 0, output_size_in_bytes = 0, alias_size_in_bytes = 0,
          temp_size_in_bytes = 0, arena_size_in_bytes = 0;
};

// Options of jx::jit (jax.jit's keyword arguments, as they land).
struct JitOptions {
  // false: every op runs as its own kernel and materializes its result, as eager NumPy does.
  // Only for measuring what fusion buys (bench/fusion_bench).
  bool fuse = true;
  // Positions of array arguments whose memory an output of the same size may reuse
  // (jax.jit's donate_argnums). A donated array is deleted by the call: reading it raises.
  std::vector<int> donate_argnums = {};
  // jax.jit's in_shardings and out_shardings: one per array argument / output, or one for all.
  // Each device computes its shard of an output; a committed argument placed otherwise than its
  // in_sharding is a ValueError when called.
  std::vector<Sharding> in_shardings = {}, out_shardings = {};
};

namespace detail {

// A traced function: its parameters and outputs as a graph, and (once compiled) its kernels.
class Program;
using TraceFn = std::function<std::vector<Array>(const std::vector<Array> &)>;

std::shared_ptr<Program> trace(const std::vector<ShapeDtypeStruct> &specs, const TraceFn &f,
                               const JitOptions &options);
void compile(Program &program);
std::vector<Array> call(const Program &program, const std::vector<Array> &args);
// Whether this thread is tracing a function (a jitted call inside it is then inlined).
bool tracing_now();
std::string lowered_text(const Program &program);
std::string compiled_text(const Program &program);
std::string lowered_dot(const Program &program);
std::string compiled_dot(const Program &program);
CostAnalysis cost_analysis(const Program &program);
MemoryAnalysis memory_analysis(const Program &program);
std::string signature(const std::vector<ShapeDtypeStruct> &specs);

// A static argument's part of a jit signature (jax.jit's static_argnums): its value printed, an
// enum's type and value, or else its type and the value's std::hash, where the cache entry also
// keeps the value to compare with == (two values of one hash are other signatures).
template <class T> std::string static_key(const T &a) {
  if constexpr (fmt::is_formattable<T>::value) {
    return fmt::format("{}", a);
  } else if constexpr (std::is_enum_v<T>) {
    return fmt::format("{}:{}", typeid(T).name(), static_cast<std::underlying_type_t<T>>(a));
  } else {
    static_assert(
        requires(const T &x) {
          { std::hash<T>{}(x) } -> std::convertible_to<size_t>;
          { x == x } -> std::convertible_to<bool>;
        },
        "a static argument of jx::jit is printable with fmt, an enum, or hashable (std::hash) and "
        "comparable with ==");
    return fmt::format("{}#{:x}", typeid(T).name(), std::hash<T>{}(a));
  }
}
// Whether static_key identifies T's values (else the cache compares them with ==).
template <class T>
constexpr bool keyed_by_value_v = fmt::is_formattable<T>::value || std::is_enum_v<T>;

} // namespace detail

// A compiled function (jax.stages.Compiled): call it with arrays of the compiled signature.
template <class Out> class Compiled {
public:
  // outputs: the traced output's treedef (detail::Outputs<Out>::treedef).
  Compiled(std::shared_ptr<const detail::Program> program, std::shared_ptr<const Out> outputs)
      : program_(std::move(program)), outputs_(std::move(outputs)) {}

  // Raises jx::TypeError when the arguments' count, shapes or dtypes differ from the signature.
  // Arrays or argument trees (std::vector, std::array, std::tuple, std::pair, std::map of
  // Arrays), as traced.
  template <class... A> Out operator()(const A &...args) const {
    std::vector<Array> arrays;
    (
        [&] {
          if constexpr (detail::is_tree_v<A>)
            detail::ArgTree<A>::flatten(args, nullptr, &arrays);
          else
            arrays.push_back(Array(args)); // a C++ scalar for an array argument
        }(),
        ...);
    return call(arrays);
  }
  Out call(const std::vector<Array> &args) const {
    return detail::Outputs<Out>::unflatten(*outputs_, detail::call(*program_, args));
  }
  // The kernel plan and each kernel's optimized LLVM IR.
  std::string as_text() const { return detail::compiled_text(*program_); }
  // The plan as Graphviz (`dot -Tsvg`): each fused kernel a cluster of what it computes inline,
  // buffers between kernels, types on edges, device boxes and the transfers between them.
  std::string as_dot() const { return detail::compiled_dot(*program_); }
  CostAnalysis cost_analysis() const { return detail::cost_analysis(*program_); }
  MemoryAnalysis memory_analysis() const { return detail::memory_analysis(*program_); }
  // The traced and compiled program (what jx::aot writes out).
  const std::shared_ptr<const detail::Program> &program() const { return program_; }

private:
  std::shared_ptr<const detail::Program> program_;
  std::shared_ptr<const Out> outputs_;
};

// A traced, not yet compiled function (jax.stages.Lowered).
template <class Out> class Lowered {
public:
  Lowered(std::shared_ptr<detail::Program> program, std::shared_ptr<const Out> outputs)
      : program_(std::move(program)), outputs_(std::move(outputs)) {}
  // The graph after tracing (and, as they land, after the passes).
  std::string as_text() const { return detail::lowered_text(*program_); }
  // The traced graph as Graphviz: a node per op, edges with their types.
  std::string as_dot() const { return detail::lowered_dot(*program_); }
  Compiled<Out> compile() const {
    detail::compile(*program_);
    return Compiled<Out>(program_, outputs_);
  }

private:
  std::shared_ptr<detail::Program> program_;
  std::shared_ptr<const Out> outputs_;
};

// jax.jit(f): F takes Arrays, argument trees (std::vector, std::array, std::tuple, std::pair and
// std::map<std::string, ...> of Arrays, nested: JAX's pytrees; each structure a signature) and
// static non-array arguments (part of the cache key, printable with fmt), and returns such a tree
// of Arrays (an Array, std::pair(value, grads) of value_and_grad, ...).
template <class F> class Jitted {
public:
  explicit Jitted(F f, JitOptions options = {})
      : state_(std::make_shared<State>(std::move(f), options)) {}

  // Traces on the first call with a new signature; later calls reuse the compiled kernels.
  template <class... A> auto operator()(const A &...args) const {
    using Out = std::decay_t<std::invoke_result_t<const F &, const A &...>>;
    // Inside another trace the call is part of that trace, as JAX inlines a nested jit.
    if (detail::tracing_now()) return Out(state_->f(args...));
    std::vector<ShapeDtypeStruct> specs;
    std::vector<Array> arrays;
    (collect(args, specs, &arrays), ...);
    std::string key = detail::signature(specs) + static_key(args...);
    Traced<Out> traced;
    {
      std::lock_guard lock(state_->mutex);
      // A trace of another output type (static arguments that print alike, as 1 and 1L, for a
      // generic f) is no hit: traced anew.
      if (auto it = state_->cache.find(key); it != state_->cache.end())
        if (auto *hit = std::any_cast<Traced<Out>>(&it->second)) {
          const auto *statics = std::any_cast<decltype(unkeyed(args...))>(&hit->statics);
          if (statics && *statics == unkeyed(args...)) traced = *hit;
        }
    }
    if (!traced.program) {
      traced = lower_impl<Out>(specs, args...);
      traced.statics = unkeyed(args...);
      detail::compile(*traced.program);
      std::lock_guard lock(state_->mutex);
      state_->cache.insert_or_assign(key, traced);
    }
    return detail::Outputs<Out>::unflatten(*traced.outputs, detail::call(*traced.program, arrays));
  }

  // jax.jit(f).lower(ShapeDtypeStruct(...) or Array, ...): an Array argument stands for its spec.
  template <class... S> auto lower(const S &...specs_or_static) const {
    using Out = std::decay_t<std::invoke_result_t<const F &, const detail::arg_of_t<S> &...>>;
    std::vector<ShapeDtypeStruct> specs;
    (collect(specs_or_static, specs, nullptr), ...);
    Traced<Out> traced = lower_impl<Out>(specs, specs_or_static...);
    return Lowered<Out>(std::move(traced.program), std::move(traced.outputs));
  }

  // Number of distinct signatures traced so far.
  size_t cache_size() const {
    std::lock_guard lock(state_->mutex);
    return state_->cache.size();
  }

private:
  struct State {
    State(F f, JitOptions options) : f(std::move(f)), options(options) {}
    F f;
    JitOptions options;
    mutable std::mutex mutex;
    std::map<std::string, std::any> cache; // Traced<Out> of the call's Out
  };
  // A trace: its program, its output's treedef, and the static arguments its key holds by hash.
  template <class Out> struct Traced {
    std::shared_ptr<detail::Program> program;
    std::shared_ptr<const Out> outputs;
    std::any statics;
  };
  // The static arguments that static_key identifies by hash only, as a tuple to compare.
  template <class... A> static auto unkeyed(const A &...args) {
    return std::tuple_cat([&] {
      if constexpr (detail::is_tree_v<A> || detail::keyed_by_value_v<A>)
        return std::tuple<>{};
      else
        return std::tuple<A>{args};
    }()...);
  }

  template <class A>
  static void collect(const A &a, std::vector<ShapeDtypeStruct> &specs,
                      std::vector<Array> *arrays) {
    if constexpr (detail::is_tree_v<A>) detail::ArgTree<A>::flatten(a, &specs, arrays);
  }
  template <class... A> static std::string static_key(const A &...args) {
    std::string key;
    (
        [&] {
          // A tree's structure: trees that split the same arrays otherwise are other signatures.
          if constexpr (detail::is_tree_v<A>) {
            key += ';';
            key += detail::ArgTree<A>::structure(args);
          } else {
            key += ';' + detail::static_key(args);
          }
        }(),
        ...);
    return key;
  }

  // Traces f with parameters in place of array arguments (Arrays or ShapeDtypeStructs).
  template <class Out, class... A>
  Traced<Out> lower_impl(const std::vector<ShapeDtypeStruct> &specs, const A &...args) const {
    std::shared_ptr<const Out> outputs;
    auto body = [&](const std::vector<Array> &params) {
      size_t next = 0;
      auto pick = [&](const auto &a) -> decltype(auto) {
        using T = std::decay_t<decltype(a)>;
        if constexpr (detail::is_tree_v<T>) {
          return detail::ArgTree<T>::rebuild(a, params, next);
        } else {
          return (a);
        }
      };
      // Braced init keeps the left-to-right order of pick().
      auto call = [&](auto &&...picked) {
        return state_->f(std::forward<decltype(picked)>(picked)...);
      };
      const Out out = std::apply(call, std::tuple<decltype(pick(args))...>{pick(args)...});
      outputs = std::make_shared<const Out>(detail::Outputs<Out>::treedef(out));
      return detail::Outputs<Out>::flatten(out);
    };
    std::shared_ptr<detail::Program> program = detail::trace(specs, body, state_->options);
    return {std::move(program), std::move(outputs), {}};
  }

  std::shared_ptr<State> state_;
};

template <class F> Jitted<F> jit(F f, JitOptions options = {}) {
  return Jitted<F>(std::move(f), options);
}

// jax.lax.with_sharding_constraint: inside a traced function, x's value is materialized with
// this placement (each device computes its shard); outside, device_put.
Array with_sharding_constraint(const Array &x, const Sharding &sharding);

} // namespace jx
