// The GEMM cost model and operand strides of dot_general (see contraction.h).
#include "passes/contraction.h"

#include <jx/shape.h>

#include <algorithm>
#include <fmt/format.h>

#include "ir/builder.h"

namespace jx::passes {
namespace {

using ir::Node;
using ir::Op;

// Products below this many flops stay fused loops: a library call and its packing cost more.
constexpr double min_gemm_flops = 1 << 15;

// An operand as memory: the node holding the data and the element stride of each operand axis.
struct View {
  const Node *base;
  std::vector<int64_t> strides;
};

// What a transpose or broadcast of x reads, as strides over the node it reads from (broadcast
// axes get stride 0). Leaves computed inline (literals, iotas) are not worth a buffer: the walk
// stops above them.
View peel(const Node &x) {
  const bool inline_leaf = [&] {
    const Node *n = &x;
    while (!n->realized() && (n->op == Op::Transpose || n->op == Op::Broadcast))
      n = n->inputs[0].get();
    return !n->realized() && (n->op == Op::Literal || n->op == Op::Iota);
  }();
  if (x.realized() || inline_leaf || (x.op != Op::Transpose && x.op != Op::Broadcast))
    return {&x, row_major_strides(x.shape)};
  const Node &in = *x.inputs[0];
  View v = peel(in);
  std::vector<int64_t> strides(x.shape.size(), 0);
  for (size_t i = 0; i < in.shape.size(); ++i) {
    if (x.op == Op::Transpose)
      strides[i] = v.strides[size_t(x.attrs[i])];
    else if (in.shape[i] == x.shape[size_t(x.attrs[i])])
      strides[size_t(x.attrs[i])] = v.strides[i];
  }
  return {v.base, strides};
}

// Axes of an operand as one (extent, stride): consecutive axes must nest (the outer stride is the
// inner one times the inner extent); unit axes do not count.
struct Group {
  int64_t extent = 1, stride = 0;
  bool ok = true;
};
Group group(const Shape &shape, const std::vector<int64_t> &strides,
            const std::vector<int64_t> &axes) {
  Group g;
  bool first = true;
  for (int64_t a : axes) {
    const int64_t e = shape[size_t(a)];
    g.extent *= e;
    if (e == 1) continue;
    if (!first && g.stride != strides[size_t(a)] * e) g.ok = false;
    g.stride = strides[size_t(a)];
    first = false;
  }
  return g;
}

} // namespace

std::optional<GemmPlan> plan_gemm(const Node &dot, std::string *why) {
  auto reject = [&](std::string reason) -> std::optional<GemmPlan> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  if (dot.op != Op::DotGeneral) return reject("not a dot_general");
  if (!is_floating(dot.dtype)) return reject("integer or bool: a plain loop");
  const Node &l = *dot.inputs[0], &r = *dot.inputs[1];
  const ir::DotDims d = ir::dot_dims(dot);
  const std::vector<int64_t> lhs_free = ir::other_axes(l.ndim(), d.lhs_batch, d.lhs_contract),
                             rhs_free = ir::other_axes(r.ndim(), d.rhs_batch, d.rhs_contract);
  auto extent = [](const Node &x, const std::vector<int64_t> &axes) {
    int64_t e = 1;
    for (int64_t a : axes)
      e *= x.shape[size_t(a)];
    return e;
  };
  runtime::Gemm g{.batch = extent(l, d.lhs_batch),
                  .m = extent(l, lhs_free),
                  .n = extent(r, rhs_free),
                  .k = extent(l, d.lhs_contract)};
  // Per product: a batch of small matrices is one BLAS call each (~90 ns), which the fused loop
  // beats below about 24³.
  const double flops = 2.0 * double(g.m) * double(g.n) * double(g.k);
  if (g.m == 1 && g.n == 1) return reject("loop: one dot product per output element");
  if (g.k < 2) return reject("loop: an outer product (k < 2)");
  if (flops < min_gemm_flops)
    return reject(fmt::format("loop: {} flops per product, below the GEMM threshold", flops));
  // The operand as its transposes and broadcasts read it, else as a buffer of its own.
  auto layout = [&](const Node &x, const std::vector<int64_t> &batch,
                    const std::vector<int64_t> &rows, const std::vector<int64_t> &cols,
                    int64_t *strides, bool vector_side, bool contract_rows) -> const Node * {
    for (const View &v : {peel(x), View{&x, row_major_strides(x.shape)}}) {
      const Group b = group(x.shape, v.strides, batch), i = group(x.shape, v.strides, rows),
                  j = group(x.shape, v.strides, cols);
      // A gemv's vector operand needs a nonzero increment.
      const bool vector_ok = !vector_side || g.k <= 1 || (contract_rows ? i : j).stride != 0;
      if (b.ok && i.ok && j.ok && vector_ok &&
          runtime::blas_layout(i.extent, j.extent, i.stride, j.stride)) {
        strides[0] = b.stride;
        strides[1] = i.stride;
        strides[2] = j.stride;
        return v.base;
      }
    }
    return nullptr;
  };
  GemmPlan plan{.gemm = g};
  plan.lhs = layout(l, d.lhs_batch, lhs_free, d.lhs_contract, plan.gemm.lhs, g.m == 1, false);
  plan.rhs = layout(r, d.rhs_batch, d.rhs_contract, rhs_free, plan.gemm.rhs, g.n == 1, true);
  if (!plan.lhs || !plan.rhs) return reject("loop: operand axes that BLAS cannot stride through");
  if (g.n > 0x7fffffff || g.m > 0x7fffffff || g.k > 0x7fffffff)
    return reject("loop: extents beyond BLAS's 32-bit sizes");
  return plan;
}

} // namespace jx::passes
