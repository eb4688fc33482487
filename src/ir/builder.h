// Typed constructors for graph nodes. Each computes its node's shape and dtype from the op table's
// rules, checks its operands (a violation is a bug in the caller: jx::Error "internal: ..."), and
// folds the trivial cases that cost O(1) (identity reshape, convert of a literal, ...).
// User-facing validation and NumPy semantics live in src/api, above this layer.
#pragma once

#include "ir/node.h"
#include "runtime/library.h"

namespace jx::ir {

// Leaves.
NodePtr literal(double value, DType dtype, bool weak);
NodePtr literal_int(int64_t value, DType dtype, bool weak);
NodePtr constant(runtime::BufferPtr data, DType dtype, Shape shape);
NodePtr iota(DType dtype, Shape shape, int64_t axis);
NodePtr random_uniform(uint32_t key_hi, uint32_t key_lo, DType dtype, Shape shape);
// Argument `position` of a function being traced by jit: a value known only by shape and dtype.
// `trace` names the trace (new_trace_id()) so that two traces' parameters are different nodes;
// 0 for graphs built outside jit (tests, the AOT decoder's checks).
NodePtr parameter(int64_t position, DType dtype, Shape shape, int64_t trace = 0, bool weak = false);

// A trace id never given before.
int64_t new_trace_id();
// Marks a trace as running on this thread while in scope (traces nest).
class TraceScope {
public:
  explicit TraceScope(int64_t trace);
  ~TraceScope();
  TraceScope(const TraceScope &) = delete;
  TraceScope &operator=(const TraceScope &) = delete;
};
// Whether this thread is inside trace `trace` (0: always, as no trace owns such parameters).
bool trace_running(int64_t trace);
// Whether this thread is inside any trace.
bool tracing();

// Elementwise: operands have one shape (and one dtype, except select's predicate).
NodePtr unary(Op op, NodePtr x);
NodePtr convert(NodePtr x, DType dtype, bool weak = false);
NodePtr binary(Op op, NodePtr a, NodePtr b);
NodePtr select(NodePtr pred, NodePtr on_true, NodePtr on_false);
// A complex number's parts and the complex number of two float32 or float64 parts.
NodePtr real(NodePtr z);
NodePtr imag(NodePtr z);
NodePtr complex(NodePtr re, NodePtr im);
// a * b + c with one rounding, for floats of one dtype and shape.
NodePtr fma(NodePtr a, NodePtr b, NodePtr c);

// Movement.
// dims[i] is the output axis that operand axis i maps to (increasing); other axes are new.
NodePtr broadcast(NodePtr x, Shape shape, std::vector<int64_t> dims);
NodePtr reshape(NodePtr x, Shape shape);
NodePtr transpose(NodePtr x, std::vector<int64_t> perm);
// Python slice semantics per axis, already normalized: start in [0, n) unless empty, limit
// exclusive in the direction of step (may be -1 for negative steps), step != 0.
NodePtr slice(NodePtr x, std::vector<int64_t> starts, std::vector<int64_t> limits,
              std::vector<int64_t> steps);
// lax.slice_in_dim: x[start:limit:step] along axis, whole along the others.
NodePtr slice_in_dim(NodePtr x, int64_t axis, int64_t start, int64_t limit, int64_t step = 1);
NodePtr pad(NodePtr x, NodePtr value, std::vector<int64_t> lo, std::vector<int64_t> hi);
NodePtr concatenate(std::vector<NodePtr> xs, int64_t axis);
NodePtr slice_update(NodePtr x, NodePtr update, std::vector<int64_t> starts,
                     std::vector<int64_t> limits, std::vector<int64_t> steps);
NodePtr diagonal(NodePtr x, int64_t axis1, int64_t axis2);
// lax.dynamic_slice and dynamic_update_slice at one 0-d int64 start per axis, clamped so that
// the slice fits (negative starts are the caller's to wrap).
NodePtr dynamic_slice(NodePtr x, std::vector<NodePtr> starts, std::vector<int64_t> sizes);
NodePtr dynamic_update_slice(NodePtr x, NodePtr update, std::vector<NodePtr> starts);

// Reductions; axes sorted and unique.
NodePtr reduce(Op op, NodePtr x, std::vector<int64_t> axes);
NodePtr arg_reduce(Op op, NodePtr x, int64_t axis);
NodePtr dot_general(NodePtr lhs, NodePtr rhs, std::vector<int64_t> lhs_batch,
                    std::vector<int64_t> rhs_batch, std::vector<int64_t> lhs_contract,
                    std::vector<int64_t> rhs_contract);

// Library ops (ops.def): computed by the runtime's routines on whole buffers.
NodePtr cumulative(Op op, NodePtr x, int64_t axis, bool reverse);
NodePtr sort(NodePtr x, int64_t axis);
// The complex transform along axis of re + i im (float parts of one shape): ops.def's fft.
NodePtr fft(NodePtr re, NodePtr im, int64_t axis, bool inverse);
NodePtr argsort(std::vector<NodePtr> keys, int64_t axis);
NodePtr scatter(Op op, NodePtr x, NodePtr indices, NodePtr updates, int64_t axis);
bool is_scatter(Op op);
bool is_linalg(Op op);
// A linear algebra op (ops.def) on matrices (..., m, n); solve's inputs are a and b.
NodePtr linalg(Op op, std::vector<NodePtr> inputs, int64_t mode = 0);
// x gathered along axis at int64 indices (ops.def's take): out of range clamped, or 0 with fill.
NodePtr take(NodePtr x, NodePtr indices, int64_t axis, bool fill);
// int64 indices into an axis of `extent` as take and the scatters read them: counted from the end
// when negative, then clamped into range; and whether each was in range.
struct IndexBounds {
  NodePtr clamped, inside;
};
IndexBounds index_bounds(const NodePtr &indices, int64_t extent);
// x.shape[:axis] + indices.shape + x.shape[axis + 1:]: a take's shape, a scatter's updates'.
Shape taken_shape(const Shape &x, const Shape &indices, int64_t axis);
// The runtime routine that computes a library op: its kind, and with its attributes.
runtime::LibraryOp library_op(Op op);
runtime::Library library_of(const Node &n);
// The shape its routine is given (runtime::Step::extent): the output's, or the matrix operand's
// for linear algebra other than solve.
const Shape &library_extent(const Node &n);

// A marker (custom_jvp): input 0's value and type, with attrs naming what it marks.
NodePtr marker(Op op, std::vector<NodePtr> inputs, std::vector<int64_t> attrs);
// What evaluating, compiling or differentiating a custom_lin (a custom_vjp's tangent) raises:
// JAX's TypeError for forward mode through a custom_vjp.
[[noreturn]] void throw_custom_lin_has_no_value();

// Same dtype, shape and weak type: what a region's params, carries and branch results must share.
bool same_type(const Node &a, const Node &b);

// Control flow (ops.def). while_loop: inputs = the carries, then the captured values; cond and
// body are functions of all of them (their params typed as the inputs), cond giving a bool
// scalar, body the carries' types. case_: index an int32 scalar; each branch a function of the
// operands, all giving results of one type. Their results are result(op, i).
NodePtr while_loop(std::vector<NodePtr> inputs, int64_t carries, Region cond, Region body);
NodePtr case_(NodePtr index, std::vector<NodePtr> operands, Regions branches);
// scan: inputs = carries, xs (each of leading axis `length`), captured; body over the carries,
// one row of each xs and the captured values, giving the carries, then one row of each output.
NodePtr scan(std::vector<NodePtr> inputs, int64_t carries, int64_t xs, int64_t length, bool reverse,
             Region body);
NodePtr result(const NodePtr &control, int64_t i);
// How many results a control op has.
int64_t result_count(const Node &control);

// n with its inputs replaced (same op, dtype, attributes; broadcasts and reshapes in canonical
// form, which may fold them away); checked like any new node.
NodePtr rebuild(const Node &n, std::vector<NodePtr> inputs);

// Number of elements along each axis of a slice with these normalized bounds.
int64_t slice_length(int64_t start, int64_t limit, int64_t step);

// The shape a node of this spec must have; throws "internal: ..." on malformed specs.
Shape infer_shape(const NodeSpec &spec);
// Checks arity, dtype rule and shape of a node against its inputs.
void verify(const NodeSpec &spec);
// Throws Error("internal: <op>: what") unless ok: a malformed node is jx's bug, not the user's.
void check_node(bool ok, Op op, const char *what);

// Decoded attributes of a DotGeneral node.
// The literal n holds at every element (a literal, broadcast, reshaped or transposed), or null.
const Node *splat_literal(const Node &n);

struct DotDims {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contract, rhs_contract;
};
DotDims dot_dims(const NodeSpec &spec);
// The axes 0 .. rank-1 in neither list, in order: a reduction's kept axes, a dot_general
// operand's free ones.
std::vector<int64_t> other_axes(int64_t rank, const std::vector<int64_t> &axes,
                                const std::vector<int64_t> &more = {});

} // namespace jx::ir
