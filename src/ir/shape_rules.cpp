// Shape inference and the verifier of every op (infer_shape, verify), called by the builder's
// finish() on each node it makes, and what they share with the constructors: slice lengths,
// gathers' shapes, dot_general's dims, the runtime routine of a library op.
#include "ir/builder.h"
#include "ir/op_cases.h"

#include <jx/error.h>

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace jx::ir {

namespace {

[[noreturn]] void internal(const std::string &what) { throw Error("internal: " + what); }

int64_t rank(const NodePtr &n) { return static_cast<int64_t>(n->shape.size()); }

} // namespace

void check_node(bool ok, Op op, const char *what) {
  if (!ok) internal(fmt::format("{}: {}", op_name(op), what));
}

int64_t slice_length(int64_t start, int64_t limit, int64_t step) {
  // In unsigned arithmetic: exact for every int64 start, limit and step (INT64_MIN included).
  if (step > 0 ? limit <= start : start <= limit) return 0;
  const uint64_t span =
      step > 0 ? uint64_t(limit) - uint64_t(start) : uint64_t(start) - uint64_t(limit);
  const uint64_t stride = step > 0 ? uint64_t(step) : uint64_t(0) - uint64_t(step);
  return int64_t(std::min<uint64_t>((span - 1) / stride + 1, uint64_t(INT64_MAX)));
}

namespace {
// a + b for two dimension sizes; NumPy's error when the sum is past any possible size.
int64_t add_dims(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum))
    throw ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger than the "
                     "maximum possible size.");
  return sum;
}
} // namespace

Shape taken_shape(const Shape &x, const Shape &indices, int64_t axis) {
  Shape out(x.begin(), x.begin() + axis);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), x.begin() + axis + 1, x.end());
  return out;
}

bool is_linalg(Op op) {
  return op == Op::Cholesky || op == Op::Solve || op == Op::Determinant || op == Op::Eigh ||
         op == Op::Svd || op == Op::Qr || op == Op::Eig;
}

runtime::LibraryOp library_op(Op op) {
  using runtime::LibraryOp;
  switch (op) {
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_CASE_IF_OTHER_KIND(name, kind, Library)
#include "ir/ops.def"
#undef JX_OP
    break;
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_IF_KIND(kind, Library, case Op::name : return LibraryOp::name;)
#include "ir/ops.def"
#undef JX_OP
  }
  internal(fmt::format("{} is not a library op", op_name(op)));
}

namespace {
// Matrices of rank >= 2, square where the op needs it, a mode the op has; solve's a (..., n, n)
// beside its b (..., n, k).
Shape linalg_shape(const NodeSpec &s) {
  const Op op = s.op;
  const Shape &x = s.inputs.at(0)->shape;
  const size_t r = x.size();
  check_node(r >= 2 && s.attrs.size() == 1, op, "matrices of rank >= 2 and a mode");
  const runtime::Library lib{.op = library_op(op), .mode = s.attrs[0]};
  check_node(s.attrs[0] >= 0 && s.attrs[0] < runtime::linalg_mode_count(lib.op), op, "mode");
  check_node(op == Op::Svd || op == Op::Qr || x[r - 2] == x[r - 1], op, "square matrices");
  if (op != Op::Solve) return runtime::linalg_output_shape(lib, x);
  const Shape &b = s.inputs.at(1)->shape;
  check_node(b.size() == r && std::equal(x.begin(), x.end() - 1, b.begin()), op, "b's shape");
  return b;
}
} // namespace

bool is_scatter(Op op) {
  return op == Op::ScatterSet || op == Op::ScatterAdd || op == Op::ScatterMul ||
         op == Op::ScatterMin || op == Op::ScatterMax;
}

const Node *splat_literal(const Node &n) {
  const Node *x = &n;
  while (x->op == Op::Broadcast || x->op == Op::Reshape || x->op == Op::Transpose)
    x = x->inputs[0].get();
  return x->op == Op::Literal ? x : nullptr;
}

DotDims dot_dims(const NodeSpec &s) {
  int64_t nb = s.attrs.at(0), nc = s.attrs.at(1);
  auto it = s.attrs.begin() + 2;
  DotDims d;
  d.lhs_batch.assign(it, it + nb);
  d.rhs_batch.assign(it + nb, it + 2 * nb);
  d.lhs_contract.assign(it + 2 * nb, it + 2 * nb + nc);
  d.rhs_contract.assign(it + 2 * nb + nc, it + 2 * nb + 2 * nc);
  return d;
}

std::vector<int64_t> other_axes(int64_t rank, const std::vector<int64_t> &axes,
                                const std::vector<int64_t> &more) {
  std::vector<int64_t> out;
  for (int64_t a = 0; a < rank; ++a)
    if (std::find(axes.begin(), axes.end(), a) == axes.end() &&
        std::find(more.begin(), more.end(), a) == more.end())
      out.push_back(a);
  return out;
}

Shape infer_shape(const NodeSpec &s) {
  const Op op = s.op;
  auto in = [&](size_t i) -> const Shape & {
    check_node(i < s.inputs.size(), op, "missing input");
    return s.inputs[i]->shape;
  };
  switch (op_kind(op)) {
  case OpKind::Leaf: return s.shape;
  case OpKind::Marker: return in(0);
  case OpKind::Control: return s.shape;
  case OpKind::Library:
    if (is_linalg(op)) return linalg_shape(s);
    check_node(!s.attrs.empty() && s.attrs[0] >= 0 && s.attrs[0] < int64_t(in(0).size()), op,
               "axis");
    if (is_scatter(op)) {
      check_node(s.inputs[1]->dtype == DType::int64, op, "indices must be int64");
      check_node(in(2) == taken_shape(in(0), in(1), s.attrs[0]), op, "updates' shape");
      return in(0);
    }
    for (const NodePtr &x : s.inputs)
      check_node(x->shape == in(0), op, "operand shapes differ");
    return in(0);
  case OpKind::Unary:
  case OpKind::Binary:
  case OpKind::Ternary:
    for (const NodePtr &x : s.inputs)
      check_node(x->shape == in(0), op, "operand shapes differ");
    return in(0);
  case OpKind::Contraction: {
    DotDims d = dot_dims(s);
    const Shape &l = in(0), &r = in(1);
    Shape out;
    auto valid = [](const std::vector<int64_t> &axes, const Shape &sh) {
      return std::all_of(axes.begin(), axes.end(),
                         [&](int64_t a) { return a >= 0 && a < int64_t(sh.size()); });
    };
    check_node(valid(d.lhs_batch, l) && valid(d.lhs_contract, l) && valid(d.rhs_batch, r) &&
                   valid(d.rhs_contract, r),
               op, "dimension out of range");
    for (size_t i = 0; i < d.lhs_batch.size(); ++i) {
      check_node(l[d.lhs_batch[i]] == r[d.rhs_batch[i]], op, "batch sizes differ");
      out.push_back(l[d.lhs_batch[i]]);
    }
    for (size_t i = 0; i < d.lhs_contract.size(); ++i)
      check_node(l[d.lhs_contract[i]] == r[d.rhs_contract[i]], op, "contracting sizes differ");
    auto free_dims = [&](const Shape &sh, const std::vector<int64_t> &b,
                         const std::vector<int64_t> &c) {
      for (int64_t a : other_axes(int64_t(sh.size()), b, c))
        out.push_back(sh[a]);
    };
    free_dims(l, d.lhs_batch, d.lhs_contract);
    free_dims(r, d.rhs_batch, d.rhs_contract);
    return out;
  }
  case OpKind::Reduce: {
    const Shape &x = in(0);
    Shape out;
    for (int64_t a = 0; a < int64_t(x.size()); ++a)
      if (std::find(s.attrs.begin(), s.attrs.end(), a) == s.attrs.end()) out.push_back(x[a]);
    check_node(out.size() + s.attrs.size() == x.size(), op, "bad reduction axes");
    return out;
  }
  case OpKind::Movement: break;
  }
  const Shape &x = in(0);
  const int64_t r = static_cast<int64_t>(x.size());
  switch (op) {
  case Op::DynamicSlice:
  case Op::DynamicUpdateSlice: {
    const size_t first = op == Op::DynamicSlice ? 1 : 2;
    check_node(s.inputs.size() == first + size_t(r), op, "one start per axis");
    for (size_t i = first; i < s.inputs.size(); ++i)
      check_node(s.inputs[i]->dtype == DType::int64 && in(i).empty(), op,
                 "starts must be 0-d int64");
    const Shape sizes = op == Op::DynamicSlice ? Shape(s.attrs) : in(1);
    check_node(int64_t(sizes.size()) == r && (op == Op::DynamicSlice || s.attrs.empty()), op,
               "one size per axis");
    for (int64_t i = 0; i < r; ++i)
      check_node(sizes[i] >= 0 && sizes[i] <= x[i], op, "slice larger than the operand");
    return op == Op::DynamicSlice ? sizes : x;
  }
  case Op::Take:
    check_node(s.attrs.size() == 2 && s.attrs[0] >= 0 && s.attrs[0] < r, op, "axis");
    check_node(s.inputs[1]->dtype == DType::int64, op, "indices must be int64");
    return taken_shape(x, in(1), s.attrs[0]);
  case Op::Broadcast: {
    check_node(int64_t(s.attrs.size()) == r, op, "one output dim per operand dim");
    for (int64_t i = 0; i < r; ++i) {
      int64_t d = s.attrs[i];
      check_node(d >= 0 && d < int64_t(s.shape.size()) && (i == 0 || d > s.attrs[i - 1]), op,
                 "dims must increase within the output rank");
      check_node(x[i] == 1 || x[i] == s.shape[d], op, "operand dim must be 1 or the output size");
    }
    return s.shape;
  }
  case Op::Reshape:
    check_node(shape_size(s.shape) == shape_size(x), op, "size changes");
    return s.shape;
  case Op::Transpose: {
    check_node(int64_t(s.attrs.size()) == r, op, "permutation rank");
    Shape out(r);
    std::vector<bool> seen(r);
    for (int64_t i = 0; i < r; ++i) {
      int64_t p = s.attrs[i];
      check_node(p >= 0 && p < r && !seen[p], op, "not a permutation");
      seen[p] = true;
      out[i] = x[p];
    }
    return out;
  }
  case Op::Slice:
  case Op::SliceUpdate: {
    check_node(int64_t(s.attrs.size()) == 3 * r, op, "starts, limits and steps per axis");
    Shape out(r);
    for (int64_t i = 0; i < r; ++i) {
      int64_t start = s.attrs[i], limit = s.attrs[r + i], step = s.attrs[2 * r + i];
      check_node(step != 0, op, "zero step");
      out[i] = slice_length(start, limit, step);
      check_node(out[i] == 0 || (start >= 0 && start < x[i] && start + (out[i] - 1) * step >= 0 &&
                                 start + (out[i] - 1) * step < x[i]),
                 op, "slice out of bounds");
    }
    if (op == Op::SliceUpdate) {
      check_node(in(1) == out, op, "update shape must match the slice");
      return x;
    }
    return out;
  }
  case Op::Pad: {
    check_node(int64_t(s.attrs.size()) == 2 * r && in(1).empty(), op, "lo, hi per axis; 0-d value");
    Shape out(r);
    for (int64_t i = 0; i < r; ++i) {
      check_node(s.attrs[i] >= 0 && s.attrs[r + i] >= 0, op, "negative padding");
      out[i] = add_dims(add_dims(x[i], s.attrs[i]), s.attrs[r + i]);
    }
    return out;
  }
  case Op::Concatenate: {
    check_node(s.attrs.size() == 1 && s.attrs[0] >= 0 && s.attrs[0] < r, op, "axis");
    int64_t axis = s.attrs[0];
    Shape out = x;
    out[axis] = 0;
    for (const NodePtr &n : s.inputs) {
      check_node(rank(n) == r, op, "ranks differ");
      for (int64_t i = 0; i < r; ++i)
        check_node(i == axis || n->shape[i] == x[i], op, "non-axis sizes differ");
      out[axis] = add_dims(out[axis], n->shape[axis]);
    }
    return out;
  }
  case Op::Diagonal: {
    check_node(s.attrs.size() == 2, op, "two axes");
    int64_t a1 = s.attrs[0], a2 = s.attrs[1];
    check_node(a1 >= 0 && a2 >= 0 && a1 < r && a2 < r && a1 != a2 && x[a1] == x[a2], op, "axes");
    Shape out;
    for (int64_t i = 0; i < r; ++i)
      if (i != a1 && i != a2) out.push_back(x[i]);
    out.push_back(x[a1]);
    return out;
  }
#define JX_OP(name, str, arity, kind, rule, cost, ulps, derivative)                                \
  JX_CASE_IF_OTHER_KIND(name, kind, Movement)
#include "ir/ops.def"
#undef JX_OP
  break;
  }
  internal(fmt::format("{} is not a movement op", op_name(op)));
}

void verify(const NodeSpec &s) {
  const OpInfo &info = op_info(s.op);
  check_node(info.arity < 0 ? !s.inputs.empty() : int(s.inputs.size()) == info.arity, s.op,
             "arity");
  for (const NodePtr &x : s.inputs)
    check_node(x != nullptr, s.op, "null input");
  check_node(infer_shape(s) == s.shape, s.op, "shape disagrees with its inputs");
  auto in_dtype = [&](size_t i) { return s.inputs[i]->dtype; };
  switch (info.dtype_rule) {
  case DTypeRule::Same:
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      if (s.op == Op::Select && i == 0) continue;
      if ((s.op == Op::Take || is_scatter(s.op)) && i == 1) continue; // int64 indices
      if ((s.op == Op::DynamicSlice && i >= 1) || (s.op == Op::DynamicUpdateSlice && i >= 2))
        continue; // int64 starts
      check_node(in_dtype(i) == s.dtype, s.op, "operand dtype differs from result");
    }
    break;
  case DTypeRule::Bool:
    check_node(s.dtype == DType::bool_, s.op, "predicate must be bool");
    for (size_t i = 1; i < s.inputs.size(); ++i)
      check_node(in_dtype(i) == in_dtype(0), s.op, "operand dtypes differ");
    break;
  case DTypeRule::Int64: check_node(s.dtype == DType::int64, s.op, "index must be int64"); break;
  case DTypeRule::Second:
    check_node(in_dtype(0) == DType::bool_ && in_dtype(1) == s.dtype && in_dtype(2) == s.dtype,
               s.op, "select(bool, T, T) -> T");
    break;
  case DTypeRule::Attr: break;
  }
  if (s.op == Op::Real || s.op == Op::Imag)
    check_node(is_complex(in_dtype(0)) && s.dtype == real_dtype(in_dtype(0)), s.op,
               "complex -> its parts' dtype");
  if (s.op == Op::Complex)
    check_node((in_dtype(0) == DType::float32 || in_dtype(0) == DType::float64) &&
                   in_dtype(1) == in_dtype(0) && s.dtype == complex_dtype(in_dtype(0)),
               s.op, "float32 or float64 parts of one dtype");
  if (s.op == Op::Constant)
    check_node(s.data && s.data->bytes() >= size_t(s.data->window() ? s.data->window()->elements()
                                                                    : shape_size(s.shape)) *
                                                itemsize(s.dtype),
               s.op, "buffer too small");
  if (s.op == Op::Literal) check_node(s.shape.empty(), s.op, "literals are 0-d");
}

} // namespace jx::ir
