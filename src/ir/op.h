// Op enum and per-op facts, all generated from ops.def.
#pragma once

#include <cstdint>
#include <string_view>

namespace jx::ir {

enum class Op : uint8_t {
#define JX_OP(name, str, arity, kind, rule) name,
#include "ir/ops.def"
#undef JX_OP
};

inline constexpr int op_count = 0
#define JX_OP(name, str, arity, kind, rule) +1
#include "ir/ops.def"
#undef JX_OP
    ;

enum class OpKind : uint8_t { Leaf, Unary, Binary, Ternary, Movement, Reduce, Contraction };
enum class DTypeRule : uint8_t { Same, Bool, Int64, Attr, Second };

struct OpInfo {
  std::string_view name;
  int arity; // -1: variadic
  OpKind kind;
  DTypeRule dtype_rule;
};

inline constexpr OpInfo op_table[] = {
#define JX_OP(name, str, arity, kind, rule) {str, arity, OpKind::kind, DTypeRule::rule},
#include "ir/ops.def"
#undef JX_OP
};
static_assert(sizeof(op_table) / sizeof(op_table[0]) == op_count);

constexpr const OpInfo &op_info(Op op) { return op_table[static_cast<int>(op)]; }
constexpr std::string_view op_name(Op op) { return op_info(op).name; }
constexpr OpKind op_kind(Op op) { return op_info(op).kind; }
constexpr bool is_elementwise(Op op) {
  OpKind k = op_kind(op);
  return k == OpKind::Unary || k == OpKind::Binary || k == OpKind::Ternary;
}
// Computed by a math library (libm in the evaluator, libmvec in kernels), so correct to a few
// ulp rather than exactly: exp, expm1, log, log1p, sin, cos, tan, tanh, pow.
constexpr bool is_libm_function(Op op) {
  return op == Op::Exp || op == Op::Expm1 || op == Op::Log || op == Op::Log1p || op == Op::Sin ||
         op == Op::Cos || op == Op::Tan || op == Op::Tanh || op == Op::Pow;
}

} // namespace jx::ir
