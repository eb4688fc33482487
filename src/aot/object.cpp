#include "aot/object.h"

#include <jx/error.h>

#include <fmt/format.h>

#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/emit.h"
#include "codegen/llvm_target.h"
#include "runtime/kernel_symbols.h"

namespace jx::aot_impl {
namespace {

const char *tier_name(runtime::MathTier tier) {
  switch (tier) {
  case runtime::MathTier::avx512: return "avx512";
  case runtime::MathTier::avx2: return "avx2";
  case runtime::MathTier::scalar: return "scalar";
  }
  return "scalar";
}

// A private, read-only global; constants are aligned as runtime buffers are.
llvm::GlobalVariable *private_constant(llvm::Module &module, llvm::Constant *init,
                                       const std::string &name, uint64_t align) {
  auto *g = new llvm::GlobalVariable(module, init->getType(), true,
                                     llvm::GlobalValue::PrivateLinkage, init, name);
  g->setAlignment(llvm::Align(align));
  return g;
}

// The runtime::aot::cpu_features the target's code may use.
uint64_t required_features(const llvm::TargetMachine &machine) {
  uint64_t mask = 0;
  for (size_t i = 0; i < runtime::aot::cpu_feature_count; ++i)
    if (machine.getMCSubtargetInfo()->checkFeatures(std::string("+") +
                                                    runtime::aot::cpu_features[i]))
      mask |= uint64_t(1) << i;
  return mask;
}

// Stands in for the kernels while the generator decodes its own program: never called.
void placeholder_kernel(const int64_t *, void *const *) {}

} // namespace

Object emit_object(const ObjectContents &c) {
  const codegen::Target target = codegen::make_target(c.target_cpu);
  const std::vector<int64_t> words =
      runtime::aot::encode(c.program, c.signature, required_features(*target.machine));
  // What each kernel was compiled for, from its plan (not from the program, which the runtime
  // checks against it): outputs, inputs, literals, then their bytes.
  std::vector<int64_t> kernel_info;
  for (const passes::KernelPlan *plan : c.kernels) {
    kernel_info.insert(kernel_info.end(),
                       {int64_t(plan->roots.size()), int64_t(plan->inputs.size()),
                        int64_t(plan->literals.size())});
    for (const ir::NodePtr &root : plan->roots)
      kernel_info.push_back(root->size() * int64_t(itemsize(root->dtype)));
    for (const ir::Node *in : plan->inputs)
      kernel_info.push_back(in->size() * int64_t(itemsize(in->dtype)));
  }
  std::vector<int64_t> constant_bytes;
  for (const runtime::BufferPtr &constant : c.constants)
    constant_bytes.push_back(int64_t(constant->bytes()));
  // What jx_aot_run_v7 will check on load, checked now: a program it would refuse fails the
  // generator, not every call of the object.
  {
    const std::vector<jx_aot_kernel> kernels(c.kernels.size(), &placeholder_kernel);
    std::vector<const void *> constants;
    for (const runtime::BufferPtr &constant : c.constants)
      constants.push_back(constant->data());
    const jx_aot_object object{words.data(),
                               int64_t(words.size()),
                               kernels.data(),
                               int64_t(kernels.size()),
                               kernel_info.data(),
                               int64_t(kernel_info.size()),
                               constants.data(),
                               constant_bytes.data(),
                               int64_t(constants.size())};
    runtime::aot::decode(object, 1);
  }
  llvm::LLVMContext context;
  llvm::Module module("jx_aot_" + c.symbol, context);
  std::vector<std::string> kernel_names;
  for (size_t k = 0; k < c.kernels.size(); ++k) {
    kernel_names.push_back(fmt::format("{}_kernel{}", c.symbol, k));
    codegen::emit_kernel_into(module, *c.kernels[k], kernel_names.back());
  }
  codegen::optimize(module, target);
  // Only the entry point is visible: kernels of several AOT functions may share a program.
  for (llvm::Function &f : module)
    if (!f.isDeclaration()) f.setLinkage(llvm::GlobalValue::InternalLinkage);
  // Kernels call the runtime's functions by tier-neutral names; link against the tier's symbols.
  for (const runtime::MathSymbol &s : runtime::kernel_symbols(target.math_tier))
    if (s.name != s.link_name)
      if (llvm::Function *f = module.getFunction(s.name)) f->setName(s.link_name);

  llvm::Type *i64 = llvm::Type::getInt64Ty(context), *i32 = llvm::Type::getInt32Ty(context);
  llvm::PointerType *ptr = llvm::PointerType::getUnqual(context);
  auto *program = private_constant(
      module,
      llvm::ConstantDataArray::get(
          context,
          llvm::ArrayRef<uint64_t>(reinterpret_cast<const uint64_t *>(words.data()), words.size())),
      "jx_aot_program", 8);
  // Where the runtime keeps the decoded program: one writable slot per object.
  auto *state = new llvm::GlobalVariable(module, ptr, false, llvm::GlobalValue::PrivateLinkage,
                                         llvm::ConstantPointerNull::get(ptr), "jx_aot_state");
  state->setAlignment(llvm::Align(8));
  std::vector<llvm::Constant *> kernels, constants;
  for (const std::string &name : kernel_names)
    kernels.push_back(module.getFunction(name));
  for (size_t i = 0; i < c.constants.size(); ++i) {
    const auto *bytes = static_cast<const uint8_t *>(c.constants[i]->data());
    constants.push_back(private_constant(
        module,
        llvm::ConstantDataArray::get(
            context, llvm::ArrayRef<uint8_t>(bytes, bytes + c.constants[i]->bytes())),
        fmt::format("jx_aot_constant{}", i), runtime::Buffer::alignment));
  }
  auto table = [&](std::vector<llvm::Constant *> &entries, const char *name) -> llvm::Constant * {
    if (entries.empty()) return llvm::ConstantPointerNull::get(ptr);
    auto *type = llvm::ArrayType::get(ptr, entries.size());
    return private_constant(module, llvm::ConstantArray::get(type, entries), name, 8);
  };
  auto words_table = [&](const std::vector<int64_t> &values, const char *name) -> llvm::Constant * {
    if (values.empty()) return llvm::ConstantPointerNull::get(ptr);
    return private_constant(
        module,
        llvm::ConstantDataArray::get(
            context, llvm::ArrayRef<uint64_t>(reinterpret_cast<const uint64_t *>(values.data()),
                                              values.size())),
        name, 8);
  };
  auto i64_constant = [&](size_t v) { return llvm::ConstantInt::get(i64, v); };
  // jx_aot_object, field by field.
  auto *object_type = llvm::StructType::get(context, {ptr, i64, ptr, i64, ptr, i64, ptr, ptr, i64});
  auto *object = private_constant(
      module,
      llvm::ConstantStruct::get(
          object_type,
          {program, i64_constant(words.size()), table(kernels, "jx_aot_kernels"),
           i64_constant(kernels.size()), words_table(kernel_info, "jx_aot_kernel_info"),
           i64_constant(kernel_info.size()), table(constants, "jx_aot_constants"),
           words_table(constant_bytes, "jx_aot_constant_bytes"), i64_constant(constants.size())}),
      "jx_aot_object", 8);

  // int32_t SYMBOL(args, num_args, results, num_results, error, error_size) -> jx_aot_run_v7
  auto *run_type = llvm::FunctionType::get(i32, {ptr, ptr, ptr, i32, ptr, i32, ptr, i64}, false);
  llvm::FunctionCallee run =
      module.getOrInsertFunction(fmt::format("jx_aot_run_v{}", JX_AOT_ABI_VERSION), run_type);
  auto *entry_type = llvm::FunctionType::get(i32, {ptr, i32, ptr, i32, ptr, i64}, false);
  if (module.getFunction(c.symbol) || module.getNamedGlobal(c.symbol))
    throw Error(fmt::format("internal: jx.aot: the symbol '{}' is taken", c.symbol));
  auto *entry =
      llvm::Function::Create(entry_type, llvm::GlobalValue::ExternalLinkage, c.symbol, module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  auto arg = [&](unsigned i) { return entry->getArg(i); };
  b.CreateRet(b.CreateCall(run, {state, object, arg(0), arg(1), arg(2), arg(3), arg(4), arg(5)}));
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyModule(module, &os))
    throw Error("internal: invalid LLVM IR for AOT function " + c.symbol + ": " + os.str());
  return {codegen::emit_object(module, target), target.machine->getTargetCPU().str(),
          tier_name(target.math_tier)};
}

} // namespace jx::aot_impl
