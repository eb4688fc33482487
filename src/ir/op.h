// Op enum and per-op facts, all generated from ops.def.
#pragma once

#include <cstdint>
#include <string_view>

namespace jx::ir {

enum class Op : uint8_t {
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative) name,
#include "ir/ops.def"
#undef JX_OP
};

inline constexpr int op_count = 0
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative) +1
#include "ir/ops.def"
#undef JX_OP
    ;

enum class OpKind : uint8_t {
  Leaf,
  Unary,
  Binary,
  Ternary,
  Movement,
  Reduce,
  Contraction,
  Marker,
  Control,
  Library
};
enum class DTypeRule : uint8_t { Same, Bool, Int64, Attr, Second };
enum class Cost : uint8_t { Free, Cheap, Costly, Loop };

struct OpInfo {
  std::string_view name;
  int arity; // -1: variadic
  OpKind kind;
  DTypeRule dtype_rule;
  Cost cost;
  int ulps; // a kernel's float result within ulps * eps * |result| of the evaluator's
  std::string_view math_fn; // libm's name of a math op's float meaning; empty for other ops
};

inline constexpr OpInfo op_table[] = {
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  {str, arity, OpKind::kind, DTypeRule::rule, Cost::cost, ulps, {}},
#define JX_UNARY_MATH(name, str, fn, ulps, derivative)                                             \
  {str, 1, OpKind::Unary, DTypeRule::Same, Cost::Costly, ulps, #fn},
#define JX_BINARY_MATH(name, str, fn, ulps, derivative)                                            \
  {str, 2, OpKind::Binary, DTypeRule::Same, Cost::Costly, ulps, #fn},
#include "ir/ops.def"
#undef JX_OP
#undef JX_UNARY_MATH
#undef JX_BINARY_MATH
};
static_assert(sizeof(op_table) / sizeof(op_table[0]) == op_count);

constexpr const OpInfo &op_info(Op op) { return op_table[static_cast<int>(op)]; }
constexpr std::string_view op_name(Op op) { return op_info(op).name; }
constexpr OpKind op_kind(Op op) { return op_info(op).kind; }
constexpr bool is_elementwise(Op op) {
  OpKind k = op_kind(op);
  return k == OpKind::Unary || k == OpKind::Binary || k == OpKind::Ternary;
}
// A math op (ops.def's JX_UNARY_MATH / JX_BINARY_MATH): its float meaning is libm's math_fn.
constexpr bool is_math_op(Op op) { return !op_info(op).math_fn.empty(); }
// Computed by a math library (libm in the evaluator, libmvec in kernels), so correct to a few
// ulp rather than exactly (exp, log, sin, pow, ...; not nextafter, which is exact).
constexpr bool is_libm_function(Op op) { return is_math_op(op) && op_info(op).ulps > 0; }

} // namespace jx::ir
