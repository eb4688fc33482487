// LLJIT wrapper: one JIT per process, host target, O3 with glibc's libmvec as the vector math
// library, kernels cached by structural key in memory and, under JX_CACHE_DIR, as object files
// on disk.
#include "backend/orc_jit.h"

#include <jx/error.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Module.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "backend/disk_cache.h"
#include "codegen/emit.h"
#include "codegen/llvm_target.h"
#include "runtime/kernel_symbols.h"

namespace jx::backend {
namespace {

template <class T> T check(llvm::Expected<T> value, const char *what) {
  if (!value) throw Error(fmt::format("internal: {}: {}", what, llvm::toString(value.takeError())));
  return std::move(*value);
}

void check(llvm::Error error, const char *what) {
  if (error) throw Error(fmt::format("internal: {}: {}", what, llvm::toString(std::move(error))));
}

// Kernel symbols are named from their structural key, so that an object file written by one
// process links into another under the same names.
std::string kernel_name(const std::string &structural_key) {
  return fmt::format("jx_kernel_{:016x}", disk_cache::hash64(structural_key));
}

class Jit {
public:
  Jit() : target_(codegen::make_target("host")) {
    const llvm::TargetMachine &machine = *target_.machine;
    if (const char *dir = std::getenv("JX_CACHE_DIR")) cache_dir_ = dir;
    // Everything besides the kernels' IR that decides the machine code; the vector-library
    // table and optimize()'s tuning are code, so kCacheFormat names their revision.
    host_identity_ =
        fmt::format("jx kernel cache {}.{}\nllvm {}\ntriple {}\ncpu {}\nfeatures {}\noptions {}\n"
                    "vector library {:016x}\n",
                    disk_cache::format_version, kCacheFormat, LLVM_VERSION_STRING,
                    machine.getTargetTriple().str(), machine.getTargetCPU().str(),
                    machine.getTargetFeatureString().str(), codegen::llvm_options(),
                    disk_cache::hash64(codegen::math_library_text(target_.math_tier)));
    jit_ = check(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(target_.builder).create(),
                 "LLJIT");
    const char prefix = jit_->getDataLayout().getGlobalPrefix();
    auto &lib = jit_->getMainJITDylib();
    lib.addGenerator(check(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix),
                           "process symbols"));
    // Vectorized math calls resolve to glibc's libmvec.
    lib.addGenerator(
        check(llvm::orc::DynamicLibrarySearchGenerator::Load("libmvec.so.1", prefix), "libmvec"));
    llvm::orc::SymbolMap runtime;
    for (const runtime::MathSymbol &s : runtime::kernel_symbols(target_.math_tier))
      runtime[jit_->mangleAndIntern(s.name)] = {llvm::orc::ExecutorAddr::fromPtr(s.address),
                                                llvm::JITSymbolFlags::Exported};
    check(lib.define(llvm::orc::absoluteSymbols(std::move(runtime))), "runtime symbols");
  }

  std::vector<std::shared_ptr<const CompiledKernel>>
  compile_all(const std::vector<const passes::KernelPlan *> &plans) {
    std::vector<std::shared_ptr<const CompiledKernel>> out(plans.size());
    std::lock_guard lock(mutex_);
    auto start = std::chrono::steady_clock::now();
    auto context = std::make_unique<llvm::LLVMContext>();
    auto module = std::make_unique<llvm::Module>("jx_kernels", *context);
    // Kernels not in the cache, each once, emitted into one module: one O3 run and one machine
    // code generation for the whole batch.
    std::unordered_map<std::string, std::shared_ptr<CompiledKernel>> fresh;
    std::vector<std::pair<const std::string *, CompiledKernel *>> batch; // key, kernel; in order
    std::vector<std::pair<size_t, std::string>> pending;                 // plan index, key
    for (size_t i = 0; i < plans.size(); ++i) {
      std::string key = plans[i]->structural_key();
      if (auto it = cache_.find(key); it != cache_.end()) {
        out[i] = it->second;
        continue;
      }
      if (!fresh.count(key)) {
        auto kernel = std::make_shared<CompiledKernel>();
        kernel->name = kernel_name(key);
        // Two keys with one 64-bit hash: the second gets a process-local name.
        for (size_t n = 1; names_.count(kernel->name); ++n)
          kernel->name = fmt::format("{}_{}", kernel_name(key), n);
        names_.insert(kernel->name);
        codegen::emit_kernel_into(*module, *plans[i], kernel->name);
        auto [it, inserted] = fresh.emplace(key, kernel);
        batch.push_back({&it->first, kernel.get()});
      }
      pending.push_back({i, key});
    }
    if (fresh.empty()) return out;

    std::string object, entry_name, identity;
    bool loaded = false;
    const disk_cache::Directory *dir = cache_directory();
    if (dir) {
      identity = batch_identity(*module, batch);
      entry_name = disk_cache::entry_name(disk_cache::hash64(identity));
      loaded = load_entry(*dir, entry_name, identity, batch, object);
    }
    if (!loaded) {
      codegen::optimize(*module, target_);
      for (auto &[key, kernel] : batch) {
        llvm::raw_string_ostream ir(kernel->optimized_ir);
        module->getFunction(kernel->name)->print(ir);
      }
      object = codegen::emit_object(*module, target_);
      if (dir) store_entry(*dir, entry_name, std::move(identity), batch, object);
    }
    check(jit_->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(object, "jx_kernels")),
          "add object");
    for (auto &[key, kernel] : batch)
      kernel->fn = check(jit_->lookup(kernel->name), "lookup").toPtr<runtime::KernelFn>();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    for (auto &[key, kernel] : fresh) {
      kernel->compile_ms = ms;
      cache_.emplace(key, kernel);
    }
    for (auto &[i, key] : pending)
      out[i] = cache_.at(key);
    return out;
  }

  std::string assembly(const passes::KernelPlan &plan) {
    std::lock_guard lock(mutex_);
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = codegen::emit_kernel(context, plan, "jx_kernel");
    codegen::optimize(*module, target_);
    return codegen::emit_assembly(*module, target_);
  }

  size_t compiled_count() {
    std::lock_guard lock(mutex_);
    return cache_.size();
  }

  DiskCacheStats disk_stats() {
    std::lock_guard lock(mutex_);
    return disk_stats_;
  }
  std::string cache_dir() {
    std::lock_guard lock(mutex_);
    return cache_dir_;
  }
  void set_cache_dir(const std::string &dir) {
    std::lock_guard lock(mutex_);
    cache_dir_ = dir;
    directory_.reset();
    directory_checked_ = false;
  }

private:
  // Revision of what the disk cache's key cannot see: bump it when optimize() or emit_object()
  // change the code they make from the same IR.
  static constexpr int kCacheFormat = 2; // 2: no SLP vectorization

  using Batch = std::vector<std::pair<const std::string *, CompiledKernel *>>;

  // The text a batch's disk cache key hashes: the host identity, the kernels' structural keys
  // and a hash of the unoptimized module (so that a jx build whose code generator emits other IR
  // for the same structure does not load an older build's objects).
  std::string batch_identity(const llvm::Module &module, const Batch &batch) {
    std::string ir;
    llvm::raw_string_ostream os(ir);
    module.print(os, nullptr);
    std::string identity = host_identity_;
    identity += fmt::format("module {:016x}\n", disk_cache::hash64(ir));
    for (auto &[key, kernel] : batch)
      identity += fmt::format("kernel {} {} {}\n", kernel->name, key->size(), *key);
    return identity;
  }

  // The disk cache's directory, opened and checked on first use after it was set; nullptr when
  // the cache is off or its directory unusable (said once on stderr: an unusable cache only
  // costs compile time, so it is no reason to fail the computation that needed the kernels).
  const disk_cache::Directory *cache_directory() {
    if (!directory_checked_ && !cache_dir_.empty()) {
      directory_checked_ = true;
      std::string error;
      directory_ = disk_cache::Directory::open(cache_dir_, error);
      if (!directory_)
        std::fprintf(stderr, "jx: warning: not using the kernel cache directory: %s\n",
                     error.c_str());
    }
    return directory_.get();
  }

  // Whether object is an object file for this target defining every kernel of the batch, so
  // that adding it to the JIT cannot fail (a failure there would leave its names defined).
  bool defines_batch(const std::string &object, const Batch &batch) {
    auto file = llvm::object::ObjectFile::createObjectFile(
        llvm::MemoryBufferRef(llvm::StringRef(object), "jx_kernels"));
    if (!file) {
      llvm::consumeError(file.takeError());
      return false;
    }
    std::unordered_set<std::string> defined;
    for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
      llvm::Expected<uint32_t> flags = symbol.getFlags();
      llvm::Expected<llvm::StringRef> name = symbol.getName();
      if (!flags || !name) {
        if (!flags) llvm::consumeError(flags.takeError());
        if (!name) llvm::consumeError(name.takeError());
        return false;
      }
      if (!(*flags & llvm::object::SymbolRef::SF_Undefined)) defined.insert(name->str());
    }
    const char prefix = jit_->getDataLayout().getGlobalPrefix();
    for (auto &[key, kernel] : batch)
      if (!defined.count(prefix ? prefix + kernel->name : kernel->name)) return false;
    return true;
  }

  // Fills the batch's IR text and object from the entry when it exists and passes every check;
  // false (a miss) otherwise. A rejected entry is replaced when the batch is stored.
  bool load_entry(const disk_cache::Directory &dir, const std::string &name,
                  const std::string &identity, const Batch &batch, std::string &object) {
    std::string bytes;
    const disk_cache::Directory::Read read = dir.read(name, bytes);
    std::optional<disk_cache::Entry> entry;
    if (read == disk_cache::Directory::Read::ok) entry = disk_cache::decode(bytes, dir.key());
    bool ok = entry && entry->identity == identity && entry->kernels.size() == batch.size();
    for (size_t i = 0; ok && i < batch.size(); ++i)
      ok = entry->kernels[i].name == batch[i].second->name;
    ok = ok && defines_batch(entry->object, batch);
    if (!ok) {
      if (read != disk_cache::Directory::Read::missing) ++disk_stats_.rejected;
      disk_stats_.misses += batch.size();
      return false;
    }
    for (size_t i = 0; i < batch.size(); ++i)
      batch[i].second->optimized_ir = std::move(entry->kernels[i].ir);
    object = std::move(entry->object);
    disk_stats_.hits += batch.size();
    return true;
  }

  void store_entry(const disk_cache::Directory &dir, const std::string &name, std::string identity,
                   const Batch &batch, const std::string &object) {
    disk_cache::Entry entry;
    entry.identity = std::move(identity);
    for (auto &[key, kernel] : batch)
      entry.kernels.push_back({kernel->name, kernel->optimized_ir});
    entry.object = object;
    if (!dir.write(name, disk_cache::encode(entry, dir.key()))) ++disk_stats_.write_failures;
  }

  std::mutex mutex_;
  codegen::Target target_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::unordered_map<std::string, std::shared_ptr<const CompiledKernel>> cache_;
  std::unordered_set<std::string> names_; // kernel symbols given out (defined in the JIT)
  std::string cache_dir_;                 // the disk cache's directory; "" when off
  std::unique_ptr<disk_cache::Directory> directory_; // cache_dir_ opened, if usable
  bool directory_checked_ = false;                   // whether cache_dir_ was opened
  std::string host_identity_;                        // the disk cache key's part fixed per process
  DiskCacheStats disk_stats_;
};

Jit &instance() {
  static Jit *jit = new Jit; // never destroyed: kernels may run during static teardown
  return *jit;
}

} // namespace

std::shared_ptr<const CompiledKernel> compile(const passes::KernelPlan &plan) {
  return instance().compile_all({&plan})[0];
}
std::vector<std::shared_ptr<const CompiledKernel>>
compile_all(const std::vector<const passes::KernelPlan *> &plans) {
  return instance().compile_all(plans);
}
size_t compiled_kernel_count() { return instance().compiled_count(); }
DiskCacheStats disk_cache_stats() { return instance().disk_stats(); }
std::string disk_cache_dir() { return instance().cache_dir(); }
void set_disk_cache_dir(const std::string &dir) { instance().set_cache_dir(dir); }
std::string assembly(const passes::KernelPlan &plan) { return instance().assembly(plan); }

} // namespace jx::backend
