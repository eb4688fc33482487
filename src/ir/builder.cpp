// Node constructors with shape/dtype inference, and the verifier that re-checks any node.
#include "ir/builder.h"
#include "ir/complex_forms.h"
#include "ir/convert.h"
#include "ir/op_cases.h"

#include <jx/error.h>

#include <algorithm>
#include <atomic>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace jx::ir {
namespace {

[[noreturn]] void internal(const std::string &what) { throw Error("internal: " + what); }

void check(bool ok, Op op, const char *what) {
  if (!ok) internal(fmt::format("{}: {}", op_name(op), what));
}

// Ops that compute on their operands' values: every op but conversions, leaves, data movement,
// selects, markers and control flow (which only move values).
bool computes(Op op) {
  switch (op_kind(op)) {
  case OpKind::Unary: return op != Op::Convert && op != Op::StopGradient;
  case OpKind::Binary:
  case OpKind::Reduce:
  case OpKind::Contraction:
  case OpKind::Library: return true;
  case OpKind::Ternary: return op == Op::Fma;
  default: return false;
  }
}

int64_t rank(const NodePtr &n) { return static_cast<int64_t>(n->shape.size()); }

} // namespace

NodePtr finish(NodeSpec spec) {
  if (computes(spec.op) && spec.op != Op::Real && spec.op != Op::Imag && spec.op != Op::Complex &&
      std::any_of(spec.inputs.begin(), spec.inputs.end(),
                  [](const NodePtr &x) { return is_complex(x->dtype); }))
    return complex_form(spec);
  // float16 and bfloat16 compute in float32 (jx::is_storage_float): the op on widened operands,
  // its result rounded back, so that no stage after this one computes in them.
  if (computes(spec.op) &&
      std::any_of(spec.inputs.begin(), spec.inputs.end(),
                  [](const NodePtr &x) { return is_storage_float(x->dtype); })) {
    const DType dtype = spec.dtype;
    const bool weak = spec.weak;
    for (NodePtr &x : spec.inputs)
      if (is_storage_float(x->dtype)) x = convert(x, DType::float32, x->weak);
    if (is_storage_float(dtype)) spec.dtype = DType::float32;
    NodePtr computed = finish(std::move(spec));
    return is_storage_float(dtype) ? convert(computed, dtype, weak) : computed;
  }
  spec.shape = infer_shape(spec);
  verify(spec);
  return make_node(std::move(spec));
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

namespace {
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

// Matrices of rank >= 2, square where the op needs it, a mode the op has; solve's a (..., n, n)
// beside its b (..., n, k).
Shape linalg_shape(const NodeSpec &s) {
  const Op op = s.op;
  const Shape &x = s.inputs.at(0)->shape;
  const size_t r = x.size();
  check(r >= 2 && s.attrs.size() == 1, op, "matrices of rank >= 2 and a mode");
  const runtime::Library lib{.op = library_op(op), .mode = s.attrs[0]};
  check(s.attrs[0] >= 0 && s.attrs[0] < runtime::linalg_mode_count(lib.op), op, "mode");
  check(op == Op::Svd || op == Op::Qr || x[r - 2] == x[r - 1], op, "square matrices");
  if (op != Op::Solve) return runtime::linalg_output_shape(lib, x);
  const Shape &b = s.inputs.at(1)->shape;
  check(b.size() == r && std::equal(x.begin(), x.end() - 1, b.begin()), op, "b's shape");
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
    check(i < s.inputs.size(), op, "missing input");
    return s.inputs[i]->shape;
  };
  switch (op_kind(op)) {
  case OpKind::Leaf: return s.shape;
  case OpKind::Marker: return in(0);
  case OpKind::Control: return s.shape;
  case OpKind::Library:
    if (is_linalg(op)) return linalg_shape(s);
    check(!s.attrs.empty() && s.attrs[0] >= 0 && s.attrs[0] < int64_t(in(0).size()), op, "axis");
    if (is_scatter(op)) {
      check(s.inputs[1]->dtype == DType::int64, op, "indices must be int64");
      check(in(2) == taken_shape(in(0), in(1), s.attrs[0]), op, "updates' shape");
      return in(0);
    }
    for (const NodePtr &x : s.inputs)
      check(x->shape == in(0), op, "operand shapes differ");
    return in(0);
  case OpKind::Unary:
  case OpKind::Binary:
  case OpKind::Ternary:
    for (const NodePtr &x : s.inputs)
      check(x->shape == in(0), op, "operand shapes differ");
    return in(0);
  case OpKind::Contraction: {
    DotDims d = dot_dims(s);
    const Shape &l = in(0), &r = in(1);
    Shape out;
    auto valid = [](const std::vector<int64_t> &axes, const Shape &sh) {
      return std::all_of(axes.begin(), axes.end(),
                         [&](int64_t a) { return a >= 0 && a < int64_t(sh.size()); });
    };
    check(valid(d.lhs_batch, l) && valid(d.lhs_contract, l) && valid(d.rhs_batch, r) &&
              valid(d.rhs_contract, r),
          op, "dimension out of range");
    for (size_t i = 0; i < d.lhs_batch.size(); ++i) {
      check(l[d.lhs_batch[i]] == r[d.rhs_batch[i]], op, "batch sizes differ");
      out.push_back(l[d.lhs_batch[i]]);
    }
    for (size_t i = 0; i < d.lhs_contract.size(); ++i)
      check(l[d.lhs_contract[i]] == r[d.rhs_contract[i]], op, "contracting sizes differ");
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
    check(out.size() + s.attrs.size() == x.size(), op, "bad reduction axes");
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
    check(s.inputs.size() == first + size_t(r), op, "one start per axis");
    for (size_t i = first; i < s.inputs.size(); ++i)
      check(s.inputs[i]->dtype == DType::int64 && in(i).empty(), op, "starts must be 0-d int64");
    const Shape sizes = op == Op::DynamicSlice ? Shape(s.attrs) : in(1);
    check(int64_t(sizes.size()) == r && (op == Op::DynamicSlice || s.attrs.empty()), op,
          "one size per axis");
    for (int64_t i = 0; i < r; ++i)
      check(sizes[i] >= 0 && sizes[i] <= x[i], op, "slice larger than the operand");
    return op == Op::DynamicSlice ? sizes : x;
  }
  case Op::Take:
    check(s.attrs.size() == 2 && s.attrs[0] >= 0 && s.attrs[0] < r, op, "axis");
    check(s.inputs[1]->dtype == DType::int64, op, "indices must be int64");
    return taken_shape(x, in(1), s.attrs[0]);
  case Op::Broadcast: {
    check(int64_t(s.attrs.size()) == r, op, "one output dim per operand dim");
    for (int64_t i = 0; i < r; ++i) {
      int64_t d = s.attrs[i];
      check(d >= 0 && d < int64_t(s.shape.size()) && (i == 0 || d > s.attrs[i - 1]), op,
            "dims must increase within the output rank");
      check(x[i] == 1 || x[i] == s.shape[d], op, "operand dim must be 1 or the output size");
    }
    return s.shape;
  }
  case Op::Reshape: check(shape_size(s.shape) == shape_size(x), op, "size changes"); return s.shape;
  case Op::Transpose: {
    check(int64_t(s.attrs.size()) == r, op, "permutation rank");
    Shape out(r);
    std::vector<bool> seen(r);
    for (int64_t i = 0; i < r; ++i) {
      int64_t p = s.attrs[i];
      check(p >= 0 && p < r && !seen[p], op, "not a permutation");
      seen[p] = true;
      out[i] = x[p];
    }
    return out;
  }
  case Op::Slice:
  case Op::SliceUpdate: {
    check(int64_t(s.attrs.size()) == 3 * r, op, "starts, limits and steps per axis");
    Shape out(r);
    for (int64_t i = 0; i < r; ++i) {
      int64_t start = s.attrs[i], limit = s.attrs[r + i], step = s.attrs[2 * r + i];
      check(step != 0, op, "zero step");
      out[i] = slice_length(start, limit, step);
      check(out[i] == 0 || (start >= 0 && start < x[i] && start + (out[i] - 1) * step >= 0 &&
                            start + (out[i] - 1) * step < x[i]),
            op, "slice out of bounds");
    }
    if (op == Op::SliceUpdate) {
      check(in(1) == out, op, "update shape must match the slice");
      return x;
    }
    return out;
  }
  case Op::Pad: {
    check(int64_t(s.attrs.size()) == 2 * r && in(1).empty(), op, "lo, hi per axis; 0-d value");
    Shape out(r);
    for (int64_t i = 0; i < r; ++i) {
      check(s.attrs[i] >= 0 && s.attrs[r + i] >= 0, op, "negative padding");
      out[i] = add_dims(add_dims(x[i], s.attrs[i]), s.attrs[r + i]);
    }
    return out;
  }
  case Op::Concatenate: {
    check(s.attrs.size() == 1 && s.attrs[0] >= 0 && s.attrs[0] < r, op, "axis");
    int64_t axis = s.attrs[0];
    Shape out = x;
    out[axis] = 0;
    for (const NodePtr &n : s.inputs) {
      check(rank(n) == r, op, "ranks differ");
      for (int64_t i = 0; i < r; ++i)
        check(i == axis || n->shape[i] == x[i], op, "non-axis sizes differ");
      out[axis] = add_dims(out[axis], n->shape[axis]);
    }
    return out;
  }
  case Op::Diagonal: {
    check(s.attrs.size() == 2, op, "two axes");
    int64_t a1 = s.attrs[0], a2 = s.attrs[1];
    check(a1 >= 0 && a2 >= 0 && a1 < r && a2 < r && a1 != a2 && x[a1] == x[a2], op, "axes");
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
  check(info.arity < 0 ? !s.inputs.empty() : int(s.inputs.size()) == info.arity, s.op, "arity");
  for (const NodePtr &x : s.inputs)
    check(x != nullptr, s.op, "null input");
  check(infer_shape(s) == s.shape, s.op, "shape disagrees with its inputs");
  auto in_dtype = [&](size_t i) { return s.inputs[i]->dtype; };
  switch (info.dtype_rule) {
  case DTypeRule::Same:
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      if (s.op == Op::Select && i == 0) continue;
      if ((s.op == Op::Take || is_scatter(s.op)) && i == 1) continue; // int64 indices
      if ((s.op == Op::DynamicSlice && i >= 1) || (s.op == Op::DynamicUpdateSlice && i >= 2))
        continue; // int64 starts
      check(in_dtype(i) == s.dtype, s.op, "operand dtype differs from result");
    }
    break;
  case DTypeRule::Bool:
    check(s.dtype == DType::bool_, s.op, "predicate must be bool");
    for (size_t i = 1; i < s.inputs.size(); ++i)
      check(in_dtype(i) == in_dtype(0), s.op, "operand dtypes differ");
    break;
  case DTypeRule::Int64: check(s.dtype == DType::int64, s.op, "index must be int64"); break;
  case DTypeRule::Second:
    check(in_dtype(0) == DType::bool_ && in_dtype(1) == s.dtype && in_dtype(2) == s.dtype, s.op,
          "select(bool, T, T) -> T");
    break;
  case DTypeRule::Attr: break;
  }
  if (s.op == Op::Real || s.op == Op::Imag)
    check(is_complex(in_dtype(0)) && s.dtype == real_dtype(in_dtype(0)), s.op,
          "complex -> its parts' dtype");
  if (s.op == Op::Complex)
    check((in_dtype(0) == DType::float32 || in_dtype(0) == DType::float64) &&
              in_dtype(1) == in_dtype(0) && s.dtype == complex_dtype(in_dtype(0)),
          s.op, "float32 or float64 parts of one dtype");
  if (s.op == Op::Constant)
    check(s.data && s.data->bytes() >= size_t(s.data->window() ? s.data->window()->elements()
                                                               : shape_size(s.shape)) *
                                           itemsize(s.dtype),
          s.op, "buffer too small");
  if (s.op == Op::Literal) check(s.shape.empty(), s.op, "literals are 0-d");
}

NodePtr cumulative(Op op, NodePtr x, int64_t axis, bool reverse) {
  check(op_kind(op) == OpKind::Library && op != Op::Sort && op != Op::ArgSort, op,
        "not a cumulative op");
  const DType dtype = x->dtype;
  const bool weak = x->weak;
  return finish({.op = op,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = {std::move(x)},
                 .attrs = {axis, int64_t(reverse)}});
}

NodePtr sort(NodePtr x, int64_t axis) {
  const DType dtype = x->dtype;
  const bool weak = x->weak;
  return finish(
      {.op = Op::Sort, .dtype = dtype, .weak = weak, .inputs = {std::move(x)}, .attrs = {axis}});
}

NodePtr take(NodePtr x, NodePtr indices, int64_t axis, bool fill) {
  const DType dtype = x->dtype;
  const bool weak = x->weak;
  return finish({.op = Op::Take,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = {std::move(x), std::move(indices)},
                 .attrs = {axis, int64_t(fill)}});
}

NodePtr scatter(Op op, NodePtr x, NodePtr indices, NodePtr updates, int64_t axis) {
  check(is_scatter(op), op, "not a scatter");
  const DType dtype = x->dtype;
  const bool weak = x->weak;
  return finish({.op = op,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = {std::move(x), std::move(indices), std::move(updates)},
                 .attrs = {axis}});
}

IndexBounds index_bounds(const NodePtr &indices, int64_t extent) {
  auto c = [&](int64_t v) {
    return broadcast(literal_int(v, DType::int64, false), indices->shape, {});
  };
  const NodePtr j =
      select(binary(Op::Lt, indices, c(0)), binary(Op::Add, indices, c(extent)), indices);
  return {binary(Op::Min, binary(Op::Max, j, c(0)), c(std::max<int64_t>(extent - 1, 0))),
          binary(Op::And, binary(Op::Ge, j, c(0)), binary(Op::Lt, j, c(extent)))};
}

NodePtr linalg(Op op, std::vector<NodePtr> inputs, int64_t mode) {
  check(is_linalg(op), op, "not a linear algebra op");
  const DType dtype = op == Op::Eig ? complex_dtype(inputs.at(0)->dtype) : inputs.at(0)->dtype;
  return finish({.op = op, .dtype = dtype, .inputs = std::move(inputs), .attrs = {mode}});
}

NodePtr argsort(std::vector<NodePtr> keys, int64_t axis) {
  return finish(
      {.op = Op::ArgSort, .dtype = DType::int64, .inputs = std::move(keys), .attrs = {axis}});
}

runtime::Library library_of(const Node &n) {
  const runtime::LibraryOp op = library_op(n.op);
  if (is_linalg(n.op)) return {.op = op, .mode = n.attrs[0]};
  const bool scatter = is_scatter(n.op);
  return {.op = op,
          .axis = n.attrs[0],
          .reverse = !scatter && n.attrs.size() > 1 && n.attrs[1] != 0,
          .count = scatter ? n.inputs[1]->size() : 0};
}

const Shape &library_extent(const Node &n) {
  return is_linalg(n.op) && n.op != Op::Solve ? n.inputs[0]->shape : n.shape;
}

NodePtr marker(Op op, std::vector<NodePtr> inputs, std::vector<int64_t> attrs) {
  check(op_kind(op) == OpKind::Marker && !inputs.empty(), op, "not a marker");
  DType dtype = inputs[0]->dtype;
  bool weak = inputs[0]->weak;
  return finish({.op = op,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = std::move(inputs),
                 .attrs = std::move(attrs)});
}

bool same_type(const Node &a, const Node &b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.weak == b.weak;
}

namespace {
// A region's params typed as `inputs`, in order.
void check_params(const Region &r, const std::vector<NodePtr> &inputs, size_t first, Op op) {
  check(r.params.size() == inputs.size() - first, op, "region parameter count");
  for (size_t i = 0; i < r.params.size(); ++i)
    check(same_type(*r.params[i], *inputs[first + i]), op, "region parameter type");
}
} // namespace

NodePtr while_loop(std::vector<NodePtr> inputs, int64_t carries, Region cond, Region body) {
  check(carries >= 1 && carries <= int64_t(inputs.size()), Op::While, "carry count");
  check_params(cond, inputs, 0, Op::While);
  check_params(body, inputs, 0, Op::While);
  check(cond.outputs.size() == 1 && cond.outputs[0]->dtype == DType::bool_ &&
            cond.outputs[0]->shape.empty(),
        Op::While, "cond must give a bool scalar");
  check(int64_t(body.outputs.size()) == carries, Op::While, "body must give the carries");
  for (int64_t i = 0; i < carries; ++i)
    check(same_type(*body.outputs[i], *inputs[i]), Op::While, "body changes a carry's type");
  auto regions = std::make_shared<const Regions>(Regions{std::move(cond), std::move(body)});
  return finish({.op = Op::While,
                 .dtype = DType::bool_,
                 .inputs = std::move(inputs),
                 .attrs = {carries},
                 .regions = std::move(regions)});
}

NodePtr case_(NodePtr index, std::vector<NodePtr> operands, Regions branches) {
  check(index->dtype == DType::int32 && index->shape.empty(), Op::Case, "index must be int32[]");
  check(!branches.empty(), Op::Case, "no branches");
  operands.insert(operands.begin(), std::move(index));
  for (const Region &b : branches) {
    check_params(b, operands, 1, Op::Case);
    check(b.outputs.size() == branches[0].outputs.size(), Op::Case, "branch result counts");
    for (size_t i = 0; i < b.outputs.size(); ++i)
      check(same_type(*b.outputs[i], *branches[0].outputs[i]), Op::Case, "branch result types");
  }
  auto regions = std::make_shared<const Regions>(std::move(branches));
  return finish({.op = Op::Case,
                 .dtype = DType::bool_,
                 .inputs = std::move(operands),
                 .regions = std::move(regions)});
}

NodePtr scan(std::vector<NodePtr> inputs, int64_t carries, int64_t xs, int64_t length, bool reverse,
             Region body) {
  check(carries >= 0 && xs >= 0 && carries + xs <= int64_t(inputs.size()) && length >= 0, Op::Scan,
        "operand counts");
  check(body.params.size() == inputs.size(), Op::Scan, "region parameter count");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Node &in = *inputs[i], &p = *body.params[i];
    const bool row = int64_t(i) >= carries && int64_t(i) < carries + xs;
    check(!row || (!in.shape.empty() && in.shape[0] == length), Op::Scan, "xs length");
    const Shape expected = row ? Shape(in.shape.begin() + 1, in.shape.end()) : in.shape;
    check(p.dtype == in.dtype && p.shape == expected && p.weak == in.weak, Op::Scan,
          "region parameter type");
  }
  check(int64_t(body.outputs.size()) >= carries, Op::Scan, "body must give the carries");
  for (int64_t i = 0; i < carries; ++i)
    check(same_type(*body.outputs[i], *inputs[i]), Op::Scan, "body changes a carry's type");
  auto regions = std::make_shared<const Regions>(Regions{std::move(body)});
  return finish({.op = Op::Scan,
                 .dtype = DType::bool_,
                 .inputs = std::move(inputs),
                 .attrs = {carries, xs, length, reverse ? 1 : 0},
                 .regions = std::move(regions)});
}

int64_t result_count(const Node &control) {
  if (control.op == Op::While) return control.attrs[0];
  if (control.op == Op::Scan) return int64_t((*control.regions)[0].outputs.size());
  check(control.op == Op::Case, control.op, "not a control op with results");
  return int64_t((*control.regions)[0].outputs.size());
}

NodePtr result(const NodePtr &control, int64_t i) {
  check(i >= 0 && i < result_count(*control), Op::Result, "result index");
  const Node &type = control->op == Op::While ? *control->inputs[size_t(i)]
                                              : *(*control->regions)[0].outputs[size_t(i)];
  Shape shape = type.shape;
  if (control->op == Op::Scan && i >= control->attrs[0]) // a stacked output
    shape.insert(shape.begin(), control->attrs[2]);
  return finish({.op = Op::Result,
                 .dtype = type.dtype,
                 .weak = type.weak,
                 .shape = std::move(shape),
                 .inputs = {control},
                 .attrs = {i}});
}

void throw_custom_lin_has_no_value() {
  throw TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.");
}

NodePtr rebuild(const Node &n, std::vector<NodePtr> inputs) {
  // Broadcasts and reshapes keep their canonical forms (composed, unit insertions as broadcasts).
  if (n.op == Op::Broadcast) return broadcast(std::move(inputs.at(0)), n.shape, n.attrs);
  if (n.op == Op::Reshape) return reshape(std::move(inputs.at(0)), n.shape);
  NodeSpec spec = n;
  spec.inputs = std::move(inputs);
  return finish(std::move(spec));
}

namespace {

// An integer literal's value: wrapped to its dtype's width, sign- or zero-extended (uint64's
// values past INT64_MAX as their bits).
int64_t wrap_to(int64_t value, DType dtype) {
  const int bits = int(itemsize(dtype)) * 8;
  if (bits == 64) return value;
  const uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t v = uint64_t(value) & mask;
  if (is_signed_integer(dtype) && (v >> (bits - 1))) v |= ~mask;
  return int64_t(v);
}

// A float converted to an integer dtype as the evaluator converts it.
int64_t integer_of(double value, DType dtype) {
  switch (dtype) {
  case DType::int8: return convert_scalar<int8_t>(value);
  case DType::int16: return convert_scalar<int16_t>(value);
  case DType::int32: return convert_scalar<int32_t>(value);
  case DType::uint8: return convert_scalar<uint8_t>(value);
  case DType::uint16: return convert_scalar<uint16_t>(value);
  case DType::uint32: return convert_scalar<uint32_t>(value);
  case DType::uint64: return int64_t(convert_scalar<uint64_t>(value));
  default: return convert_scalar<int64_t>(value);
  }
}

} // namespace

NodePtr literal(double value, DType dtype, bool weak) {
  checked_dtype(dtype);
  if (is_complex(dtype))
    return complex(literal(value, real_dtype(dtype), weak), literal(0, real_dtype(dtype), weak));
  if (dtype == DType::bool_) return literal_int(value != 0, dtype, weak);
  if (!is_floating(dtype)) return literal_int(integer_of(value, dtype), dtype, weak);
  if (dtype == DType::float32) value = static_cast<float>(value);
  if (dtype == DType::float16) value = Float16(value);
  if (dtype == DType::bfloat16) value = BFloat16(value);
  return finish({.op = Op::Literal, .dtype = dtype, .weak = weak, .fvalue = value});
}

NodePtr literal_int(int64_t value, DType dtype, bool weak) {
  checked_dtype(dtype);
  if (is_inexact(dtype)) return literal(static_cast<double>(value), dtype, weak);
  value = dtype == DType::bool_ ? value != 0 : wrap_to(value, dtype);
  return finish({.op = Op::Literal, .dtype = dtype, .weak = weak, .ivalue = value});
}

NodePtr constant(runtime::BufferPtr data, DType dtype, Shape shape) {
  checked_dtype(dtype);
  return finish(
      {.op = Op::Constant, .dtype = dtype, .shape = std::move(shape), .data = std::move(data)});
}

NodePtr iota(DType dtype, Shape shape, int64_t axis) {
  checked_dtype(dtype);
  check(axis >= 0 && axis < int64_t(shape.size()), Op::Iota, "axis");
  if (is_complex(dtype)) return convert(iota(real_dtype(dtype), std::move(shape), axis), dtype);
  // Canonical form: a 1-D iota broadcast along the other axes, so work on it (linspace's
  // division) sinks below the broadcast and runs once per distinct index.
  if (shape.size() > 1) {
    NodePtr line = iota(dtype, {shape[axis]}, 0);
    return broadcast(std::move(line), std::move(shape), {axis});
  }
  return finish({.op = Op::Iota, .dtype = dtype, .shape = std::move(shape), .attrs = {axis}});
}

NodePtr random_uniform(uint32_t key_hi, uint32_t key_lo, DType dtype, Shape shape) {
  checked_dtype(dtype);
  check(is_floating(dtype), Op::RandomUniform, "float dtype");
  return finish({.op = Op::RandomUniform,
                 .dtype = dtype,
                 .shape = std::move(shape),
                 .attrs = {int64_t(key_hi), int64_t(key_lo)}});
}

NodePtr parameter(int64_t position, DType dtype, Shape shape, int64_t trace, bool weak) {
  checked_dtype(dtype);
  return finish({.op = Op::Parameter,
                 .dtype = dtype,
                 .weak = weak,
                 .shape = std::move(shape),
                 .attrs = {position, trace}});
}

namespace {
thread_local std::vector<int64_t> running_traces;
} // namespace

int64_t new_trace_id() {
  static std::atomic<int64_t> next{1};
  return next++;
}

TraceScope::TraceScope(int64_t trace) { running_traces.push_back(trace); }
TraceScope::~TraceScope() { running_traces.pop_back(); }

bool trace_running(int64_t trace) {
  return trace == 0 ||
         std::find(running_traces.begin(), running_traces.end(), trace) != running_traces.end();
}

bool tracing() { return !running_traces.empty(); }

NodePtr unary(Op op, NodePtr x) {
  check(op_kind(op) == OpKind::Unary && op != Op::Convert, op, "not a unary op");
  if (op == Op::Real) return real(std::move(x));
  if (op == Op::Imag) return imag(std::move(x));
  DType dtype = op_info(op).dtype_rule == DTypeRule::Bool ? DType::bool_ : x->dtype;
  bool weak = x->weak && dtype == x->dtype;
  return finish({.op = op, .dtype = dtype, .weak = weak, .inputs = {std::move(x)}});
}

namespace {
// real (op Real, index 0) or imag (Imag, 1) of z; a complex op's part is its operand.
NodePtr part_of(Op op, size_t index, NodePtr z) {
  if (!is_complex(z->dtype)) refuse_dtype(op, z->dtype, "complexfloating");
  if (z->op == Op::Complex && !z->realized()) return z->inputs[index];
  const DType dtype = real_dtype(z->dtype);
  const bool weak = z->weak;
  return finish({.op = op, .dtype = dtype, .weak = weak, .inputs = {std::move(z)}});
}
} // namespace

NodePtr real(NodePtr z) { return part_of(Op::Real, 0, std::move(z)); }
NodePtr imag(NodePtr z) { return part_of(Op::Imag, 1, std::move(z)); }

NodePtr complex(NodePtr re, NodePtr im) {
  // complex(real(z), imag(z)) is z.
  if (re->op == Op::Real && im->op == Op::Imag && re->inputs[0] == im->inputs[0])
    return re->inputs[0];
  for (const NodePtr &part : {re, im})
    if (part->dtype != DType::float32 && part->dtype != DType::float64)
      refuse_dtype(Op::Complex, part->dtype, "float32 or float64");
  const DType dtype = complex_dtype(re->dtype);
  const bool weak = re->weak && im->weak;
  return finish(
      {.op = Op::Complex, .dtype = dtype, .weak = weak, .inputs = {std::move(re), std::move(im)}});
}

NodePtr convert(NodePtr x, DType dtype, bool weak) {
  checked_dtype(dtype); // astype's, and every other conversion's
  if (x->dtype == dtype && x->weak == weak) return x;
  // Conversions into, out of and between complex types are built on the parts: the imaginary
  // part dropped (NumPy's astype), nonzero when either part is (bool).
  if (is_complex(x->dtype)) {
    if (is_complex(dtype)) // another precision, or only the weak flag changes
      return complex(convert(real(x), real_dtype(dtype), weak),
                     convert(imag(x), real_dtype(dtype), weak));
    if (dtype == DType::bool_) {
      const NodePtr re = real(x), im = imag(x);
      auto nonzero = [](const NodePtr &v) {
        return binary(Op::Ne, v, broadcast(literal(0, v->dtype, true), v->shape, {}));
      };
      return binary(Op::Or, nonzero(re), nonzero(im));
    }
    return convert(real(x), dtype, weak);
  }
  if (is_complex(dtype) && !is_complex(x->dtype)) {
    const NodePtr re = convert(x, real_dtype(dtype), weak);
    return complex(re, broadcast(literal(0, re->dtype, weak), re->shape, {}));
  }
  if (x->op == Op::Literal) {
    if (is_floating(x->dtype)) {
      double v = x->fvalue;
      if (dtype == DType::bool_) return literal_int(v != 0, dtype, weak);
      if (is_floating(dtype)) return literal(v, dtype, weak);
      return literal_int(integer_of(v, dtype), dtype, weak);
    }
    return literal_int(x->ivalue, dtype, weak);
  }
  if (x->dtype == dtype) weak = weak && x->weak;
  if (x->dtype == dtype && x->weak == weak) return x;
  return finish({.op = Op::Convert, .dtype = dtype, .weak = weak, .inputs = {std::move(x)}});
}

NodePtr binary(Op op, NodePtr a, NodePtr b) {
  check(op_kind(op) == OpKind::Binary, op, "not a binary op");
  if (op == Op::Complex) return complex(std::move(a), std::move(b));
  DType dtype = op_info(op).dtype_rule == DTypeRule::Bool ? DType::bool_ : a->dtype;
  bool weak = a->weak && b->weak && dtype == a->dtype;
  return finish({.op = op, .dtype = dtype, .weak = weak, .inputs = {std::move(a), std::move(b)}});
}

NodePtr select(NodePtr pred, NodePtr on_true, NodePtr on_false) {
  DType dtype = on_true->dtype;
  bool weak = on_true->weak && on_false->weak;
  return finish({.op = Op::Select,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = {std::move(pred), std::move(on_true), std::move(on_false)}});
}

NodePtr fma(NodePtr a, NodePtr b, NodePtr c) {
  check(is_floating(a->dtype), Op::Fma, "float operands");
  const DType dtype = a->dtype;
  const bool weak = a->weak && b->weak && c->weak;
  return finish({.op = Op::Fma,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = {std::move(a), std::move(b), std::move(c)}});
}

NodePtr broadcast(NodePtr x, Shape shape, std::vector<int64_t> dims) {
  if (x->shape == shape) return x;
  // One broadcast, not a chain: x[:, None] broadcast further is one index map.
  if (x->op == Op::Broadcast && !x->realized()) {
    std::vector<int64_t> composed;
    for (int64_t d : x->attrs)
      composed.push_back(dims.at(d));
    return broadcast(x->inputs[0], std::move(shape), std::move(composed));
  }
  DType dtype = x->dtype;
  bool weak = x->weak;
  return finish({.op = Op::Broadcast,
                 .dtype = dtype,
                 .weak = weak,
                 .shape = std::move(shape),
                 .inputs = {std::move(x)},
                 .attrs = std::move(dims)});
}

NodePtr reshape(NodePtr x, Shape shape) {
  if (x->shape == shape) return x;
  // Through earlier reshapes and unit-axis insertions (which add no elements).
  while ((x->op == Op::Reshape || (x->op == Op::Broadcast && x->size() == x->inputs[0]->size())) &&
         !x->realized())
    x = x->inputs[0];
  if (x->shape == shape) return x;
  // Inserting unit axes is a broadcast: elementwise work then sinks below it like below any other
  // broadcast (x[:, None] / 10 divides x, not a reshaped copy).
  if (std::find(x->shape.begin(), x->shape.end(), 1) == x->shape.end()) {
    std::vector<int64_t> dims;
    for (int64_t axis = 0; axis < int64_t(shape.size()); ++axis)
      if (shape[axis] != 1) dims.push_back(axis);
    bool insertion = dims.size() == x->shape.size();
    for (size_t i = 0; insertion && i < dims.size(); ++i)
      insertion = shape[dims[i]] == x->shape[i];
    if (insertion) return broadcast(std::move(x), std::move(shape), std::move(dims));
  }
  DType dtype = x->dtype;
  bool weak = x->weak;
  return finish({.op = Op::Reshape,
                 .dtype = dtype,
                 .weak = weak,
                 .shape = std::move(shape),
                 .inputs = {std::move(x)}});
}

NodePtr transpose(NodePtr x, std::vector<int64_t> perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == int64_t(i);
  if (identity && perm.size() == x->shape.size()) return x;
  DType dtype = x->dtype;
  bool weak = x->weak;
  return finish({.op = Op::Transpose,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = {std::move(x)},
                 .attrs = std::move(perm)});
}

namespace {
std::vector<int64_t> concat_attrs(std::vector<int64_t> a, const std::vector<int64_t> &b,
                                  const std::vector<int64_t> &c) {
  a.insert(a.end(), b.begin(), b.end());
  a.insert(a.end(), c.begin(), c.end());
  return a;
}
} // namespace

NodePtr slice_in_dim(NodePtr x, int64_t axis, int64_t start, int64_t limit, int64_t step) {
  const size_t r = x->shape.size(), a = size_t(axis);
  std::vector<int64_t> starts(r, 0), limits = x->shape, steps(r, 1);
  starts[a] = start;
  limits[a] = limit;
  steps[a] = step;
  return slice(std::move(x), std::move(starts), std::move(limits), std::move(steps));
}

NodePtr slice(NodePtr x, std::vector<int64_t> starts, std::vector<int64_t> limits,
              std::vector<int64_t> steps) {
  bool identity = true;
  for (size_t i = 0; i < starts.size(); ++i)
    identity = identity && starts[i] == 0 && steps[i] == 1 && limits[i] == x->shape[i];
  if (identity && starts.size() == x->shape.size()) return x;
  DType dtype = x->dtype;
  bool weak = x->weak;
  return finish({.op = Op::Slice,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = {std::move(x)},
                 .attrs = concat_attrs(std::move(starts), limits, steps)});
}

NodePtr pad(NodePtr x, NodePtr value, std::vector<int64_t> lo, std::vector<int64_t> hi) {
  DType dtype = x->dtype;
  bool weak = x->weak;
  lo.insert(lo.end(), hi.begin(), hi.end());
  return finish({.op = Op::Pad,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = {std::move(x), std::move(value)},
                 .attrs = std::move(lo)});
}

NodePtr concatenate(std::vector<NodePtr> xs, int64_t axis) {
  check(!xs.empty(), Op::Concatenate, "no operands");
  if (xs.size() == 1) return xs[0];
  DType dtype = xs[0]->dtype;
  bool weak = std::all_of(xs.begin(), xs.end(), [](const NodePtr &n) { return n->weak; });
  return finish({.op = Op::Concatenate,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = std::move(xs),
                 .attrs = {axis}});
}

NodePtr dynamic_slice(NodePtr x, std::vector<NodePtr> starts, std::vector<int64_t> sizes) {
  if (sizes == x->shape) return x; // every start clamps to 0
  const DType dtype = x->dtype;
  const bool weak = x->weak;
  starts.insert(starts.begin(), std::move(x));
  return finish({.op = Op::DynamicSlice,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = std::move(starts),
                 .attrs = std::move(sizes)});
}

NodePtr dynamic_update_slice(NodePtr x, NodePtr update, std::vector<NodePtr> starts) {
  const DType dtype = x->dtype;
  const bool weak = x->weak;
  if (update->shape == x->shape && update->weak == weak) return update; // the starts clamp to 0
  starts.insert(starts.begin(), {std::move(x), std::move(update)});
  return finish(
      {.op = Op::DynamicUpdateSlice, .dtype = dtype, .weak = weak, .inputs = std::move(starts)});
}

NodePtr slice_update(NodePtr x, NodePtr update, std::vector<int64_t> starts,
                     std::vector<int64_t> limits, std::vector<int64_t> steps) {
  DType dtype = x->dtype;
  bool weak = x->weak;
  // Of the whole array in order (x.at[:, :].set(v)): v, no copy of x to write it over.
  bool whole = update->shape == x->shape && update->dtype == dtype && update->weak == weak;
  for (size_t a = 0; a < steps.size(); ++a)
    whole = whole && (steps[a] == 1 || x->shape[a] <= 1);
  if (whole) return update;
  return finish({.op = Op::SliceUpdate,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = {std::move(x), std::move(update)},
                 .attrs = concat_attrs(std::move(starts), limits, steps)});
}

NodePtr diagonal(NodePtr x, int64_t axis1, int64_t axis2) {
  DType dtype = x->dtype;
  bool weak = x->weak;
  return finish({.op = Op::Diagonal,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = {std::move(x)},
                 .attrs = {axis1, axis2}});
}

NodePtr reduce(Op op, NodePtr x, std::vector<int64_t> axes) {
  check(op_kind(op) == OpKind::Reduce && op != Op::ArgMax && op != Op::ArgMin, op, "not a reduce");
  if (axes.empty()) return x;
  DType dtype = x->dtype;
  bool weak = x->weak;
  return finish(
      {.op = op, .dtype = dtype, .weak = weak, .inputs = {std::move(x)}, .attrs = std::move(axes)});
}

NodePtr arg_reduce(Op op, NodePtr x, int64_t axis) {
  check(op == Op::ArgMax || op == Op::ArgMin, op, "not an arg reduction");
  return finish({.op = op, .dtype = DType::int64, .inputs = {std::move(x)}, .attrs = {axis}});
}

NodePtr dot_general(NodePtr lhs, NodePtr rhs, std::vector<int64_t> lhs_batch,
                    std::vector<int64_t> rhs_batch, std::vector<int64_t> lhs_contract,
                    std::vector<int64_t> rhs_contract) {
  check(lhs_batch.size() == rhs_batch.size() && lhs_contract.size() == rhs_contract.size(),
        Op::DotGeneral, "dimension lists differ in length");
  std::vector<int64_t> attrs = {int64_t(lhs_batch.size()), int64_t(lhs_contract.size())};
  for (auto *v : {&lhs_batch, &rhs_batch, &lhs_contract, &rhs_contract})
    attrs.insert(attrs.end(), v->begin(), v->end());
  DType dtype = lhs->dtype;
  bool weak = lhs->weak && rhs->weak;
  return finish({.op = Op::DotGeneral,
                 .dtype = dtype,
                 .weak = weak,
                 .inputs = {std::move(lhs), std::move(rhs)},
                 .attrs = std::move(attrs)});
}

} // namespace jx::ir
