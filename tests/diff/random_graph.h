// Seeded random jnp expression graphs for differential tests of the compiler against the
// interpreter: the same seed always yields the same graph and the same description.
#pragma once

#include <jx/array.h>

#include <cstdint>
#include <string>

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
  kAllFamilies = (1u << 6) - 1,
};

struct GraphOptions {
  uint32_t families = kAllFamilies;
  // Number of jnp calls (besides leaves), drawn uniformly; most of them lie on the root's path.
  int min_ops = 3, max_ops = 12;
  // Elements per generated value; leaves have rank 0..4 and dims 0..7.
  int64_t max_size = 2000;
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

} // namespace jx::diff
