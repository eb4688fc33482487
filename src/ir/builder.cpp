// Node constructors: each spec finished (shape inferred and verified: shape_rules.cpp), interned.
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

NodePtr cumulative(Op op, NodePtr x, int64_t axis, bool reverse) {
  check_node(op_kind(op) == OpKind::Library && op != Op::Sort && op != Op::ArgSort, op,
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

NodePtr fft(NodePtr re, NodePtr im, int64_t axis, bool inverse) {
  check_node(is_floating(re->dtype) && !is_storage_float(re->dtype) && im->dtype == re->dtype,
             Op::Fft, "float32 or float64 parts of one dtype");
  const DType dtype = complex_dtype(re->dtype);
  return finish({.op = Op::Fft,
                 .dtype = dtype,
                 .inputs = {std::move(re), std::move(im)},
                 .attrs = {axis, int64_t(inverse)}});
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
  check_node(is_scatter(op), op, "not a scatter");
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
  check_node(is_linalg(op), op, "not a linear algebra op");
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
  check_node(op_kind(op) == OpKind::Marker && !inputs.empty(), op, "not a marker");
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
  check_node(axis >= 0 && axis < int64_t(shape.size()), Op::Iota, "axis");
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
  check_node(is_floating(dtype), Op::RandomUniform, "float dtype");
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
  check_node(op_kind(op) == OpKind::Unary && op != Op::Convert, op, "not a unary op");
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
  check_node(op_kind(op) == OpKind::Binary, op, "not a binary op");
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
  check_node(is_floating(a->dtype), Op::Fma, "float operands");
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
  check_node(!xs.empty(), Op::Concatenate, "no operands");
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
  check_node(op_kind(op) == OpKind::Reduce && op != Op::ArgMax && op != Op::ArgMin, op,
             "not a reduce");
  if (axes.empty()) return x;
  DType dtype = x->dtype;
  bool weak = x->weak;
  return finish(
      {.op = op, .dtype = dtype, .weak = weak, .inputs = {std::move(x)}, .attrs = std::move(axes)});
}

NodePtr arg_reduce(Op op, NodePtr x, int64_t axis) {
  check_node(op == Op::ArgMax || op == Op::ArgMin, op, "not an arg reduction");
  return finish({.op = op, .dtype = DType::int64, .inputs = {std::move(x)}, .attrs = {axis}});
}

NodePtr dot_general(NodePtr lhs, NodePtr rhs, std::vector<int64_t> lhs_batch,
                    std::vector<int64_t> rhs_batch, std::vector<int64_t> lhs_contract,
                    std::vector<int64_t> rhs_contract) {
  check_node(lhs_batch.size() == rhs_batch.size() && lhs_contract.size() == rhs_contract.size(),
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
