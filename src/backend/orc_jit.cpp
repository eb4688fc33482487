// LLJIT wrapper: one JIT per process, host target, O3 with glibc's libmvec as the vector math
// library, kernels cached by structural key in memory and, under JX_CACHE_DIR, as object files
// on disk.
#include "backend/orc_jit.h"

#include <jx/error.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fmt/format.h>
#include <mutex>
#include <string_view>
#include <thread>
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
#include "runtime/thread_pool.h"
#include "runtime/trace.h"

namespace jx::backend {

using trace_span = runtime::trace::Span;
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
    // Kernels not in the cache, each once.
    std::unordered_map<std::string, std::shared_ptr<CompiledKernel>> fresh;
    std::vector<Member> members;                         // in order
    std::vector<std::pair<size_t, std::string>> pending; // plan index, key
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
        auto [it, inserted] = fresh.emplace(key, kernel);
        members.push_back({&it->first, kernel.get(), plans[i]});
      }
      pending.push_back({i, key});
    }
    if (fresh.empty()) return out;

    const disk_cache::Directory *dir = cache_directory();
    std::vector<Shard> shards = split(members);
    // Shard 0 on this thread, the others on threads of their own (each with its own context
    // and target machine); a shard whose thread the system refuses runs here afterwards.
    std::vector<std::thread> threads;
    std::vector<size_t> refused;
    for (size_t k = 1; k < shards.size(); ++k) {
      try {
        threads.emplace_back([this, &shards, k, dir] { compile_shard(shards[k], target(k), dir); });
      } catch (const std::system_error &) {
        refused.push_back(k);
      }
    }
    compile_shard(shards[0], target_, dir);
    for (std::thread &t : threads)
      t.join();
    for (size_t k : refused)
      compile_shard(shards[k], target(k), dir);
    for (const Shard &shard : shards)
      if (shard.error) std::rethrow_exception(shard.error);
    for (Shard &shard : shards) {
      disk_stats_ += shard.disk_stats;
      check(jit_->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(shard.object, "jx_kernels")),
            "add object");
      for (auto &[key, kernel] : shard.batch)
        kernel->fn = check(jit_->lookup(kernel->name), "lookup").toPtr<runtime::KernelFn>();
    }
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
  static constexpr int kCacheFormat = 3; // 2: no SLP vectorization; 3: hashed loops hidden from LSR
  // Modules a batch is split into at most (one per thread).
  static constexpr size_t max_shards = 8;

  using Batch = std::vector<std::pair<const std::string *, CompiledKernel *>>;

  struct Member {
    const std::string *key;
    CompiledKernel *kernel;
    const passes::KernelPlan *plan;
  };
  // Kernels compiled as one module: one O3 run, one code generation, one disk cache entry.
  struct Shard {
    Batch batch;
    std::vector<const passes::KernelPlan *> plans;
    std::string object;
    DiskCacheStats disk_stats;
    std::exception_ptr error;
  };

  // The kernels in up to one shard per thread, by their inline node counts, largest first into
  // the lightest shard: O3 and code generation are nearly all of a compile (212 ms of the
  // Simpson gradient's 214), and LLVM runs them one module at a time.
  static std::vector<Shard> split(const std::vector<Member> &members) {
    const size_t count =
        std::min({members.size(), size_t(runtime::default_thread_count()), max_shards});
    std::vector<std::pair<size_t, size_t>> sizes; // nodes, member
    for (size_t i = 0; i < members.size(); ++i)
      sizes.push_back({members[i].plan->inline_node_count(), i});
    std::stable_sort(sizes.begin(), sizes.end(), std::greater<>());
    std::vector<size_t> load(count, 0), shard_of(members.size());
    for (auto [nodes, i] : sizes) {
      const size_t k = size_t(std::min_element(load.begin(), load.end()) - load.begin());
      load[k] += nodes;
      shard_of[i] = k;
    }
    std::vector<Shard> shards(count);
    for (size_t i = 0; i < members.size(); ++i) {
      Shard &shard = shards[shard_of[i]];
      shard.batch.push_back({members[i].key, members[i].kernel});
      shard.plans.push_back(members[i].plan);
    }
    return shards;
  }

  // A target machine for shard k's thread (k = 0: the JIT's own), made once and kept.
  const codegen::Target &target(size_t k) {
    if (k == 0) return target_;
    std::lock_guard lock(targets_mutex_);
    while (shard_targets_.size() < k)
      shard_targets_.push_back(std::make_unique<codegen::Target>(codegen::make_target("host")));
    return *shard_targets_[k - 1];
  }

  // The shard's module emitted, then loaded from the disk cache or optimized and compiled (and
  // stored). Errors are kept for the caller to rethrow.
  void compile_shard(Shard &shard, const codegen::Target &target,
                     const disk_cache::Directory *dir) {
    try {
      // The trace's spans name the shard's kernels.
      std::string kernels;
      if (runtime::trace::recording())
        for (const auto &[key, kernel] : shard.batch)
          kernels += (kernels.empty() ? "\"kernels\": \"" : " ") + kernel->name;
      if (!kernels.empty()) kernels += "\"";
      auto span = [&](trace_span &t) {
        if (t.active()) t.set_args(kernels);
      };
      llvm::LLVMContext context;
      llvm::Module module("jx_kernels", context);
      {
        trace_span emit("llvm", "emit IR");
        span(emit);
        for (size_t i = 0; i < shard.plans.size(); ++i)
          codegen::emit_kernel_into(module, *shard.plans[i], shard.batch[i].second->name);
      }
      std::string identity, entry_name;
      if (dir) {
        identity = batch_identity(module, shard.batch);
        entry_name = disk_cache::entry_name(disk_cache::hash64(identity));
        if (load_entry(*dir, entry_name, identity, shard.batch, shard.object, shard.disk_stats)) {
          runtime::trace::instant("llvm", "disk cache hit", kernels);
          return;
        }
      }
      {
        trace_span optimize("llvm", "optimize (O3)");
        span(optimize);
        codegen::optimize(module, target);
      }
      for (auto &[key, kernel] : shard.batch) {
        llvm::raw_string_ostream ir(kernel->optimized_ir);
        module.getFunction(kernel->name)->print(ir);
      }
      trace_span codegen_span("llvm", "code generation");
      span(codegen_span);
      shard.object = codegen::emit_object(module, target);
      if (dir)
        store_entry(*dir, entry_name, std::move(identity), shard.batch, shard.object,
                    shard.disk_stats);
    } catch (...) {
      shard.error = std::current_exception();
    }
  }

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
                  const std::string &identity, const Batch &batch, std::string &object,
                  DiskCacheStats &stats) {
    std::string bytes;
    const disk_cache::Directory::Read read = dir.read(name, bytes);
    std::optional<disk_cache::Entry> entry;
    if (read == disk_cache::Directory::Read::ok) entry = disk_cache::decode(bytes, dir.key());
    bool ok = entry && entry->identity == identity && entry->kernels.size() == batch.size();
    for (size_t i = 0; ok && i < batch.size(); ++i)
      ok = entry->kernels[i].name == batch[i].second->name;
    ok = ok && defines_batch(entry->object, batch);
    if (!ok) {
      if (read != disk_cache::Directory::Read::missing) ++stats.rejected;
      stats.misses += batch.size();
      return false;
    }
    for (size_t i = 0; i < batch.size(); ++i)
      batch[i].second->optimized_ir = std::move(entry->kernels[i].ir);
    object = std::move(entry->object);
    stats.hits += batch.size();
    return true;
  }

  void store_entry(const disk_cache::Directory &dir, const std::string &name, std::string identity,
                   const Batch &batch, const std::string &object, DiskCacheStats &stats) {
    disk_cache::Entry entry;
    entry.identity = std::move(identity);
    for (auto &[key, kernel] : batch)
      entry.kernels.push_back({kernel->name, kernel->optimized_ir});
    entry.object = object;
    if (!dir.write(name, disk_cache::encode(entry, dir.key()))) ++stats.write_failures;
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
  std::mutex targets_mutex_;
  std::vector<std::unique_ptr<codegen::Target>> shard_targets_; // for shards 1, 2, ...
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
