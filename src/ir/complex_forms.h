// Complex arithmetic as real arithmetic: ir::finish hands every op that computes on a complex
// operand to complex_form, which builds it from real ops on the parts between real/imag and
// complex, so that past the builder only leaves, movement, select and those three ops carry
// complex values (docs/architecture.md, "Semantics in one place").
#pragma once

#include "ir/node.h"

#include <string_view>

namespace jx::ir {

// The builder's constructor of every node (ir/builder.cpp): shape inferred and checked, storage
// floats and complex operands rewritten. complex_form builds its real ops with it.
NodePtr finish(NodeSpec spec);

// spec's op, some operand complex, built from real ops on the parts; lax's TypeError ("floor
// does not accept dtype complex64 ...") for an op with no complex form.
NodePtr complex_form(const NodeSpec &spec);

// lax's TypeError for an operand dtype an op does not take; accepted names the kinds it does.
[[noreturn]] void refuse_dtype(Op op, DType dtype, std::string_view accepted);

} // namespace jx::ir
