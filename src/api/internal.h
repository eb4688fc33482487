// Helpers shared by the jnp implementation files: node access, axis normalization, NumPy
// promotion with JAX weak types, broadcasting.
#pragma once

#include <jx/array.h>
#include <jx/numpy.h>

#include <string_view>

#include "ir/builder.h"

namespace jx::api {

using ir::NodePtr;

inline NodePtr node_of(const Array &x) { return x.node(); }
// The single evaluation entry point: the value of a node, computed once and cached on it.
runtime::BufferPtr realize(const NodePtr &n);

// x (a value this process has whole) as a global array placed as `sharding` that holds this
// process's shards only (src/api/distributed.cpp).
Array local_shards(const Array &x, const Sharding &sharding);

// An eager result whose chain of pending nodes is this long is computed now (outside traces):
// every later graph walk then stops at it, so a million-step eager loop costs linear time.
inline constexpr int64_t max_pending_depth = 10000;
inline Array wrap(NodePtr n) {
  if (n->pending_depth() >= max_pending_depth && !ir::tracing()) realize(n);
  return Array(std::move(n));
}

// How a graph is evaluated: the reference evaluator (the oracle) or compiled kernels.
enum class Backend { Interpreter, Compiler };
// The value of n computed by one backend, without caching it on the node (for differential tests).
runtime::BufferPtr evaluate_with(Backend backend, const NodePtr &n);

// axis in [-ndim, ndim) -> [0, ndim); AxisError otherwise.
int64_t normalize_axis(int64_t axis, int64_t ndim);
// None -> every axis; sorted; ValueError on a repeated axis.
std::vector<int64_t> normalize_axes(const numpy::Axes &axes, int64_t ndim);

// numpy.result_type over operands, where weakly typed operands (C++ scalars) defer to strongly
// typed ones of the same or a higher kind, as in JAX.
struct ResultType {
  DType dtype;
  bool weak;
};
ResultType result_type(const std::vector<NodePtr> &xs);
DType default_dtype(DTypeKind kind);

// NumPy broadcasting of shapes; ShapeError naming every shape otherwise.
Shape broadcast_shapes(const std::vector<Shape> &shapes);
// x broadcast to shape by NumPy's rules (x's axes aligned right).
NodePtr broadcast_node(const NodePtr &x, const Shape &shape);
// The dtype sums, products and their cumulative forms accumulate in (NumPy's and jnp's): bools
// and signed integers in int64, unsigned integers in uint64, floats in themselves.
DType accumulator_dtype(DType t);
// numpy.iinfo(t).min or .max of an integer dtype, as that dtype's bits.
int64_t integer_limit(DType t, bool max);
// x converted to dtype; a weak literal that does not fit an integer dtype raises as NumPy does.
NodePtr cast_node(const NodePtr &x, DType dtype, bool weak);

// Integer indices as int64: uint64 values past INT64_MAX saturate to it, past the end of any axis
// (converted, they would turn negative and count from the end).
NodePtr index_node(const NodePtr &indices);

// Converts and broadcasts operands to a common dtype (or the given one) and shape.
std::vector<NodePtr> promote_and_broadcast(const std::vector<NodePtr> &xs, ResultType type);

// Whether x's values can be read: it is not being traced (inside jit or a transformation).
bool is_concrete(const Array &x);
// JAX's ConcretizationTypeError with message `what` when x is being traced (inside jit or a
// transformation): a size that depends on x's values needs a concrete x.
void require_concrete(const Array &x, const std::string &what);

// numpy.finfo(dtype).eps of a float dtype (float64's for any other).
double epsilon(DType dtype);

// x, or x in the default float type when it is integer or bool (keeping its weak type): the
// operand of functions NumPy defines on floats.
Array to_inexact(const Array &x);

// x[..., lo:hi] along axis (Python's slice rules for lo and hi; axis may be negative).
Array slice_along(const Array &x, int64_t axis, std::optional<int64_t> lo,
                  std::optional<int64_t> hi);

// Literal scalar node of dtype.
NodePtr scalar_node(double value, DType dtype);

// [0, 1, ..., n-1]
std::vector<int64_t> iota_vector(int64_t n);

// numpy's reshape of `size` elements to `shape`, with one -1 inferred; ShapeError (ValueError for
// bad -1s and negative sizes) as numpy otherwise.
Shape resolve_reshape(int64_t size, const Shape &shape);

// numpy.array2string(a, prefix=..., suffix=..., max_line_width=...) for an array whose elements
// are already text, given row-major: the body only, its lines wrapped and indented as if the
// prefix stood before it and the suffix after it.
std::string array2string(const Shape &shape, const std::vector<std::string> &elements,
                         size_t prefix_size, size_t suffix_size, int64_t max_line_width);

} // namespace jx::api
