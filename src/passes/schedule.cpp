// Memory-aware step order (schedule.h).
#include "passes/schedule.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace jx::passes {
namespace {

// More steps than this keep the given order: the list scheduler is quadratic in the worst case.
constexpr size_t max_scheduled_steps = 4096;

// Values a step defines and reads, as indices into one table of values.
struct Dependences {
  std::vector<std::vector<int>> defines, reads; // per step
  std::vector<int> producer;                    // per value: its step
  std::vector<size_t> bytes;                    // per value: 0 for arguments and constants
  std::vector<bool> output;                     // per value
};

Dependences dependences(const std::vector<Step> &steps, const std::vector<ir::NodePtr> &outputs) {
  Dependences d;
  std::unordered_map<const ir::Node *, int> value;
  std::unordered_set<const ir::Node *> is_output;
  for (const ir::NodePtr &o : outputs)
    is_output.insert(o.get());
  d.defines.resize(steps.size());
  d.reads.resize(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step &s = steps[i];
    const bool computed = s.kind == Step::Kind::Kernel || s.kind == Step::Kind::Contraction ||
                          s.kind == Step::Kind::Random || s.kind == Step::Kind::Control;
    std::vector<const ir::Node *> defined;
    if (s.kind == Step::Kind::Kernel || s.kind == Step::Kind::Contraction ||
        s.kind == Step::Kind::Control)
      for (const ir::NodePtr &r : s.plan.roots)
        defined.push_back(r.get());
    else
      defined.push_back(s.node.get());
    for (const ir::Node *n : defined) {
      const int v = int(d.producer.size());
      value[n] = v;
      d.defines[i].push_back(v);
      d.producer.push_back(int(i));
      d.bytes.push_back(computed ? size_t(n->size()) * itemsize(n->dtype) : 0);
      d.output.push_back(is_output.count(n) > 0);
    }
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    for (const ir::Node *in : steps[i].plan.inputs)
      d.reads[i].push_back(value.at(in));
    std::sort(d.reads[i].begin(), d.reads[i].end());
    d.reads[i].erase(std::unique(d.reads[i].begin(), d.reads[i].end()), d.reads[i].end());
  }
  return d;
}

// Live bytes at the worst step of order (indices of steps).
size_t peak(const Dependences &d, const std::vector<size_t> &order) {
  std::vector<int> readers(d.producer.size(), 0);
  for (const auto &r : d.reads)
    for (int v : r)
      ++readers[size_t(v)];
  size_t live = 0, worst = 0;
  for (size_t i : order) {
    for (int v : d.defines[i])
      live += d.bytes[size_t(v)];
    worst = std::max(worst, live);
    for (int v : d.defines[i])
      if (readers[size_t(v)] == 0 && !d.output[size_t(v)]) live -= d.bytes[size_t(v)]; // unread
    for (int v : d.reads[i])
      if (--readers[size_t(v)] == 0 && !d.output[size_t(v)]) live -= d.bytes[size_t(v)];
  }
  return worst;
}

std::vector<size_t> list_schedule(const Dependences &d, size_t count) {
  std::vector<int> readers(d.producer.size(), 0), waiting(count, 0);
  std::vector<std::vector<size_t>> dependents(count);
  for (size_t i = 0; i < count; ++i)
    for (int v : d.reads[i]) {
      ++readers[size_t(v)];
      ++waiting[i];
      dependents[size_t(d.producer[size_t(v)])].push_back(i);
    }
  std::vector<size_t> ready, order;
  for (size_t i = 0; i < count; ++i)
    if (waiting[i] == 0) ready.push_back(i);
  auto gain = [&](size_t i) {
    long long g = 0;
    for (int v : d.reads[i])
      if (readers[size_t(v)] == 1 && !d.output[size_t(v)]) g += (long long)d.bytes[size_t(v)];
    for (int v : d.defines[i])
      g -= (long long)d.bytes[size_t(v)];
    return g;
  };
  while (!ready.empty()) {
    auto best = ready.begin();
    long long best_gain = gain(*best);
    for (auto it = ready.begin() + 1; it != ready.end(); ++it)
      if (const long long g = gain(*it); g > best_gain || (g == best_gain && *it < *best)) {
        best = it;
        best_gain = g;
      }
    const size_t i = *best;
    ready.erase(best);
    order.push_back(i);
    for (int v : d.reads[i])
      --readers[size_t(v)];
    for (size_t j : dependents[i])
      if (--waiting[j] == 0) ready.push_back(j);
  }
  return order;
}

} // namespace

size_t peak_live_bytes(const std::vector<Step> &steps, const std::vector<ir::NodePtr> &outputs) {
  std::vector<size_t> order(steps.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  return peak(dependences(steps, outputs), order);
}

std::vector<Step> schedule_for_memory(std::vector<Step> steps,
                                      const std::vector<ir::NodePtr> &outputs) {
  if (steps.size() > max_scheduled_steps) return steps;
  const Dependences d = dependences(steps, outputs);
  std::vector<size_t> given(steps.size());
  for (size_t i = 0; i < given.size(); ++i)
    given[i] = i;
  const std::vector<size_t> listed = list_schedule(d, steps.size());
  if (peak(d, listed) >= peak(d, given)) return steps;
  std::vector<Step> ordered;
  ordered.reserve(steps.size());
  for (size_t i : listed)
    ordered.push_back(std::move(steps[i]));
  return ordered;
}

} // namespace jx::passes
