// Function transformations (JAX's jax.jvp): each traces the C++ function on fresh parameters,
// transforms the graph and substitutes the caller's arrays, so its result is an ordinary lazy
// array (eager, inside jx::jit, around a jitted function). Design: docs/design/transforms.md.
#pragma once

#include <jx/jit.h>

#include <utility>

namespace jx {

namespace detail {

// f traced on fresh parameters of these specs under a new trace id. A parameter of a finished
// trace reaching the outputs is a leaked tracer (UnexpectedTracerError); one of a running trace
// (an outer jit's or transform's argument captured by a closure) is a constant.
struct TransformTrace {
  int64_t trace_id;
  std::vector<std::shared_ptr<const ir::Node>> params, outputs;
};
TransformTrace trace_for_transform(const std::vector<ShapeDtypeStruct> &specs, const TraceFn &f);

// jvp over flattened outputs: the primal outputs, then their tangents. `arity`: the number of
// arrays f takes, -1 for one std::vector<Array>.
std::vector<Array> jvp(const TraceFn &f, const std::vector<Array> &primals,
                       const std::vector<Array> &tangents, int arity);

template <size_t> using ArrayArg = const Array &;
// How f takes its arrays: their number (1 to 8), else -1 for one std::vector<Array>. Arities are
// tried first, in increasing order: a jitted function's call operator accepts anything until
// instantiated, so a jitted function taking several arrays must be wrapped in a lambda.
template <class F, size_t N = 1> constexpr int array_arity() {
  if constexpr ([]<size_t... I>(std::index_sequence<I...>) {
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

} // namespace jx
