// jax.lax's control flow: loops and branches traced once into sub-graphs (regions) that run as
// programs of their own inside the compiled program, so a whole loop is one jit call. A carry or
// an operand list is a list of arrays (JAX's pytree of arrays); each function also takes and
// returns a single array, and any pytree (include/jx/tree.h: std::pair, std::tuple, std::map,
// JX_PYTREE aggregates, nested) as a carry, operands or results. Values the functions read from
// outside (closures) are inputs of the loop, computed once before it.
#pragma once

#include <jx/array.h>
#include <jx/tree.h>

#include <memory>
#include <string>

#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace jx::lax {

using Arrays = std::vector<Array>;

namespace detail {
using RegionFn = std::function<Arrays(const Arrays &)>;
Arrays while_loop(const RegionFn &cond_fun, const RegionFn &body_fun, Arrays init_val, bool single);
Arrays fori_loop(const Array &lower, const Array &upper,
                 const std::function<Arrays(const Array &, const Arrays &)> &body_fun,
                 const Arrays &init_val, bool single);
Arrays switch_(const Array &index, const std::vector<RegionFn> &branches, const Arrays &operands,
               const char *api);
Arrays cond(const Array &pred, const RegionFn &true_fun, const RegionFn &false_fun,
            const Arrays &operands);
using ScanFn = std::function<std::pair<Arrays, Arrays>(const Arrays &, const Arrays &)>;
std::pair<Arrays, Arrays> scan(const ScanFn &f, const Arrays &init, const Arrays &xs,
                               std::optional<int64_t> length, bool reverse, bool single);

inline Arrays as_list(const Array &a) { return {a}; }
inline Arrays as_list(Arrays a) { return a; }

// Pytrees other than the Array and the list of Arrays the overloads below take as they are.
template <class T>
constexpr bool other_tree_v =
    jx::detail::is_tree_v<T> && !std::is_same_v<T, Array> && !std::is_same_v<T, Arrays>;
template <class T> Arrays leaves(const T &tree) { return jx::detail::Outputs<T>::flatten(tree); }
template <class T> std::string structure(const T &tree) {
  return jx::detail::ArgTree<T>::structure(tree);
}
// like's structure with these leaves.
template <class T> T with_leaves(const T &like, const Arrays &arrays) {
  return jx::detail::Outputs<T>::unflatten(like, arrays);
}
// JAX's TypeError where a body's carry or a branch's results change structure (`what`: "scan body
// function carry input and carry output", "cond branch outputs", ...).
void check_same_structure(const char *what, const std::string &first, const std::string &second);
// A result tree kept from a trace: its structure, for the results' leaves.
template <class T> struct TracedTree {
  explicit TracedTree(const char *what) : what(what) {}
  const char *what; // "cond branch outputs", for the error
  std::shared_ptr<const T> like;
  Arrays keep(const T &tree) {
    if (like)
      check_same_structure(what, structure(*like), structure(tree));
    else
      like = std::make_shared<const T>(jx::detail::Outputs<T>::treedef(tree));
    return leaves(tree);
  }
  T rebuild(const Arrays &arrays) const { return with_leaves(*like, arrays); }
};
} // namespace detail

// Pytree carries, operands and results (other_tree_v: not an Array nor a list of Arrays): the
// loops and branches below on the trees' leaves, the trees rebuilt around them.
template <class C, class B, class T>
requires detail::other_tree_v<T> T while_loop(C cond_fun, B body_fun, const T &init_val) {
  const std::string in = detail::structure(init_val);
  return detail::with_leaves(
      init_val,
      detail::while_loop(
          [&](const Arrays &v) { return Arrays{cond_fun(detail::with_leaves(init_val, v))}; },
          [&](const Arrays &v) {
            const T next = body_fun(detail::with_leaves(init_val, v));
            detail::check_same_structure("while_loop body function carry input and carry output",
                                         in, detail::structure(next));
            return detail::leaves(next);
          },
          detail::leaves(init_val), false));
}
template <class B, class T>
requires detail::other_tree_v<T> T fori_loop(const Array &lower, const Array &upper, B body_fun,
                                             const T &init_val) {
  const std::string in = detail::structure(init_val);
  return detail::with_leaves(init_val, detail::fori_loop(
                                           lower, upper,
                                           [&](const Array &i, const Arrays &v) {
                                             const T next =
                                                 body_fun(i, detail::with_leaves(init_val, v));
                                             detail::check_same_structure(
                                                 "scan body function carry input and carry output",
                                                 in, detail::structure(next));
                                             return detail::leaves(next);
                                           },
                                           detail::leaves(init_val), false));
}
// Branches of pytree operands and results: every branch gives results of one structure.
template <class T, class F, class O>
requires detail::other_tree_v<O>
auto cond(const Array &pred, T true_fun, F false_fun, const O &operands) {
  using R = decltype(true_fun(operands));
  detail::TracedTree<R> results{"cond branch outputs"};
  auto branch = [&](const auto &fn) {
    return [&](const Arrays &v) { return results.keep(fn(detail::with_leaves(operands, v))); };
  };
  return results.rebuild(
      detail::cond(pred, branch(true_fun), branch(false_fun), detail::leaves(operands)));
}
template <class B, class O>
requires detail::other_tree_v<O>
auto switch_(const Array &index, const std::vector<B> &branches, const O &operands) {
  using R = decltype(branches.at(0)(operands));
  detail::TracedTree<R> results{"switch branch outputs"};
  std::vector<detail::RegionFn> fns;
  for (const B &b : branches)
    fns.push_back(
        [&](const Arrays &v) { return results.keep(b(detail::with_leaves(operands, v))); });
  return results.rebuild(detail::switch_(index, fns, detail::leaves(operands), "switch"));
}
// scan of a pytree carry over pytree xs (each leaf's rows), giving a pytree per step: f(carry, x)
// returns (carry, y); (the last carry, the ys' leaves stacked as y's tree).
template <class F, class T, class X>
requires(detail::other_tree_v<T> ||
         detail::other_tree_v<X>) auto scan(F f, const T &init, const X &xs,
                                            std::optional<int64_t> length = std::nullopt,
                                            bool reverse = false) {
  using Step = decltype(f(init, xs));
  using Y = std::decay_t<std::tuple_element_t<1, Step>>;
  const std::string in = detail::structure(init);
  std::shared_ptr<const Y> y_like;
  auto [carry, ys] = detail::scan(
      [&](const Arrays &c, const Arrays &x) {
        const auto [next, y] = f(detail::with_leaves(init, c), detail::with_leaves(xs, x));
        detail::check_same_structure("scan body function carry input and carry output", in,
                                     detail::structure(static_cast<const T &>(next)));
        y_like = std::make_shared<const Y>(jx::detail::Outputs<Y>::treedef(y));
        return std::pair<Arrays, Arrays>{detail::leaves(static_cast<const T &>(next)),
                                         detail::leaves(y)};
      },
      detail::leaves(init), detail::leaves(xs), length, reverse, false);
  return std::pair<T, Y>(detail::with_leaves(init, carry), detail::with_leaves(*y_like, ys));
}

// jax.lax.while_loop(cond_fun, body_fun, init_val): while cond_fun(val) (a bool scalar), val =
// body_fun(val), whose result has val's types (a weakly typed init value takes the body's dtype).
template <class C, class B> Arrays while_loop(C cond_fun, B body_fun, const Arrays &init_val) {
  return detail::while_loop([&](const Arrays &v) { return Arrays{cond_fun(v)}; },
                            [&](const Arrays &v) { return detail::as_list(body_fun(v)); }, init_val,
                            false);
}
template <class C, class B> Array while_loop(C cond_fun, B body_fun, const Array &init_val) {
  return detail::while_loop([&](const Arrays &v) { return Arrays{cond_fun(v[0])}; },
                            [&](const Arrays &v) { return detail::as_list(body_fun(v[0])); },
                            {init_val}, true)[0];
}

// jax.lax.fori_loop(lower, upper, body_fun, init_val): val = body_fun(i, val) for i in
// [lower, upper); i has the bounds' promoted integer type.
template <class B>
Arrays fori_loop(const Array &lower, const Array &upper, B body_fun, const Arrays &init_val) {
  return detail::fori_loop(
      lower, upper,
      [&](const Array &i, const Arrays &v) { return detail::as_list(body_fun(i, v)); }, init_val,
      false);
}
template <class B>
Array fori_loop(const Array &lower, const Array &upper, B body_fun, const Array &init_val) {
  return detail::fori_loop(
      lower, upper,
      [&](const Array &i, const Arrays &v) { return detail::as_list(body_fun(i, v[0])); },
      {init_val}, true)[0];
}

// jax.lax.cond(pred, true_fun, false_fun, *operands): one branch runs, chosen by a scalar pred
// (bool, or a number compared with 0); both must give results of one type.
template <class T, class F>
Arrays cond(const Array &pred, T true_fun, F false_fun, const Arrays &operands) {
  return detail::cond(
      pred, [&](const Arrays &v) { return detail::as_list(true_fun(v)); },
      [&](const Arrays &v) { return detail::as_list(false_fun(v)); }, operands);
}
template <class T, class F>
Array cond(const Array &pred, T true_fun, F false_fun, const Array &operand) {
  return detail::cond(
      pred, [&](const Arrays &v) { return detail::as_list(true_fun(v[0])); },
      [&](const Arrays &v) { return detail::as_list(false_fun(v[0])); }, {operand})[0];
}

// jax.lax.switch(index, branches, *operands): branches[clamp(index, 0, n - 1)](operands), the
// index converted to int32 first, as JAX does.
template <class B>
Arrays switch_(const Array &index, const std::vector<B> &branches, const Arrays &operands) {
  std::vector<detail::RegionFn> fns;
  for (const B &b : branches)
    fns.push_back([&b](const Arrays &v) { return detail::as_list(b(v)); });
  return detail::switch_(index, fns, operands, "switch");
}
template <class B>
Array switch_(const Array &index, const std::vector<B> &branches, const Array &operand) {
  std::vector<detail::RegionFn> fns;
  for (const B &b : branches)
    fns.push_back([&b](const Arrays &v) { return detail::as_list(b(v[0])); });
  return detail::switch_(index, fns, {operand}, "switch")[0];
}

// jax.lax.scan(f, init, xs, length, reverse): carry, y = f(carry, x) for each row x of xs (along
// their leading axis, from the last with reverse), returning (the last carry, the ys stacked).
// xs may be empty with a length. The stacked outputs are written row by row in place, and each
// row of xs is read where it lies (no copy).
template <class F>
std::pair<Arrays, Arrays> scan(F f, const Arrays &init, const Arrays &xs,
                               std::optional<int64_t> length = std::nullopt, bool reverse = false) {
  return detail::scan(
      [&](const Arrays &c, const Arrays &x) {
        auto [carry, y] = f(c, x);
        return std::pair<Arrays, Arrays>{detail::as_list(carry), detail::as_list(y)};
      },
      init, xs, length, reverse, false);
}
// One array carried over one array's rows; a body whose y is an empty Arrays (JAX's None) gives
// (carry, Arrays{}).
template <class F>
auto scan(F f, const Array &init, const Array &xs, std::optional<int64_t> length = std::nullopt,
          bool reverse = false) {
  using Y = std::decay_t<std::tuple_element_t<1, decltype(f(init, xs))>>;
  auto [carry, ys] = detail::scan(
      [&](const Arrays &c, const Arrays &x) {
        auto [next, y] = f(c[0], x[0]);
        return std::pair<Arrays, Arrays>{Arrays{next}, detail::as_list(y)};
      },
      {init}, {xs}, length, reverse, true);
  if constexpr (std::is_same_v<Y, Arrays>)
    return std::pair<Array, Arrays>{carry[0], ys};
  else
    return std::pair<Array, Array>{carry[0], ys[0]};
}

// jax.lax.map(f, xs): f applied to each row of xs, the results stacked (a scan without a carry).
template <class F> Array map(F f, const Array &xs) {
  return detail::scan(
             [&](const Arrays &, const Arrays &x) {
               return std::pair<Arrays, Arrays>{Arrays{}, Arrays{f(x[0])}};
             },
             {}, {xs}, std::nullopt, false, true)
      .second[0];
}

// jax.lax's cumulative reductions along axis (reverse: from the end), in the operand's dtype, and
// its sort (ascending, NaNs last).
Array cumsum(const Array &operand, int64_t axis = 0, bool reverse = false);
Array cumprod(const Array &operand, int64_t axis = 0, bool reverse = false);
Array cummax(const Array &operand, int64_t axis = 0, bool reverse = false);
Array cummin(const Array &operand, int64_t axis = 0, bool reverse = false);
Array sort(const Array &operand, int64_t dimension = -1);

// Elementwise, in the operand's dtype (no promotion; JAX's TypeError for another dtype): the set
// bits of each integer (lax.population_count) and its leading zero bits (lax.clz); x * x for
// numbers (lax.square); 1 / sqrt(x) (lax.rsqrt) and 1 / (1 + exp(-x)) (lax.logistic, the
// sigmoid) for floats and complex numbers.
Array population_count(const Array &x);
Array clz(const Array &x);
Array square(const Array &x);
Array rsqrt(const Array &x);
Array logistic(const Array &x);

// x + y·i from two float32 or two float64 arrays of one shape (lax.complex: no promotion).
Array complex(const Array &x, const Array &y);

// lax.dynamic_slice(operand, start_indices, slice_sizes): operand[s0 : s0 + size0, ...] at starts
// known at run time (0-d integers of one type; a C++ integer takes the others'). A negative start
// counts from the end (unless allow_negative_indices is false), then every start is clamped into
// [0, dim - size] so that the slice fits, as JAX's (XLA's) semantics.
Array dynamic_slice(const Array &operand, const std::vector<Array> &start_indices,
                    const Shape &slice_sizes, bool allow_negative_indices = true);
// lax.dynamic_update_slice: operand with update written at the starts (clamped as above).
Array dynamic_update_slice(const Array &operand, const Array &update,
                           const std::vector<Array> &start_indices,
                           bool allow_negative_indices = true);
// The one-axis forms: a slice of slice_size (or one index) along axis, whole along the others.
Array dynamic_slice_in_dim(const Array &operand, const Array &start_index, int64_t slice_size,
                           int64_t axis = 0, bool allow_negative_indices = true);
Array dynamic_index_in_dim(const Array &operand, const Array &index, int64_t axis = 0,
                           bool keepdims = true, bool allow_negative_indices = true);
Array dynamic_update_slice_in_dim(const Array &operand, const Array &update,
                                  const Array &start_index, int64_t axis,
                                  bool allow_negative_indices = true);
// The update may lack the axis (one rank less).
Array dynamic_update_index_in_dim(const Array &operand, const Array &update, const Array &index,
                                  int64_t axis, bool allow_negative_indices = true);

} // namespace jx::lax
