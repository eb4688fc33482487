// Function transformations (jax.jvp, jax.linearize, jax.vjp, jax.grad, jax.value_and_grad): each
// traces the C++ function on fresh parameters,
// transforms the graph and substitutes the caller's arrays, so its result is an ordinary lazy
// array (eager, inside jx::jit, around a jitted function). Design: docs/design/transforms.md.
#pragma once

#include <jx/jit.h>

#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

namespace jx {

namespace detail {

// f traced on fresh parameters of these specs under a new trace id. A parameter of a finished
// trace reaching the outputs is a leaked tracer (UnexpectedTracerError); one of a running trace
// (an outer jit's or transform's argument captured by a closure) is a constant.
struct TransformTrace {
  int64_t trace_id;
  std::vector<std::shared_ptr<const ir::Node>> params, outputs;
  // with_sharding_constraint inside f under jit: values over params and their shardings, for
  // the transform to map onto its result.
  std::vector<std::pair<std::shared_ptr<const ir::Node>, Sharding>> constraints;
};
TransformTrace trace_for_transform(const std::vector<ShapeDtypeStruct> &specs, const TraceFn &f);

// jvp over flattened outputs: the primal outputs, then their tangents. `arity`: the number of
// arrays f takes, -1 for one std::vector<Array>.
std::vector<Array> jvp(const TraceFn &f, const std::vector<Array> &primals,
                       const std::vector<Array> &tangents, int arity);

template <size_t> using ArrayArg = const Array &;
// How f takes its arrays: their number (1 to 8), else -1 for one std::vector<Array>. A
// transformed function says (`array_arity` member: its function's). Otherwise arities are tried
// in increasing order: a jitted function's call operator accepts anything until instantiated, so
// a jitted function taking several arrays must be wrapped in a lambda.
template <class F, size_t N = 1> constexpr int list_arity() {
  if constexpr (requires { F::array_arity; }) {
    return F::array_arity;
  } else if constexpr ([]<size_t... I>(std::index_sequence<I...>) {
                         return std::is_invocable_v<const F &, ArrayArg<I>...>;
                       }(std::make_index_sequence<N>{})) {
    return int(N);
  } else if constexpr (N < 8) {
    return list_arity<F, N + 1>();
  } else {
    return std::is_invocable_v<const F &, const std::vector<Array> &> ? -1 : -2;
  }
}
// -2 from list_arity: f takes other trees than Arrays (JAX's pytrees), so only a call tells.
template <class F> constexpr int array_arity() {
  constexpr int arity = list_arity<F>();
  static_assert(arity != -2, "jx transforms take a function of Arrays or of a std::vector<Array>");
  return arity;
}

template <class F> auto call_with_arrays(const F &f, const std::vector<Array> &args) {
  constexpr int arity = array_arity<F>();
  if constexpr (arity < 0) {
    return f(args);
  } else {
    return [&]<size_t... I>(std::index_sequence<I...>) { return f(args.at(I)...); }
    (std::make_index_sequence<size_t(arity)>{});
  }
}

// The arguments of a transformed function's call: Arrays, or one std::vector<Array>.
inline std::vector<Array> argument_list(const std::vector<Array> &args) { return args; }
template <class... A>
requires(is_array_v<A> &&...) std::vector<Array> argument_list(const A &...args) {
  return {args...};
}

// A linear map held as a graph over parameters of a finished trace (`inputs`), the caller's
// primals already substituted: applying it substitutes its arguments for `inputs`.
struct LinearMap {
  std::vector<std::shared_ptr<const ir::Node>> inputs, outputs;
  // Per output: bool zeros (JAX's float0) instead of a value, for an int or bool primal.
  std::vector<bool> float0;
};
// For jvp's and vjp's checks of the map's arguments.
enum class LinearKind { kLinearize, kVjp };
std::vector<Array> apply(const LinearMap &map, LinearKind kind, const std::vector<Array> &args);

// linearize over flattened outputs: the primal outputs, and the map from the primals' tangents
// to the outputs'.
std::pair<std::vector<Array>, std::shared_ptr<const LinearMap>>
linearize(const TraceFn &f, const std::vector<Array> &primals, int arity);

// vjp over flattened outputs, of which the first differentiated() (all if empty; asked once f is
// traced, when an output tree's size is known) have cotangents (the rest: aux). The map takes
// their cotangents to the primals'.
std::pair<std::vector<Array>, std::shared_ptr<const LinearMap>>
vjp(const TraceFn &f, const std::vector<Array> &primals, int arity,
    const std::function<size_t()> &differentiated = {});

// value_and_grad over flattened outputs (the value, then aux's arrays): the outputs and the
// gradients with respect to args[argnums[i]]. `argnums_text`: "0" or "(0, 1)", for errors.
std::pair<std::vector<Array>, std::vector<Array>>
value_and_grad(const TraceFn &f, const std::vector<Array> &args, const std::vector<int> &argnums,
               const std::string &argnums_text, bool allow_int, int arity);

// jacfwd (forward) or jacrev of f's one output with respect to args[argnums[i]]: each of shape
// output shape + argument shape. `name`: "jacfwd" or "jacrev", for errors.
std::vector<Array> jacobian(const TraceFn &f, const std::vector<Array> &args,
                            const std::vector<int> &argnums, const std::string &argnums_text,
                            bool forward, int arity);

// vmap's in_axes over pytree arguments name one axis per argument: ValueError otherwise.
[[noreturn]] void throw_vmap_in_axes(size_t given, size_t arguments);

// vmap over flattened outputs; axes already one per argument and per output.
std::vector<Array> vmap(const TraceFn &f, const std::vector<Array> &args,
                        const std::vector<std::optional<int64_t>> &in_axes,
                        const std::vector<std::optional<int64_t>> &out_axes, bool one_out_axis,
                        std::optional<int64_t> axis_size, int arity);

template <class T> struct AuxPair : std::false_type {};
template <class Aux> struct AuxPair<std::pair<Array, Aux>> : std::true_type { using type = Aux; };
template <class Aux> struct AuxPair<std::tuple<Array, Aux>> : std::true_type { using type = Aux; };

// A (value, aux) result as one list, the value first, then aux's arrays; and aux back from such a
// list (grad and value_and_grad with has_aux; jvp, linearize and vjp with jx::has_aux).
template <class R> std::vector<Array> flatten_with_aux(const R &result) {
  std::vector<Array> flat{std::get<0>(result)};
  for (const Array &a : Outputs<typename AuxPair<R>::type>::flatten(std::get<1>(result)))
    flat.push_back(a);
  return flat;
}
template <class R> typename AuxPair<R>::type aux_of(const std::vector<Array> &outs) {
  return Outputs<typename AuxPair<R>::type>::unflatten({outs.begin() + 1, outs.end()});
}

// Whether a transformed function's arguments are its arrays as a list (jx's first convention:
// Arrays, or one std::vector<Array> whose elements argnums and in_axes then name); otherwise they
// are JAX's pytrees, each argument one tree (argnums and in_axes name whole arguments).
template <class... A>
constexpr bool array_list_v = (is_array_v<A> && ...) ||
                              (sizeof...(A) == 1 && (std::is_same_v<A, std::vector<Array>> && ...));

// A call's arguments as trees: their leaves in order and where each argument's leaves start; f
// called with the arguments rebuilt around other leaves (static arguments passed as they are).
template <class... A> class TreeArgs {
public:
  explicit TreeArgs(const A &...args) : args_(args...) {
    (add(args), ...);
    starts_.push_back(leaves_.size());
  }
  const std::vector<Array> &leaves() const { return leaves_; }
  // Argument i's leaves are [start(i), start(i + 1)).
  size_t start(size_t i) const { return starts_.at(i); }
  static constexpr size_t count = sizeof...(A);

  template <class F> auto call(const F &f, const std::vector<Array> &xs) const {
    size_t next = 0;
    auto pick = [&](const auto &a) {
      using T = std::decay_t<decltype(a)>;
      if constexpr (is_tree_v<T>)
        return ArgTree<T>::rebuild(a, xs, next);
      else
        return a;
    };
    // Braced init keeps the left-to-right order of pick().
    return std::apply(
        [&](const auto &...a) { return std::apply(f, std::tuple<arg_of_t<A>...>{pick(a)...}); },
        args_);
  }
  // Argument I with the given leaves (its gradients, say).
  template <size_t I> auto rebuild(const std::vector<Array> &leaves) const {
    using T = std::decay_t<std::tuple_element_t<I, std::tuple<A...>>>;
    size_t next = 0;
    return ArgTree<T>::rebuild(std::get<I>(args_), leaves, next);
  }

private:
  template <class T> void add(const T &a) {
    starts_.push_back(leaves_.size());
    if constexpr (is_tree_v<T>) ArgTree<T>::flatten(a, nullptr, &leaves_);
  }
  std::tuple<const A &...> args_;
  std::vector<Array> leaves_;
  std::vector<size_t> starts_;
};

// argnums as positions among count arguments (negative: from the end), with JAX's errors for an
// empty list (ValueError) and positions out of range. `name`: the transformation, for errors.
std::vector<size_t> argument_positions(const std::vector<int> &argnums, size_t count,
                                       const std::string &argnums_text, const char *name);

} // namespace detail

// jax.jvp(f, primals, tangents): (f(*primals), the derivative of f at primals applied to
// tangents). f takes Arrays (one per primal) or one std::vector<Array>, and returns an Array, a
// std::vector<Array> or a std::tuple of Arrays. Each tangent has its primal's shape, and its
// dtype when the primal is a float (an int or bool primal has no tangent: any dtype is ignored).
// Tangents of int or bool outputs are bool zeros (JAX's float0).
template <class F>
auto jvp(const F &f, const std::vector<Array> &primals, const std::vector<Array> &tangents) {
  using Out = decltype(detail::call_with_arrays(f, primals));
  const detail::TraceFn body = [&](const std::vector<Array> &args) {
    return detail::Outputs<Out>::flatten(detail::call_with_arrays(f, args));
  };
  std::vector<Array> flat = detail::jvp(body, primals, tangents, detail::array_arity<F>());
  const auto half = std::ptrdiff_t(flat.size() / 2);
  return std::pair<Out, Out>(detail::Outputs<Out>::unflatten({flat.begin(), flat.begin() + half}),
                             detail::Outputs<Out>::unflatten({flat.begin() + half, flat.end()}));
}

// The function returned by jx::linearize: tangents of the primals (one per primal) to the
// outputs' tangents. Evaluation is lazy: each call builds a graph over the forward values.
template <class Out> class LinearizedFunction {
public:
  explicit LinearizedFunction(std::shared_ptr<const detail::LinearMap> map)
      : map_(std::move(map)) {}
  Out operator()(const std::vector<Array> &tangents) const {
    return detail::Outputs<Out>::unflatten(
        detail::apply(*map_, detail::LinearKind::kLinearize, tangents));
  }
  template <class... A>
  requires(detail::is_array_v<A> &&...) Out operator()(const A &...tangents) const {
    return (*this)(std::vector<Array>{tangents...});
  }

private:
  std::shared_ptr<const detail::LinearMap> map_;
};

// jax.linearize(f, *primals): (f(*primals), the JVP at primals as a function of the tangents).
// The forward values are shared by every call of that function.
template <class F> auto linearize(const F &f, const std::vector<Array> &primals) {
  using Out = decltype(detail::call_with_arrays(f, primals));
  const detail::TraceFn body = [&](const std::vector<Array> &args) {
    return detail::Outputs<Out>::flatten(detail::call_with_arrays(f, args));
  };
  auto [outs, map] = detail::linearize(body, primals, detail::array_arity<F>());
  return std::pair<Out, LinearizedFunction<Out>>(detail::Outputs<Out>::unflatten(outs),
                                                 LinearizedFunction<Out>(std::move(map)));
}

// The function returned by jx::vjp: a cotangent shaped as f's result to the primals' cotangents
// (one per primal, in order; bool zeros, JAX's float0, for an int or bool primal).
template <class Out> class VjpFunction {
public:
  explicit VjpFunction(std::shared_ptr<const detail::LinearMap> map) : map_(std::move(map)) {}
  std::vector<Array> operator()(const Out &cotangent) const {
    return detail::apply(*map_, detail::LinearKind::kVjp, detail::Outputs<Out>::flatten(cotangent));
  }

private:
  std::shared_ptr<const detail::LinearMap> map_;
};

// jax.vjp(f, *primals): (f(*primals), the VJP function at primals).
template <class F> auto vjp(const F &f, const std::vector<Array> &primals) {
  using Out = decltype(detail::call_with_arrays(f, primals));
  const detail::TraceFn body = [&](const std::vector<Array> &args) {
    return detail::Outputs<Out>::flatten(detail::call_with_arrays(f, args));
  };
  auto [outs, map] = detail::vjp(body, primals, detail::array_arity<F>());
  return std::pair<Out, VjpFunction<Out>>(detail::Outputs<Out>::unflatten(outs),
                                          VjpFunction<Out>(std::move(map)));
}

namespace detail {
// A tuple of pytree arguments (jvp's, linearize's, vjp's primals) as TreeArgs.
template <class... P> TreeArgs<P...> tree_args(const std::tuple<P...> &args) {
  return std::apply([](const P &...a) { return TreeArgs<P...>(a...); }, args);
}
// JAX's TypeError where tangents or cotangents are trees of another structure than the primals'.
[[noreturn]] void throw_tangent_structure(const char *what, const std::string &primals,
                                          const std::string &tangents);
template <class... P>
std::vector<Array> same_structure_leaves(const char *what, const std::tuple<P...> &primals,
                                         const std::tuple<P...> &others) {
  const std::string p = ArgTree<std::tuple<P...>>::structure(primals),
                    o = ArgTree<std::tuple<P...>>::structure(others);
  if (p != o) throw_tangent_structure(what, p, o);
  return Outputs<std::tuple<P...>>::flatten(others);
}
// f's output over the primals' leaves, flattened; its structure kept in `like`.
template <class F, class... P, class Out>
TraceFn tree_body(const F &f, const TreeArgs<P...> &trees, std::shared_ptr<const Out> &like) {
  return [&f, &trees, &like](const std::vector<Array> &xs) {
    Out out = trees.call(f, xs);
    like = std::make_shared<const Out>(Outputs<Out>::treedef(out));
    return Outputs<Out>::flatten(out);
  };
}
} // namespace detail

// jvp, linearize and vjp of a function of pytrees: primals (and tangents) as a std::tuple of
// trees, one per argument, as JAX's tuples of pytrees; outputs, tangents and cotangents trees of
// their values' structures.
template <class F, class... P>
auto jvp(const F &f, const std::tuple<P...> &primals, const std::tuple<P...> &tangents) {
  const auto trees = detail::tree_args(primals);
  using Out = decltype(trees.call(f, {}));
  std::shared_ptr<const Out> like;
  const std::vector<Array> dots = detail::same_structure_leaves("jvp", primals, tangents);
  std::vector<Array> flat = detail::jvp(detail::tree_body<F, P...>(f, trees, like), trees.leaves(),
                                        dots, int(trees.leaves().size()));
  const auto half = std::ptrdiff_t(flat.size() / 2);
  return std::pair<Out, Out>(
      detail::Outputs<Out>::unflatten(*like, {flat.begin(), flat.begin() + half}),
      detail::Outputs<Out>::unflatten(*like, {flat.begin() + half, flat.end()}));
}

// jax.linearize of pytrees: (f(*primals), a function of the tangents, a std::tuple of trees of
// the primals' structures, to the output's tangent).
template <class F, class... P> auto linearize(const F &f, const std::tuple<P...> &primals) {
  const auto trees = detail::tree_args(primals);
  using Out = decltype(trees.call(f, {}));
  std::shared_ptr<const Out> like;
  auto [outs, map] = detail::linearize(detail::tree_body<F, P...>(f, trees, like), trees.leaves(),
                                       int(trees.leaves().size()));
  const LinearizedFunction<std::vector<Array>> flat_map(std::move(map));
  const std::tuple<P...> structure = detail::Outputs<std::tuple<P...>>::treedef(primals);
  auto tangent_map = [flat_map, structure, like](const std::tuple<P...> &tangents) {
    return detail::Outputs<Out>::unflatten(
        *like, flat_map(detail::same_structure_leaves("linearize", structure, tangents)));
  };
  return std::pair(detail::Outputs<Out>::unflatten(*like, outs), std::move(tangent_map));
}

// jax.vjp of pytrees: (f(*primals), a function of a cotangent of the output's structure to a
// std::tuple of the primals' cotangents, trees of their structures).
template <class F, class... P> auto vjp(const F &f, const std::tuple<P...> &primals) {
  const auto trees = detail::tree_args(primals);
  using Out = decltype(trees.call(f, {}));
  std::shared_ptr<const Out> like;
  auto [outs, map] = detail::vjp(detail::tree_body<F, P...>(f, trees, like), trees.leaves(),
                                 int(trees.leaves().size()));
  const std::tuple<P...> structure = detail::Outputs<std::tuple<P...>>::treedef(primals);
  auto cotangent_map = [map = std::shared_ptr<const detail::LinearMap>(std::move(map)), structure,
                        like](const Out &cotangent) {
    const std::string expected = detail::ArgTree<Out>::structure(*like),
                      got = detail::ArgTree<Out>::structure(cotangent);
    if (expected != got) detail::throw_tangent_structure("vjp", expected, got);
    return detail::Outputs<std::tuple<P...>>::unflatten(
        structure,
        detail::apply(*map, detail::LinearKind::kVjp, detail::Outputs<Out>::flatten(cotangent)));
  };
  return std::pair(detail::Outputs<Out>::unflatten(*like, outs), std::move(cotangent_map));
}

// jx::has_aux as the last argument of jvp, linearize and vjp (JAX's has_aux=True): f returns
// (output, aux) as a std::pair or std::tuple, the output one Array; aux (an Array, a
// std::vector<Array> or a std::tuple of Arrays) is returned last, not differentiated.
struct HasAux {
  explicit HasAux() = default;
};
inline constexpr HasAux has_aux{};

namespace detail {
// f returning (output, aux), f's result as one list: the output, then aux's arrays.
template <class F> TraceFn with_aux_body(const F &f) {
  return [&f](const std::vector<Array> &args) {
    auto result = call_with_arrays(f, args);
    static_assert(AuxPair<decltype(result)>::value,
                  "with jx::has_aux, f returns a (output Array, aux) std::pair or std::tuple");
    return flatten_with_aux(result);
  };
}
template <class F> using ResultOf = decltype(call_with_arrays(std::declval<const F &>(), {}));
} // namespace detail

// jax.jvp(f, primals, tangents, has_aux=True): (output, its tangent, aux).
template <class F>
auto jvp(const F &f, const std::vector<Array> &primals, const std::vector<Array> &tangents,
         HasAux) {
  using R = detail::ResultOf<F>;
  std::vector<Array> flat =
      detail::jvp(detail::with_aux_body(f), primals, tangents, detail::array_arity<F>());
  const auto half = std::ptrdiff_t(flat.size() / 2);
  return std::tuple(flat[0], flat[size_t(half)],
                    detail::aux_of<R>({flat.begin(), flat.begin() + half}));
}

// jax.linearize(f, *primals, has_aux=True): (output, its JVP at primals, aux).
template <class F> auto linearize(const F &f, const std::vector<Array> &primals, HasAux) {
  using R = detail::ResultOf<F>;
  auto [outs, map] = detail::linearize(detail::with_aux_body(f), primals, detail::array_arity<F>());
  auto output_only = std::make_shared<detail::LinearMap>(*map);
  output_only->outputs.resize(1);
  return std::tuple(outs[0], LinearizedFunction<Array>(std::move(output_only)),
                    detail::aux_of<R>(outs));
}

// jax.vjp(f, *primals, has_aux=True): (output, the VJP function at primals, aux).
template <class F> auto vjp(const F &f, const std::vector<Array> &primals, HasAux) {
  using R = detail::ResultOf<F>;
  auto [outs, map] = detail::vjp(detail::with_aux_body(f), primals, detail::array_arity<F>(),
                                 [] { return size_t(1); });
  return std::tuple(outs[0], VjpFunction<Array>(std::move(map)), detail::aux_of<R>(outs));
}

namespace detail {
// f over pytrees returning (output, aux) as a std::pair or std::tuple of trees.
template <class R> struct TreeAux {
  static_assert(sizeof(R) == 0, "with jx::has_aux, f returns an (output, aux) std::pair or "
                                "std::tuple of trees");
};
template <class Out, class Aux> struct TreeAux<std::pair<Out, Aux>> {
  using Output = Out;
  using AuxTree = Aux;
};
template <class Out, class Aux>
struct TreeAux<std::tuple<Out, Aux>> : TreeAux<std::pair<Out, Aux>> {};

// The output's leaves, then aux's; both structures kept.
template <class R> struct TreeAuxResult {
  using Out = typename TreeAux<R>::Output;
  using Aux = typename TreeAux<R>::AuxTree;
  std::shared_ptr<const Out> like;
  std::shared_ptr<const Aux> aux_like;

  template <class F, class... P> TraceFn body(const F &f, const TreeArgs<P...> &trees) {
    return [this, &f, &trees](const std::vector<Array> &xs) {
      const R result = trees.call(f, xs);
      const Out &out = std::get<0>(result);
      const Aux &aux = std::get<1>(result);
      like = std::make_shared<const Out>(Outputs<Out>::treedef(out));
      aux_like = std::make_shared<const Aux>(Outputs<Aux>::treedef(aux));
      std::vector<Array> flat = Outputs<Out>::flatten(out);
      const std::vector<Array> aux_leaves = Outputs<Aux>::flatten(aux);
      flat.insert(flat.end(), aux_leaves.begin(), aux_leaves.end());
      return flat;
    };
  }
  size_t outputs() const { return Outputs<Out>::flatten(*like).size(); }
  // The output (leaves [0, outputs)) and aux (the rest) of a flat primal result.
  Out output(const std::vector<Array> &flat) const {
    return Outputs<Out>::unflatten(*like, {flat.begin(), flat.begin() + std::ptrdiff_t(outputs())});
  }
  Aux aux(const std::vector<Array> &flat) const {
    return Outputs<Aux>::unflatten(*aux_like,
                                   {flat.begin() + std::ptrdiff_t(outputs()), flat.end()});
  }
};
template <class F, class... P>
using TreeAuxOf = TreeAuxResult<decltype(std::declval<const TreeArgs<P...> &>().call(
    std::declval<const F &>(), {}))>;
} // namespace detail

// jax.jvp(f, primals, tangents, has_aux=True) of pytrees: (output, its tangent, aux), trees.
template <class F, class... P>
auto jvp(const F &f, const std::tuple<P...> &primals, const std::tuple<P...> &tangents, HasAux) {
  const auto trees = detail::tree_args(primals);
  detail::TreeAuxOf<F, P...> result;
  const std::vector<Array> dots = detail::same_structure_leaves("jvp", primals, tangents);
  const std::vector<Array> flat =
      detail::jvp(result.body(f, trees), trees.leaves(), dots, int(trees.leaves().size()));
  const auto half = std::ptrdiff_t(flat.size() / 2);
  const std::vector<Array> values(flat.begin(), flat.begin() + half),
      tangent_leaves(flat.begin() + half, flat.end());
  return std::tuple(result.output(values), result.output(tangent_leaves), result.aux(values));
}

// jax.linearize(f, *primals, has_aux=True) of pytrees: (output, its JVP at primals, aux).
template <class F, class... P> auto linearize(const F &f, const std::tuple<P...> &primals, HasAux) {
  const auto trees = detail::tree_args(primals);
  auto result = std::make_shared<detail::TreeAuxOf<F, P...>>();
  auto [outs, map] =
      detail::linearize(result->body(f, trees), trees.leaves(), int(trees.leaves().size()));
  auto output_only = std::make_shared<detail::LinearMap>(*map);
  output_only->outputs.resize(result->outputs());
  const LinearizedFunction<std::vector<Array>> flat_map(std::move(output_only));
  const std::tuple<P...> structure = detail::Outputs<std::tuple<P...>>::treedef(primals);
  auto tangent_map = [flat_map, structure, result](const std::tuple<P...> &tangents) {
    std::vector<Array> leaves =
        flat_map(detail::same_structure_leaves("linearize", structure, tangents));
    return result->output(leaves);
  };
  return std::tuple(result->output(outs), std::move(tangent_map), result->aux(outs));
}

// jax.vjp(f, *primals, has_aux=True) of pytrees: (output, the VJP function, aux).
template <class F, class... P> auto vjp(const F &f, const std::tuple<P...> &primals, HasAux) {
  const auto trees = detail::tree_args(primals);
  auto result = std::make_shared<detail::TreeAuxOf<F, P...>>();
  auto [outs, map] = detail::vjp(result->body(f, trees), trees.leaves(), int(trees.leaves().size()),
                                 [&] { return result->outputs(); });
  using Out = typename detail::TreeAuxOf<F, P...>::Out;
  const std::tuple<P...> structure = detail::Outputs<std::tuple<P...>>::treedef(primals);
  auto cotangent_map = [map = std::shared_ptr<const detail::LinearMap>(std::move(map)), structure,
                        result](const Out &cotangent) {
    const std::string expected = detail::ArgTree<Out>::structure(*result->like),
                      got = detail::ArgTree<Out>::structure(cotangent);
    if (expected != got) detail::throw_tangent_structure("vjp", expected, got);
    return detail::Outputs<std::tuple<P...>>::unflatten(
        structure,
        detail::apply(*map, detail::LinearKind::kVjp, detail::Outputs<Out>::flatten(cotangent)));
  };
  return std::tuple(result->output(outs), std::move(cotangent_map), result->aux(outs));
}

// jax.lax.stop_gradient(x): x, but a constant to every transformation (its derivative is zero,
// and vmap batches it as x). Erased before compilation. Int and bool arrays are returned as they
// are.
Array stop_gradient(const Array &x);

namespace detail {
// A custom_jvp rule on Arrays: (primals, tangents) -> the tangent of the output.
using TangentRule =
    std::function<Array(const std::vector<Array> &primals, const std::vector<Array> &tangents)>;
int64_t register_custom_jvp(TangentRule rule);
// out (f's value at args) marked so that transformations differentiate it with rule `id`.
Array mark_custom_jvp(int64_t id, const Array &out, const std::vector<Array> &args);

template <class F> class CustomJvpFunction {
public:
  static constexpr int array_arity = detail::list_arity<F>();
  CustomJvpFunction(F f, int64_t id) : f_(std::move(f)), id_(id) {}
  template <class... A> Array operator()(const A &...args) const {
    const std::vector<Array> list = argument_list(args...);
    static_assert(std::is_same_v<decltype(call_with_arrays(f_, list)), Array>,
                  "jx::custom_jvp takes a function returning one Array");
    return mark_custom_jvp(id_, call_with_arrays(f_, list), list);
  }

private:
  F f_;
  int64_t id_;
};
} // namespace detail

// jax.custom_jvp with its defjvp: f, differentiated by `rule` instead of through its body. rule
// takes (primals, tangents), one per argument of f (a zero tangent where an argument has none;
// bool zeros, JAX's float0, for int and bool arguments), and returns std::pair(primal output,
// tangent output) as JAX's rule does; the tangent must be linear in the tangents (built with
// jnp ops on them) so that grad can transpose it. f itself runs when the function is called; the
// rule when a transformation differentiates it (vmap maps it, as JAX does).
template <class F, class Rule> auto custom_jvp(F f, Rule rule) {
  const int64_t id = detail::register_custom_jvp(
      [rule = std::move(rule)](const std::vector<Array> &primals,
                               const std::vector<Array> &tangents) -> Array {
        return std::get<1>(rule(primals, tangents));
      });
  return detail::CustomJvpFunction<F>(std::move(f), id);
}

namespace detail {
// A custom_vjp's bwd on Arrays: (residuals, output cotangent) -> one cotangent per argument.
using CotangentRule =
    std::function<std::vector<Array>(const std::vector<Array> &residuals, const Array &ct)>;
int64_t register_custom_vjp(CotangentRule bwd);
// out (f's value at args) marked so that transformations differentiate it with bwd `id` on
// fwd's residuals; fwd_out (fwd's primal output) must have out's type.
Array mark_custom_vjp(int64_t id, const Array &out, const Array &fwd_out,
                      const std::vector<Array> &args, const std::vector<Array> &residuals);

template <class F, class Fwd> class CustomVjpFunction {
public:
  static constexpr int array_arity = detail::list_arity<F>();
  CustomVjpFunction(F f, Fwd fwd, int64_t id) : f_(std::move(f)), fwd_(std::move(fwd)), id_(id) {}
  template <class... A> Array operator()(const A &...args) const {
    const std::vector<Array> list = argument_list(args...);
    static_assert(std::is_same_v<decltype(call_with_arrays(f_, list)), Array>,
                  "jx::custom_vjp takes a function returning one Array");
    const Array out = call_with_arrays(f_, list);
    const auto [fwd_out, residuals] = call_with_arrays(fwd_, list);
    return mark_custom_vjp(id_, out, fwd_out, list, std::vector<Array>(residuals));
  }

private:
  F f_;
  Fwd fwd_;
  int64_t id_;
};
} // namespace detail

// jax.custom_vjp with its defvjp: f, differentiated in reverse mode by `bwd` instead of through
// its body. fwd takes f's arguments and returns std::pair(primal output, residuals: a
// std::vector<Array>); bwd takes (residuals, the output's cotangent) and returns a
// std::vector<Array>, one cotangent per argument of f, each of its argument's shape (ignored for
// int and bool arguments). f runs when the function is called, fwd beside it (its residuals are
// dropped unless a transformation differentiates the call); grad, vjp and jacrev call bwd (vmap
// maps it), forward mode (jvp, jacfwd) raises JAX's TypeError.
template <class F, class Fwd, class Bwd> auto custom_vjp(F f, Fwd fwd, Bwd bwd) {
  const int64_t id = detail::register_custom_vjp(
      [bwd = std::move(bwd)](const std::vector<Array> &residuals,
                             const Array &ct) -> std::vector<Array> { return bwd(residuals, ct); });
  return detail::CustomVjpFunction<F, Fwd>(std::move(f), std::move(fwd), id);
}

struct GradOptions {
  // f returns (value, aux) as a std::pair or std::tuple; aux (an Array, a std::vector<Array> or
  // a std::tuple of Arrays) is returned beside the gradient, not differentiated.
  bool has_aux = false;
  // Int and bool arguments get bool zeros (JAX's float0) instead of a TypeError.
  bool allow_int = false;
};

namespace detail {

// "0" or "(0, 1)": argnums as JAX prints them.
std::string argnums_text(const std::vector<int> &argnums, bool many);
// has_aux and f's result disagree.
[[noreturn]] void throw_wrong_aux(bool returned_pair);

// Whether the arguments are all of one type (argnums at run time then name trees of that type).
template <class A0, class... A> constexpr bool same_types_v = (std::is_same_v<A, A0> && ...);

// The leaves of the arguments at positions, in order.
template <class Trees>
std::vector<int> leaf_positions(const Trees &trees, const std::vector<size_t> &positions) {
  std::vector<int> flat;
  for (size_t p : positions)
    for (size_t i = trees.start(p); i < trees.start(p + 1); ++i)
      flat.push_back(int(i));
  return flat;
}
// Results per leaf of leaf_positions, split per argument.
template <class Trees>
std::vector<std::vector<Array>> by_argument(const Trees &trees,
                                            const std::vector<size_t> &positions,
                                            const std::vector<Array> &results) {
  std::vector<std::vector<Array>> out;
  size_t at = 0;
  for (size_t p : positions) {
    const size_t n = trees.start(p + 1) - trees.start(p);
    out.emplace_back(results.begin() + std::ptrdiff_t(at),
                     results.begin() + std::ptrdiff_t(at + n));
    at += n;
  }
  return out;
}

// grad and value_and_grad of a function of pytrees (TreeArgs): the gradients of the arguments at
// argnums, each as its argument's tree, made by gradient(trees, positions, leaves per argument).
template <bool WithValue, class F, class G, class... A>
auto tree_value_and_grad(const F &f, const std::vector<int> &argnums, bool many,
                         GradOptions options, const G &gradient, const A &...args) {
  const TreeArgs<A...> trees(args...);
  using Out = decltype(trees.call(f, {}));
  constexpr bool pair = AuxPair<Out>::value;
  static_assert(std::is_same_v<Out, Array> || pair,
                "jx::grad differentiates a function returning an Array, or a (value, aux) "
                "std::pair or std::tuple with GradOptions::has_aux");
  if (options.has_aux != pair) throw_wrong_aux(pair);
  const std::string text = argnums_text(argnums, many);
  const std::vector<size_t> positions =
      argument_positions(argnums, trees.count, text, WithValue ? "value_and_grad" : "grad");
  const std::vector<int> flat = leaf_positions(trees, positions);
  std::shared_ptr<const void> aux_like;
  const TraceFn body = [&](const std::vector<Array> &xs) {
    Out out = trees.call(f, xs);
    if constexpr (pair) {
      using Aux = typename AuxPair<Out>::type;
      aux_like = std::make_shared<const Aux>(Outputs<Aux>::treedef(std::get<1>(out)));
      return flatten_with_aux(out);
    } else {
      return std::vector<Array>{out};
    }
  };
  std::vector<Array> outs, grads;
  if (flat.empty()) { // only empty containers differentiated: no leaf has a gradient
    outs = body(trees.leaves());
  } else {
    std::tie(outs, grads) = value_and_grad(body, trees.leaves(), flat, text, options.allow_int,
                                           int(trees.leaves().size()));
  }
  auto g = gradient(trees, positions, by_argument(trees, positions, grads));
  if constexpr (pair) {
    using Aux = typename AuxPair<Out>::type;
    Aux aux = Outputs<Aux>::unflatten(*std::static_pointer_cast<const Aux>(aux_like),
                                      std::vector<Array>(outs.begin() + 1, outs.end()));
    if constexpr (WithValue)
      return std::pair(std::pair<Array, Aux>(outs[0], std::move(aux)), std::move(g));
    else
      return std::pair(std::move(g), std::move(aux));
  } else if constexpr (WithValue) {
    return std::pair(outs[0], std::move(g));
  } else {
    return g;
  }
}

// Argument i (known at run time) of trees whose arguments are all of one type, with the leaves.
template <size_t I = 0, class Trees>
auto rebuild_at(const Trees &trees, size_t i, const std::vector<Array> &leaves) {
  if constexpr (I + 1 < Trees::count)
    if (i != I) return rebuild_at<I + 1>(trees, i, leaves);
  return trees.template rebuild<I>(leaves);
}

// grad with argnums at run time over pytrees: the arguments are of one type T; the gradient a T,
// or a std::vector<T> for a list of argnums.
template <bool Many> struct RuntimeGradients {
  template <class Trees>
  auto operator()(const Trees &trees, const std::vector<size_t> &positions,
                  const std::vector<std::vector<Array>> &leaves) const {
    using T = decltype(trees.template rebuild<0>({}));
    std::vector<T> out;
    for (size_t k = 0; k < positions.size(); ++k)
      out.push_back(rebuild_at(trees, positions[k], leaves[k]));
    if constexpr (Many)
      return out;
    else
      return out.at(0);
  }
};

// grad with argnums fixed at compile time: argument I's type (a std::tuple for several).
template <int... I> struct FixedGradients {
  template <class Trees>
  auto operator()(const Trees &trees, const std::vector<size_t> &,
                  const std::vector<std::vector<Array>> &leaves) const {
    if constexpr (sizeof...(I) == 1)
      return trees.template rebuild<size_t(I)...>(leaves[0]);
    else
      return [&]<size_t... K>(std::index_sequence<K...>) {
        return std::tuple{trees.template rebuild<size_t(I)>(leaves[K])...};
      }
    (std::make_index_sequence<sizeof...(I)>{});
  }
};

// grad and value_and_grad: `Many` for a list of argnums (gradients as a std::vector<Array>).
template <class F, bool Many, bool WithValue> class GradFunction {
public:
  static constexpr int array_arity = detail::list_arity<F>();
  GradFunction(F f, std::vector<int> argnums, GradOptions options)
      : f_(std::move(f)), argnums_(std::move(argnums)), options_(options) {}

  template <class... A> auto operator()(const A &...args) const {
    if constexpr (!array_list_v<A...>) {
      static_assert(same_types_v<A...>,
                    "jx::grad with argnums given at run time needs arguments of one type; name "
                    "the differentiated arguments at compile time: jx::grad(f, jx::argnums<1>) or "
                    "jx::argnums<0, 2>");
      return tree_value_and_grad<WithValue>(f_, argnums_, Many, options_, RuntimeGradients<Many>{},
                                            args...);
    } else {
      return list_grad(args...);
    }
  }

private:
  template <class... A> auto list_grad(const A &...args) const {
    const std::vector<Array> list = argument_list(args...);
    using Out = decltype(call_with_arrays(f_, list));
    constexpr bool pair = AuxPair<Out>::value;
    static_assert(std::is_same_v<Out, Array> || pair,
                  "jx::grad differentiates a function returning an Array, or a (value, aux) "
                  "std::pair or std::tuple with GradOptions::has_aux");
    const TraceFn body = [&](const std::vector<Array> &xs) {
      Out out = call_with_arrays(f_, xs);
      if constexpr (pair) {
        return flatten_with_aux(out);
      } else {
        return std::vector<Array>{out};
      }
    };
    if (options_.has_aux != pair) throw_wrong_aux(pair);
    auto [outs, grads] = value_and_grad(body, list, argnums_, argnums_text(argnums_, Many),
                                        options_.allow_int, array_arity);
    auto gradient = [&] {
      if constexpr (Many)
        return grads;
      else
        return grads.at(0);
    }();
    if constexpr (pair) {
      using Aux = typename AuxPair<Out>::type;
      auto aux = aux_of<Out>(outs);
      if constexpr (WithValue)
        return std::pair(std::pair<Array, Aux>(outs[0], std::move(aux)), gradient);
      else
        return std::pair(gradient, std::move(aux));
    } else if constexpr (WithValue) {
      return std::pair(outs[0], gradient);
    } else {
      return gradient;
    }
  }

  F f_;
  std::vector<int> argnums_;
  GradOptions options_;
};

template <class F, bool WithValue, int... I> class FixedGradFunction {
public:
  static constexpr int array_arity = list_arity<F>();
  FixedGradFunction(F f, GradOptions options) : f_(std::move(f)), options_(options) {}
  template <class... A> auto operator()(const A &...args) const {
    // grad(f) of an array list differentiates its first array, as jx::grad(f, 0) always has.
    if constexpr (array_list_v<A...> && sizeof...(I) == 1 && ((I == 0) && ...))
      return GradFunction<F, false, WithValue>(f_, {0}, options_)(args...);
    else
      return tree_value_and_grad<WithValue>(f_, {I...}, sizeof...(I) > 1, options_,
                                            FixedGradients<I...>{}, args...);
  }

private:
  F f_;
  GradOptions options_;
};

} // namespace detail

// Argnums fixed at compile time, for functions of pytrees: jx::grad(f, jx::argnums<0, 2>) gives a
// std::tuple of the gradients of arguments 0 and 2, each a tree of its argument's type.
template <int... I> struct Argnums {};
template <int... I> inline constexpr Argnums<I...> argnums{};

// jax.grad(f, argnums, has_aux, allow_int): a function taking f's arguments and returning the
// gradient of f's scalar float result with respect to argument `argnum` (negative: from the end),
// or with has_aux the pair (gradient, aux).
template <class F> auto grad(F f, int argnum, GradOptions options = {}) {
  return detail::GradFunction<F, false, false>(std::move(f), {argnum}, options);
}
// With respect to argument 0, whatever the arguments' types (a tree of argument 0's type; with
// options: grad(f, jx::argnums<0>, options), since grad(f, {0, 1}) names argnums).
template <class F> auto grad(F f) {
  return detail::FixedGradFunction<F, false, 0>(std::move(f), {});
}
// Argnums fixed at compile time: each gradient a tree of its argument's type (a std::tuple of
// them for several).
template <class F, int... I> auto grad(F f, Argnums<I...>, GradOptions options = {}) {
  static_assert(sizeof...(I) > 0, "jx::argnums names at least one argument");
  return detail::FixedGradFunction<F, false, I...>(std::move(f), options);
}
// Gradients with respect to several arguments, as a std::vector<Array> in argnums' order.
template <class F> auto grad(F f, std::vector<int> argnums, GradOptions options = {}) {
  return detail::GradFunction<F, true, false>(std::move(f), std::move(argnums), options);
}
// jax.value_and_grad: (f's value, its gradient); with has_aux ((value, aux), gradient).
template <class F> auto value_and_grad(F f, int argnum, GradOptions options = {}) {
  return detail::GradFunction<F, false, true>(std::move(f), {argnum}, options);
}
template <class F> auto value_and_grad(F f) {
  return detail::FixedGradFunction<F, true, 0>(std::move(f), {});
}
template <class F, int... I> auto value_and_grad(F f, Argnums<I...>, GradOptions options = {}) {
  static_assert(sizeof...(I) > 0, "jx::argnums names at least one argument");
  return detail::FixedGradFunction<F, true, I...>(std::move(f), options);
}
template <class F> auto value_and_grad(F f, std::vector<int> argnums, GradOptions options = {}) {
  return detail::GradFunction<F, true, true>(std::move(f), std::move(argnums), options);
}

// vmap's in_axes or out_axes: one axis (or jx::none) for all, or one per argument or output.
class VmapAxes {
public:
  VmapAxes(int64_t axis) : axes_{axis}, one_(true) {}
  VmapAxes(std::nullopt_t) : axes_{std::nullopt}, one_(true) {}
  VmapAxes(std::initializer_list<std::optional<int64_t>> axes) : axes_(axes) {}
  VmapAxes(std::vector<std::optional<int64_t>> axes) : axes_(std::move(axes)) {}
  const std::vector<std::optional<int64_t>> &axes() const { return axes_; }
  bool one() const { return one_; }

private:
  std::vector<std::optional<int64_t>> axes_;
  bool one_ = false;
};

namespace detail {
template <class F> class VmapFunction {
public:
  static constexpr int array_arity = detail::list_arity<F>();
  VmapFunction(F f, VmapAxes in_axes, VmapAxes out_axes, std::optional<int64_t> axis_size)
      : f_(std::move(f)), in_(std::move(in_axes)), out_(std::move(out_axes)), size_(axis_size) {}

  template <class... A> auto operator()(const A &...args) const {
    if constexpr (array_list_v<A...>) {
      const std::vector<Array> list = argument_list(args...);
      return mapped([&](const std::vector<Array> &xs) { return call_with_arrays(f_, xs); }, list,
                    std::vector<size_t>{}, array_arity);
    } else {
      // Pytrees: an argument's axis (in_axes one per argument, or one for all) maps each of its
      // leaves.
      const TreeArgs<A...> trees(args...);
      std::vector<size_t> starts;
      for (size_t i = 0; i <= trees.count; ++i)
        starts.push_back(trees.start(i));
      return mapped([&](const std::vector<Array> &xs) { return trees.call(f_, xs); },
                    trees.leaves(), starts, int(trees.leaves().size()));
    }
  }

private:
  // vmap of call over the arrays; starts: where each argument's leaves start (empty: an array
  // list, one axis per array).
  template <class Call>
  auto mapped(const Call &call, const std::vector<Array> &arrays, const std::vector<size_t> &starts,
              int arity) const {
    using Out = decltype(call(arrays));
    std::shared_ptr<const Out> like;
    const TraceFn body = [&](const std::vector<Array> &xs) {
      Out out = call(xs);
      like = std::make_shared<const Out>(Outputs<Out>::treedef(out));
      return Outputs<Out>::flatten(out);
    };
    std::vector<std::optional<int64_t>> in_axes = in_.axes();
    if (in_.one()) {
      in_axes.assign(arrays.size(), in_axes.at(0));
    } else if (!starts.empty()) {
      if (in_axes.size() != starts.size() - 1)
        throw_vmap_in_axes(in_axes.size(), starts.size() - 1);
      std::vector<std::optional<int64_t>> per_leaf;
      for (size_t i = 0; i + 1 < starts.size(); ++i)
        per_leaf.insert(per_leaf.end(), starts[i + 1] - starts[i], in_axes[i]);
      in_axes = std::move(per_leaf);
    }
    std::vector<Array> outs = vmap(body, arrays, in_axes, out_.axes(), out_.one(), size_, arity);
    return Outputs<Out>::unflatten(*like, outs);
  }

  F f_;
  VmapAxes in_, out_;
  std::optional<int64_t> size_;
};
} // namespace detail

// jax.vmap(f, in_axes, out_axes, axis_size): f mapped over axis in_axes[i] of argument i (none:
// the argument is shared by every example), its outputs stacked along out_axes. One graph over the
// batch (each op's batching rule), not a loop; nests and composes with jit and grad. in_axes of
// one entry per argument: vmap(f, {0, jx::none}).
template <class F>
auto vmap(F f, VmapAxes in_axes = 0, VmapAxes out_axes = 0, std::optional<int64_t> axis_size = {}) {
  return detail::VmapFunction<F>(std::move(f), std::move(in_axes), std::move(out_axes), axis_size);
}

namespace detail {
// The Jacobian of a tree-valued function: the output's structure with, in place of each output
// Array, what the Jacobian of that Array is (R: the arguments' trees of Jacobians), as JAX nests
// them. std containers keep their kind; a JX_PYTREE aggregate, whose fields cannot hold another
// type, becomes a std::vector over its leaves, in field order.
template <class T, class R, class = void> struct WithLeaves {
  using type = std::vector<R>;
  template <class Next> static type build(const T &out, Next &next) {
    std::vector<Array> leaves;
    ArgTree<T>::flatten(out, nullptr, &leaves);
    type result;
    for (size_t i = 0; i < leaves.size(); ++i)
      result.push_back(next());
    return result;
  }
};
template <class R> struct WithLeaves<Array, R> {
  using type = R;
  template <class Next> static type build(const Array &, Next &next) { return next(); }
};
template <class T, class R> struct WithLeaves<std::vector<T>, R> {
  using type = std::vector<typename WithLeaves<T, R>::type>;
  template <class Next> static type build(const std::vector<T> &out, Next &next) {
    type result;
    for (const T &x : out)
      result.push_back(WithLeaves<T, R>::build(x, next));
    return result;
  }
};
template <class T, size_t N, class R> struct WithLeaves<std::array<T, N>, R> {
  using type = std::array<typename WithLeaves<T, R>::type, N>;
  template <class Next> static type build(const std::array<T, N> &out, Next &next) {
    return [&]<size_t... K>(std::index_sequence<K...>) {
      return type{WithLeaves<T, R>::build(out[K], next)...}; // braces: in order
    }
    (std::make_index_sequence<N>{});
  }
};
template <class... T, class R> struct WithLeaves<std::tuple<T...>, R> {
  using type = std::tuple<typename WithLeaves<T, R>::type...>;
  template <class Next> static type build(const std::tuple<T...> &out, Next &next) {
    return std::apply([&](const T &...x) { return type{WithLeaves<T, R>::build(x, next)...}; },
                      out);
  }
};
template <class A, class B, class R> struct WithLeaves<std::pair<A, B>, R> {
  using type = std::pair<typename WithLeaves<A, R>::type, typename WithLeaves<B, R>::type>;
  template <class Next> static type build(const std::pair<A, B> &out, Next &next) {
    return type{WithLeaves<A, R>::build(out.first, next),
                WithLeaves<B, R>::build(out.second, next)};
  }
};
template <class T, class R> struct WithLeaves<std::map<std::string, T>, R> {
  using type = std::map<std::string, typename WithLeaves<T, R>::type>;
  template <class Next> static type build(const std::map<std::string, T> &out, Next &next) {
    type result;
    for (const auto &[key, x] : out)
      result.emplace(key, WithLeaves<T, R>::build(x, next));
    return result;
  }
};

// Fixed: FixedGradients<I...> where argnums are fixed at compile time (each Jacobian a tree of its
// argument's type), else void (argnums at run time).
template <class F, bool Many, class Fixed = void> class JacobianFunction {
public:
  static constexpr int array_arity = detail::list_arity<F>();
  JacobianFunction(F f, std::vector<int> argnums, bool forward)
      : f_(std::move(f)), argnums_(std::move(argnums)), forward_(forward) {}

  // Arrays to an Array-valued f, or one std::vector<Array> of arguments: Jacobians as a list;
  // a tree-valued f of Arrays takes the pytree path (the same Jacobians, nested in its output).
  template <class... A> static constexpr bool list_form() {
    if constexpr (!array_list_v<A...>)
      return false;
    else if constexpr (!(is_array_v<A> && ...))
      return true;
    else
      return std::is_same_v<decltype(call_with_arrays(std::declval<const F &>(),
                                                      std::declval<const std::vector<Array> &>())),
                            Array>;
  }

  template <class... A> auto operator()(const A &...args) const {
    if constexpr (list_form<A...>()) {
      const std::vector<Array> list = argument_list(args...);
      using Out = decltype(call_with_arrays(f_, list));
      static_assert(std::is_same_v<Out, Array>, "jx::jacfwd and jacrev of a function of a "
                                                "std::vector<Array> take one returning one Array");
      const TraceFn body = [&](const std::vector<Array> &xs) {
        return std::vector<Array>{call_with_arrays(f_, xs)};
      };
      std::vector<Array> jacobians =
          jacobian(body, list, argnums_, argnums_text(argnums_, Many), forward_, array_arity);
      if constexpr (Many)
        return jacobians;
      else
        return jacobians.at(0);
    } else {
      // Pytrees: each differentiated argument's Jacobians (output shape + leaf shape) as a tree
      // of the argument's structure; of a tree-valued f, one such per output leaf, nested in the
      // output's structure (WithLeaves).
      const TreeArgs<A...> trees(args...);
      using Out = decltype(trees.call(f_, {}));
      const std::string text = argnums_text(argnums_, Many);
      const std::vector<size_t> positions =
          argument_positions(argnums_, trees.count, text, forward_ ? "jacfwd" : "jacrev");
      const std::vector<int> flat = leaf_positions(trees, positions);
      // The Jacobians of output leaf k (the only one there is of an Array-valued f).
      std::optional<Out> structure;
      auto of_output = [&](size_t k) {
        const TraceFn body = [&](const std::vector<Array> &xs) {
          const Out out = trees.call(f_, xs);
          if constexpr (std::is_same_v<Out, Array>) {
            return std::vector<Array>{out};
          } else {
            if (!structure) structure = Outputs<Out>::treedef(out);
            const std::vector<Array> leaves = Outputs<Out>::flatten(out);
            // An empty output traces once for its structure; its leaf is never used.
            return std::vector<Array>{leaves.empty() ? Array(0.0) : leaves.at(k)};
          }
        };
        const std::vector<Array> jacobians =
            flat.empty()
                ? std::vector<Array>{}
                : jacobian(body, trees.leaves(), flat, text, forward_, int(trees.leaves().size()));
        const auto per_argument = by_argument(trees, positions, jacobians);
        if constexpr (std::is_void_v<Fixed>) {
          static_assert(same_types_v<A...>, "jx::jacfwd and jacrev with argnums given at run time "
                                            "need arguments of one type; name them at compile "
                                            "time: jx::jacfwd(f, jx::argnums<1>)");
          return RuntimeGradients<Many>{}(trees, positions, per_argument);
        } else {
          return Fixed{}(trees, positions, per_argument);
        }
      };
      if constexpr (std::is_same_v<Out, Array>) {
        return of_output(0);
      } else {
        using R = decltype(of_output(0));
        std::vector<R> per_leaf{of_output(0)};
        // Without a differentiated leaf nothing traced f: its structure comes from one call.
        if (!structure) structure = Outputs<Out>::treedef(trees.call(f_, trees.leaves()));
        const size_t outputs = Outputs<Out>::flatten(*structure).size();
        for (size_t k = 1; k < outputs; ++k)
          per_leaf.push_back(of_output(k));
        size_t next_leaf = 0;
        auto next = [&] { return per_leaf.at(next_leaf++); };
        return WithLeaves<Out, R>::build(*structure, next);
      }
    }
  }

private:
  F f_;
  std::vector<int> argnums_;
  bool forward_;
};

} // namespace detail

// jax.jacfwd(f, argnums): the Jacobian of f's Array result with respect to argument `argnum`,
// of shape result shape + argument shape, by forward mode (f's JVP mapped over the argument's
// basis: one batched graph, as JAX's vmap of jvp). With a list of argnums, one per argnum. Of a
// pytree argument: a tree of Jacobians, one per leaf (result shape + leaf shape); jacfwd(f)
// differentiates argument 0 whatever the arguments' types, jx::argnums<I...> names arguments at
// compile time (a std::tuple for several).
template <class F> auto jacfwd(F f) {
  return detail::JacobianFunction<F, false, detail::FixedGradients<0>>(std::move(f), {0}, true);
}
template <class F> auto jacfwd(F f, int argnum) {
  return detail::JacobianFunction<F, false>(std::move(f), {argnum}, true);
}
template <class F> auto jacfwd(F f, std::vector<int> argnums) {
  return detail::JacobianFunction<F, true>(std::move(f), std::move(argnums), true);
}
template <class F, int... I> auto jacfwd(F f, Argnums<I...>) {
  return detail::JacobianFunction<F, (sizeof...(I) > 1), detail::FixedGradients<I...>>(
      std::move(f), {I...}, true);
}
// jax.jacrev: the same Jacobian by reverse mode (f's VJP mapped over the result's basis).
template <class F> auto jacrev(F f) {
  return detail::JacobianFunction<F, false, detail::FixedGradients<0>>(std::move(f), {0}, false);
}
template <class F> auto jacrev(F f, int argnum) {
  return detail::JacobianFunction<F, false>(std::move(f), {argnum}, false);
}
template <class F> auto jacrev(F f, std::vector<int> argnums) {
  return detail::JacobianFunction<F, true>(std::move(f), std::move(argnums), false);
}
template <class F, int... I> auto jacrev(F f, Argnums<I...>) {
  return detail::JacobianFunction<F, (sizeof...(I) > 1), detail::FixedGradients<I...>>(
      std::move(f), {I...}, false);
}
// jax.hessian: jacfwd(jacrev(f)), of shape result shape + argument shape + argument shape. Of a
// pytree argument P: for each leaf of P, in order (a P of gradients is an output tree), a P of
// second derivatives: H[i].b = d2f / d(leaf i) d(b); nested in a std container's own structure.
template <class F> auto hessian(F f) { return jacfwd(jacrev(std::move(f))); }
template <class F> auto hessian(F f, int argnum) {
  return jacfwd(jacrev(std::move(f), argnum), argnum);
}
template <class F, int... I> auto hessian(F f, Argnums<I...> argnums) {
  return jacfwd(jacrev(std::move(f), argnums), argnums);
}

} // namespace jx
