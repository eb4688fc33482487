// Case labels from ops.def, so that a switch over the ops of one kind can name every op and keep
// no `default:`: -Werror=switch then fails the build wherever a new op has no case yet, instead
// of test_op_table at run time. Such a switch reads
//
//   switch (op) {
//   #define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative) JX_CASE_IF_OTHER_KIND(name,
//   kind, Unary) #include "ir/ops.def" #undef JX_OP
//     break;                    // the ops of other kinds
//   case Op::Neg: ...           // one case per unary op, each deciding every dtype
//   }
//
// The op's kind is compared by token pasting: JX_KIND_IS_<a>_<b> exists only where a and b are
// the same kind, which JX_PROBE tells from its expansion.
#pragma once

#define JX_PROBE_SECOND(a, b, ...) b
#define JX_PROBE(...) JX_PROBE_SECOND(__VA_ARGS__, 0, ~)
#define JX_KIND_IS(a, b) JX_PROBE(JX_KIND_IS_##a##_##b)
#define JX_KIND_IS_Leaf_Leaf ~, 1
#define JX_KIND_IS_Unary_Unary ~, 1
#define JX_KIND_IS_Binary_Binary ~, 1
#define JX_KIND_IS_Ternary_Ternary ~, 1
#define JX_KIND_IS_Movement_Movement ~, 1
#define JX_KIND_IS_Reduce_Reduce ~, 1
#define JX_KIND_IS_Contraction_Contraction ~, 1
#define JX_KIND_IS_Marker_Marker ~, 1
#define JX_KIND_IS_Control_Control ~, 1
#define JX_KIND_IS_Library_Library ~, 1
// Comparisons: binary ops with a bool result (kind and dtype rule pasted together).
#define JX_KIND_IS_BinaryBool_BinaryBool ~, 1
#define JX_CASE_UNLESS_0(name) case ::jx::ir::Op::name:
#define JX_CASE_UNLESS_1(name)
#define JX_CASE_UNLESS_PASTE(same, name) JX_CASE_UNLESS_##same(name)
#define JX_CASE_UNLESS(same, name) JX_CASE_UNLESS_PASTE(same, name)

// `case Op::name:` where the op's kind is not `want`; nothing where it is.
#define JX_CASE_IF_OTHER_KIND(name, kind, want) JX_CASE_UNLESS(JX_KIND_IS(kind, want), name)

// The arguments where the op's kind is `want`; nothing where it is not.
#define JX_WHEN_0(...)
#define JX_WHEN_1(...) __VA_ARGS__
#define JX_WHEN_PASTE(same) JX_WHEN_##same
#define JX_WHEN(same) JX_WHEN_PASTE(same)
#define JX_IF_KIND(kind, want, ...) JX_WHEN(JX_KIND_IS(kind, want))(__VA_ARGS__)
