// The elementwise ops defined on integers and bools only (the bitwise ones and the bit counts):
// the tests that run every op of the table on floats leave these out.
#pragma once

#include "ir/op.h"

namespace test_util {

inline bool integer_only(jx::ir::Op op) {
  using jx::ir::Op;
  return op == Op::Not || op == Op::And || op == Op::Or || op == Op::Xor || op == Op::ShiftLeft ||
         op == Op::ShiftRight || op == Op::PopulationCount || op == Op::Clz;
}

} // namespace test_util
