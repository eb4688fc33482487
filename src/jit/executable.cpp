// Executable: fusion steps resolved to compiled kernels and buffer slots once; run() then only
// allocates outputs and launches kernels on the thread pool.
#include "jit/executable.h"
#include "jit/regions.h"

#include <jx/error.h>

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "interp/interp.h"
#include "ir/builder.h"
#include "ir/printer.h"
#include "passes/fusion.h"
#include "passes/pipeline.h"
#include "runtime/thread_pool.h"

namespace jx::backend {

namespace {
using runtime::min_chunk_elements;
// Elements a kernel visits per output element: a reduction or contraction visits its whole
// reduced extent.
int64_t work_per_element(const ir::Node &root) {
  int64_t work = 1;
  if (op_kind(root.op) == ir::OpKind::Reduce)
    work = std::max<int64_t>(1, root.inputs[0]->size()) / std::max<int64_t>(1, root.size());
  if (root.op == ir::Op::DotGeneral)
    for (int64_t axis : ir::dot_dims(root).lhs_contract)
      work *= root.inputs[0]->shape[axis];
  return work;
}

// Elements a kernel visits per row of its outer loop.
int64_t work_per_row(const ir::Node &root) {
  return root.size() / std::max<int64_t>(1, root.shape.empty() ? 1 : root.shape[0]) *
         work_per_element(root);
}

// What one kernel costs: every node it computes inline, at the node's own element count (as XLA's
// cost analysis counts per instruction), plus the bytes of its buffers.
Executable::Cost kernel_cost(const codegen::KernelPlan &plan) {
  Executable::Cost cost;
  std::unordered_set<const ir::Node *> inputs(plan.inputs.begin(), plan.inputs.end()), seen;
  std::vector<const ir::Node *> stack;
  for (const ir::NodePtr &root : plan.roots)
    if (seen.insert(root.get()).second) stack.push_back(root.get());
  while (!stack.empty()) {
    const ir::Node *n = stack.back();
    stack.pop_back();
    const double size = double(n->size());
    switch (op_kind(n->op)) {
    case ir::OpKind::Unary:
    case ir::OpKind::Binary:
    case ir::OpKind::Ternary:
      if (ir::is_libm_function(n->op) || n->op == ir::Op::Sqrt || n->op == ir::Op::ErfInv)
        cost.transcendentals += size;
      else if (n->op != ir::Op::Convert)
        cost.flops += size;
      break;
    case ir::OpKind::Reduce: cost.flops += double(n->inputs[0]->size()); break;
    case ir::OpKind::Contraction: {
      double k = 1;
      for (int64_t axis : ir::dot_dims(*n).lhs_contract)
        k *= double(n->inputs[0]->shape[axis]);
      cost.flops += 2 * size * k;
      break;
    }
    case ir::OpKind::Leaf:
    case ir::OpKind::Movement: break;
    }
    for (const ir::NodePtr &in : n->inputs)
      if (!inputs.count(in.get()) && seen.insert(in.get()).second) stack.push_back(in.get());
  }
  for (const ir::NodePtr &root : plan.roots)
    cost.bytes_accessed += double(root->size() * itemsize(root->dtype));
  for (const ir::Node *in : plan.inputs)
    cost.bytes_accessed += double(in->size() * itemsize(in->dtype));
  return cost;
}

// Whether the kernel reads p only at the index it writes: every path from a root to p runs through
// elementwise ops (the emitter computes an element's values before storing them).
bool reads_in_place(const codegen::KernelPlan &plan, const ir::Node *p) {
  std::unordered_map<const ir::Node *, bool> reaches;
  bool in_place = true;
  std::function<bool(const ir::Node *)> visit = [&](const ir::Node *n) {
    if (n == p) return true;
    if (auto it = reaches.find(n); it != reaches.end()) return it->second;
    bool found = false;
    if (std::find(plan.inputs.begin(), plan.inputs.end(), n) == plan.inputs.end())
      for (const ir::NodePtr &in : n->inputs)
        found = visit(in.get()) || found;
    if (found && !ir::is_elementwise(n->op)) in_place = false;
    reaches[n] = found;
    return found;
  };
  for (const ir::NodePtr &root : plan.roots)
    visit(root.get());
  return in_place;
}

} // namespace

// The distinct boxes of a placement (replicas compute once), or none when one box is the whole
// array.
Placement distinct_boxes(const Placement &placement, const Shape &shape) {
  Placement out;
  for (const DeviceBox &b : placement)
    if (std::none_of(out.begin(), out.end(),
                     [&](const DeviceBox &o) { return o.lo == b.lo && o.hi == b.hi; }))
      out.push_back(b);
  if (out.size() == 1 && out[0].lo == std::vector<int64_t>(shape.size(), 0) && out[0].hi == shape)
    out.clear();
  return out;
}

namespace {

// Kernel outputs of this many bytes and more that no later step reads are written with
// streaming stores: they outgrow the caches, so their lines would only evict what is there, each
// after a read-for-ownership. Measured here (2 threads, y = x * 2 + 1 then sqrt(y) + y as two
// calls): 8 and 16 MiB outputs 3-5% slower streamed, 32 MiB even, 64 MiB 9% and 128 MiB 14%
// faster; the diff seed's 128 MiB output 10.8 -> 6.2 ms.
constexpr int64_t min_streamed_bytes = int64_t(32) << 20;

// Sets stream_outputs on the kernels whose outputs are large and read by no later step.
void choose_streamed_outputs(std::vector<passes::Step> &plan) {
  std::unordered_set<const ir::Node *> read;
  for (const passes::Step &p : plan)
    read.insert(p.plan.inputs.begin(), p.plan.inputs.end());
  for (passes::Step &p : plan) {
    if (p.kind != passes::Step::Kind::Kernel) continue;
    int64_t bytes = 0;
    bool unread = true;
    for (const ir::NodePtr &root : p.plan.roots) {
      bytes += root->size() * int64_t(itemsize(root->dtype));
      unread = unread && !read.count(root.get());
    }
    p.plan.stream_outputs = unread && bytes >= min_streamed_bytes;
  }
}

} // namespace

// Innermost runs shorter than this waste the vector loop (an 8-lane body, a 4-lane epilogue and
// the loop overhead for a dozen elements).
constexpr int64_t min_inner_run = 64;

// The boxes the devices of a placement compute. A placement that cuts the innermost axis into
// short runs is computed in bands of whole rows instead, one per device: on shared memory any
// split gives the same bits (math is position independent), and this one keeps long rows.
Placement compute_boxes(Placement boxes, const Shape &shape) {
  if (shape.size() < 2 || boxes.empty()) return boxes;
  const size_t inner = shape.size() - 1;
  const bool short_runs = std::any_of(boxes.begin(), boxes.end(), [&](const DeviceBox &b) {
    return b.hi[inner] - b.lo[inner] < std::min(min_inner_run, shape[inner]);
  });
  if (!short_runs) return boxes;
  Placement bands;
  const int64_t n = int64_t(boxes.size());
  for (int64_t d = 0; d < n; ++d) {
    DeviceBox band{boxes[size_t(d)].device, std::vector<int64_t>(shape.size(), 0), shape};
    band.lo[0] = shape[0] * d / n;
    band.hi[0] = shape[0] * (d + 1) / n;
    if (band.hi[0] > band.lo[0]) bands.push_back(band);
  }
  return bands;
}

// Per placed input of a kernel: the bytes its devices read outside their own shards of it. Reads
// from at most two other devices each are a halo exchange (XLA's collective-permute); wider ones
// gather the input (all-gather).
std::vector<Transfer> transfers(const codegen::KernelPlan &plan, const Placement &boxes,
                                const std::vector<int> &slots,
                                const std::unordered_map<int, Placement> &placement) {
  std::vector<Transfer> out;
  for (size_t k = 0; k < plan.inputs.size(); ++k) {
    auto placed = placement.find(slots[k]);
    if (placed == placement.end() || placed->second.empty()) continue;
    const ir::Node &input = *plan.inputs[k];
    double bytes = 0;
    size_t widest = 0;
    for (const DeviceBox &b : boxes) {
      const auto regions = input_regions(plan, {b.lo, b.hi});
      auto read = regions.find(&input);
      if (read == regions.end()) continue;
      std::optional<Region> own;
      for (const DeviceBox &shard : placed->second)
        if (shard.device == b.device) own = Region{shard.lo, shard.hi};
      // Devices holding part of what this one reads beyond its own shard (replicas of its own
      // part do not count).
      size_t sources = 0;
      for (const DeviceBox &shard : placed->second) {
        if (shard.device == b.device) continue;
        const Region part = intersect(read->second, {shard.lo, shard.hi});
        sources += part.size() > (own ? intersect(part, *own).size() : 0);
      }
      const int64_t local = own ? intersect(read->second, *own).size() : 0;
      bytes += double((read->second.size() - local) * itemsize(input.dtype));
      widest = std::max(widest, sources);
    }
    if (bytes > 0)
      out.push_back({slots[k], widest <= 2 ? "collective-permute" : "all-gather", bytes});
  }
  return out;
}

Executable::Executable(std::vector<ir::NodePtr> params, std::vector<ir::NodePtr> outputs, bool fuse,
                       const std::vector<int> &donated, const std::vector<Placement> &placements,
                       const std::vector<Placement> &param_placements)
    : params_(std::move(params)), outputs_(std::move(outputs)) {
  // Other threads' realizations wait until the plan is made: every pass sees one graph.
  ir::GraphReadLock graph_lock;
  // The unfused baseline also skips the graph passes: it is the op-by-op program as written.
  const std::vector<ir::NodePtr> roots = fuse ? passes::optimize(outputs_) : outputs_;
  std::vector<passes::Step> plan = passes::plan_steps(roots, fuse);
  // Sharding propagation, simplest form: a kernel writing a placed output takes its placement;
  // other kernels of a placed output's shape follow it (their values feed it elementwise or are
  // replicated reads); the rest run on all threads as one device.
  auto placement_of = [&](const codegen::KernelPlan &kernel) -> Placement {
    const Shape &shape = kernel.roots[0]->shape;
    for (size_t i = 0; i < placements.size() && i < roots.size(); ++i)
      if (!placements[i].empty() &&
          std::find(kernel.roots.begin(), kernel.roots.end(), roots[i]) != kernel.roots.end())
        return compute_boxes(distinct_boxes(placements[i], shape), shape);
    for (size_t i = 0; i < placements.size() && i < roots.size(); ++i)
      if (!placements[i].empty() && roots[i]->shape == shape)
        return compute_boxes(distinct_boxes(placements[i], shape), shape);
    return {};
  };
  std::unordered_map<const ir::Node *, int> slot;
  std::unordered_map<const ir::Node *, int> param_position;
  for (size_t i = 0; i < params_.size(); ++i)
    param_position[params_[i].get()] = int(i);
  std::unordered_map<int, Placement> slot_placement; // placed arguments and kernel outputs
  for (passes::Step &p : plan) {
    Step s{.kind = Step::Kind::Buffer, .node = p.node};
    if (p.kind == passes::Step::Kind::Kernel)
      for (const ir::NodePtr &root : p.plan.roots)
        s.run.outs.push_back(slot[root.get()] = slot_count_++);
    else
      s.run.outs.push_back(slot[p.node.get()] = slot_count_++);
    switch (p.kind) {
    case passes::Step::Kind::Buffer: break;
    case passes::Step::Kind::Parameter:
      if (!param_position.count(p.node.get())) interp::throw_concretization_error(*p.node);
      s.kind = Step::Kind::Parameter;
      if (size_t i = size_t(param_position.at(p.node.get())); i < param_placements.size())
        slot_placement[s.run.outs[0]] = param_placements[i];
      break;
    case passes::Step::Kind::Random: s.kind = Step::Kind::Random; break;
    case passes::Step::Kind::Contraction:
      // Tiles fixed by the shape, whatever the placement: the bits never depend on the mesh.
      s.kind = Step::Kind::Contraction;
      s.roots = p.plan.roots;
      s.run.inputs = {slot.at(p.gemm.lhs), slot.at(p.gemm.rhs)};
      s.run.gemm = p.gemm.gemm;
      s.run.dtype = p.node->dtype;
      s.run.tasks = runtime::gemm_tiles(p.gemm.gemm, runtime::gemm_parallelism());
      break;
    case passes::Step::Kind::Kernel:
      s.kind = Step::Kind::Kernel;
      s.roots = p.plan.roots;
      s.run.literals = p.plan.literal_values();
      for (const ir::Node *in : p.plan.inputs)
        s.run.inputs.push_back(slot.at(in));
      s.run.outer = p.plan.outer_extent();
      s.run.grain =
          std::max<int64_t>(1, min_chunk_elements / std::max<int64_t>(1, work_per_row(*p.node)));
      s.boxes = placement_of(p.plan);
      if (!s.boxes.empty()) {
        const Shape &shape = p.plan.roots[0]->shape;
        for (const DeviceBox &b : s.boxes)
          for (size_t a = 0; a < shape.size(); ++a) {
            if (b.lo[a] != 0 || b.hi[a] != shape[a]) p.plan.boxed_axes |= uint64_t(1) << a;
            s.run.boxes.insert(s.run.boxes.end(), {b.lo[a], b.hi[a]});
          }
        s.run.box_work = work_per_element(*p.node);
        s.run.tasks = runtime::split_boxes(s.run.boxes, shape.size(), s.run.box_work,
                                           runtime::default_pool().size());
        s.transfers = transfers(p.plan, s.boxes, s.run.inputs, slot_placement);
        for (int out : s.run.outs)
          slot_placement[out] = s.boxes;
      }
      break;
    }
    steps_.push_back(std::move(s));
  }
  choose_streamed_outputs(plan);
  // Compile every kernel of the program together.
  std::vector<const codegen::KernelPlan *> to_compile;
  std::vector<Step *> owners;
  for (size_t k = 0; k < plan.size(); ++k)
    if (steps_[k].kind == Step::Kind::Kernel && plan[k].node->size() > 0) {
      to_compile.push_back(&plan[k].plan);
      owners.push_back(&steps_[k]);
    }
  std::vector<std::shared_ptr<const CompiledKernel>> kernels = compile_all(to_compile);
  // Contraction plans list their root and the buffers BLAS reads: costed as kernels are.
  std::vector<const codegen::KernelPlan *> costed = to_compile;
  for (const passes::Step &p : plan)
    if (p.kind == passes::Step::Kind::Contraction) costed.push_back(&p.plan);
  for (const codegen::KernelPlan *p : costed) {
    Cost c = kernel_cost(*p);
    cost_.flops += c.flops;
    cost_.transcendentals += c.transcendentals;
    cost_.bytes_accessed += c.bytes_accessed;
  }
  for (const Step &s : steps_) {
    for (const Transfer &t : s.transfers)
      cost_.communication_bytes += t.bytes;
  }
  for (size_t k = 0; k < kernels.size(); ++k) {
    owners[k]->kernel = std::move(kernels[k]);
    owners[k]->plan = std::make_shared<const codegen::KernelPlan>(*to_compile[k]);
  }
  for (const ir::NodePtr &o : roots)
    output_slots_.push_back(slot.at(o.get()));
  // Free each intermediate after its last reader.
  std::vector<int> last_reader(slot_count_, -1);
  for (size_t i = 0; i < steps_.size(); ++i)
    for (int in : steps_[i].run.inputs)
      last_reader[in] = int(i);
  for (int out : output_slots_)
    last_reader[out] = -1;
  for (int s = 0; s < slot_count_; ++s)
    if (last_reader[s] >= 0) steps_[last_reader[s]].run.frees.push_back(s);
  // Each argument once, however often it is listed.
  for (int position : std::set<int>(donated.begin(), donated.end()))
    donate(position, plan);
  assign_arena(last_reader);
  program_ = runtime_program();
}

// Buffer assignment, as XLA's heap simulator: intermediates, largest first, each at the lowest
// offset free of every placed buffer whose lifetime [defining step, last reader] overlaps.
void Executable::assign_arena(const std::vector<int> &last_reader) {
  struct Interval {
    int slot, first, last;
    size_t bytes;
  };
  std::vector<Interval> live;
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step &s = steps_[i];
    if (s.kind != Step::Kind::Kernel && s.kind != Step::Kind::Random &&
        s.kind != Step::Kind::Contraction)
      continue;
    for (size_t r = 0; r < s.run.outs.size(); ++r) {
      const ir::Node &n = s.kind == Step::Kind::Random ? *s.node : *s.roots[r];
      const bool donated = !s.run.donors.empty() && s.run.donors[r] >= 0;
      const size_t bytes = (n.size() * itemsize(n.dtype) + runtime::Buffer::alignment - 1) /
                           runtime::Buffer::alignment * runtime::Buffer::alignment;
      if (last_reader[s.run.outs[r]] < 0 || donated || bytes == 0) continue; // outputs
      live.push_back({s.run.outs[r], int(i), last_reader[s.run.outs[r]], bytes});
      intermediate_bytes_ += bytes;
    }
  }
  std::sort(live.begin(), live.end(), [](const Interval &a, const Interval &b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.first < b.first;
  });
  arena_offset_.assign(slot_count_, -1);
  std::vector<std::pair<size_t, const Interval *>> placed; // offset, buffer
  for (const Interval &b : live) {
    std::vector<std::pair<size_t, size_t>> taken; // [begin, end) of overlapping lifetimes
    for (const auto &[offset, other] : placed)
      if (other->first <= b.last && b.first <= other->last)
        taken.push_back({offset, offset + other->bytes});
    std::sort(taken.begin(), taken.end());
    size_t offset = 0;
    for (const auto &[begin, end] : taken) {
      if (offset + b.bytes <= begin) break;
      offset = std::max(offset, end);
    }
    placed.push_back({offset, &b});
    arena_offset_[b.slot] = int64_t(offset);
    arena_bytes_ = std::max(arena_bytes_, offset + b.bytes);
  }
}

void Executable::donate(int position, const std::vector<passes::Step> &plan) {
  auto param = std::find_if(steps_.begin(), steps_.end(), [&](const Step &s) {
    return s.kind == Step::Kind::Parameter && s.node->attrs[0] == position;
  });
  if (param == steps_.end()) return; // not read
  const int pslot = param->run.outs[0];
  if (std::count(output_slots_.begin(), output_slots_.end(), pslot)) return; // returned as is
  const ir::Node &p = *param->node;
  const size_t bytes = p.size() * itemsize(p.dtype);
  size_t first = 0; // the last step reading the argument: no later step may see it overwritten
  for (size_t i = 0; i < steps_.size(); ++i)
    if (std::count(steps_[i].run.inputs.begin(), steps_[i].run.inputs.end(), pslot)) first = i;
  for (size_t i = first; i < steps_.size(); ++i) {
    Step &s = steps_[i];
    if (s.kind != Step::Kind::Kernel || !s.kernel) continue;
    const bool reads = std::count(s.run.inputs.begin(), s.run.inputs.end(), pslot) > 0;
    // In place only in a kernel of one root: noalias lets LLVM move another root's load of the
    // argument after this root's store.
    if (reads && (s.roots.size() > 1 || !reads_in_place(plan[i].plan, &p))) continue;
    for (size_t r = 0; r < s.roots.size(); ++r) {
      if (s.roots[r]->size() * itemsize(s.roots[r]->dtype) != bytes) continue;
      s.run.donors.resize(s.roots.size(), -1);
      s.run.donor_slots.resize(s.roots.size(), -1);
      if (s.run.donors[r] >= 0) continue;
      s.run.donors[r] = position;
      s.run.donor_slots[r] = pslot;
      return;
    }
  }
}

std::vector<runtime::BufferPtr> Executable::run(const std::vector<runtime::BufferPtr> &args) const {
  return runtime::run(program_, args);
}

// The steps as the runtime runs them: each step's run part, completed with what follows from its
// nodes (kinds, sizes, kernel entry points; the graph only behind the value callback).
runtime::Program Executable::runtime_program() const {
  runtime::Program program{.steps = {},
                           .outputs = output_slots_,
                           .arena_offset = arena_offset_,
                           .arena_bytes = arena_bytes_,
                           .slot_count = slot_count_};
  for (const Step &s : steps_) {
    runtime::Step r = s.run;
    const ir::NodePtr node = s.node;
    switch (s.kind) {
    case Step::Kind::Buffer:
      r.kind = runtime::Step::Kind::Value;
      r.value = [node] { return node->value(); };
      break;
    case Step::Kind::Parameter:
      r.kind = runtime::Step::Kind::Argument;
      r.argument = int(node->attrs[0]);
      break;
    case Step::Kind::Random:
      r.kind = runtime::Step::Kind::Fill;
      r.out_bytes = {size_t(node->size()) * itemsize(node->dtype)};
      r.key_hi = uint32_t(node->attrs[0]);
      r.key_lo = uint32_t(node->attrs[1]);
      r.dtype = node->dtype;
      r.extent = node->shape;
      break;
    case Step::Kind::Contraction:
      r.kind = runtime::Step::Kind::Contraction;
      r.out_bytes = {size_t(node->size()) * itemsize(node->dtype)};
      r.extent = node->shape;
      break;
    case Step::Kind::Kernel:
      r.kind = runtime::Step::Kind::Kernel;
      for (const ir::NodePtr &root : s.roots)
        r.out_bytes.push_back(size_t(root->size()) * itemsize(root->dtype));
      r.kernel = s.kernel ? s.kernel->fn : nullptr;
      r.extent = s.roots[0]->shape;
      break;
    }
    program.steps.push_back(std::move(r));
  }
  return program;
}

std::vector<const codegen::KernelPlan *> Executable::kernel_plans() const {
  std::vector<const codegen::KernelPlan *> plans;
  for (const Step &s : steps_)
    if (s.kernel) plans.push_back(s.plan.get());
  return plans;
}

std::string Executable::as_text() const {
  static constexpr const char *kinds[] = {"buffer", "parameter", "random", "kernel", "gemm"};
  std::string text;
  for (const Step &s : steps_) {
    std::vector<std::string> outs, ops, types;
    for (size_t r = 0; r < s.run.outs.size(); ++r) {
      const ir::Node &n = s.kind == Step::Kind::Kernel ? *s.roots[r] : *s.node;
      outs.push_back(fmt::format("%{}", s.run.outs[r]));
      ops.emplace_back(ir::op_name(n.op));
      types.push_back(ir::type_str(n));
    }
    text += fmt::format("{} = {} {} : {}", fmt::join(outs, ", "), kinds[int(s.kind)],
                        fmt::join(ops, ", "), fmt::join(types, ", "));
    if (s.kind == Step::Kind::Kernel) {
      text += fmt::format(" reads {} rows={}", fmt::join(s.run.inputs, ","), s.run.outer);
      // Why a contraction stays a loop (the GEMM cost model's answer).
      std::string why;
      for (const ir::NodePtr &root : s.roots)
        if (root->op == ir::Op::DotGeneral && !passes::plan_gemm(*root, &why))
          text += fmt::format(" ({})", why);
    }
    if (s.kind == Step::Kind::Contraction) {
      const runtime::Gemm &g = s.run.gemm;
      text += fmt::format(" reads {} batch={} m={} n={} k={} lhs_strides={},{},{} "
                          "rhs_strides={},{},{} tiles={}",
                          fmt::join(s.run.inputs, ","), g.batch, g.m, g.n, g.k, g.lhs[0], g.lhs[1],
                          g.lhs[2], g.rhs[0], g.rhs[1], g.rhs[2],
                          s.run.tasks.size() / runtime::gemm_tile_words);
      if (runtime::gemm_partials(s.run.tasks) > 0) text += " split_along_k";
    }
    for (const DeviceBox &b : s.boxes) {
      std::vector<std::string> ranges;
      for (size_t a = 0; a < b.lo.size(); ++a)
        ranges.push_back(fmt::format("{}:{}", b.lo[a], b.hi[a]));
      text += fmt::format(" dev{}[{}]", b.device, fmt::join(ranges, ","));
    }
    for (const Transfer &t : s.transfers)
      text += fmt::format("\n    {} of %{}: {} bytes", t.collective, t.input, int64_t(t.bytes));
    text += "\n";
  }
  if (intermediate_bytes_)
    text += fmt::format("arena {} bytes for {} bytes of intermediates\n", arena_bytes_,
                        intermediate_bytes_);
  for (const Step &s : steps_)
    if (s.kernel)
      text +=
          fmt::format("\n; %{} = {}\n{}", s.run.outs[0], s.kernel->name, s.kernel->optimized_ir);
  return text;
}

std::vector<runtime::BufferPtr> execute(const std::vector<ir::NodePtr> &roots) {
  return Executable({}, roots).run({});
}

} // namespace jx::backend
