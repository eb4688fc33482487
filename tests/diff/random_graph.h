// Seeded random jnp expression graphs for differential tests of the compiler against the
// interpreter, and random functions of some of their float leaves for tests of transforms: the
// same seed always yields the same graph and the same description.
#pragma once

#include <jx/array.h>
#include <jx/jit.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace jx::diff {

// Families of jnp functions the generator may call, so that a backend can be tested on the op
// families it supports so far. Leaves with literal data are always available. Alone, Elementwise
// yields only leaf and elementwise graph nodes; otherwise a function's lowering may bring nodes of
// other kinds (all() pads, mean() divides by a broadcast count, arange broadcasts literals).
enum Family : uint32_t {
  kElementwise = 1u << 0,  // unary and binary math, comparisons, logic, bit ops, where, astype
  kBroadcasting = 1u << 1, // operands of different shapes, C++ scalars, broadcast_to
  kMovement = 1u << 2,     // reshape, transpose, indexing, flip, roll, pad, concatenate, stack,
                           // diff, .at[]
  kReduction = 1u << 3,    // sum, prod, max, min, mean, argmax, argmin, all, any
  kContraction = 1u << 4,  // einsum, matmul, dot, tensordot, vdot, outer
  kGenerated = 1u << 5,    // leaves computed from parameters: arange, linspace, eye, full, random
  kSorting = 1u << 6,      // the library ops: cumsum, cumprod, lax.cummax/cummin, sort, argsort
  kGather = 1u << 7,       // integer-array indexing, take, .at[idx] scatters
  kLinalg = 1u << 8,       // jnp.linalg's LAPACK routines on the last two axes
  kAllFamilies = (1u << 9) - 1,
};

struct GraphOptions {
  uint32_t families = kAllFamilies;
  // Number of jnp calls (besides leaves), drawn uniformly; most of them lie on the root's path.
  int min_ops = 3, max_ops = 12;
  // Elements per generated value; leaves have rank 0..4 and dims 0..7.
  int64_t max_size = 2000;
  // Where set, every float the generator picks (leaves, casts, strongly typed scalars) has this
  // dtype: float64 alone keeps finite differences of a random function accurate.
  std::optional<jx::DType> float_dtype = std::nullopt;
  // No calls that JAX does not differentiate (nextafter), so that transforms of a random function
  // apply wherever its arguments reach.
  bool differentiable = false;
  // Literal data of moderate size: no infinities, NaNs, huge or tiny floats, or integers beyond
  // +-8, so that finite differences are not lost to rounding against huge values.
  bool moderate_values = false;
  // Now and then int8, int16 and the unsigned integers where an integer may be, and C++ int
  // scalars nonnegative (as unsigned arrays need). Off by default: the graphs of a seed stay what
  // they were before these dtypes.
  bool small_integers = false;
};

struct GeneratedGraph {
  jx::Array root;
  // The program that built root, one jnp-like assignment per line, each with its result type.
  std::string description;
};

// Every call is chosen to be valid for its operands' shapes and dtypes, so a call that raises is a
// jx bug: the exception names the call and shows the program so far. Float values downstream of
// rounding-order or libm-dependent ops (sums, contractions, transcendental functions) never feed
// discontinuous ops (comparisons, floor, casts to int, argmax, ...), where a legitimate last-bit
// difference could flip a result.
GeneratedGraph random_graph(uint64_t seed, const GraphOptions &options = {});

// A random program as a function of some of its float leaves of literal data.
struct GeneratedFunction {
  std::vector<jx::ShapeDtypeStruct> arg_specs;
  // The leaves' own values: f(example_args) is random_graph(graph_seed, options).root.
  std::vector<jx::Array> example_args;
  // Builds the same program over any arrays of arg_specs (eager, or a jit's or transform's
  // tracers); other shapes or dtypes are a std::invalid_argument.
  std::function<jx::Array(const std::vector<jx::Array> &)> f;
  // The program as a Python function `def f(x0, x1, ...):`, lines numbered as in random_graph's.
  std::string description;
  uint64_t graph_seed = 0;
};

// The program of random_graph(seed, options) with each float leaf of literal data that the root
// depends on taken from the arguments with probability 1/2, at least one. Its values are drawn all
// the same, so the program does not change. A program whose root is not a float depending on such
// a leaf is redrawn from a seed derived from seed (graph_seed).
GeneratedFunction random_function(uint64_t seed, const GraphOptions &options = {});

} // namespace jx::diff
