// Fusion into kernels: materialization decisions, then one KernelPlan per materialized node.
#include "passes/fusion.h"

#include <jx/error.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "ir/printer.h"
#include "passes/schedule.h"

namespace jx::passes {
namespace {

using ir::Node;
using ir::Op;
using ir::OpKind;

// Cheap enough to recompute in every consumer: literals, iotas, buffers (including nodes already
// chosen to be materialized), and movement ops (index arithmetic, selects) or casts over those.
constexpr int max_inline_depth = 64;

// A concatenation of this many operands read by another one is materialized (see plan_steps).
constexpr size_t min_concat_level = 16;

// Multi-output fusion merges kernels while their inputs together stay this few, and the nodes
// they compute inline this many: merging the levels of a large concatenation would make one
// kernel branching over every piece again.
constexpr size_t max_merged_inputs = 64;
constexpr size_t max_merged_nodes = 512;
constexpr size_t max_searched_groups = 4096;

// Per-element cost of an op computed inline, in units of one arithmetic op (ops.def's cost):
// transcendental functions, divisions and powers cost many; index arithmetic and casts nothing.
int op_work(const Node &n) {
  switch (ir::op_info(n.op).cost) {
  case ir::Cost::Free: return 0;
  case ir::Cost::Cheap: return 1;
  case ir::Cost::Costly: return 16;
  case ir::Cost::Loop: return 1 << 20;
  }
  return 1;
}

// Work worth a buffer when it would be repeated under a broadcast: this many arithmetic ops per
// element, or any transcendental function, division or power.
constexpr int hoist_threshold = 4;

// Work shared by several kernels worth a buffer: a transcendental function, division or power
// per element, over an array in this range of sizes (larger ones cost a pass over memory to read
// back; a handful of elements is recomputed as cheaply).
constexpr int op_work_costly = 16;
constexpr int64_t min_shared_elements = 256, max_shared_elements = 1 << 16;

// Arrays of this many bytes and more outgrow the caches: a buffer of one is written to memory and
// read back, 16 bytes of traffic a float64 element or more, which takes two threads longer than
// recomputing it at each place it is read, up to max_uncached_repeat_work ops per element (hdiff:
// its Laplacian and fluxes, 21 MB each, read at two places each, 13.1 -> 5.2 ms inline).
constexpr int64_t min_uncached_bytes = int64_t(2) << 20;
constexpr int max_uncached_repeat_work = 16;

// The per-element cost of computing n inline, stopping at nodes with buffers, and at `cap`.
// Shared subexpressions count once; `per_place`, what is read at other places (through a
// movement op) counts once per place, as it will run: a stencil of a stencil costs the inner one
// per point of the outer.
int inline_work(const Node &n, const std::unordered_set<const Node *> &buffers,
                std::unordered_set<const Node *> &seen, int cap = 1 << 20, bool per_place = false) {
  if (buffers.count(&n) || n.realized() || !seen.insert(&n).second) return 0;
  int work = op_work(n);
  for (const ir::NodePtr &in : n.inputs) {
    if (work > cap) break;
    if (per_place && op_kind(n.op) == OpKind::Movement) {
      std::unordered_set<const Node *> elsewhere;
      work += inline_work(*in, buffers, elsewhere, cap, per_place);
    } else {
      work += inline_work(*in, buffers, seen, cap, per_place);
    }
  }
  return std::min(work, cap + 1);
}

// Work that consumers reading it at other indices recompute rather than read from a buffer:
// fewer arithmetic ops per element than a hoisted buffer is worth, and nothing costly. A
// stencil's differences (and their gradient's) cost a pass over memory when stored, two
// subtractions when recomputed; stencils of stencils reach the threshold within a few levels.
// An array beyond the caches is recomputed up to its memory traffic's worth of work.
bool cheap_to_repeat(const Node &n, const std::unordered_set<const Node *> &buffers) {
  std::unordered_set<const Node *> seen;
  if (inline_work(n, buffers, seen) < hoist_threshold) return true;
  if (n.size() < min_uncached_bytes / int64_t(itemsize(n.dtype))) return false;
  seen.clear();
  return inline_work(n, buffers, seen, max_uncached_repeat_work, true) < max_uncached_repeat_work;
}

// A literal, or a broadcast or cast of one: what NumPy handles as a scalar inside a loop.
bool scalar(const Node &n) {
  if (n.op == Op::Literal) return true;
  return (n.op == Op::Broadcast || n.op == Op::Convert || n.op == Op::Reshape) &&
         scalar(*n.inputs[0]);
}

bool trivial(const Node &n, std::unordered_map<const Node *, bool> &memo,
             const std::unordered_set<const Node *> &buffers = {}) {
  if (auto it = memo.find(&n); it != memo.end()) return it->second;
  bool result = false;
  if (buffers.count(&n) || n.realized() || n.op == Op::Literal || n.op == Op::Iota ||
      n.op == Op::Constant || n.op == Op::Parameter) {
    result = true;
  } else if (op_kind(n.op) == OpKind::Movement || n.op == Op::Convert) {
    result = std::all_of(n.inputs.begin(), n.inputs.end(),
                         [&](const ir::NodePtr &in) { return trivial(*in, memo, buffers); });
  }
  memo[&n] = result;
  return result;
}

// Kernels that multi-output fusion may merge, and which of them share a loop nest: elementwise
// kernels of one shape, or row reductions (sum, prod, max or min over the same axes of operands
// of one shape, not over the operands' last axis, to an output of rank >= 1: the code generator
// accumulates them into rows of their outputs, each in its own order, so the bits are those of
// the kernels apart).
bool elementwise(const Step &s) {
  const OpKind kind = op_kind(s.node->op);
  // An update of its operand costs the update's size alone, in place: merged, the array's.
  // A scan's kernel runs its loop over tiles of its own results alone.
  return s.kind == Step::Kind::Kernel && kind != OpKind::Reduce && kind != OpKind::Contraction &&
         s.node->size() > 0 && !update_in_place(s.plan) && s.node->op != Op::Result;
}
bool row_reduction(const Step &s) {
  const Node &n = *s.node;
  if (s.kind != Step::Kind::Kernel || n.size() == 0 || n.shape.empty() || n.dtype == DType::bool_ ||
      n.attrs.empty())
    return false;
  const bool reduction = n.op == Op::ReduceSum || n.op == Op::ReduceProd || n.op == Op::ReduceMax ||
                         n.op == Op::ReduceMin;
  return reduction && n.attrs.back() != n.inputs[0]->ndim() - 1;
}
bool mergeable(const Step &s) { return elementwise(s) || row_reduction(s); }
bool same_nest(const Step &a, const Step &b) {
  if (elementwise(a)) return elementwise(b) && a.node->shape == b.node->shape;
  return row_reduction(b) && a.node->attrs == b.node->attrs &&
         a.node->inputs[0]->shape == b.node->inputs[0]->shape;
}

// Multi-output fusion: mergeable kernels of one loop nest run as one kernel, computing what they
// share once per element (the Simpson seed's hoisted exp(-x), log|x| and tests on x all read one
// x; its gradient's reductions over the functions all read the integrand's powers): XLA's
// multi-output fusion of siblings. A kernel joins a group only when it does not depend on a
// member, directly or through other steps; the merged steps are then put back in a dependency
// order.
std::vector<Step> merge_siblings(std::vector<Step> steps) {
  std::unordered_map<const Node *, size_t> producer;
  for (size_t i = 0; i < steps.size(); ++i) {
    producer[steps[i].node.get()] = i;
    for (const ir::NodePtr &root : steps[i].plan.roots) // a control op's results
      producer[root.get()] = i;
  }
  // Groups and the groups each one reads directly. A step joins a group only if the group is not
  // among what the step needs transitively (through steps outside it too), so the groups stay a
  // DAG. That is a search of what the step reads, bounded: past max_searched_groups (a long
  // chain, whose steps could never merge) the step stays alone, where transitive sets per group
  // would take memory quadratic in the steps (5.8 GB for a chain of 15,000 kernels).
  std::vector<std::vector<size_t>> groups;
  std::vector<std::unordered_set<size_t>> deps;
  std::vector<size_t> group_of(steps.size());
  std::vector<size_t> open_groups; // groups of mergeable kernels, in order
  std::vector<std::unordered_set<const Node *>> group_inputs;
  std::vector<size_t> group_nodes, step_nodes(steps.size(), 0);
  auto size_of = [&](size_t i) {
    if (!step_nodes[i]) step_nodes[i] = steps[i].plan.inline_node_count();
    return step_nodes[i];
  };
  auto merged_inputs = [&](size_t g, const Step &step) {
    size_t count = group_inputs[g].size();
    for (const Node *in : step.plan.inputs)
      count += !group_inputs[g].count(in);
    return count;
  };
  for (size_t i = 0; i < steps.size(); ++i) {
    std::unordered_set<size_t> direct;
    for (const Node *in : steps[i].plan.inputs)
      direct.insert(group_of[producer.at(in)]);
    size_t g = groups.size();
    if (mergeable(steps[i]) && !open_groups.empty()) {
      std::unordered_set<size_t> step_needs(direct);
      std::vector<size_t> stack(direct.begin(), direct.end());
      while (!stack.empty() && step_needs.size() <= max_searched_groups) {
        const size_t h = stack.back();
        stack.pop_back();
        for (size_t d : deps[h])
          if (step_needs.insert(d).second) stack.push_back(d);
      }
      if (step_needs.size() <= max_searched_groups)
        for (size_t candidate : open_groups) {
          const Step &first = steps[groups[candidate][0]];
          if (same_nest(first, steps[i]) && !step_needs.count(candidate) &&
              merged_inputs(candidate, steps[i]) <= max_merged_inputs &&
              group_nodes[candidate] + size_of(i) <= max_merged_nodes) {
            g = candidate;
            break;
          }
        }
    }
    if (g == groups.size()) {
      groups.emplace_back();
      deps.emplace_back();
      group_inputs.emplace_back();
      group_nodes.push_back(0);
      if (mergeable(steps[i])) open_groups.push_back(g);
    }
    groups[g].push_back(i);
    group_of[i] = g;
    deps[g].insert(direct.begin(), direct.end());
    group_inputs[g].insert(steps[i].plan.inputs.begin(), steps[i].plan.inputs.end());
    if (mergeable(steps[i])) group_nodes[g] += size_of(i);
  }
  // Merged plans: the members' roots, and their inputs without repeats.
  std::vector<Step> merged;
  for (const std::vector<size_t> &members : groups) {
    Step step = std::move(steps[members[0]]);
    for (size_t k = 1; k < members.size(); ++k) {
      passes::KernelPlan &plan = steps[members[k]].plan;
      step.plan.roots.push_back(plan.roots[0]);
      for (const Node *in : plan.inputs)
        if (std::find(step.plan.inputs.begin(), step.plan.inputs.end(), in) ==
            step.plan.inputs.end())
          step.plan.inputs.push_back(in);
    }
    merged.push_back(std::move(step));
  }
  // Dependency order of the groups: each group after every group it needs.
  std::vector<Step> ordered;
  std::vector<bool> done(groups.size(), false);
  while (ordered.size() < groups.size()) {
    const size_t before = ordered.size();
    for (size_t g = 0; g < groups.size(); ++g)
      if (!done[g] &&
          std::all_of(deps[g].begin(), deps[g].end(), [&](size_t d) { return done[d]; })) {
        done[g] = true;
        ordered.push_back(std::move(merged[g]));
      }
    if (ordered.size() == before) throw Error("internal: multi-output fusion made a cycle");
  }
  return ordered;
}

} // namespace

std::vector<Step> plan_steps(const std::vector<ir::NodePtr> &roots, bool fuse,
                             bool sequential_loops) {
  const std::vector<const Node *> order = ir::topological_order(roots);
  std::unordered_map<const Node *, ir::NodePtr> owner;
  // Users of each node, and how many read it through an index rewrite (a movement op): only
  // those read it at other indices than the consumer's own, where recomputing would repeat work.
  std::unordered_map<const Node *, int> users, remapped_users;
  // Concatenations of many operands read by another concatenation: the levels of a tree of them
  // (split_concatenates builds one for many pieces), each materialized so no kernel branches
  // over all the pieces.
  std::unordered_set<const Node *> concat_levels;
  for (const ir::NodePtr &r : roots)
    owner[r.get()] = r;
  for (const Node *n : order) {
    if (n->realized()) continue;
    for (const ir::NodePtr &in : n->inputs) {
      owner[in.get()] = in;
      ++users[in.get()];
      // Readers that repeat no work: a gather from a vector reads its indices at its own
      // positions, an update its operand, and a reader of a 64th of the elements or fewer (an
      // element or a row at a traced place) recomputes only those.
      const bool own_positions =
          (n->op == Op::Take && in == n->inputs[1] && n->inputs[0]->ndim() == 1) ||
          (is_update(*n) && in == n->inputs[0]);
      const bool few = n->size() <= in->size() / 64;
      if (op_kind(n->op) == OpKind::Movement && !own_positions && !few) ++remapped_users[in.get()];
      if (n->op == Op::Concatenate && in->op == Op::Concatenate &&
          in->inputs.size() >= min_concat_level)
        concat_levels.insert(in.get());
    }
  }
  std::unordered_set<const Node *> root_set;
  for (const ir::NodePtr &r : roots)
    root_set.insert(r.get());

  // Contractions through BLAS, and the buffers they read.
  std::unordered_map<const Node *, GemmPlan> gemms;
  std::unordered_set<const Node *> gemm_operands;
  if (fuse)
    for (const Node *n : order)
      if (n->op == Op::DotGeneral && !n->realized())
        if (std::optional<GemmPlan> g = plan_gemm(*n)) {
          gemm_operands.insert({g->lhs, g->rhs});
          gemms[n] = *g;
        }

  // Loops that run inside a kernel, with the results that kernel writes: scans per element
  // (scan_kernel_veto), every result read of the carries' shape (a 0-d result read elsewhere keeps
  // the scan a step); loops run step by step (sequential_loop_veto), the carries they change
  // (read or not), the largest first (the one the runtime hands its operand's memory; the kernel
  // copies the others' initial values), then any 0-d carries read.
  std::unordered_map<const Node *, std::vector<ir::NodePtr>> kernel_scans;
  std::unordered_set<const Node *> sequential;
  if (fuse) {
    std::unordered_map<const Node *, bool> eligible;
    for (const Node *n : order) {
      if ((n->op != Op::Scan && n->op != Op::While) || n->realized()) continue;
      if (n->op == Op::Scan && scan_kernel_veto(*n).empty()) {
        eligible[n] = true;
      } else if (sequential_loops && sequential_loop_veto(*n).empty()) {
        eligible[n] = true;
        sequential.insert(n);
      }
    }
    for (const Node *n : order)
      if (n->op == Op::Result && eligible.count(n->inputs[0].get())) {
        const Node *loop = n->inputs[0].get();
        if (sequential.count(loop)) {
          const std::vector<size_t> changed = sequential_loop_carries(*loop);
          if (!n->shape.empty() &&
              std::find(changed.begin(), changed.end(), size_t(n->attrs[0])) == changed.end())
            eligible[loop] = false;
        } else if (n->shape != scan_carry_shape(*loop)) {
          eligible[loop] = false;
        }
        kernel_scans[loop].push_back(owner.at(n));
      }
    // A changed carry no one reads still lives between steps: an output of its own, unread.
    for (const Node *loop : sequential) {
      std::vector<ir::NodePtr> &results = kernel_scans[loop];
      if (!eligible[loop] || results.empty()) continue;
      for (size_t k : sequential_loop_carries(*loop))
        if (std::none_of(results.begin(), results.end(),
                         [&](const ir::NodePtr &r) { return size_t(r->attrs[0]) == k; }))
          results.push_back(ir::result(results[0]->inputs[0], int64_t(k)));
    }
    for (const auto &[scan, ok] : eligible)
      if (!ok) kernel_scans.erase(scan);
    for (auto &[scan, results] : kernel_scans) {
      const bool by_size = sequential.count(scan) > 0;
      std::sort(results.begin(), results.end(), [&](const ir::NodePtr &a, const ir::NodePtr &b) {
        auto key = [&](const ir::NodePtr &r) {
          return std::tuple(by_size && r->shape.empty(),
                            by_size ? -r->size() * int64_t(itemsize(r->dtype)) : 0, r->attrs[0]);
        };
        return key(a) < key(b);
      });
    }
  }

  // Control flow runs its regions as programs of their own, and library ops are routines on
  // buffers: what they read is in buffers.
  std::unordered_set<const Node *> control_operands;
  for (const Node *n : order)
    if ((op_kind(n->op) == OpKind::Control || op_kind(n->op) == OpKind::Library) &&
        n->op != Op::Result && !n->realized())
      for (const ir::NodePtr &in : n->inputs)
        control_operands.insert(in.get());

  // A root updating part of its operand (x.at[i].set(v), a dynamic_update_slice) runs in place
  // when its update reads x only where it writes; an update reading x elsewhere (a row moved to
  // another) gets a buffer of its own, computed first, so that the root still can. An operand
  // that is an update too (x.at[i].add(1).at[j].set(0)) gets one as well: a chain of updates in
  // place.
  std::unordered_set<const Node *> separate_updates;
  // So does an update that a loop or a library routine reads (a row of a carry rewritten before
  // an inner loop takes it).
  std::vector<const Node *> updates;
  if (fuse) {
    for (const ir::NodePtr &r : roots)
      if (is_update(*r)) updates.push_back(r.get());
    for (const Node *n : order)
      if (control_operands.count(n) && !root_set.count(n) && is_update(*n)) updates.push_back(n);
  }
  while (!updates.empty()) {
    const Node *u = updates.back();
    updates.pop_back();
    // What the update reads short of the roots and the loops' operands, which have buffers anyway
    // (another carry's update, computed before).
    KernelPlan probe{{owner.at(u)}, {u->inputs[0].get()}};
    for (const ir::NodePtr &r : roots)
      if (r.get() != u && r.get() != u->inputs[0].get()) probe.inputs.push_back(r.get());
    for (const Node *n : order)
      if (control_operands.count(n) && n != u && n != u->inputs[0].get() && !root_set.count(n))
        probe.inputs.push_back(n);
    if (!update_in_place(probe)) separate_updates.insert(u->inputs[1].get());
    if (const Node *x = u->inputs[0].get(); is_update(*x) && separate_updates.insert(x).second)
      updates.push_back(x);
  }

  std::unordered_set<const Node *> hoisted, shared;
  // Materialization decisions in topological order, given the hoisted nodes.
  auto decide = [&] {
    std::unordered_set<const Node *> materialized;
    std::unordered_map<const Node *, bool> cheap_now; // trivial, given what is materialized so far
    // Inline depth of each node within its kernel; long chains are cut so kernels (and the
    // emitter's recursion) stay bounded.
    std::unordered_map<const Node *, int> depth;
    for (const Node *n : order) {
      const OpKind kind = op_kind(n->op);
      int d = 0;
      if (!n->realized())
        for (const ir::NodePtr &in : n->inputs)
          if (!materialized.count(in.get())) d = std::max(d, depth[in.get()] + 1);
      bool m = root_set.count(n) || n->realized() || n->op == Op::Constant ||
               n->op == Op::RandomUniform || n->op == Op::Parameter || kind == OpKind::Reduce ||
               kind == OpKind::Contraction ||
               (users[n] > 1 && remapped_users[n] > 0 && !n->shape.empty() &&
                !trivial(*n, cheap_now, materialized) && !cheap_to_repeat(*n, materialized)) ||
               (kind == OpKind::Control && !kernel_scans.count(n)) || kind == OpKind::Library ||
               control_operands.count(n) || hoisted.count(n) || shared.count(n) ||
               gemm_operands.count(n) || concat_levels.count(n) || separate_updates.count(n) ||
               d >= max_inline_depth || (!fuse && !scalar(*n));
      if (m) materialized.insert(n);
      depth[n] = m ? 0 : d;
    }
    return materialized;
  };
  // Work under an expanding broadcast would be repeated for every copy: compute it once into a
  // (small) buffer instead. With sink_movement having moved elementwise ops below broadcasts,
  // this is what hoists exp(-x), log(x) and pow's special-case tests on x out of the Simpson
  // seed's function axis. What has a buffer anyway is free to read; so is what was hoisted
  // already, hence the topological order. 0-d work is not repeated: it does not depend on the
  // element, so each kernel reading it computes it once, outside its loops, which costs less
  // than a kernel of its own (a loop step's coefficients and clamped indices).
  std::unordered_set<const Node *> buffers = decide();
  std::unordered_set<const Node *> under_broadcast;
  for (const Node *n : order)
    if (n->op == Op::Broadcast && !n->realized() && n->size() > n->inputs[0]->size()) {
      // A reshape or unit-axis insertion adds no work: the values worth a buffer are those it
      // reads.
      const Node *x = n->inputs[0].get();
      while (
          (x->op == Op::Reshape || (x->op == Op::Broadcast && x->size() == x->inputs[0]->size())) &&
          !x->realized())
        x = x->inputs[0].get();
      under_broadcast.insert(x);
    }
  for (const Node *n : order) {
    std::unordered_set<const Node *> seen;
    if (under_broadcast.count(n) && !n->shape.empty() &&
        inline_work(*n, buffers, seen) >= hoist_threshold) {
      hoisted.insert(n);
      buffers.insert(n);
    }
  }
  // Costly work that several kernels would each compute in full (nbody's pow(r, -1.5), read by
  // three products) gets a buffer of its own where it fits in the cache: reading it back costs
  // less than the work. Consumers first, so the buffer holds the last costly value they share.
  if (fuse) {
    std::unordered_map<const Node *, std::vector<const Node *>> readers;
    for (const Node *n : order)
      if (!n->realized())
        for (const ir::NodePtr &in : n->inputs)
          readers[in.get()].push_back(n);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Node *n = *it;
      if (buffers.count(n) || n->realized() || n->size() < min_shared_elements ||
          n->size() > max_shared_elements)
        continue;
      std::unordered_set<const Node *> seen;
      if (inline_work(*n, buffers, seen) < op_work_costly) continue;
      // The kernels computing n inline: the buffers its readers reach without crossing one.
      std::unordered_set<const Node *> kernels, visited{n};
      std::vector<const Node *> stack{n};
      while (!stack.empty() && kernels.size() < 2) {
        const Node *c = stack.back();
        stack.pop_back();
        for (const Node *r : readers[c])
          if (visited.insert(r).second) {
            if (buffers.count(r))
              kernels.insert(r);
            else
              stack.push_back(r);
          }
      }
      if (kernels.size() >= 2) {
        shared.insert(n);
        buffers.insert(n);
      }
    }
  }
  const std::unordered_set<const Node *> materialized = decide();

  // One step per materialized node, in topological order.
  std::vector<Step> steps;
  for (const Node *n : order) {
    if (!materialized.count(n)) continue;
    ir::NodePtr node = owner.at(n);
    if (n->realized() || n->op == Op::Constant) {
      steps.push_back({Step::Kind::Buffer, node, {}});
    } else if (n->op == Op::Parameter) {
      steps.push_back({Step::Kind::Parameter, node, {}});
    } else if (n->op == Op::RandomUniform) {
      steps.push_back({Step::Kind::Random, node, {}});
    } else if (n->op == Op::Result) {
      // Written by its control op's step, or by its scan's kernel: one kernel writing every
      // result, made at the first.
      auto scan = kernel_scans.find(n->inputs[0].get());
      if (scan == kernel_scans.end() || scan->second.empty()) continue;
      passes::KernelPlan plan{std::move(scan->second), {}};
      plan.sequential_loop = sequential.count(n->inputs[0].get()) > 0;
      if (plan.sequential_loop)
        if (const std::optional<LoopSplit> split = sequential_loop_split(*n->inputs[0]);
            split && worth_splitting(*n->inputs[0], *split)) {
          plan.loop_split = {split->extent};
          plan.loop_split_axis = split->axis;
          plan.loop_row_by_row = runs_row_by_row(*n->inputs[0], *split);
        }
      scan->second.clear();
      for (const ir::NodePtr &in : n->inputs[0]->inputs)
        if (std::find(plan.inputs.begin(), plan.inputs.end(), in.get()) == plan.inputs.end())
          plan.inputs.push_back(in.get());
      // What the regions read from memory of their own (a table), each a buffer step first.
      for (const ir::Region &region : *n->inputs[0]->regions)
        for (const ir::NodePtr &b : region_buffers(region))
          if (std::find(plan.inputs.begin(), plan.inputs.end(), b.get()) == plan.inputs.end()) {
            plan.inputs.push_back(b.get());
            steps.push_back({Step::Kind::Buffer, b, {}});
          }
      steps.push_back({Step::Kind::Kernel, plan.roots[0], std::move(plan)});
    } else if (op_kind(n->op) == OpKind::Control) {
      // Every result, used or not: the regions give them all.
      passes::KernelPlan plan{{}, {}};
      for (int64_t i = 0; i < ir::result_count(*n); ++i)
        plan.roots.push_back(ir::result(node, i));
      for (const ir::NodePtr &in : n->inputs)
        plan.inputs.push_back(in.get());
      steps.push_back({Step::Kind::Control, node, std::move(plan)});
    } else if (op_kind(n->op) == OpKind::Library) {
      passes::KernelPlan plan{{node}, {}};
      for (const ir::NodePtr &in : n->inputs)
        plan.inputs.push_back(in.get());
      steps.push_back({Step::Kind::Library, node, std::move(plan)});
    } else if (auto g = gemms.find(n); g != gemms.end()) {
      steps.push_back(
          {Step::Kind::Contraction, node, {{node}, {g->second.lhs, g->second.rhs}}, g->second});
    } else {
      // The kernel's inputs: materialized nodes reachable without crossing another one.
      passes::KernelPlan plan{{node}, {}};
      std::unordered_set<const Node *> seen{n};
      std::vector<const Node *> stack{n};
      while (!stack.empty()) {
        const Node *cur = stack.back();
        stack.pop_back();
        for (const ir::NodePtr &in : cur->inputs) {
          if (!seen.insert(in.get()).second) continue;
          if (materialized.count(in.get()))
            plan.inputs.push_back(in.get());
          else
            stack.push_back(in.get());
        }
      }
      plan.hoisted = hoisted.count(n) > 0;
      steps.push_back({Step::Kind::Kernel, node, std::move(plan)});
    }
  }
  if (fuse) steps = schedule_for_memory(merge_siblings(std::move(steps)), roots);
  for (Step &step : steps)
    if (step.kind == Step::Kind::Kernel) step.plan.collect_literals();
  return steps;
}

} // namespace jx::passes
