// Every graph pass, one per file in src/passes/. Each maps roots to equivalent roots (same
// shapes, dtypes and values up to the rounding its doc comment allows).
#pragma once

#include <unordered_set>
#include <vector>

#include "ir/node.h"

namespace jx::passes {

// Arrays computed from constants alone up to this many elements are folded into constants.
inline constexpr int64_t max_folded_elements = 4096;

// Elementwise ops whose inputs are all literals become literals (computed with the reference
// evaluator's scalar semantics), and broadcasts of literals stay broadcasts of the folded value.
std::vector<ir::NodePtr> fold_constants(const std::vector<ir::NodePtr> &roots);

// Algebraic simplification: x*1, x+0, x-0, x/1, integer powers to multiplications,
// power(x, 0.5) to sqrt, power(x, c) to exp(c*log x) with NumPy's special cases kept.
std::vector<ir::NodePtr> simplify(const std::vector<ir::NodePtr> &roots);

// stack/concatenate of expressions that differ only in scalar constants becomes one expression
// over a constant vector broadcast along the concatenation axis.
std::vector<ir::NodePtr> stack_to_broadcast(const std::vector<ir::NodePtr> &roots);

// The literal nodes (literals or broadcasts of literals) that stack_to_broadcast will replace by
// constant vectors: simplify must not rewrite them by value, or the stacked operands stop
// matching.
std::unordered_set<const ir::Node *> stack_varying_literals(const std::vector<ir::NodePtr> &roots);

// Unary elementwise ops move below broadcasts (and other size-preserving movement), so they run
// once per distinct input element instead of once per output element.
std::vector<ir::NodePtr> sink_movement(const std::vector<ir::NodePtr> &roots);

// In a sum of terms, the reductions over the same axes of same-shaped operands (each possibly
// negated or scaled by a factor of the kept axes) become one reduction, when nothing else reads
// the parts: g + f * sum(a, axes) - sum(b, axes) -> g + sum(a * f - b, axes).
std::vector<ir::NodePtr> merge_reductions(const std::vector<ir::NodePtr> &roots);

// A reduction of >= 64 Ki elements to fewer than 16 values becomes 16 partial reductions over
// slices of its outermost reduced axis (when 16 divides it), then their reduction: parallel rows
// instead of one thread. Sums round differently from the one-stage order (within the same bound).
std::vector<ir::NodePtr> split_reductions(const std::vector<ir::NodePtr> &roots);

// Concatenations of more than max_concat_operands operands become trees of concatenations of at
// most that many (fusion materializes the levels). A lowering for fusion: it runs once, after the
// passes that match concatenations whole (stack_to_broadcast).
constexpr size_t max_concat_operands = 64;
std::vector<ir::NodePtr> split_concatenates(const std::vector<ir::NodePtr> &roots);

} // namespace jx::passes
