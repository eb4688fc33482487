// Executable: a lowered program kept with its runtime form; run() only allocates outputs and
// launches kernels on the thread pool.
#include "compile/executable.h"

#include <jx/error.h>

#include <algorithm>
#include <iterator>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/printer.h"
#include "passes/contraction.h"
#include "passes/pipeline.h"
#include "runtime/devices.h"
#include "runtime/gemm.h"

namespace jx::compile {

Executable::Executable(std::vector<ir::NodePtr> params, std::vector<ir::NodePtr> outputs, bool fuse,
                       const std::vector<int> &donated,
                       const std::vector<sharding::Placement> &placements,
                       const std::vector<sharding::Placement> &param_placements,
                       bool across_processes)
    : params_(std::move(params)), outputs_(std::move(outputs)) {
  const bool processes = across_processes && runtime::process_count() > 1;
  Lowered lowered = lower(params_, outputs_,
                          {.fuse = fuse,
                           .donated = donated,
                           .placements = placements,
                           .param_placements = param_placements,
                           .devices_per_process = processes ? runtime::device_count() : 0,
                           .process = runtime::process_index(),
                           .processes = runtime::process_count()});
  plan_ = std::move(lowered.plan);
  program_ = std::move(lowered.program);
  if (passes::dumping()) passes::dump_plan(as_text(), as_dot());
}

std::vector<runtime::BufferPtr> Executable::run(const std::vector<runtime::BufferPtr> &args) const {
  if (!program_.distributed) return runtime::run(program_, args);
  const std::shared_ptr<runtime::Communicator> comm = runtime::communicator();
  if (!comm)
    throw Error("this program was compiled to run across processes, and jx::distributed has "
                "been shut down since");
  // One distributed call at a time: the processes' exchanges must meet in the same order.
  static std::mutex one_call;
  std::lock_guard lock(one_call);
  std::call_once(fingerprint_checked_, [&] {
    const std::vector<uint64_t> all = comm->allgather(program_.fingerprint);
    for (size_t p = 0; p < all.size(); ++p)
      if (all[p] != program_.fingerprint)
        throw Error(fmt::format(
            "process {} compiled a different program than process {}: fingerprint {:016x} there, "
            "{:016x} here (every process must trace the same function with the same shapes, "
            "shardings and JX_* settings)",
            p, comm->process_index(), all[p], program_.fingerprint));
  });
  return runtime::run(program_, args);
}

Executable::Memory Executable::memory() const {
  auto bytes = [](const ir::Node &n) { return n.size() * int64_t(itemsize(n.dtype)); };
  Memory m;
  for (const ir::NodePtr &p : params_)
    m.argument_bytes += bytes(*p);
  // A value returned twice is one buffer.
  std::vector<int> seen;
  for (size_t i = 0; i < outputs_.size(); ++i)
    if (std::find(seen.begin(), seen.end(), plan_.output_slots[i]) == seen.end()) {
      seen.push_back(plan_.output_slots[i]);
      m.output_bytes += bytes(*outputs_[i]);
    }
  int64_t scratch = 0;
  for (const ProgramStep &s : plan_.steps) {
    for (size_t r = 0; r < s.run.donors.size(); ++r)
      if (s.run.donors[r] >= 0) m.alias_bytes += bytes(*s.roots[r]);
    if (s.kind == ProgramStep::Kind::Contraction)
      scratch = std::max(scratch, runtime::gemm_partials(s.run.tasks) * bytes(*s.node));
    // A region's intermediates live while it runs, one region at a time.
    for (const std::shared_ptr<const Executable> &region : s.regions)
      scratch = std::max(scratch, region->memory().temp_bytes);
  }
  m.arena_bytes = int64_t(program_.arena_bytes);
  m.temp_bytes = m.arena_bytes + scratch;
  if (program_.distributed) {
    // This process's windows of the intermediates, each a buffer of its own.
    std::vector<bool> kept(program_.layouts.size(), false);
    for (int o : program_.outputs)
      kept[size_t(o)] = true;
    for (const runtime::Step &s : program_.steps)
      if (s.kind == runtime::Step::Kind::Argument || s.kind == runtime::Step::Kind::Value)
        kept[size_t(s.outs[0])] = true;
    for (size_t slot = 0; slot < kept.size(); ++slot)
      if (!kept[slot])
        m.temp_bytes +=
            program_.layouts[slot].window.elements() * int64_t(program_.layouts[slot].itemsize);
  }
  return m;
}

std::vector<const passes::KernelPlan *> Executable::kernel_plans() const {
  std::vector<const passes::KernelPlan *> plans;
  for (const ProgramStep &s : plan_.steps) {
    if (s.kernel) plans.push_back(s.plan.get());
    for (const std::shared_ptr<const Executable> &region : s.regions) {
      const std::vector<const passes::KernelPlan *> inner = region->kernel_plans();
      plans.insert(plans.end(), inner.begin(), inner.end());
    }
  }
  return plans;
}

namespace {

// What this process moves over MPI before a step: bytes per peer.
std::string exchange_text(const runtime::Exchange &e) {
  std::string text;
  for (const auto *list : {&e.recvs, &e.sends}) {
    std::map<int, int64_t> bytes;
    for (const runtime::Message &m : *list)
      bytes[m.peer] += m.elements() * int64_t(m.itemsize);
    for (const auto &[peer, n] : bytes)
      text += fmt::format("\n    mpi {} {} bytes {} process {}",
                          list == &e.recvs ? "receives" : "sends", n,
                          list == &e.recvs ? "from" : "to", peer);
  }
  return text;
}

} // namespace

const char *step_kind_name(ProgramStep::Kind kind) {
  static constexpr const char *names[] = {"buffer", "parameter", "random", "kernel",
                                          "gemm",   "control",   "library"};
  static_assert(std::size(names) == size_t(ProgramStep::Kind::Library) + 1);
  return names[size_t(kind)];
}

std::string box_text(const sharding::DeviceBox &box) {
  std::vector<std::string> ranges;
  for (size_t a = 0; a < box.lo.size(); ++a)
    ranges.push_back(fmt::format("{}:{}", box.lo[a], box.hi[a]));
  return fmt::format("dev{}[{}]", box.device, fmt::join(ranges, ","));
}

std::string Executable::as_text() const {
  std::string text;
  for (const ProgramStep &s : plan_.steps) {
    std::vector<std::string> outs, ops, types;
    for (size_t r = 0; r < s.run.outs.size(); ++r) {
      const ir::Node &n =
          s.kind == ProgramStep::Kind::Kernel || s.kind == ProgramStep::Kind::Control ? *s.roots[r]
                                                                                      : *s.node;
      outs.push_back(fmt::format("%{}", s.run.outs[r]));
      ops.emplace_back(ir::op_name(n.op));
      types.push_back(ir::type_str(n));
    }
    text += fmt::format("{} = {} {} : {}", fmt::join(outs, ", "), step_kind_name(s.kind),
                        fmt::join(ops, ", "), fmt::join(types, ", "));
    if (s.kind == ProgramStep::Kind::Kernel) {
      text += fmt::format(" reads {} rows={}", fmt::join(s.run.inputs, ","), s.run.outer);
      if (!s.update_note.empty()) text += fmt::format(" (update {})", s.update_note);
      if (s.plan->sequential_loop) {
        const ir::Node &loop = *s.node->inputs[0];
        text += fmt::format(
            " ({} inside the kernel, step by step{}, its carry in place{})",
            loop.op == ir::Op::While ? std::string("while loop")
                                     : fmt::format("loop of {} steps", loop.attrs[2]),
            s.plan->loop_split.empty() ? ""
            : s.plan->loop_row_by_row
                ? fmt::format(", row by row over its carries' {} rows", s.plan->loop_split[0])
                : fmt::format(", its carries' axis {} ({} long) split over threads",
                              s.plan->loop_split_axis, s.plan->loop_split[0]),
            passes::sequential_loop_staged(loop)
                ? ", each step's updates computed into the stack before they are stored"
                : "");
      } else if (s.node->op == ir::Op::Result)
        text += fmt::format(" (scan of {} steps inside the kernel, per element)",
                            s.node->inputs[0]->attrs[2]);
      // Why a contraction stays a loop (the GEMM cost model's answer).
      std::string why;
      for (const ir::NodePtr &root : s.roots)
        if (root->op == ir::Op::DotGeneral && !passes::plan_gemm(*root, &why))
          text += fmt::format(" ({})", why);
    }
    if (s.kind == ProgramStep::Kind::Control) {
      // The op, then each region's plan (its kernels' IR left out), indented.
      text += fmt::format(" {} reads {}", ir::op_name(s.node->op), fmt::join(s.run.inputs, ","));
      if (s.node->op == ir::Op::Scan || s.node->op == ir::Op::While) {
        const std::string veto = s.node->op == ir::Op::Scan ? passes::scan_kernel_veto(*s.node)
                                                            : "it is a while loop",
                          sequential = passes::sequential_loop_veto(*s.node);
        text += fmt::format(
            " (its body runs as a program per step: {}; not step by step in a "
            "kernel: {})",
            veto.empty() ? "a result of another shape than the carries' is read" : veto,
            sequential.empty()
                ? "a carry it passes on unchanged is read, or this program runs no loop in a kernel"
                : sequential);
      }
      for (size_t r = 0; r < s.regions.size(); ++r) {
        std::string plan = s.regions[r]->as_text();
        plan = plan.substr(0, plan.find("\n;"));
        text += fmt::format("\n  region {}:", r);
        for (size_t at = 0, end; at < plan.size(); at = end + 1) {
          end = std::min(plan.find('\n', at), plan.size());
          if (end > at) text += "\n    " + plan.substr(at, end - at);
        }
      }
    }
    if (s.kind == ProgramStep::Kind::Library) {
      text += fmt::format(" reads {} {}", fmt::join(s.run.inputs, ","), ir::attr_str(*s.node));
      if (!s.update_note.empty()) text += fmt::format(" (update {})", s.update_note);
    }
    if (s.kind == ProgramStep::Kind::Contraction) {
      const runtime::Gemm &g = s.run.gemm;
      text += fmt::format(" reads {} batch={} m={} n={} k={} lhs_strides={},{},{} "
                          "rhs_strides={},{},{} tiles={}",
                          fmt::join(s.run.inputs, ","), g.batch, g.m, g.n, g.k, g.lhs[0], g.lhs[1],
                          g.lhs[2], g.rhs[0], g.rhs[1], g.rhs[2],
                          s.run.tasks.size() / runtime::gemm_tile_words);
      if (runtime::gemm_partials(s.run.tasks) > 0) text += " split_along_k";
    }
    for (const sharding::DeviceBox &b : s.placement.boxes)
      text += ' ' + box_text(b);
    // Why these boxes (the sharding stage's choice).
    if (s.placement.source >= 0)
      text += fmt::format(" (sharding: follows %{} {})", s.run.inputs[size_t(s.placement.source)],
                          s.placement.why);
    else if (!s.placement.why.empty())
      text += fmt::format(" (sharding: {})", s.placement.why);
    for (const sharding::Transfer &t : s.placement.transfers)
      text += fmt::format("\n    {} of %{}: {} bytes", t.collective, s.run.inputs[t.input],
                          int64_t(t.bytes));
    const runtime::Step &run = program_.steps[size_t(&s - plan_.steps.data())];
    text += exchange_text(run.exchange);
    if (!run.early_tasks.empty())
      text += fmt::format("\n    overlap: {} interior tasks while the messages are in flight, {} "
                          "after",
                          run.early_tasks.size() / (2 * run.extent.size()),
                          run.tasks.size() / (2 * run.extent.size()));
    text += "\n";
  }
  if (!program_.gather.empty()) text += "outputs:" + exchange_text(program_.gather) + "\n";
  if (plan_.intermediate_bytes)
    text += fmt::format("arena {} bytes for {} bytes of intermediates\n", program_.arena_bytes,
                        plan_.intermediate_bytes);
  for (const ProgramStep &s : plan_.steps)
    if (s.kernel)
      text +=
          fmt::format("\n; %{} = {}\n{}", s.run.outs[0], s.kernel->name, s.kernel->optimized_ir);
  return text;
}

std::vector<runtime::BufferPtr> execute(const std::vector<ir::NodePtr> &roots) {
  return Executable({}, roots).run({});
}

} // namespace jx::compile
