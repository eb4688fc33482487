// LLJIT wrapper: one JIT per process, host target, O3 with glibc's libmvec as the vector math
// library, kernels cached by structural key.
#include "jit/jit.h"

#include <jx/error.h>

#include <chrono>
#include <fmt/format.h>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/emit.h"

namespace jx::backend {
namespace {

template <class T> T check(llvm::Expected<T> value, const char *what) {
  if (!value) throw Error(fmt::format("internal: {}: {}", what, llvm::toString(value.takeError())));
  return std::move(*value);
}

void check(llvm::Error error, const char *what) {
  if (error) throw Error(fmt::format("internal: {}: {}", what, llvm::toString(std::move(error))));
}

// libmvec functions LLVM 19's LIBMVEC_X86 table lacks (it has sin, cos, tan, exp, log, pow).
std::vector<llvm::VecDesc> extra_libmvec_functions() {
  std::vector<llvm::VecDesc> fns;
  auto add = [&](const char *scalar, const char *sse, const char *avx2) {
    const bool is_float = std::string_view(scalar).back() == 'f';
    const unsigned vf = is_float ? 4 : 2;
    fns.emplace_back(scalar, sse, llvm::ElementCount::getFixed(vf), false,
                     is_float ? "_ZGV_LLVM_N4v" : "_ZGV_LLVM_N2v");
    fns.emplace_back(scalar, avx2, llvm::ElementCount::getFixed(2 * vf), false,
                     is_float ? "_ZGV_LLVM_N8v" : "_ZGV_LLVM_N4v");
  };
  add("tanh", "_ZGVbN2v_tanh", "_ZGVdN4v_tanh");
  add("expm1", "_ZGVbN2v_expm1", "_ZGVdN4v_expm1");
  add("log1p", "_ZGVbN2v_log1p", "_ZGVdN4v_log1p");
  add("tanhf", "_ZGVbN4v_tanhf", "_ZGVdN8v_tanhf");
  add("expm1f", "_ZGVbN4v_expm1f", "_ZGVdN8v_expm1f");
  add("log1pf", "_ZGVbN4v_log1pf", "_ZGVdN8v_log1pf");
  return fns;
}

class Jit {
public:
  Jit() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto builder = check(llvm::orc::JITTargetMachineBuilder::detectHost(), "detect host");
    builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    machine_ = check(builder.createTargetMachine(), "target machine");
    jit_ = check(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(builder).create(), "LLJIT");
    const char prefix = jit_->getDataLayout().getGlobalPrefix();
    auto &lib = jit_->getMainJITDylib();
    lib.addGenerator(check(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix),
                           "process symbols"));
    // Vectorized math calls resolve to glibc's libmvec.
    lib.addGenerator(
        check(llvm::orc::DynamicLibrarySearchGenerator::Load("libmvec.so.1", prefix), "libmvec"));
    llvm::orc::SymbolMap runtime;
    for (const codegen::RuntimeSymbol &s : codegen::runtime_symbols())
      runtime[jit_->mangleAndIntern(s.name)] = {llvm::orc::ExecutorAddr::fromPtr(s.address),
                                                llvm::JITSymbolFlags::Exported};
    check(lib.define(llvm::orc::absoluteSymbols(std::move(runtime))), "runtime symbols");
  }

  std::shared_ptr<const CompiledKernel> compile(const codegen::KernelPlan &plan) {
    std::string key = plan.structural_key();
    std::lock_guard lock(mutex_);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    auto start = std::chrono::steady_clock::now();
    auto kernel = std::make_shared<CompiledKernel>();
    kernel->name = fmt::format("jx_kernel_{}", cache_.size());
    auto context = std::make_unique<llvm::LLVMContext>();
    std::unique_ptr<llvm::Module> module = codegen::emit_kernel(*context, plan, kernel->name);
    optimize(*module);
    llvm::raw_string_ostream ir(kernel->optimized_ir);
    module->print(ir, nullptr);
    check(jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))),
          "add module");
    kernel->fn = check(jit_->lookup(kernel->name), "lookup").toPtr<codegen::KernelFn>();
    kernel->compile_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    cache_.emplace(std::move(key), kernel);
    return kernel;
  }

  std::string assembly(const codegen::KernelPlan &plan) {
    std::lock_guard lock(mutex_);
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = codegen::emit_kernel(context, plan, "jx_kernel");
    optimize(*module);
    llvm::SmallString<0> text;
    llvm::raw_svector_ostream os(text);
    llvm::legacy::PassManager pm;
    if (machine_->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
      throw Error("internal: the target cannot emit assembly");
    pm.run(*module);
    return std::string(text.str());
  }

  size_t compiled_count() {
    std::lock_guard lock(mutex_);
    return cache_.size();
  }

private:
  void optimize(llvm::Module &module) {
    module.setDataLayout(machine_->createDataLayout());
    module.setTargetTriple(machine_->getTargetTriple().str());
    for (llvm::Function &f : module) {
      if (f.isDeclaration()) continue;
      f.addFnAttr("target-cpu", machine_->getTargetCPU());
      f.addFnAttr("target-features", machine_->getTargetFeatureString());
    }
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions tuning;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    llvm::PassBuilder pb(machine_.get(), tuning);
    // Registered before the defaults, or registerFunctionAnalyses installs a plain TLI without
    // the vector library and math calls stay scalar.
    llvm::Triple triple(module.getTargetTriple());
    llvm::TargetLibraryInfoImpl tli(triple);
    tli.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
    tli.addVectorizableFunctions(extra_libmvec_functions());
    fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tli); });
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
  }

  std::mutex mutex_;
  std::unique_ptr<llvm::TargetMachine> machine_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::unordered_map<std::string, std::shared_ptr<const CompiledKernel>> cache_;
};

Jit &instance() {
  static Jit *jit = new Jit; // never destroyed: kernels may run during static teardown
  return *jit;
}

} // namespace

std::shared_ptr<const CompiledKernel> compile(const codegen::KernelPlan &plan) {
  return instance().compile(plan);
}
size_t compiled_kernel_count() { return instance().compiled_count(); }
std::string assembly(const codegen::KernelPlan &plan) { return instance().assembly(plan); }

} // namespace jx::backend
