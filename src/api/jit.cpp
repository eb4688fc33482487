// jx::jit's non-template half: tracing with Parameter nodes, compiling to an Executable,
// calling it with a signature check.
#include <jx/jit.h>

#include <algorithm>
#include <fmt/ranges.h>

#include "api/internal.h"
#include "api/placement.h"
#include "api/traced_program.h"
#include "api/tracing.h"
#include "interp/interp.h"
#include "ir/printer.h"
#include "runtime/collectives.h"
#include "runtime/trace.h"

namespace jx::detail {

namespace {
// The program being traced on this thread (for with_sharding_constraint).
thread_local Program *tracing = nullptr;

// The sharding for item i of n given as one per item or one for all (none when not given).
const Sharding *sharding_for(const std::vector<Sharding> &shardings, size_t i) {
  if (shardings.empty()) return nullptr;
  return &shardings[shardings.size() == 1 ? 0 : i];
}

void check_sharding_count(const std::vector<Sharding> &shardings, size_t n, const char *what) {
  if (shardings.size() > 1 && shardings.size() != n)
    throw ValueError(fmt::format("{} has {} shardings, but the function has {} {}", what,
                                 shardings.size(), n,
                                 what[0] == 'i' ? "array arguments" : "outputs"));
}

std::string spec_text(const ShapeDtypeStruct &s) {
  std::string text = fmt::format("{}[{}]", dtype_name(s.dtype), fmt::join(s.shape, ","));
  if (s.weak_type) text += " weak";
  if (s.sharding) text += fmt::format(" {}", s.sharding->str());
  return text;
}
} // namespace

std::string signature(const std::vector<ShapeDtypeStruct> &specs) {
  std::vector<std::string> parts;
  for (const ShapeDtypeStruct &s : specs)
    parts.push_back(spec_text(s));
  return fmt::format("({})", fmt::join(parts, ", "));
}

std::shared_ptr<Program> trace(const std::vector<ShapeDtypeStruct> &specs, const TraceFn &f,
                               const JitOptions &options) {
  runtime::trace::Span span("compile", "0. trace");
  if (span.active()) span.set_args("\"signature\": " + runtime::trace::quoted(signature(specs)));
  for (int position : options.donate_argnums)
    if (position < 0 || size_t(position) >= specs.size())
      throw ValueError(fmt::format("donate_argnums contains {}, but the function has {} array "
                                   "arguments",
                                   position, specs.size()));
  check_sharding_count(options.in_shardings, specs.size(), "in_shardings");
  for (size_t i = 0; i < specs.size(); ++i)
    if (const Sharding *s = sharding_for(options.in_shardings, i))
      s->check_compatible_aval(specs[i].shape);
  auto program = std::make_shared<Program>();
  program->specs = specs;
  program->options = options;
  struct Tracing {
    explicit Tracing(Program *p) : outer(tracing) { tracing = p; }
    ~Tracing() { tracing = outer; }
    Program *outer;
  };
  int64_t trace_id;
  {
    Tracing scope(program.get());
    api::TracedFunction traced = api::trace_function(specs, f);
    trace_id = traced.trace_id;
    program->params = std::move(traced.params);
    program->outputs = std::move(traced.outputs);
  }
  // A parameter of a finished trace in this one is a leaked tracer: JAX raises at trace time.
  std::vector<ir::NodePtr> traced = program->outputs;
  for (const auto &[node, sharding] : program->constraints)
    traced.push_back(node);
  for (const ir::Node *n : ir::topological_order(traced))
    if (n->op == ir::Op::Parameter && n->attrs.size() > 1 && n->attrs[1] != trace_id)
      interp::throw_concretization_error(*n);
  check_sharding_count(options.out_shardings, program->outputs.size(), "out_shardings");
  for (size_t i = 0; i < specs.size(); ++i) {
    const Sharding *given = sharding_for(options.in_shardings, i);
    program->in_shardings.push_back(given ? std::optional<Sharding>(*given) : specs[i].sharding);
  }
  for (size_t i = 0; i < program->outputs.size(); ++i) {
    std::optional<Sharding> sharding;
    if (const Sharding *s = sharding_for(options.out_shardings, i)) {
      s->check_compatible_aval(program->outputs[i]->shape);
      sharding = *s;
    }
    program->out_shardings.push_back(sharding);
  }
  return program;
}

void compile(Program &program) {
  std::call_once(program.compiled, [&] {
    runtime::trace::Span span("compile", "compile");
    const JitOptions &options = program.options;
    auto placements = [](const std::vector<std::optional<Sharding>> &shardings,
                         const std::vector<ir::NodePtr> &nodes) {
      std::vector<sharding::Placement> out;
      for (size_t i = 0; i < nodes.size(); ++i)
        out.push_back(shardings[i] ? api::placement_of(*shardings[i], nodes[i]->shape)
                                   : sharding::Placement{});
      return out;
    };
    // Constrained values are extra outputs of the executable, placed as constrained.
    std::vector<ir::NodePtr> roots = program.outputs;
    std::vector<std::optional<Sharding>> root_shardings = program.out_shardings;
    for (const auto &[node, sharding] : program.constraints) {
      roots.push_back(node);
      root_shardings.push_back(sharding);
    }
    const std::vector<sharding::Placement> params_placed =
        placements(program.in_shardings, program.params);
    std::vector<sharding::Placement> roots_placed = placements(root_shardings, roots);
    // An output the sharding stage places like an argument reports that argument's sharding.
    const std::vector<int> like =
        sharding::outputs_placed_like_params(roots, roots_placed, program.params, params_placed);
    for (size_t i = 0; i < roots.size(); ++i)
      if (like[i] >= 0) {
        roots_placed[i] = params_placed[size_t(like[i])];
        if (i < program.outputs.size())
          program.out_shardings[i] = program.in_shardings[size_t(like[i])];
      }
    program.executable = std::make_unique<compile::Executable>(
        program.params, roots, options.fuse, options.donate_argnums, roots_placed, params_placed,
        runtime::process_count() > 1);
  });
}

size_t constraint_count() { return tracing ? tracing->constraints.size() : 0; }

std::vector<std::pair<ir::NodePtr, Sharding>> take_constraints(size_t from) {
  if (!tracing) return {};
  auto &all = tracing->constraints;
  std::vector<std::pair<ir::NodePtr, Sharding>> taken(all.begin() + std::ptrdiff_t(from),
                                                      all.end());
  all.erase(all.begin() + std::ptrdiff_t(from), all.end());
  return taken;
}

void add_constraint(ir::NodePtr node, Sharding sharding) {
  if (tracing) tracing->constraints.push_back({std::move(node), std::move(sharding)});
}

bool tracing_now() { return ir::tracing(); }

std::vector<Array> call(const Program &program, const std::vector<Array> &args) {
  bool matches = args.size() == program.specs.size();
  for (size_t i = 0; matches && i < args.size(); ++i)
    matches =
        args[i].shape() == program.specs[i].shape && args[i].dtype() == program.specs[i].dtype;
  if (!matches) {
    std::vector<ShapeDtypeStruct> given;
    for (const Array &a : args)
      given.push_back({a.shape(), a.dtype()});
    throw TypeError(
        fmt::format("Argument types differ from the types for which this computation was "
                    "compiled: expected {}, got {}",
                    signature(program.specs), signature(given)));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::optional<Sharding> &expected = program.in_shardings[i];
    if (expected && args[i].committed() &&
        !args[i].sharding().is_equivalent_to(*expected, int64_t(args[i].ndim())))
      throw ValueError(fmt::format(
          "Compiled object called with input sharding(s) does not match the sharding(s) the "
          "computation was compiled with: argument {} is placed as {}, compiled for {}",
          i, args[i].sharding().str(), expected->str()));
  }
  std::vector<runtime::BufferPtr> buffers;
  for (size_t i = 0; i < args.size(); ++i) {
    // A multi-process array holding only this process's shards goes to a program placed for it
    // (anything else reads the whole: value() raises).
    const runtime::BufferPtr local = args[i].node()->local_value();
    const bool shards_only = local && local->partial();
    if (shards_only && !(program.executable->distributed() && program.in_shardings[i]))
      args[i].node()->value();
    buffers.push_back(shards_only ? local : api::realize(args[i].node()));
  }
  // A donated argument that a pending value still computes from keeps its memory (an extra
  // reference makes the runtime copy instead of taking it): that value was computed before the
  // call, as JAX sees it.
  std::vector<runtime::BufferPtr> kept;
  for (int position : program.options.donate_argnums)
    if (args[size_t(position)].node()->consumers() > 0) kept.push_back(buffers[size_t(position)]);
  std::vector<runtime::BufferPtr> results = program.executable->run(buffers);
  std::vector<Array> out;
  for (size_t i = 0; i < program.outputs.size(); ++i) {
    const ir::Node &o = *program.outputs[i];
    // Across processes, an output holds this process's shards (an argument returned as it is
    // keeps its own mark).
    if (program.executable->partial_output(i) &&
        std::find(buffers.begin(), buffers.end(), results[i]) == buffers.end())
      results[i]->mark_partial();
    ir::NodePtr value = ir::constant(results[i], o.dtype, o.shape);
    if (const std::optional<Sharding> &s = program.out_shardings[i])
      out.push_back(Array(value, *s));
    else
      out.push_back(api::wrap(value));
  }
  return out;
}

std::string lowered_text(const Program &program) { return ir::print_graph(program.outputs); }

std::string compiled_text(const Program &program) { return program.executable->as_text(); }

std::string lowered_dot(const Program &program) {
  return ir::graph_dot(program.outputs, "traced graph");
}

std::string compiled_dot(const Program &program) { return program.executable->as_dot(); }

CostAnalysis cost_analysis(const Program &program) {
  compile::Executable::Cost c = program.executable->cost();
  return {c.flops, c.transcendentals, c.bytes_accessed, c.communication_bytes};
}

MemoryAnalysis memory_analysis(const Program &program) {
  const compile::Executable::Memory m = program.executable->memory();
  return {m.argument_bytes, m.output_bytes, m.alias_bytes, m.temp_bytes, m.arena_bytes};
}

} // namespace jx::detail

namespace jx {

Array with_sharding_constraint(const Array &x, const Sharding &sharding) {
  if (!detail::tracing) return device_put(x, sharding);
  sharding.check_compatible_aval(x.shape());
  detail::tracing->constraints.push_back({x.node(), sharding});
  return Array(x.node(), sharding);
}

} // namespace jx
