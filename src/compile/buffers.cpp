// Stage 4, buffer assignment: slots, the runtime's view of each step, streamed outputs, frees,
// donations and the arena of intermediates.
#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "compile/lower.h"
#include "interp/interp.h"
#include "ir/builder.h"
#include "runtime/gemm.h"
#include "runtime/library.h"
#include "runtime/thread_pool.h"

namespace jx::compile {

namespace {

using Kind = ProgramStep::Kind;

// Elements a kernel visits per output element: a reduction or contraction visits its whole
// reduced extent, and every load of an array input counts (a loop step's kernel reading planes of
// a dozen arrays costs 20 ns an element, a copy's 1: vadv's steps ran on one thread).
int64_t work_per_element(const passes::KernelPlan &plan) {
  const ir::Node &root = *plan.roots[0];
  int64_t work = 1;
  if (op_kind(root.op) == ir::OpKind::Reduce)
    work = std::max<int64_t>(1, root.inputs[0]->size()) / std::max<int64_t>(1, root.size());
  if (root.op == ir::Op::DotGeneral)
    for (int64_t axis : ir::dot_dims(root).lhs_contract)
      work *= root.inputs[0]->shape[axis];
  const std::unordered_set<const ir::Node *> inputs(plan.inputs.begin(), plan.inputs.end());
  int64_t loads = 0;
  for (const ir::Node *n : plan.inline_nodes())
    for (const ir::NodePtr &in : n->inputs)
      if (inputs.count(in.get()) && in->size() > 1) ++loads;
  return work * std::max<int64_t>(1, loads);
}

// Elements a kernel visits per row of its outer loop: for a loop split along an axis, each step's
// share of the updates (a while's steps are unknown: one).
int64_t work_per_row(const passes::KernelPlan &plan) {
  if (!plan.loop_split.empty()) {
    const ir::Node &loop = *plan.roots[0]->inputs[0];
    const int64_t steps = loop.op == ir::Op::Scan ? loop.attrs[2] : 1;
    return std::max<int64_t>(1,
                             steps * passes::sequential_loop_written(loop) / plan.loop_split[0]) *
           work_per_element(plan);
  }
  const Shape &shape = plan.loop_shape();
  return shape_size(shape) / std::max<int64_t>(1, shape.empty() ? 1 : shape[0]) *
         work_per_element(plan);
}

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

// Whether the kernel reads p only at the index it writes: every path from a root to p runs through
// elementwise ops (the emitter computes an element's values before storing them).
bool reads_in_place(const passes::KernelPlan &plan, const ir::Node *p) {
  // An update reads its operand where it writes (update_in_place), or not at all.
  if (plan.updates_operand && passes::updated_operand(plan) == p) return true;
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

// Whether step s may write its only output over input slot `in`, which it reads: a kernel reading
// it only where it writes, a scatter reading it as its x and nothing else.
bool writes_over(const ProgramStep &s, int in, const ir::Node &n) {
  if (s.kind == Kind::Library)
    return s.run.update_input == 0 && s.run.inputs[0] == in &&
           std::count(s.run.inputs.begin(), s.run.inputs.end(), in) == 1;
  // A sequential loop's kernel writes its first carry over the operand and reads no other root's
  // from it.
  return s.kind == Kind::Kernel &&
         (s.roots.size() == 1 ||
          (s.plan->sequential_loop && passes::updated_operand(*s.plan) == &n)) &&
         reads_in_place(*s.plan, &n);
}

// Lets an output of a kernel take argument `position`'s memory: the first kernel after the
// argument's last reader (or that last reader, reading it only in place) with an output of its
// size.
void donate(ProgramPlan &program, int position) {
  std::vector<ProgramStep> &steps = program.steps;
  auto param = std::find_if(steps.begin(), steps.end(), [&](const ProgramStep &s) {
    return s.kind == Kind::Parameter && s.node->attrs[0] == position;
  });
  if (param == steps.end()) return; // not read
  const int pslot = param->run.outs[0];
  if (std::count(program.output_slots.begin(), program.output_slots.end(), pslot))
    return; // returned as is
  const ir::Node &p = *param->node;
  const size_t bytes = p.size() * itemsize(p.dtype);
  size_t first = 0; // the last step reading the argument: no later step may see it overwritten
  for (size_t i = 0; i < steps.size(); ++i)
    if (std::count(steps[i].run.inputs.begin(), steps[i].run.inputs.end(), pslot)) first = i;
  for (size_t i = first; i < steps.size(); ++i) {
    ProgramStep &s = steps[i];
    if ((s.kind != Kind::Kernel && s.run.update_input < 0) || s.node->size() == 0) continue;
    const bool reads = std::count(s.run.inputs.begin(), s.run.inputs.end(), pslot) > 0;
    // In place only in a kernel of one root: noalias lets LLVM move another root's load of the
    // argument after this root's store.
    if (reads && !writes_over(s, pslot, p)) continue;
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

size_t arena_size(const ir::Node &n) {
  const size_t align = runtime::Buffer::alignment;
  return (n.size() * itemsize(n.dtype) + align - 1) / align * align;
}

// Per slot, the intermediate whose arena memory it takes (or -1): a one-root kernel writes over
// an input of its element count and element size that it reads only in place and that dies at it,
// as XLA's buffer assignment shares an elementwise op's operand and output. The chain of the
// backward pass (gradient times a mask, times the next mask...) then needs one buffer, not one per
// step.
std::vector<int> choose_in_place(const ProgramPlan &program, const std::vector<int> &last_reader) {
  std::vector<int> takes(program.slot_count, -1);
  std::vector<const ir::Node *> arena_node(program.slot_count, nullptr); // computed slots
  for (size_t i = 0; i < program.steps.size(); ++i) {
    const ProgramStep &s = program.steps[i];
    const bool computed = s.kind == Kind::Kernel || s.kind == Kind::Random ||
                          s.kind == Kind::Contraction || s.kind == Kind::Library;
    if (!computed) continue;
    const bool donated =
        std::any_of(s.run.donors.begin(), s.run.donors.end(), [](int d) { return d >= 0; });
    for (size_t r = 0; r < s.run.outs.size(); ++r)
      if (!donated)
        arena_node[s.run.outs[r]] = s.kind == Kind::Random ? s.node.get() : s.roots[r].get();
    const int out = s.run.outs[0];
    if ((s.kind != Kind::Kernel && s.run.update_input < 0) || s.roots.size() != 1 || donated ||
        last_reader[out] < 0 || s.node->size() == 0)
      continue;
    for (int in : s.run.inputs) {
      const ir::Node *n = arena_node[in];
      // Elements of the same size at the same places: a wider output element would overwrite
      // input elements not yet read.
      if (n && last_reader[in] == int(i) && n->size() == s.node->size() &&
          itemsize(n->dtype) == itemsize(s.node->dtype) && writes_over(s, in, *n)) {
        takes[out] = in;
        break;
      }
    }
  }
  return takes;
}

// As XLA's heap simulator: intermediates, largest first, each at the lowest offset free of every
// placed buffer whose lifetime [defining step, last reader] overlaps. A slot that takes another's
// memory extends that buffer's lifetime instead of having its own.
void assign_arena(ProgramPlan &program, const std::vector<int> &last_reader,
                  const std::vector<int> &takes) {
  struct Interval {
    int slot, first, last;
    size_t bytes;
  };
  std::vector<Interval> live;
  std::vector<int> owner(program.slot_count, -1), interval_of(program.slot_count, -1);
  for (size_t i = 0; i < program.steps.size(); ++i) {
    const ProgramStep &s = program.steps[i];
    if (s.kind != Kind::Kernel && s.kind != Kind::Random && s.kind != Kind::Contraction &&
        s.kind != Kind::Library)
      continue;
    for (size_t r = 0; r < s.run.outs.size(); ++r) {
      const int out = s.run.outs[r];
      const ir::Node &n = s.kind == Kind::Random ? *s.node : *s.roots[r];
      const bool donated = !s.run.donors.empty() && s.run.donors[r] >= 0;
      const size_t bytes = arena_size(n);
      if (last_reader[out] < 0 || donated || bytes == 0) continue; // outputs
      program.intermediate_bytes += bytes;
      if (takes[out] >= 0) {
        owner[out] = owner[takes[out]];
        live[size_t(interval_of[owner[out]])].last = last_reader[out];
        continue;
      }
      owner[out] = out;
      interval_of[out] = int(live.size());
      live.push_back({out, int(i), last_reader[out], bytes});
    }
  }
  std::sort(live.begin(), live.end(), [](const Interval &a, const Interval &b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.first < b.first;
  });
  program.arena_offset.assign(program.slot_count, -1);
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
    program.arena_offset[b.slot] = int64_t(offset);
    program.arena_bytes = std::max(program.arena_bytes, offset + b.bytes);
  }
  for (int slot = 0; slot < program.slot_count; ++slot)
    if (owner[slot] >= 0) program.arena_offset[slot] = program.arena_offset[owner[slot]];
}

// Why each update runs in place or on a copy of its operand (the runtime copies where the
// output's memory is not the operand's).
void describe_updates(ProgramPlan &program, const std::vector<int> &last_reader) {
  std::vector<const ProgramStep *> writer(program.slot_count, nullptr);
  for (const ProgramStep &s : program.steps)
    for (int out : s.run.outs)
      writer[out] = &s;
  for (size_t i = 0; i < program.steps.size(); ++i) {
    ProgramStep &s = program.steps[i];
    if (s.run.update_input < 0) continue;
    const int in = s.run.inputs[size_t(s.run.update_input)], out = s.run.outs[0];
    const ProgramStep &from = *writer[in];
    if (!s.run.donors.empty() && s.run.donor_slots[0] == in)
      s.update_note = fmt::format("in place: argument {} is donated (on a copy while its caller "
                                  "still holds it)",
                                  s.run.donors[0]);
    else if (program.arena_offset[out] >= 0 &&
             program.arena_offset[out] == program.arena_offset[in])
      s.update_note = fmt::format("in place: %{} dies here", in);
    else if (from.kind != Kind::Parameter && from.kind != Kind::Buffer &&
             last_reader[in] == int(i) && program.arena_offset[in] < 0 &&
             !std::count(program.output_slots.begin(), program.output_slots.end(), in))
      // runtime::run's output(): a dying input in a buffer of its own becomes the output's.
      s.update_note = fmt::format("in place: %{} dies here (its buffer becomes the output's{})", in,
                                  last_reader[out] < 0 ? " unless the caller gives one" : "");
    else if (std::count(program.output_slots.begin(), program.output_slots.end(), in))
      s.update_note = fmt::format("copy: %{} is an output", in);
    else if (last_reader[in] > int(i))
      s.update_note = fmt::format("copy: %{} is read later", in);
    else if (from.kind == Kind::Parameter)
      s.update_note = fmt::format("copy: argument {} is not donated", from.node->attrs[0]);
    else if (from.kind == Kind::Buffer)
      s.update_note = fmt::format("copy: %{} is a constant", in);
    else
      s.update_note = fmt::format("copy: %{} is not in the arena", in);
  }
}

} // namespace

ProgramPlan assign_buffers(std::vector<passes::Step> &plan,
                           std::vector<sharding::StepPlacement> placed,
                           const std::vector<ir::NodePtr> &params,
                           const std::vector<ir::NodePtr> &roots, const std::vector<int> &donated,
                           bool across_processes) {
  choose_streamed_outputs(plan);
  ProgramPlan program;
  std::unordered_map<const ir::Node *, int> slot;
  std::unordered_set<const ir::Node *> is_param;
  for (const ir::NodePtr &p : params)
    is_param.insert(p.get());
  for (size_t i = 0; i < plan.size(); ++i) {
    const passes::Step &p = plan[i];
    ProgramStep s{.kind = Kind::Buffer, .node = p.node};
    if (p.kind == passes::Step::Kind::Kernel || p.kind == passes::Step::Kind::Control)
      for (const ir::NodePtr &root : p.plan.roots)
        s.run.outs.push_back(slot[root.get()] = program.slot_count++);
    else
      s.run.outs.push_back(slot[p.node.get()] = program.slot_count++);
    switch (p.kind) {
    case passes::Step::Kind::Buffer: break;
    case passes::Step::Kind::Parameter:
      if (!is_param.count(p.node.get())) interp::throw_concretization_error(*p.node);
      s.kind = Kind::Parameter;
      break;
    case passes::Step::Kind::Random: s.kind = Kind::Random; break;
    case passes::Step::Kind::Control:
      s.kind = Kind::Control;
      s.roots = p.plan.roots;
      for (const ir::Node *in : p.plan.inputs)
        s.run.inputs.push_back(slot.at(in));
      s.placement = std::move(placed[i]);
      break;
    case passes::Step::Kind::Library:
      s.kind = Kind::Library;
      s.roots = p.plan.roots;
      for (const ir::Node *in : p.plan.inputs)
        s.run.inputs.push_back(slot.at(in));
      s.run.library = ir::library_of(*p.node);
      if (runtime::is_scatter(s.run.library.op)) s.run.update_input = 0; // x, updated
      s.run.dtype = p.node->inputs[0]->dtype;
      s.placement = std::move(placed[i]);
      break;
    case passes::Step::Kind::Contraction:
      // Tiles fixed by the shape, whatever the placement: the bits never depend on the mesh.
      s.kind = Kind::Contraction;
      s.roots = p.plan.roots;
      s.run.inputs = {slot.at(p.gemm.lhs), slot.at(p.gemm.rhs)};
      s.run.gemm = p.gemm.gemm;
      s.run.dtype = p.node->dtype;
      s.run.tasks = runtime::gemm_tiles(p.gemm.gemm, runtime::gemm_parallelism());
      s.placement = std::move(placed[i]);
      break;
    case passes::Step::Kind::Kernel: {
      s.kind = Kind::Kernel;
      s.roots = p.plan.roots;
      s.placement = std::move(placed[i]);
      // One box of the whole output runs as an unplaced kernel does; so does a loop run step by
      // step, whatever its carry's sharding.
      const bool boxed = !p.plan.sequential_loop &&
                         !sharding::distinct_boxes(s.placement.boxes, p.node->shape).empty();
      // An update writes its elements alone into a copy of its operand, or into the operand's
      // own memory where it dies here (choose_in_place, donate). Not over device boxes, whose
      // kernels cover the output's, nor over windows across processes.
      passes::KernelPlan kernel = p.plan;
      kernel.updates_operand = p.plan.sequential_loop
                                   ? passes::sequential_loop_writes_over_init(p.plan)
                                   : !boxed && !across_processes && passes::update_in_place(p.plan);
      if (kernel.updates_operand)
        s.run.update_input = int(
            std::find(p.plan.inputs.begin(), p.plan.inputs.end(), passes::updated_operand(kernel)) -
            p.plan.inputs.begin());
      s.plan = std::make_shared<const passes::KernelPlan>(std::move(kernel));
      s.run.literals = p.plan.literal_values();
      for (const ir::Node *in : p.plan.inputs)
        s.run.inputs.push_back(slot.at(in));
      s.run.outer = s.plan->outer_extent();
      s.run.grain = std::max<int64_t>(1, runtime::min_chunk_elements /
                                             std::max<int64_t>(1, work_per_row(*s.plan)));
      if (boxed) {
        const Shape &shape = p.plan.roots[0]->shape;
        for (const sharding::DeviceBox &b : s.placement.boxes) {
          for (size_t a = 0; a < shape.size(); ++a)
            s.run.boxes.insert(s.run.boxes.end(), {b.lo[a], b.hi[a]});
          s.run.box_devices.push_back(b.device);
        }
        s.run.box_work = work_per_element(p.plan);
        s.run.tasks = runtime::split_boxes(s.run.boxes, shape.size(), s.run.box_work,
                                           runtime::default_pool().size());
      }
      break;
    }
    }
    program.steps.push_back(std::move(s));
  }
  for (const ir::NodePtr &o : roots)
    program.output_slots.push_back(slot.at(o.get()));
  // Free each intermediate after its last reader.
  std::vector<int> last_reader(program.slot_count, -1);
  for (size_t i = 0; i < program.steps.size(); ++i)
    for (int in : program.steps[i].run.inputs)
      last_reader[in] = int(i);
  for (int out : program.output_slots)
    last_reader[out] = -1;
  for (int s = 0; s < program.slot_count; ++s)
    if (last_reader[s] >= 0) program.steps[last_reader[s]].run.frees.push_back(s);
  // Each argument once, however often it is listed.
  for (int position : std::set<int>(donated.begin(), donated.end()))
    donate(program, position);
  // What a control step reads has buffers of its own, as outputs do (it hands them to its
  // regions' programs): out of the arena.
  std::vector<int> arena_reader = last_reader;
  for (const ProgramStep &s : program.steps)
    if (s.kind == Kind::Control)
      for (int in : s.run.inputs)
        arena_reader[in] = -1;
  // An update returned, of an intermediate that dies at it: the intermediate gets a buffer of its
  // own, which the runtime hands on to the output (the output cannot live in the arena).
  for (size_t i = 0; i < program.steps.size(); ++i)
    if (const ProgramStep &s = program.steps[i]; s.run.update_input >= 0) {
      const int in = s.run.inputs[size_t(s.run.update_input)];
      if (last_reader[s.run.outs[0]] < 0 && last_reader[in] == int(i) &&
          std::count(s.run.inputs.begin(), s.run.inputs.end(), in) == 1)
        arena_reader[in] = -1;
    }
  assign_arena(program, arena_reader, choose_in_place(program, arena_reader));
  describe_updates(program, last_reader);
  return program;
}

} // namespace jx::compile
