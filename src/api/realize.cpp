// Realizing a node: its value computed once (other threads asking for it wait), by the compiler or
// the reference evaluator (JX_BACKEND=interpreter).
#include "api/internal.h"

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string_view>
#include <unordered_set>

#include "compile/executable.h"
#include "interp/interp.h"

namespace jx::api {

namespace {

// The nodes being realized, so that a node is realized once: other threads asking for it wait.
struct Realizing {
  std::mutex mutex;
  std::condition_variable done;
  std::unordered_set<const ir::Node *> nodes;
};

Realizing &realizing() {
  static Realizing *r = new Realizing; // outlives static destructors
  return *r;
}

// This thread's claim to realize a node, taken once no other thread holds one.
class RealizeClaim {
public:
  explicit RealizeClaim(const ir::Node *node) : node_(node) {
    Realizing &r = realizing();
    std::unique_lock lock(r.mutex);
    r.done.wait(lock, [&] { return !r.nodes.count(node); });
    r.nodes.insert(node);
  }
  ~RealizeClaim() {
    Realizing &r = realizing();
    {
      std::lock_guard lock(r.mutex);
      r.nodes.erase(node_);
    }
    r.done.notify_all();
  }
  RealizeClaim(const RealizeClaim &) = delete;
  RealizeClaim &operator=(const RealizeClaim &) = delete;

private:
  const ir::Node *node_;
};

// JX_BACKEND=interpreter evaluates everything with the reference evaluator.
Backend default_backend() {
  static const Backend backend = [] {
    const char *env = std::getenv("JX_BACKEND");
    return env && std::string_view(env) == "interpreter" ? Backend::Interpreter : Backend::Compiler;
  }();
  return backend;
}
} // namespace

runtime::BufferPtr realize(const NodePtr &n) {
  if (runtime::BufferPtr done = n->value()) return done; // already data: nothing to run
  const RealizeClaim claim(n.get());
  if (runtime::BufferPtr done = n->value()) return done; // realized while this thread waited
  runtime::BufferPtr value = evaluate_with(default_backend(), n);
  n->set_realized(value);
  return value;
}

runtime::BufferPtr evaluate_with(Backend backend, const NodePtr &n) {
  ir::GraphReadLock graph_lock; // the graph stays as planned until its values are computed
  switch (backend) {
  case Backend::Interpreter: return interp::evaluate({n})[0];
  case Backend::Compiler: return compile::execute({n})[0];
  }
  throw Error("internal: unknown backend");
}

} // namespace jx::api
