// Executes fusion steps in order, freeing intermediate buffers after their last reader.
#include "jit/executor.h"

#include <unordered_map>

#include "jit/jit.h"
#include "passes/fusion.h"
#include "random/threefry.h"

namespace jx::jit {

std::vector<runtime::BufferPtr> execute(const std::vector<ir::NodePtr> &roots) {
  std::vector<passes::Step> steps = passes::plan_steps(roots);
  std::unordered_map<const ir::Node *, int> reads;
  for (const passes::Step &s : steps)
    for (const ir::Node *in : s.plan.inputs)
      ++reads[in];
  for (const ir::NodePtr &r : roots)
    ++reads[r.get()];

  std::unordered_map<const ir::Node *, runtime::BufferPtr> values;
  for (const passes::Step &s : steps) {
    const ir::Node &n = *s.node;
    switch (s.kind) {
    case passes::Step::Kind::Buffer: values[&n] = n.realized() ? n.realized() : n.data; continue;
    case passes::Step::Kind::Random: {
      runtime::BufferPtr out = runtime::make_buffer(n.size() * itemsize(n.dtype));
      random_impl::uniform01({uint32_t(n.attrs[0]), uint32_t(n.attrs[1])}, n.shape, n.dtype,
                             out->data());
      values[&n] = std::move(out);
      continue;
    }
    case passes::Step::Kind::Kernel: break;
    }
    runtime::BufferPtr out = runtime::make_buffer(n.size() * itemsize(n.dtype));
    if (n.size() > 0) {
      std::shared_ptr<const CompiledKernel> kernel = compile(s.plan);
      std::vector<void *> buffers{out->data()};
      for (const ir::Node *in : s.plan.inputs)
        buffers.push_back(values.at(in)->data());
      kernel->fn(0, s.plan.outer_extent(), buffers.data());
    }
    values[&n] = std::move(out);
    for (const ir::Node *in : s.plan.inputs)
      if (--reads[in] == 0) values.erase(in);
  }
  std::vector<runtime::BufferPtr> out;
  for (const ir::NodePtr &r : roots)
    out.push_back(values.at(r.get()));
  return out;
}

} // namespace jx::jit
