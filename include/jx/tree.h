// JAX's pytrees in C++: the containers whose leaves jit, the transformations and the loops trace
// (an Array, and std::vector, std::array, std::tuple, std::pair and std::map<std::string, ...>
// of trees, and aggregates registered with JX_PYTREE), and jax.tree_util's functions over them.
#pragma once

#include <jx/array.h>

#include <array>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
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

namespace detail {

// ValueErrors of the tree functions, as JAX words them.
[[noreturn]] void throw_structure_mismatch(const char *what, const std::string &expected,
                                           const std::string &got);
[[noreturn]] void throw_leaf_count(const std::string &structure, size_t expected, size_t got);

template <class A> constexpr bool is_array_v = std::is_same_v<std::decay_t<A>, Array>;
template <class A> constexpr bool is_spec_v = std::is_same_v<std::decay_t<A>, ShapeDtypeStruct>;

// JAX's pytrees, for jit's arguments and for outputs: an Array (for lower(), or its
// ShapeDtypeStruct), and std::vector, std::array, std::tuple, std::pair and
// std::map<std::string, ...> of them, nested. A tree's leaves are traced in order (a map's by key,
// as JAX sorts a dict's); its structure (lengths, keys) is part of the signature. Any other
// argument is static. flatten appends the leaves' specs (where `specs` is given) and arrays
// (where `arrays` is given); rebuild gives the tree's structure with the next params as leaves.
template <class T> struct ArgTree {
  static constexpr bool is_tree = false;
  using Arg = T; // a static argument: passed as it is
};
template <class Leaf> struct ArgLeaf {
  static constexpr bool is_tree = true;
  using Arg = Array;
  static void flatten(const Leaf &a, std::vector<ShapeDtypeStruct> *specs,
                      std::vector<Array> *arrays) {
    if constexpr (std::is_same_v<Leaf, ShapeDtypeStruct>) {
      if (specs) specs->push_back(a);
    } else {
      // A placed argument's sharding is part of the signature, as in JAX.
      if (specs)
        specs->push_back({a.shape(), a.dtype(),
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
// std::vector and std::array: their elements' trees in order.
template <class List, class T> struct ArgList {
  static constexpr bool is_tree = ArgTree<T>::is_tree;
  static void flatten(const List &v, std::vector<ShapeDtypeStruct> *specs,
                      std::vector<Array> *arrays) {
    for (const T &x : v)
      ArgTree<T>::flatten(x, specs, arrays);
  }
  static std::string structure(const List &v) {
    std::string s = "[";
    for (const T &x : v)
      s += (s.size() > 1 ? ", " : "") + ArgTree<T>::structure(x);
    return s + "]";
  }
};
template <class T> struct ArgTree<std::vector<T>> : ArgList<std::vector<T>, T> {
  using Arg = std::vector<typename ArgTree<T>::Arg>;
  static Arg rebuild(const std::vector<T> &v, const std::vector<Array> &params, size_t &next) {
    Arg out;
    for (const T &x : v)
      out.push_back(ArgTree<T>::rebuild(x, params, next));
    return out;
  }
};
template <class T, size_t N> struct ArgTree<std::array<T, N>> : ArgList<std::array<T, N>, T> {
  using Arg = std::array<typename ArgTree<T>::Arg, N>;
  static Arg rebuild(const std::array<T, N> &v, const std::vector<Array> &params, size_t &next) {
    Arg out;
    for (size_t i = 0; i < N; ++i)
      out[i] = ArgTree<T>::rebuild(v[i], params, next);
    return out;
  }
};
// std::tuple and std::pair (TupleArg: the same of the elements' Args).
template <class Tuple, class TupleArg, class... T> struct ArgTuple {
  static constexpr bool is_tree = (ArgTree<T>::is_tree && ...);
  using Arg = TupleArg;
  static void flatten(const Tuple &t, std::vector<ShapeDtypeStruct> *specs,
                      std::vector<Array> *arrays) {
    std::apply([&](const auto &...x) { (ArgTree<T>::flatten(x, specs, arrays), ...); }, t);
  }
  static std::string structure(const Tuple &t) {
    std::string s = "(";
    std::apply(
        [&](const auto &...x) {
          ((s += (s.size() > 1 ? ", " : "") + ArgTree<T>::structure(x)), ...);
        },
        t);
    return s + ")";
  }
  static Arg rebuild(const Tuple &t, const std::vector<Array> &params, size_t &next) {
    // Braced init keeps the left-to-right order.
    return std::apply(
        [&](const auto &...x) { return Arg{ArgTree<T>::rebuild(x, params, next)...}; }, t);
  }
};
template <class... T>
struct ArgTree<std::tuple<T...>>
    : ArgTuple<std::tuple<T...>, std::tuple<typename ArgTree<T>::Arg...>, T...> {};
template <class A, class B>
struct ArgTree<std::pair<A, B>>
    : ArgTuple<std::pair<A, B>, std::pair<typename ArgTree<A>::Arg, typename ArgTree<B>::Arg>, A,
               B> {};
template <class T> struct ArgTree<std::map<std::string, T>> {
  static constexpr bool is_tree = ArgTree<T>::is_tree;
  using Arg = std::map<std::string, typename ArgTree<T>::Arg>;
  static void flatten(const std::map<std::string, T> &m, std::vector<ShapeDtypeStruct> *specs,
                      std::vector<Array> *arrays) {
    for (const auto &[key, x] : m)
      ArgTree<T>::flatten(x, specs, arrays);
  }
  static std::string structure(const std::map<std::string, T> &m) {
    std::string s = "{";
    for (const auto &[key, x] : m)
      s += fmt::format("{}{:?}: ", s.size() > 1 ? ", " : "", key) + ArgTree<T>::structure(x);
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

// Trees whose structure their type fixes: an Array, and std::tuple, std::pair and std::array of
// such trees.
template <class T> constexpr bool fixed_tree_v = std::is_same_v<T, Array>;
template <class... T> constexpr bool fixed_tree_v<std::tuple<T...>> = (fixed_tree_v<T> && ...);
template <class A, class B>
constexpr bool fixed_tree_v<std::pair<A, B>> = (fixed_tree_v<A> && fixed_tree_v<B>);
template <class T, size_t N> constexpr bool fixed_tree_v<std::array<T, N>> = fixed_tree_v<T>;

// A traced function's outputs: a tree of Arrays, flattened in order.
template <class T> struct Outputs {
  static_assert(ArgTree<T>::is_tree && std::is_same_v<typename ArgTree<T>::Arg, T>,
                "a traced function returns an Array, or std::vector, std::array, std::tuple, "
                "std::pair or std::map<std::string, ...> of Arrays, nested");
  static std::vector<Array> flatten(const T &out) {
    std::vector<Array> arrays;
    ArgTree<T>::flatten(out, nullptr, &arrays);
    return arrays;
  }
  // like's structure with the arrays as its leaves, in order.
  static T unflatten(const T &like, const std::vector<Array> &arrays) {
    size_t next = 0;
    return ArgTree<T>::rebuild(like, arrays, next);
  }
  // Where the type fixes the structure, or a std::vector<Array> (all of them).
  static T unflatten(const std::vector<Array> &arrays) {
    if constexpr (std::is_same_v<T, std::vector<Array>>) {
      return arrays;
    } else {
      static_assert(fixed_tree_v<T>, "this output's structure is known only from a trace");
      return unflatten(T{}, arrays);
    }
  }
  // JAX's treedef: out's structure, its leaves Arrays without a value (what unflatten needs of a
  // traced output, without keeping its graph alive).
  static T treedef(const T &out) { return unflatten(out, std::vector<Array>(flatten(out).size())); }
};

// An aggregate registered with JX_PYTREE: its fields, in the order named, are its children
// (Self::fields(x, v) calls v(name, x.field) for each).
template <class T, class Self> struct StructTree {
  static constexpr bool is_tree = true;
  using Arg = T;
  static void flatten(const T &x, std::vector<ShapeDtypeStruct> *specs,
                      std::vector<Array> *arrays) {
    Self::fields(x, [&](const char *, const auto &f) {
      ArgTree<std::decay_t<decltype(f)>>::flatten(f, specs, arrays);
    });
  }
  static std::string structure(const T &x) {
    std::string s;
    Self::fields(x, [&](const char *name, const auto &f) {
      s += fmt::format("{}{}={}", s.empty() ? "" : ", ", name,
                       ArgTree<std::decay_t<decltype(f)>>::structure(f));
    });
    return fmt::format("{}({})", Self::name, s);
  }
  static T rebuild(const T &like, const std::vector<Array> &params, size_t &next) {
    T out = like;
    Self::fields(out, [&](const char *, auto &f) {
      f = ArgTree<std::decay_t<decltype(f)>>::rebuild(f, params, next);
    });
    return out;
  }
};

// Calls macro(x) for each further argument (up to 64).
#define JX_PP_PARENS ()
#define JX_PP_EXPAND(...) JX_PP_EXPAND3(JX_PP_EXPAND3(JX_PP_EXPAND3(JX_PP_EXPAND3(__VA_ARGS__))))
#define JX_PP_EXPAND3(...) JX_PP_EXPAND2(JX_PP_EXPAND2(JX_PP_EXPAND2(JX_PP_EXPAND2(__VA_ARGS__))))
#define JX_PP_EXPAND2(...) JX_PP_EXPAND1(JX_PP_EXPAND1(JX_PP_EXPAND1(JX_PP_EXPAND1(__VA_ARGS__))))
#define JX_PP_EXPAND1(...) __VA_ARGS__
#define JX_PP_FOR_EACH(macro, ...) __VA_OPT__(JX_PP_EXPAND(JX_PP_FOR_EACH_STEP(macro, __VA_ARGS__)))
#define JX_PP_FOR_EACH_STEP(macro, a, ...)                                                         \
  macro(a) __VA_OPT__(JX_PP_FOR_EACH_AGAIN JX_PP_PARENS(macro, __VA_ARGS__))
#define JX_PP_FOR_EACH_AGAIN() JX_PP_FOR_EACH_STEP
#define JX_PYTREE_FIELD(f) visit(#f, x.f);

} // namespace detail

// JX_PYTREE(Params, w1, b1, w2, b2) at global scope, after the aggregate Params: its fields (trees:
// Arrays or containers of them) are its children, so a Params is a jit argument and output, a
// transformation's argument (grad gives a Params of gradients), a loop carry and a tree of the
// functions below, as a registered dataclass is in JAX.
#define JX_PYTREE(T, ...)                                                                          \
  template <> struct jx::detail::ArgTree<T> : jx::detail::StructTree<T, jx::detail::ArgTree<T>> {  \
    static constexpr const char *name = #T;                                                        \
    template <class X, class V> static void fields(X &x, V &&visit) {                              \
      JX_PP_FOR_EACH(JX_PYTREE_FIELD, __VA_ARGS__)                                                 \
    }                                                                                              \
  }

// jax.tree_util.PyTreeDef: a tree's structure (the tree with its leaves' values dropped).
template <class T> class TreeDef {
public:
  explicit TreeDef(const T &tree)
      : like_(detail::Outputs<T>::treedef(tree)),
        leaves_(detail::Outputs<T>::flatten(tree).size()) {}
  size_t num_leaves() const { return leaves_; }
  // "PyTreeDef(({'a': *, 'b': [*, *]}, *))", as JAX prints it.
  std::string str() const { return "PyTreeDef(" + detail::ArgTree<T>::structure(like_) + ")"; }
  const T &like() const { return like_; }
  friend bool operator==(const TreeDef &a, const TreeDef &b) { return a.str() == b.str(); }

private:
  T like_;
  size_t leaves_;
};

// jax.tree_util.tree_leaves: the tree's Arrays in order (a map's by key).
template <class T> std::vector<Array> tree_leaves(const T &tree) {
  return detail::Outputs<T>::flatten(tree);
}
// jax.tree_util.tree_structure.
template <class T> TreeDef<T> tree_structure(const T &tree) { return TreeDef<T>(tree); }
// jax.tree_util.tree_flatten: (leaves, structure).
template <class T> std::pair<std::vector<Array>, TreeDef<T>> tree_flatten(const T &tree) {
  return {tree_leaves(tree), tree_structure(tree)};
}
// jax.tree_util.tree_unflatten: ValueError unless there is one leaf per place of the structure.
template <class T> T tree_unflatten(const TreeDef<T> &treedef, const std::vector<Array> &leaves) {
  if (leaves.size() != treedef.num_leaves())
    detail::throw_leaf_count(treedef.str(), treedef.num_leaves(), leaves.size());
  return detail::Outputs<T>::unflatten(treedef.like(), leaves);
}

// jax.tree_util.tree_map(f, tree, *rest): f of the leaves at each place of tree and of the rest
// (trees of tree's structure; ValueError otherwise), as a tree of tree's structure.
template <class F, class T, class... R> T tree_map(F f, const T &tree, const R &...rest) {
  const std::string structure = detail::ArgTree<T>::structure(tree);
  (
      [&] {
        const std::string other = detail::ArgTree<R>::structure(rest);
        if (other != structure) detail::throw_structure_mismatch("tree_map", structure, other);
      }(),
      ...);
  const std::vector<Array> leaves = tree_leaves(tree);
  const auto others = std::make_tuple(tree_leaves(rest)...);
  std::vector<Array> mapped;
  for (size_t i = 0; i < leaves.size(); ++i)
    mapped.push_back(
        std::apply([&](const auto &...o) { return Array(f(leaves[i], o[i]...)); }, others));
  return detail::Outputs<T>::unflatten(tree, mapped);
}

} // namespace jx
