// Stage 5, code generation: every kernel of a program emitted into one LLVM module, optimized
// and compiled together (backend::compile_all; the disk and memory caches answer what they can).
#include "compile/executable.h"
#include "compile/lower.h"

namespace jx::compile {

void compile_kernels(ProgramPlan &program) {
  for (ProgramStep &s : program.steps)
    if (s.kind == ProgramStep::Kind::Control)
      for (const ir::Region &r : *s.node->regions)
        s.regions.push_back(std::make_shared<const Executable>(r.params, r.outputs));
  std::vector<const passes::KernelPlan *> plans;
  std::vector<ProgramStep *> owners;
  for (ProgramStep &s : program.steps)
    if (s.kind == ProgramStep::Kind::Kernel && s.node->size() > 0) {
      plans.push_back(s.plan.get());
      owners.push_back(&s);
    }
  std::vector<std::shared_ptr<const backend::CompiledKernel>> kernels = backend::compile_all(plans);
  for (size_t k = 0; k < kernels.size(); ++k)
    owners[k]->kernel = std::move(kernels[k]);
}

} // namespace jx::compile
