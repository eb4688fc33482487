// Stage 6, for programs that span processes: which of a step's boxes this process computes, and
// the boxes each step sends and receives. Every process builds the same global schedule from the
// same plan (sharding/processes.h: who holds what, the messages) and keeps its own part of it:
// windows of its buffers and the runtime's exchanges.
#include "compile/distribute.h"

#include "compile/executable.h"

#include <algorithm>
#include <optional>

#include "runtime/thread_pool.h"
#include "sharding/processes.h"

namespace jx::compile {

namespace {

using sharding::Region;

using sharding::Holding;
using sharding::Piece;
using sharding::ProcessMessage;
using sharding::whole;

using Layout = runtime::Program::Layout;

// This process's messages, as boxes of the windows its slots hold.
runtime::Exchange own_part(const std::vector<ProcessMessage> &messages, int me,
                           const std::vector<Layout> &layouts) {
  runtime::Exchange e;
  for (const ProcessMessage &m : messages) {
    if (m.from != me && m.to != me) continue;
    const Layout &layout = layouts[size_t(m.slot)];
    runtime::Message r{.peer = m.from == me ? m.to : m.from,
                       .slot = m.slot,
                       .extent = layout.window.extent(),
                       .lo = m.region.lo,
                       .hi = m.region.hi,
                       .itemsize = layout.itemsize};
    for (size_t a = 0; a < r.lo.size(); ++a) {
      r.lo[a] -= layout.window.lo[a];
      r.hi[a] -= layout.window.lo[a];
    }
    (m.from == me ? e.sends : e.recvs).push_back(std::move(r));
  }
  return e;
}

runtime::Window window(const Region &r) { return {r.lo, r.hi}; }

bool same_pieces(const Holding &a, const Holding &b) {
  if (!a || !b || a->size() != b->size()) return false;
  for (size_t i = 0; i < a->size(); ++i)
    if ((*a)[i].process != (*b)[i].process || (*a)[i].region.lo != (*b)[i].region.lo ||
        (*a)[i].region.hi != (*b)[i].region.hi)
      return false;
  return true;
}

// Each slot's window on `process`: the hull of the pieces it holds there and of what it receives
// (the whole array for values every process holds whole). An argument and an output of one
// shape held alike get one window, so that a result fed back as the next call's argument (a
// loop's carries, every iteration) serves it without a copy. A kernel's outputs share one.
void assign_windows(ProgramPlan &plan, const std::vector<Holding> &held,
                    const std::vector<std::vector<ProcessMessage>> &step_messages,
                    const std::vector<ProcessMessage> &gathers, int process) {
  std::vector<Layout> &layouts = plan.processes->layouts;
  for (size_t slot = 0; slot < layouts.size(); ++slot) {
    Layout &l = layouts[slot];
    if (!held[slot]) {
      l.window = runtime::Window::whole(l.shape);
      continue;
    }
    l.window = {std::vector<int64_t>(l.shape.size(), 0), std::vector<int64_t>(l.shape.size(), 0)};
    for (const Piece &p : *held[slot])
      if (p.process == process) l.window = l.window.hull(window(p.region));
  }
  auto receive = [&](const std::vector<ProcessMessage> &messages) {
    for (const ProcessMessage &m : messages)
      if (m.to == process) {
        runtime::Window &w = layouts[size_t(m.slot)].window;
        w = w.hull(window(m.region));
      }
  };
  for (const std::vector<ProcessMessage> &messages : step_messages)
    receive(messages);
  receive(gathers);
  std::vector<int> params;
  for (const ProgramStep &s : plan.steps)
    if (s.kind == ProgramStep::Kind::Parameter) params.push_back(s.run.outs[0]);
  for (int pass = 0; pass < 2; ++pass)
    for (int out : plan.output_slots)
      for (int param : params) {
        Layout &o = layouts[size_t(out)], &p = layouts[size_t(param)];
        if (out == param || o.shape != p.shape || o.itemsize != p.itemsize ||
            !same_pieces(held[size_t(out)], held[size_t(param)]))
          continue;
        o.window = p.window = o.window.hull(p.window);
      }
  for (const ProgramStep &s : plan.steps) {
    if (s.kind != ProgramStep::Kind::Kernel || s.run.outs.size() < 2) continue;
    runtime::Window shared = layouts[size_t(s.run.outs[0])].window;
    for (int out : s.run.outs)
      shared = shared.hull(layouts[size_t(out)].window);
    for (int out : s.run.outs)
      layouts[size_t(out)].window = shared;
  }
}

// The kernels whose buffers hold windows get plans indexing them with the windows' strides.
void index_windows(ProgramPlan &plan) {
  const std::vector<Layout> &layouts = plan.processes->layouts;
  auto extent = [&](int slot) -> std::optional<Shape> {
    const Layout &l = layouts[size_t(slot)];
    if (l.window == runtime::Window::whole(l.shape)) return std::nullopt;
    return l.window.extent();
  };
  for (ProgramStep &s : plan.steps) {
    const runtime::Step &r = s.run;
    // A placed kernel with no box here is never called here.
    if (s.kind != ProgramStep::Kind::Kernel ||
        (!r.boxes.empty() && r.tasks.empty() && r.early_tasks.empty()))
      continue;
    auto p = std::make_shared<passes::KernelPlan>(*s.plan);
    bool any = false;
    for (int in : r.inputs) {
      p->input_windows.push_back(extent(in));
      any = any || p->input_windows.back().has_value();
    }
    p->output_window = extent(r.outs[0]);
    if (any || p->output_window) s.plan = std::move(p);
  }
}

// The shape a step's run covers: a kernel's loop nest, else its value's.
const Shape &extent(const ProgramStep &s) {
  return s.kind == ProgramStep::Kind::Kernel ? s.plan->loop_shape() : s.node->shape;
}

// FNV-1a over the words of the global program.
struct Fingerprint {
  uint64_t hash = 0xcbf29ce484222325ull;
  void add(uint64_t word) {
    for (int b = 0; b < 8; ++b) {
      hash ^= (word >> (8 * b)) & 0xff;
      hash *= 0x100000001b3ull;
    }
  }
  template <class T> void add_all(const std::vector<T> &words) {
    add(words.size());
    for (const T &w : words)
      add(uint64_t(w));
  }
  void add_text(const std::string &text) {
    add(text.size());
    for (char c : text)
      add(uint64_t(uint8_t(c)));
  }
};

// Whether computing `box` of a kernel reads any of what this process receives for its inputs.
bool reads_received(const ProgramStep &s, const runtime::Step &r, const Region &box,
                    const std::vector<ProcessMessage> &messages, int process) {
  const auto regions = sharding::input_regions(*s.plan, box);
  for (size_t k = 0; k < s.plan->inputs.size(); ++k) {
    auto read = regions.find(s.plan->inputs[k]);
    if (read == regions.end()) continue;
    for (const ProcessMessage &m : messages)
      if (m.to == process && m.slot == r.inputs[k] &&
          !sharding::intersect(read->second, m.region).empty())
        return true;
  }
  return false;
}

// This process's boxes of a placed kernel as the runtime's tasks: boxes that read nothing the
// step receives are early tasks, run while the messages are in flight; where a box reads what
// it receives only near its first and last rows (a halo), its interior rows are early tasks too,
// and the rows at its edges tasks run after the messages.
void split_for_overlap(const ProgramStep &s, runtime::Step &r, const std::vector<Region> &local,
                       const std::vector<ProcessMessage> &messages, int process) {
  const size_t rank = extent(s).size();
  const int64_t threads = int64_t(runtime::default_pool().size());
  std::vector<int64_t> early, late;
  const auto append = [&](std::vector<int64_t> &to, const Region &part) {
    if (part.empty()) return;
    for (size_t a = 0; a < rank; ++a)
      to.insert(to.end(), {part.lo[a], part.hi[a]});
  };
  for (const Region &box : local) {
    bool split = !reads_received(s, r, box, messages, process);
    if (split) append(early, box);
    const int64_t rows = box.hi[0] - box.lo[0];
    for (int64_t edge = 1; !split && 4 * edge <= rows; edge *= 2) {
      Region interior = box, first = box, last = box;
      interior.lo[0] += edge;
      interior.hi[0] -= edge;
      if (reads_received(s, r, interior, messages, process)) continue;
      first.hi[0] = interior.lo[0];
      last.lo[0] = interior.hi[0];
      append(early, interior);
      append(late, first);
      append(late, last);
      split = true;
    }
    if (!split) append(late, box);
  }
  // A process that only sends computes every box before waiting: its sends complete when the
  // receivers next call into MPI, after their own interiors.
  r.early_tasks = runtime::split_boxes(early, rank, r.box_work, threads);
  r.tasks = runtime::split_boxes(late, rank, r.box_work, threads);
}

// Whether operand k of a control step reaches its regions as its shards: it is placed, it is a
// param the regions place alike (not a case's index or a scan's xs, which the regions read by
// rows), and every region runs across processes.
bool sharded_operand(const ProgramStep &s, size_t k) {
  const std::vector<sharding::Placement> &operands = s.placement.operands;
  if (k >= operands.size() || operands[k].empty()) return false;
  const ir::Node &op = *s.node;
  if (op.op == ir::Op::Case && k == 0) return false;
  if (op.op == ir::Op::Scan && k >= size_t(op.attrs[0]) && k < size_t(op.attrs[0] + op.attrs[1]))
    return false;
  return std::all_of(s.regions.begin(), s.regions.end(),
                     [](const std::shared_ptr<const Executable> &e) { return e->distributed(); });
}

} // namespace

void partition_processes(ProgramPlan &plan, const LowerOptions &options) {
  const int process = options.process, processes = options.processes,
            local_devices = options.devices_per_process;
  ProcessPart &part = plan.processes.emplace();
  const sharding::ProcessSchedule schedule(processes, local_devices);
  std::vector<Layout> &layout = part.layouts;
  layout.assign(size_t(plan.slot_count), {});
  std::vector<std::vector<ProcessMessage>> step_messages(plan.steps.size());
  std::vector<Holding> held(size_t(plan.slot_count));
  Fingerprint fingerprint;
  fingerprint.add(uint64_t(processes));
  fingerprint.add(uint64_t(local_devices));
  // What the messages move, into the fingerprint and the bytes moved.
  auto account = [&](const std::vector<ProcessMessage> &messages) {
    for (const ProcessMessage &m : messages) {
      part.moved_bytes += double(m.region.size()) * double(layout[size_t(m.slot)].itemsize);
      fingerprint.add_all(std::vector<int64_t>{m.from, m.to, m.slot});
      fingerprint.add_all(m.region.lo);
      fingerprint.add_all(m.region.hi);
    }
  };
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    ProgramStep &s = plan.steps[i];
    runtime::Step &r = s.run;
    const Shape &shape = extent(s);
    for (size_t k = 0; k < r.outs.size(); ++k) {
      const ir::Node &n = s.roots.empty() ? *s.node : *s.roots[k];
      layout[size_t(r.outs[k])] = {n.shape, itemsize(n.dtype), {}};
    }
    std::vector<ProcessMessage> messages;
    // A kernel placed as one box of its whole output (one device's) runs in one process: that
    // device's.
    if (s.kind == ProgramStep::Kind::Kernel && r.boxes.empty() && s.node->size() > 0 &&
        s.placement.boxes.size() == 1) {
      for (size_t a = 0; a < shape.size(); ++a)
        r.boxes.insert(r.boxes.end(), {s.placement.boxes[0].lo[a], s.placement.boxes[0].hi[a]});
      r.box_devices.push_back(s.placement.boxes[0].device);
    }
    const bool boxed = s.kind == ProgramStep::Kind::Kernel && !r.boxes.empty();
    if (boxed) {
      // Each box computed by its device's process, reading what it lacks of each input.
      std::vector<Region> local;
      for (const sharding::DeviceBox &box : s.placement.boxes) {
        const int owner = schedule.process_of(box.device);
        if (owner == process) local.push_back({box.lo, box.hi});
        const auto regions = sharding::input_regions(*s.plan, {box.lo, box.hi});
        for (size_t k = 0; k < s.plan->inputs.size(); ++k)
          if (auto read = regions.find(s.plan->inputs[k]); read != regions.end())
            schedule.need(owner, r.inputs[k], read->second, held[size_t(r.inputs[k])], messages);
      }
      split_for_overlap(s, r, local, messages, process);
    } else if (s.kind == ProgramStep::Kind::Kernel) {
      // Computed whole by every process.
      const auto regions = sharding::input_regions(*s.plan, whole(shape));
      for (size_t k = 0; k < s.plan->inputs.size(); ++k)
        if (auto read = regions.find(s.plan->inputs[k]); read != regions.end())
          schedule.need_everywhere(r.inputs[k], read->second, held[size_t(r.inputs[k])], messages);
    } else if (s.kind == ProgramStep::Kind::Control) {
      // Regions compiled across processes hold a placed operand as its shards; otherwise whole.
      for (size_t k = 0; k < r.inputs.size(); ++k) {
        const int in = r.inputs[k];
        if (sharded_operand(s, k))
          for (const sharding::DeviceBox &b : s.placement.operands[k])
            schedule.need(schedule.process_of(b.device), in, {b.lo, b.hi}, held[size_t(in)],
                          messages);
        else
          schedule.need_everywhere(in, whole(layout[size_t(in)].shape), held[size_t(in)], messages);
      }
    } else {
      // Contractions and library routines: whole inputs, on every process.
      for (int in : r.inputs)
        schedule.need_everywhere(in, whole(layout[size_t(in)].shape), held[size_t(in)], messages);
    }
    if (s.kind == ProgramStep::Kind::Parameter) {
      const size_t position = size_t(s.node->attrs[0]);
      if (position < options.param_placements.size() && !options.param_placements[position].empty())
        held[size_t(r.outs[0])] = schedule.pieces(options.param_placements[position]);
    } else if (boxed) {
      for (int out : r.outs)
        held[size_t(out)] = schedule.pieces(s.placement.boxes);
    } else if (s.kind == ProgramStep::Kind::Control && s.node->op != ir::Op::Case) {
      // A loop's carries stay where its body leaves them: the shards of their initial values.
      for (size_t k = 0; k < size_t(s.node->attrs[0]); ++k)
        if (sharded_operand(s, k))
          held[size_t(r.outs[k])] = schedule.pieces(s.placement.operands[k]);
    }
    fingerprint.add(uint64_t(s.kind));
    fingerprint.add_all(r.outs);
    fingerprint.add_all(r.inputs);
    fingerprint.add_all(shape);
    fingerprint.add_all(r.boxes);
    fingerprint.add_all(r.literals);
    // A contraction's tiles follow the pool's size, and its bits its tiles: every process must
    // compute the same ones (the same JX_NUM_THREADS).
    if (s.kind == ProgramStep::Kind::Contraction) fingerprint.add_all(r.tasks);
    if (s.plan) fingerprint.add_text(s.plan->structural_key());
    for (const std::shared_ptr<const Executable> &region : s.regions)
      fingerprint.add(region->program().fingerprint);
    account(messages);
    step_messages[i] = std::move(messages);
  }
  // Each output's addressable shards (the whole of an output without a sharding) on every
  // process.
  std::vector<ProcessMessage> gathers;
  for (size_t o = 0; o < plan.output_slots.size(); ++o) {
    const int slot = plan.output_slots[o];
    const Shape &shape = layout[size_t(slot)].shape;
    const sharding::Placement declared =
        o < options.placements.size() ? options.placements[o] : sharding::Placement{};
    bool complete = !held[size_t(slot)] || declared.empty();
    if (declared.empty()) {
      schedule.need_everywhere(slot, whole(shape), held[size_t(slot)], gathers);
    } else {
      int64_t covered = 0;
      std::vector<Region> seen;
      for (const sharding::DeviceBox &b : declared) {
        const int owner = schedule.process_of(b.device);
        schedule.need(owner, slot, {b.lo, b.hi}, held[size_t(slot)], gathers);
        const Region box{b.lo, b.hi};
        if (owner != process || std::any_of(seen.begin(), seen.end(), [&](const Region &r) {
              return r.lo == box.lo && r.hi == box.hi;
            }))
          continue;
        seen.push_back(box);
        covered += box.size();
      }
      complete = complete || covered == int64_t(shape_size(shape));
    }
    part.partial_outputs.push_back(!complete);
  }
  account(gathers);
  assign_windows(plan, held, step_messages, gathers, process);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    plan.steps[i].run.exchange = own_part(step_messages[i], process, layout);
    // A donated argument's memory holds its own window: outputs take buffers of theirs.
    plan.steps[i].run.donors.clear();
  }
  part.gather = own_part(gathers, process, layout);
  // Windows, not the global arrays the arena was packed for: every slot a buffer of its own (the
  // caching allocator reuses them from call to call).
  plan.arena_bytes = 0;
  std::fill(plan.arena_offset.begin(), plan.arena_offset.end(), -1);
  index_windows(plan);
  part.fingerprint = fingerprint.hash;
}

runtime::Exchange allgather_exchange(const sharding::Placement &held, const Shape &shape,
                                     DType dtype, int process, int processes, int local_devices) {
  const sharding::ProcessSchedule schedule(processes, local_devices);
  std::vector<ProcessMessage> messages;
  schedule.need_everywhere(0, whole(shape), schedule.pieces(held), messages);
  return own_part(messages, process, {{shape, itemsize(dtype), runtime::Window::whole(shape)}});
}

} // namespace jx::compile
