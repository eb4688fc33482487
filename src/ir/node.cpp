// Hash-consing of graph nodes: a node is created once per distinct (op, dtype, shape, inputs,
// attrs, value); later requests return it. Entries are weak, so unused graphs are freed.
#include "ir/node.h"

#include <jx/error.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fmt/format.h>
#include <functional>
#include <shared_mutex>
#include <unordered_map>

namespace jx::ir {
namespace {

size_t mix(size_t seed, size_t v) {
  return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

size_t hash_spec(const NodeSpec &s) {
  size_t h = std::hash<int>()(static_cast<int>(s.op));
  h = mix(h, static_cast<size_t>(s.dtype));
  h = mix(h, s.weak);
  for (int64_t d : s.shape)
    h = mix(h, std::hash<int64_t>()(d));
  h = mix(h, s.shape.size());
  for (const NodePtr &in : s.inputs)
    h = mix(h, std::hash<const void *>()(in.get()));
  for (int64_t a : s.attrs)
    h = mix(h, std::hash<int64_t>()(a));
  h = mix(h, std::bit_cast<uint64_t>(s.fvalue));
  h = mix(h, static_cast<size_t>(s.ivalue));
  h = mix(h, std::hash<const void *>()(s.data.get()));
  h = mix(h, std::hash<const void *>()(s.regions.get()));
  return h;
}

bool same_spec(const NodeSpec &a, const NodeSpec &b) {
  return a.op == b.op && a.dtype == b.dtype && a.weak == b.weak && a.shape == b.shape &&
         a.inputs == b.inputs && a.attrs == b.attrs &&
         std::bit_cast<uint64_t>(a.fvalue) == std::bit_cast<uint64_t>(b.fvalue) &&
         a.ivalue == b.ivalue && a.data == b.data && a.regions == b.regions;
}

struct InternTable {
  std::mutex mutex;
  std::unordered_multimap<size_t, std::weak_ptr<const Node>> entries;
};

InternTable &table() {
  static InternTable *t = new InternTable; // never destroyed: nodes may outlive static teardown
  return *t;
}

// Readers hold it shared, set_realized exclusively. Threads count their own nesting, as a
// shared_mutex may not be locked twice by one thread.
std::shared_mutex &graph_mutex() {
  static std::shared_mutex *m = new std::shared_mutex; // outlives static destructors
  return *m;
}
thread_local int graph_read_depth = 0;

} // namespace

Node::~Node() {
  {
    InternTable &t = table();
    std::lock_guard lock(t.mutex);
    auto [first, last] = t.entries.equal_range(hash);
    for (auto it = first; it != last;)
      it = it->second.expired() ? t.entries.erase(it) : std::next(it);
  }
  for (const NodePtr &in : inputs)
    in->consumer_count.fetch_sub(1, std::memory_order_relaxed);
  // Inputs are released iteratively by the outermost destructor on this thread: a long chain of
  // nodes would otherwise recurse once per node and overflow the stack.
  thread_local std::vector<NodePtr> *pending = nullptr;
  if (pending) {
    for (NodePtr &in : inputs)
      pending->push_back(std::move(in));
    return;
  }
  std::vector<NodePtr> local;
  pending = &local;
  for (NodePtr &in : inputs)
    local.push_back(std::move(in));
  while (!local.empty()) {
    NodePtr n = std::move(local.back());
    local.pop_back();
    n.reset();
  }
  pending = nullptr;
}

GraphReadLock::GraphReadLock() {
  if (graph_read_depth++ == 0) graph_mutex().lock_shared();
}

GraphReadLock::~GraphReadLock() {
  if (--graph_read_depth == 0) graph_mutex().unlock_shared();
}

void Node::set_realized(runtime::BufferPtr buffer) const {
  if (graph_read_depth > 0)
    throw Error("internal: a node is realized while this thread walks a graph");
  std::unique_lock graph(graph_mutex());
  std::lock_guard lock(realize_mutex);
  depth.store(0, std::memory_order_relaxed);
  realized_data = std::move(buffer);
}

NodePtr make_node(NodeSpec spec) {
  // Every array's shape passes here: no element count or byte size downstream can wrap.
  checked_size(spec.shape, itemsize(spec.dtype));
  size_t h = hash_spec(spec);
  InternTable &t = table();
  // Candidates are released only after the lock: a last reference dropped under it would run
  // ~Node, which takes the lock too.
  std::vector<NodePtr> candidates;
  std::lock_guard lock(t.mutex);
  auto [first, last] = t.entries.equal_range(h);
  for (auto it = first; it != last; ++it) {
    if (NodePtr existing = it->second.lock()) {
      if (same_spec(*existing, spec)) return existing;
      candidates.push_back(std::move(existing));
    }
  }
  auto node = std::make_shared<const Node>(std::move(spec), h);
  int64_t depth = 0;
  for (const NodePtr &in : node->inputs) {
    in->consumer_count.fetch_add(1, std::memory_order_relaxed);
    depth = std::max(depth, in->depth.load(std::memory_order_relaxed) + 1);
  }
  node->depth.store(depth, std::memory_order_relaxed);
  t.entries.emplace(h, node);
  return node;
}

size_t live_node_count() {
  InternTable &t = table();
  std::lock_guard lock(t.mutex);
  size_t n = 0;
  for (auto &[h, w] : t.entries)
    n += !w.expired();
  return n;
}

runtime::BufferPtr Node::local_value() const {
  runtime::BufferPtr buffer = op == Op::Constant ? data : realized();
  if (buffer && buffer->deleted())
    throw Error(fmt::format("Array has been deleted with shape={}{}. Its memory was donated to a "
                            "jit call (donate_argnums).",
                            dtype_name(dtype), shape_str_compact(shape)));
  return buffer;
}

runtime::BufferPtr Node::value() const {
  runtime::BufferPtr buffer = local_value();
  if (buffer && buffer->partial())
    throw Error("Fetching value for `jax.Array` that spans non-addressable (non process local) "
                "devices is not possible. You can use "
                "`jax.experimental.multihost_utils.process_allgather` to print the global array "
                "or use `.addressable_shards` method of jax.Array to inspect the addressable "
                "(process local) shards.");
  return buffer;
}

} // namespace jx::ir
