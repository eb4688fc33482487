// jx::jit: trace a C++ function once per signature, compile it to fused kernels, call it
// (jax.jit, with jax's lower(...).compile() staging).
#pragma once

#include <jx/array.h>

#include <fmt/format.h>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace jx {

// jax.ShapeDtypeStruct: an argument known by shape and dtype only.
struct ShapeDtypeStruct {
  Shape shape;
  DType dtype = float64;
  // Where the argument lives (jax.ShapeDtypeStruct's sharding=): the in_sharding when jit's
  // options give none.
  std::optional<Sharding> sharding = std::nullopt;
  // jax.ShapeDtypeStruct's weak_type=: the argument promotes as a C++ scalar would (a scalar
  // passed to a jitted function keeps its weak type, as in JAX).
  bool weak_type = false;
};

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

// Outputs: an Array, a std::vector<Array> or a std::tuple of Arrays, flattened in order.
template <class T> struct Outputs;
template <> struct Outputs<Array> {
  static std::vector<Array> flatten(const Array &a) { return {a}; }
  static Array unflatten(const std::vector<Array> &v) { return v.at(0); }
};
template <> struct Outputs<std::vector<Array>> {
  static std::vector<Array> flatten(const std::vector<Array> &v) { return v; }
  static std::vector<Array> unflatten(const std::vector<Array> &v) { return v; }
};
template <class... T> struct Outputs<std::tuple<T...>> {
  static std::vector<Array> flatten(const std::tuple<T...> &t) {
    return std::apply([](const auto &...a) { return std::vector<Array>{a...}; }, t);
  }
  static std::tuple<T...> unflatten(const std::vector<Array> &v) {
    return [&]<size_t... I>(std::index_sequence<I...>) { return std::tuple<T...>{v.at(I)...}; }
    (std::index_sequence_for<T...>{});
  }
};

template <class A> constexpr bool is_array_v = std::is_same_v<std::decay_t<A>, Array>;
template <class A> constexpr bool is_spec_v = std::is_same_v<std::decay_t<A>, ShapeDtypeStruct>;

// JAX's argument pytrees: an Array (for lower(), or its ShapeDtypeStruct), and std::vector,
// std::tuple and std::map<std::string, ...> of them, nested. A tree's leaves are traced in order
// (a map's by key, as JAX sorts a dict's); its structure (lengths, keys) is part of the
// signature. Any other argument is static.
template <class T> struct ArgTree {
  static constexpr bool is_tree = false;
  using Arg = T; // a static argument: passed as it is
};
template <class Leaf> struct ArgLeaf {
  static constexpr bool is_tree = true;
  using Arg = Array;
  static void flatten(const Leaf &a, std::vector<ShapeDtypeStruct> &specs,
                      std::vector<Array> *arrays) {
    if constexpr (std::is_same_v<Leaf, ShapeDtypeStruct>) {
      specs.push_back(a);
    } else {
      // A placed argument's sharding is part of the signature, as in JAX.
      specs.push_back({a.shape(), a.dtype(),
                       a.committed() ? std::optional<Sharding>(a.sharding()) : std::nullopt,
                       a.weak_type()});
      if (arrays) arrays->push_back(a);
    }
  }
  static std::string structure(const Leaf &) { return "*"; }
  static Array rebuild(const Leaf &, const std::vector<Array> &params, size_t &next) {
    return params.at(next++);
  }
};
template <> struct ArgTree<Array> : ArgLeaf<Array> {};
template <> struct ArgTree<ShapeDtypeStruct> : ArgLeaf<ShapeDtypeStruct> {};
template <class T> struct ArgTree<std::vector<T>> {
  static constexpr bool is_tree = ArgTree<T>::is_tree;
  using Arg = std::vector<typename ArgTree<T>::Arg>;
  static void flatten(const std::vector<T> &v, std::vector<ShapeDtypeStruct> &specs,
                      std::vector<Array> *arrays) {
    for (const T &x : v)
      ArgTree<T>::flatten(x, specs, arrays);
  }
  static std::string structure(const std::vector<T> &v) {
    std::string s = "[";
    for (const T &x : v)
      s += ArgTree<T>::structure(x) + ",";
    return s + "]";
  }
  static Arg rebuild(const std::vector<T> &v, const std::vector<Array> &params, size_t &next) {
    Arg out;
    for (const T &x : v)
      out.push_back(ArgTree<T>::rebuild(x, params, next));
    return out;
  }
};
template <class... T> struct ArgTree<std::tuple<T...>> {
  static constexpr bool is_tree = (ArgTree<T>::is_tree && ...);
  using Arg = std::tuple<typename ArgTree<T>::Arg...>;
  static void flatten(const std::tuple<T...> &t, std::vector<ShapeDtypeStruct> &specs,
                      std::vector<Array> *arrays) {
    std::apply([&](const auto &...x) { (ArgTree<T>::flatten(x, specs, arrays), ...); }, t);
  }
  static std::string structure(const std::tuple<T...> &t) {
    return std::apply(
        [](const auto &...x) { return "(" + ((ArgTree<T>::structure(x) + ",") + ... + ")"); }, t);
  }
  static Arg rebuild(const std::tuple<T...> &t, const std::vector<Array> &params, size_t &next) {
    // Braced init keeps the left-to-right order.
    return std::apply(
        [&](const auto &...x) { return Arg{ArgTree<T>::rebuild(x, params, next)...}; }, t);
  }
};
template <class T> struct ArgTree<std::map<std::string, T>> {
  static constexpr bool is_tree = ArgTree<T>::is_tree;
  using Arg = std::map<std::string, typename ArgTree<T>::Arg>;
  static void flatten(const std::map<std::string, T> &m, std::vector<ShapeDtypeStruct> &specs,
                      std::vector<Array> *arrays) {
    for (const auto &[key, x] : m)
      ArgTree<T>::flatten(x, specs, arrays);
  }
  static std::string structure(const std::map<std::string, T> &m) {
    std::string s = "{";
    for (const auto &[key, x] : m)
      s += fmt::format("{:?}:", key) + ArgTree<T>::structure(x) + ",";
    return s + "}";
  }
  static Arg rebuild(const std::map<std::string, T> &m, const std::vector<Array> &params,
                     size_t &next) {
    Arg out;
    for (const auto &[key, x] : m)
      out.emplace(key, ArgTree<T>::rebuild(x, params, next));
    return out;
  }
};
template <class A> constexpr bool is_tree_v = ArgTree<std::decay_t<A>>::is_tree;
// What f receives for an argument: the tree with Arrays for its specs, or the static value.
template <class A, bool = is_tree_v<A>> struct ArgOf { using type = A; };
template <class A> struct ArgOf<A, true> { using type = typename ArgTree<std::decay_t<A>>::Arg; };
template <class A> using arg_of_t = typename ArgOf<std::decay_t<A>>::type;

} // namespace detail

// A compiled function (jax.stages.Compiled): call it with arrays of the compiled signature.
template <class Out> class Compiled {
public:
  explicit Compiled(std::shared_ptr<const detail::Program> program)
      : program_(std::move(program)) {}

  // Raises jx::TypeError when the arguments' count, shapes or dtypes differ from the signature.
  // Arrays or argument trees (std::vector, std::tuple, std::map of Arrays), as traced.
  template <class... A> Out operator()(const A &...args) const {
    std::vector<ShapeDtypeStruct> specs;
    std::vector<Array> arrays;
    (
        [&] {
          if constexpr (detail::is_tree_v<A>)
            detail::ArgTree<A>::flatten(args, specs, &arrays);
          else
            arrays.push_back(Array(args)); // a C++ scalar for an array argument
        }(),
        ...);
    return detail::Outputs<Out>::unflatten(detail::call(*program_, arrays));
  }
  Out call(const std::vector<Array> &args) const {
    return detail::Outputs<Out>::unflatten(detail::call(*program_, args));
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
};

// A traced, not yet compiled function (jax.stages.Lowered).
template <class Out> class Lowered {
public:
  explicit Lowered(std::shared_ptr<detail::Program> program) : program_(std::move(program)) {}
  // The graph after tracing (and, as they land, after the passes).
  std::string as_text() const { return detail::lowered_text(*program_); }
  // The traced graph as Graphviz: a node per op, edges with their types.
  std::string as_dot() const { return detail::lowered_dot(*program_); }
  Compiled<Out> compile() const {
    detail::compile(*program_);
    return Compiled<Out>(program_);
  }

private:
  std::shared_ptr<detail::Program> program_;
};

// jax.jit(f): F takes Arrays, argument trees (std::vector, std::tuple and
// std::map<std::string, ...> of Arrays, nested: JAX's pytrees; each structure a signature) and
// static non-array arguments (part of the cache key, printable with fmt), and returns an Array,
// std::vector<Array> or std::tuple of Arrays.
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
    std::shared_ptr<detail::Program> program;
    {
      std::lock_guard lock(state_->mutex);
      if (auto it = state_->cache.find(key); it != state_->cache.end()) program = it->second;
    }
    if (!program) {
      program = lower_impl<Out>(specs, args...);
      detail::compile(*program);
      std::lock_guard lock(state_->mutex);
      state_->cache.emplace(key, program);
    }
    return detail::Outputs<Out>::unflatten(detail::call(*program, arrays));
  }

  // jax.jit(f).lower(ShapeDtypeStruct(...) or Array, ...): an Array argument stands for its spec.
  template <class... S> auto lower(const S &...specs_or_static) const {
    using Out = std::decay_t<std::invoke_result_t<const F &, const detail::arg_of_t<S> &...>>;
    std::vector<ShapeDtypeStruct> specs;
    (collect(specs_or_static, specs, nullptr), ...);
    return Lowered<Out>(lower_impl<Out>(specs, specs_or_static...));
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
    std::map<std::string, std::shared_ptr<detail::Program>> cache;
  };

  template <class A>
  static void collect(const A &a, std::vector<ShapeDtypeStruct> &specs,
                      std::vector<Array> *arrays) {
    if constexpr (detail::is_tree_v<A>) detail::ArgTree<A>::flatten(a, specs, arrays);
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
            key += fmt::format(";{}", args);
          }
        }(),
        ...);
    return key;
  }

  // Traces f with parameters in place of array arguments (Arrays or ShapeDtypeStructs).
  template <class Out, class... A>
  std::shared_ptr<detail::Program> lower_impl(const std::vector<ShapeDtypeStruct> &specs,
                                              const A &...args) const {
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
      return detail::Outputs<Out>::flatten(
          std::apply(call, std::tuple<decltype(pick(args))...>{pick(args)...}));
    };
    return detail::trace(specs, body, state_->options);
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
