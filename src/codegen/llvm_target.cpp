#include "codegen/llvm_target.h"

#include <jx/error.h>

#include <array>
#include <cstdlib>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <unordered_set>

#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/StringSaver.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>

namespace jx::codegen {
namespace {

template <class T> T check(llvm::Expected<T> value, const char *what) {
  if (!value) throw Error(fmt::format("internal: {}: {}", what, llvm::toString(value.takeError())));
  return std::move(*value);
}

// The vector variants of the jx_ math functions kernels call (runtime/vector_math.h): the tier's
// widest libmvec variant, and wrappers through it for narrower widths. Built once per tier:
// VecDesc holds StringRefs into the strings kept here.
const std::vector<llvm::VecDesc> &math_library(runtime::MathTier tier) {
  struct Library {
    std::vector<runtime::VectorVariant> variants;
    std::vector<std::string> abis;
    std::vector<llvm::VecDesc> descs;
  };
  static std::array<const Library *, 3> libraries{};
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  const Library *&library = libraries[size_t(tier)];
  if (!library) {
    auto *l = new Library{runtime::math_vector_variants(tier), {}, {}};
    for (const runtime::VectorVariant &v : l->variants)
      l->abis.push_back(fmt::format("_ZGV_LLVM_N{}{}", v.lanes, std::string(v.args, 'v')));
    for (size_t i = 0; i < l->variants.size(); ++i)
      l->descs.emplace_back(l->variants[i].scalar, l->variants[i].vector,
                            llvm::ElementCount::getFixed(l->variants[i].lanes), false, l->abis[i]);
    library = l;
  }
  return library->descs;
}

} // namespace

namespace {

// The options as the disk cache key spells them, or why JX_LLVM_FLAGS was rejected.
struct ParsedOptions {
  std::string key;
  std::string error;
};

// LLVM's parser calls exit() for an unknown option unless given an error stream, and always for
// these, which print and exit.
bool exits_the_process(llvm::StringRef arg) {
  llvm::StringRef name = arg.ltrim('-').split('=').first;
  return arg.starts_with("-") &&
         llvm::is_contained({"help", "help-hidden", "help-list", "help-list-hidden", "version"},
                            name);
}

ParsedOptions parse_options() {
  const char *fixed = "-epilogue-vectorization-force-VF=4";
  const char *extra = std::getenv("JX_LLVM_FLAGS");
  ParsedOptions parsed{fmt::format("{} JX_LLVM_FLAGS={}", fixed, extra ? extra : ""), ""};
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  // jx's options first, so that JX_LLVM_FLAGS can override them.
  llvm::SmallVector<const char *, 8> argv{"jx", fixed};
  if (extra) llvm::cl::TokenizeGNUCommandLine(extra, saver, argv);
  for (const char *arg : argv)
    if (exits_the_process(arg)) {
      parsed.error = fmt::format("JX_LLVM_FLAGS: '{}' makes LLVM print and exit the process; list "
                                 "LLVM's options with `llc --help-hidden`",
                                 arg);
      return parsed;
    }
  std::string errors;
  llvm::raw_string_ostream errs(errors);
  if (llvm::cl::ParseCommandLineOptions(int(argv.size()), argv.data(), "", &errs)) return parsed;
  // "jx: Unknown command line argument '--x'.  Try: 'jx --help'\njx: Did you mean '--y'?\n"
  std::string reason;
  for (llvm::StringRef line : llvm::split(llvm::StringRef(errors).trim(), '\n')) {
    line = line.trim();
    if (line.empty()) continue;
    line.consume_front("jx: ");
    line = line.split("  Try: ").first;
    reason += fmt::format(" {}", line.str());
  }
  // Errors in an option's value go to stderr, not to `errs`.
  if (reason.empty()) reason = " LLVM rejected an option's value (its message is above on stderr)";
  parsed.error = fmt::format("JX_LLVM_FLAGS='{}' is not a valid LLVM command line:{}",
                             extra ? extra : "", reason);
  return parsed;
}

} // namespace

const std::string &llvm_options() {
  // LLVM vectorizes a loop's remainder only after main loops of 16 or more lanes. Kernels with
  // short rows then spend much of their time in scalar libm calls: the Simpson seed's 100
  // intervals are 96 lanes of 8-wide exp and 4 scalar calls, a third of the run. A 4-lane vector
  // epilogue covers such remainders. JX_LLVM_FLAGS passes further LLVM options (for experiments).
  // Parsed once: a rejected JX_LLVM_FLAGS fails every compile with the same ValueError.
  static const ParsedOptions options = parse_options();
  if (!options.error.empty()) throw ValueError(options.error);
  return options.key;
}

Target make_target(const std::string &cpu) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  llvm_options();
  llvm::orc::JITTargetMachineBuilder builder =
      cpu == "host"
          ? check(llvm::orc::JITTargetMachineBuilder::detectHost(), "detect host")
          : llvm::orc::JITTargetMachineBuilder(llvm::Triple(llvm::sys::getProcessTriple()));
  if (cpu != "host") {
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(builder.getTargetTriple().str(), error);
    if (!target) throw Error(fmt::format("internal: {}", error));
    auto info = std::unique_ptr<llvm::MCSubtargetInfo>(
        target->createMCSubtargetInfo(builder.getTargetTriple().str(), "", ""));
    if (!info->isCPUStringValid(cpu))
      throw ValueError(fmt::format("unknown target CPU '{}' (expected 'host' or an LLVM CPU name "
                                   "such as 'x86-64-v3')",
                                   cpu));
    builder.setCPU(cpu);
  }
  builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // Kernels are compiled to relocatable object files (the disk cache, ahead-of-time libraries)
  // and linked by LLJIT or the system linker: PIC and the small code model.
  builder.setRelocationModel(llvm::Reloc::PIC_);
  builder.setCodeModel(llvm::CodeModel::Small);
  std::unique_ptr<llvm::TargetMachine> machine =
      check(builder.createTargetMachine(), "target machine");
  const llvm::MCSubtargetInfo &info = *machine->getMCSubtargetInfo();
  const bool avx512 = info.checkFeatures("+avx512f");
  const runtime::MathTier tier = avx512                             ? runtime::MathTier::avx512
                                 : info.checkFeatures("+avx2,+fma") ? runtime::MathTier::avx2
                                                                    : runtime::MathTier::scalar;
  return {std::move(builder), std::move(machine), tier, avx512};
}

namespace {

// Loop Strength Reduction, in the code generation pipeline, analyzes every integer value that
// scalar evolution writes as a sum holding one of the loop's induction variables. Hashing an index
// (threefry's adds, xors and rotations over a counter: random bits per element, fold_in of a
// loop's index) adds the induction value to non-affine functions of itself, round after round:
// dozens of sums, each of more terms than the last, and seconds of code generation for one small
// kernel (LLVM issue 63644). In a loop with more than kHashedSums of them, the induction values
// reach those sums through an empty asm, which scalar evolution cannot see through. Addresses,
// compares, gathers (sums with loaded values) and the induction variables stay as they were, and
// the asm costs no instruction.
constexpr size_t kHashedSums = 16;

void hide_induction_from_hashes(llvm::LoopInfo &loops, llvm::ScalarEvolution &se) {
  for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
    auto scev_of = [&](llvm::Value *v) -> const llvm::SCEV * {
      return v->getType()->isIntegerTy() ? se.getSCEV(v) : nullptr;
    };
    auto induction = [&](const llvm::SCEV *s) {
      auto *rec = llvm::dyn_cast_or_null<llvm::SCEVAddRecExpr>(s);
      return rec && rec->getLoop() == loop;
    };
    // The loop's values computed from its induction values by arithmetic (not through memory, a
    // phi or a select): what a hash makes of an index.
    std::unordered_set<const llvm::Value *> derived;
    std::vector<llvm::Instruction *> work;
    for (llvm::BasicBlock *block : loop->blocks())
      for (llvm::Instruction &i : *block)
        if (induction(scev_of(&i))) work.push_back(&i);
    while (!work.empty()) {
      llvm::Instruction *i = work.back();
      work.pop_back();
      if (!derived.insert(i).second) continue;
      for (llvm::User *u : i->users())
        if (auto *user = llvm::dyn_cast<llvm::Instruction>(u))
          if (loop->contains(user) &&
              !llvm::isa<llvm::PHINode, llvm::SelectInst, llvm::LoadInst>(user) &&
              !user->mayHaveSideEffects())
            work.push_back(user);
    }
    auto hashed = [&](const llvm::SCEV *s) {
      auto *unknown = llvm::dyn_cast<llvm::SCEVUnknown>(s);
      return unknown && derived.count(unknown->getValue());
    };
    // In program order, so that the same IR always compiles to the same code.
    std::vector<llvm::Instruction *> sums;
    for (llvm::BasicBlock *block : loop->blocks())
      for (llvm::Instruction &i : *block) {
        const llvm::SCEV *s = derived.count(&i) ? scev_of(&i) : nullptr;
        if (s && !induction(s) && llvm::SCEVExprContains(s, induction) &&
            llvm::SCEVExprContains(s, hashed))
          sums.push_back(&i);
      }
    if (sums.size() <= kHashedSums) continue;
    std::map<llvm::Value *, llvm::Value *> hidden;
    for (llvm::Instruction *sum : sums)
      for (llvm::Use &use : sum->operands()) {
        auto *value = llvm::dyn_cast<llvm::Instruction>(use.get());
        if (!value || !induction(scev_of(value))) continue;
        llvm::Value *&opaque = hidden[value];
        if (!opaque) {
          auto *type = llvm::FunctionType::get(value->getType(), {value->getType()}, false);
          llvm::IRBuilder<> b(value->getParent(), value->getParent()->getFirstInsertionPt());
          if (!llvm::isa<llvm::PHINode>(value)) b.SetInsertPoint(value->getNextNode());
          opaque = b.CreateCall(llvm::InlineAsm::get(type, "", "=r,0", false), {value});
        }
        use.set(opaque);
      }
  }
}

} // namespace

void optimize(llvm::Module &module, const Target &target) {
  llvm::TargetMachine &machine = *target.machine;
  module.setDataLayout(machine.createDataLayout());
  module.setTargetTriple(machine.getTargetTriple().str());
  for (llvm::Function &f : module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", machine.getTargetCPU());
    f.addFnAttr("target-features", machine.getTargetFeatureString());
    // LLVM defaults to 256-bit vectors on AVX-512 hosts; kernels dominated by libmvec calls gain
    // from the 8-lane variants.
    if (target.avx512) f.addFnAttr("prefer-vector-width", "512");
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  // LLVM 19.1's SLP vectorizer miscompiles fully unrolled load-multiply-store chains (shuffles
  // with poison lanes where values belong: llvm/llvm-project#117170): a batched (1,2,5,1) x
  // (1,2,1,3) matmul kept as a loop came out with 4 of 30 elements wrong. The loop vectorizer
  // does the kernels' work.
  tuning.SLPVectorization = false;
  llvm::PassBuilder pb(&machine, tuning);
  // Registered before the defaults, or registerFunctionAnalyses installs a plain TLI without the
  // vector library and math calls stay scalar.
  llvm::Triple triple(module.getTargetTriple());
  llvm::TargetLibraryInfoImpl tli(triple);
  tli.addVectorizableFunctions(math_library(target.math_tier));
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tli); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
  for (llvm::Function &f : module)
    if (!f.isDeclaration())
      hide_induction_from_hashes(fam.getResult<llvm::LoopAnalysis>(f),
                                 fam.getResult<llvm::ScalarEvolutionAnalysis>(f));
}

namespace {
std::string emit_file(llvm::Module &module, const Target &target, llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (target.machine->addPassesToEmitFile(pm, os, nullptr, type))
    throw Error("internal: the target cannot emit this file type");
  pm.run(module);
  return std::string(buffer.data(), buffer.size());
}
} // namespace

std::string emit_object(llvm::Module &module, const Target &target) {
  return emit_file(module, target, llvm::CodeGenFileType::ObjectFile);
}

std::string emit_assembly(llvm::Module &module, const Target &target) {
  return emit_file(module, target, llvm::CodeGenFileType::AssemblyFile);
}

std::string math_library_text(runtime::MathTier tier) {
  std::string text;
  for (const llvm::VecDesc &d : math_library(tier))
    text += fmt::format("{}>{}/{};", d.getScalarFnName().str(), d.getVectorFnName().str(),
                        d.getVectorizationFactor().getKnownMinValue());
  return text;
}

} // namespace jx::codegen
