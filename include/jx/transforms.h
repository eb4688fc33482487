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
template <class F, size_t N = 1> constexpr int array_arity() {
  if constexpr (requires { F::array_arity; }) {
    return F::array_arity;
  } else if constexpr ([]<size_t... I>(std::index_sequence<I...>) {
                         return std::is_invocable_v<const F &, ArrayArg<I>...>;
                       }(std::make_index_sequence<N>{})) {
    return int(N);
  } else if constexpr (N < 8) {
    return array_arity<F, N + 1>();
  } else {
    static_assert(std::is_invocable_v<const F &, const std::vector<Array> &>,
                  "jx transforms take a function of Arrays or of a std::vector<Array>");
    return -1;
  }
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

// vjp over flattened outputs, of which the first `differentiated` (all if -1) have cotangents
// (the rest: grad's aux). The map takes their cotangents to the primals'.
std::pair<std::vector<Array>, std::shared_ptr<const LinearMap>>
vjp(const TraceFn &f, const std::vector<Array> &primals, int arity, int differentiated = -1);

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
  auto [outs, map] = detail::vjp(detail::with_aux_body(f), primals, detail::array_arity<F>(), 1);
  return std::tuple(outs[0], VjpFunction<Array>(std::move(map)), detail::aux_of<R>(outs));
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
  static constexpr int array_arity = detail::array_arity<F>();
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
  static constexpr int array_arity = detail::array_arity<F>();
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

// grad and value_and_grad: `Many` for a list of argnums (gradients as a std::vector<Array>).
template <class F, bool Many, bool WithValue> class GradFunction {
public:
  static constexpr int array_arity = detail::array_arity<F>();
  GradFunction(F f, std::vector<int> argnums, GradOptions options)
      : f_(std::move(f)), argnums_(std::move(argnums)), options_(options) {}

  template <class... A> auto operator()(const A &...args) const {
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

private:
  F f_;
  std::vector<int> argnums_;
  GradOptions options_;
};

} // namespace detail

// jax.grad(f, argnums, has_aux, allow_int): a function taking f's arguments and returning the
// gradient of f's scalar float result with respect to argument `argnum` (negative: from the end),
// or with has_aux the pair (gradient, aux).
template <class F> auto grad(F f, int argnum = 0, GradOptions options = {}) {
  return detail::GradFunction<F, false, false>(std::move(f), {argnum}, options);
}
// Gradients with respect to several arguments, as a std::vector<Array> in argnums' order.
template <class F> auto grad(F f, std::vector<int> argnums, GradOptions options = {}) {
  return detail::GradFunction<F, true, false>(std::move(f), std::move(argnums), options);
}
// jax.value_and_grad: (f's value, its gradient); with has_aux ((value, aux), gradient).
template <class F> auto value_and_grad(F f, int argnum = 0, GradOptions options = {}) {
  return detail::GradFunction<F, false, true>(std::move(f), {argnum}, options);
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
  static constexpr int array_arity = detail::array_arity<F>();
  VmapFunction(F f, VmapAxes in_axes, VmapAxes out_axes, std::optional<int64_t> axis_size)
      : f_(std::move(f)), in_(std::move(in_axes)), out_(std::move(out_axes)), size_(axis_size) {}

  template <class... A> auto operator()(const A &...args) const {
    const std::vector<Array> list = argument_list(args...);
    using Out = decltype(call_with_arrays(f_, list));
    const TraceFn body = [&](const std::vector<Array> &xs) {
      return Outputs<Out>::flatten(call_with_arrays(f_, xs));
    };
    std::vector<std::optional<int64_t>> in_axes = in_.axes();
    if (in_.one()) in_axes.assign(list.size(), in_axes.at(0));
    return Outputs<Out>::unflatten(
        vmap(body, list, in_axes, out_.axes(), out_.one(), size_, array_arity));
  }

private:
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
template <class F, bool Many> class JacobianFunction {
public:
  static constexpr int array_arity = detail::array_arity<F>();
  JacobianFunction(F f, std::vector<int> argnums, bool forward)
      : f_(std::move(f)), argnums_(std::move(argnums)), forward_(forward) {}

  template <class... A> auto operator()(const A &...args) const {
    const std::vector<Array> list = argument_list(args...);
    using Out = decltype(call_with_arrays(f_, list));
    static_assert(std::is_same_v<Out, Array>, "jx::jacfwd and jacrev take a function returning "
                                              "one Array");
    const TraceFn body = [&](const std::vector<Array> &xs) {
      return std::vector<Array>{call_with_arrays(f_, xs)};
    };
    std::vector<Array> jacobians =
        jacobian(body, list, argnums_, argnums_text(argnums_, Many), forward_, array_arity);
    if constexpr (Many)
      return jacobians;
    else
      return jacobians.at(0);
  }

private:
  F f_;
  std::vector<int> argnums_;
  bool forward_;
};
} // namespace detail

// jax.jacfwd(f, argnums): the Jacobian of f's Array result with respect to argument `argnum`,
// of shape result shape + argument shape, by forward mode (f's JVP mapped over the argument's
// basis: one batched graph, as JAX's vmap of jvp). With a list of argnums, one per argnum.
template <class F> auto jacfwd(F f, int argnum = 0) {
  return detail::JacobianFunction<F, false>(std::move(f), {argnum}, true);
}
template <class F> auto jacfwd(F f, std::vector<int> argnums) {
  return detail::JacobianFunction<F, true>(std::move(f), std::move(argnums), true);
}
// jax.jacrev: the same Jacobian by reverse mode (f's VJP mapped over the result's basis).
template <class F> auto jacrev(F f, int argnum = 0) {
  return detail::JacobianFunction<F, false>(std::move(f), {argnum}, false);
}
template <class F> auto jacrev(F f, std::vector<int> argnums) {
  return detail::JacobianFunction<F, true>(std::move(f), std::move(argnums), false);
}
// jax.hessian: jacfwd(jacrev(f)), of shape result shape + argument shape + argument shape.
template <class F> auto hessian(F f, int argnum = 0) {
  return jacfwd(jacrev(std::move(f), argnum), argnum);
}

} // namespace jx
