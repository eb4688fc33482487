// Executable::as_dot: a compiled program's plan as a picture. Each fused kernel is a cluster
// (named by its symbol, with its device boxes; a hoisted one filled and so named) of the nodes it
// computes inline; every buffer slot
// is a node of its own (parameters, constants, steps' outputs); edges carry their types, and an
// input read across devices the transfer the plan counts for it.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unordered_map>

#include "compile/executable.h"
#include "ir/printer.h"

namespace jx::compile {

namespace {

std::string boxes_text(const sharding::Placement &boxes) {
  std::string text;
  for (const sharding::DeviceBox &b : boxes)
    text += '\n' + box_text(b);
  return text;
}

} // namespace

std::string Executable::as_dot() const {
  using ir::dot_quoted;
  std::string out = "digraph plan {\n  compound=true;\n  node [shape=box, fontname=monospace, "
                    "fontsize=10];\n  edge [fontname=monospace, fontsize=9];\n";
  // A slot's node: what wrote it (or its kind), its type.
  std::unordered_map<int, std::string> slot_type;
  for (const ProgramStep &s : plan_.steps)
    for (size_t r = 0; r < s.run.outs.size(); ++r) {
      const ir::Node &n = s.roots.empty() ? *s.node : *s.roots[r];
      slot_type[s.run.outs[r]] = ir::type_str(n);
    }
  for (const auto &[slot, type] : slot_type) {
    const bool output = std::find(plan_.output_slots.begin(), plan_.output_slots.end(), slot) !=
                        plan_.output_slots.end();
    out +=
        fmt::format("  s{} [label={}, shape=note{}];\n", slot,
                    dot_quoted(fmt::format("%{}\n{}", slot, type)), output ? ", style=bold" : "");
  }
  for (size_t i = 0; i < plan_.steps.size(); ++i) {
    const ProgramStep &s = plan_.steps[i];
    if (s.kind != ProgramStep::Kind::Kernel || !s.plan) {
      // Parameters and constants are their slots; other steps a node with edges in and out.
      if (s.kind == ProgramStep::Kind::Parameter || s.kind == ProgramStep::Kind::Buffer) continue;
      out += fmt::format(
          "  step{} [label={}, shape=component];\n", i,
          dot_quoted(fmt::format("{} {}{}", step_kind_name(s.kind), ir::op_name(s.node->op),
                                 boxes_text(s.placement.boxes))));
      for (int in : s.run.inputs)
        out += fmt::format("  s{} -> step{} [label={}];\n", in, i, dot_quoted(slot_type[in]));
      for (int o : s.run.outs)
        out += fmt::format("  step{} -> s{};\n", i, o);
      continue;
    }
    const passes::KernelPlan &plan = *s.plan;
    const std::string name = s.kernel ? s.kernel->name : "empty kernel";
    out += fmt::format("  subgraph cluster_{} {{\n    label={};\n    style={};\n", i,
                       dot_quoted(fmt::format("{}kernel {}{}", plan.hoisted ? "hoisted " : "", name,
                                              boxes_text(s.placement.boxes))),
                       plan.hoisted ? "\"rounded,filled\";\n    fillcolor=lightyellow" : "rounded");
    std::unordered_map<const ir::Node *, std::string> id;
    std::string edges;
    for (const ir::Node *n : plan.inline_nodes())
      id[n] = fmt::format("k{}_{}", i, id.size());
    for (size_t k = 0; k < plan.inputs.size(); ++k)
      id[plan.inputs[k]] = fmt::format("s{}", s.run.inputs[k]);
    for (const ir::Node *n : plan.inline_nodes()) {
      const std::string attrs = ir::attr_str(*n);
      out +=
          fmt::format("    {} [label={}];\n", id[n],
                      dot_quoted(fmt::format("{}{}{}\n{}", ir::op_name(n->op),
                                             attrs.empty() ? "" : " ", attrs, ir::type_str(*n))));
      for (const ir::NodePtr &in : n->inputs)
        edges += fmt::format("  {} -> {} [label={}];\n", id.at(in.get()), id[n],
                             dot_quoted(ir::type_str(*in)));
    }
    out += "  }\n" + edges;
    for (size_t r = 0; r < s.roots.size(); ++r)
      out += fmt::format("  {} -> s{} [style=bold];\n", id[s.roots[r].get()], s.run.outs[r]);
    // What the kernel's devices read from each other's boxes (the plan's transfers).
    for (const sharding::Transfer &t : s.placement.transfers)
      out += fmt::format("  s{} -> {} [style=dashed, color=red, label={}];\n",
                         s.run.inputs[t.input], id[s.roots[0].get()],
                         dot_quoted(fmt::format("{} {} bytes", t.collective, int64_t(t.bytes))));
  }
  return out + "}\n";
}

} // namespace jx::compile
