// Graph IR nodes: immutable, hash-consed (structural CSE at construction), shared by pointer.
#pragma once

#include <jx/dtype.h>
#include <jx/shape.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "ir/op.h"
#include "runtime/buffer.h"

namespace jx::ir {

struct Node;
using NodePtr = std::shared_ptr<const Node>;

// A sub-graph of a control-flow op (ops.def's Control ops): its outputs as functions of its
// params, Parameter nodes of the region's own trace (position i: the op's input i, or operand i).
struct Region {
  std::vector<NodePtr> params, outputs;
};
using Regions = std::vector<Region>;

// Everything that defines a node; two equal specs make one node.
struct NodeSpec {
  Op op;
  DType dtype;
  bool weak = false; // JAX weak type: a C++ scalar that has not met a strongly typed array
  Shape shape{};
  std::vector<NodePtr> inputs{};
  std::vector<int64_t> attrs{};
  // Literal value: exact in one of these, by dtype kind.
  double fvalue = 0;
  int64_t ivalue = 0;
  runtime::BufferPtr data{};                // Constant only (compared by identity)
  std::shared_ptr<const Regions> regions{}; // Control ops only (compared by identity)
};

struct Node : NodeSpec {
  explicit Node(NodeSpec spec, size_t hash) : NodeSpec(std::move(spec)), hash(hash) {}
  ~Node();
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;

  int64_t size() const { return shape_size(shape); }
  int64_t ndim() const { return static_cast<int64_t>(shape.size()); }
  const OpInfo &info() const { return op_info(op); }

  // The value once computed; filled by the evaluation entry point (api/realize).
  runtime::BufferPtr realized() const {
    std::lock_guard lock(realize_mutex);
    return realized_data;
  }
  // A constant's data or the realized value (null if neither); raises jx::Error when that memory
  // was donated to a jit call (donate_argnums), as jax does for a deleted array.
  // Also raises for a buffer holding only this process's shards of a multi-process array, as
  // JAX does when a value spans non-addressable devices.
  runtime::BufferPtr value() const;
  // value(), with a partial buffer as it is: what a multi-process jit call passes on.
  runtime::BufferPtr local_value() const;
  // Waits until no thread holds a GraphReadLock: a graph walk never sees a node change from
  // pending to realized halfway through.
  void set_realized(runtime::BufferPtr buffer) const;

  const size_t hash;

  // How many live nodes take this one as an input.
  int64_t consumers() const { return consumer_count.load(std::memory_order_relaxed); }
  // The longest path of pending nodes ending here (0 once realized or a leaf's data is known).
  int64_t pending_depth() const { return depth.load(std::memory_order_relaxed); }

private:
  friend NodePtr make_node(NodeSpec spec);
  mutable std::atomic<int64_t> consumer_count{0};
  mutable std::atomic<int64_t> depth{0};
  mutable std::mutex realize_mutex;
  mutable runtime::BufferPtr realized_data;
};

// Held by whatever walks a graph and must see one realized() state throughout (topological
// orders, pass pipelines, evaluation): set_realized waits for every holder. Re-entrant within a
// thread; a thread holding it must not realize nodes.
class GraphReadLock {
public:
  GraphReadLock();
  ~GraphReadLock();
  GraphReadLock(const GraphReadLock &) = delete;
  GraphReadLock &operator=(const GraphReadLock &) = delete;
};

// Returns the existing node equal to spec, or a new one. Thread-safe. Does not check spec:
// the builders in ir/builder.h do (and the verifier re-checks).
NodePtr make_node(NodeSpec spec);

// Number of live nodes in the intern table (for tests).
size_t live_node_count();

} // namespace jx::ir
