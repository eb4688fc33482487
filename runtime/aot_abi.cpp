// The C entry points of ahead-of-time objects (include/jx/aot_abi.h): jx_aot_run_v7, which every
// generated function calls, the version errors of v6, v5, v4, v3 and v2, jx_aot_allocate and
// jx_aot_free. The program's word format is runtime/aot.cpp's.
#include <jx/aot_abi.h>
#include <jx/error.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <new>
#include <unordered_map>

#include "runtime/allocator.h"
#include "runtime/aot.h"
#include "runtime/thread_pool.h"

namespace jx::runtime::aot {
namespace {

// An argument's or result's mismatch with its spec, or "".
std::string mismatch(const char *what, size_t i, const jx_aot_array &a, const ArraySpec &spec) {
  const bool dtype_ok = a.dtype == int32_t(spec.dtype);
  const bool shape_ok =
      a.rank == int32_t(spec.shape.size()) &&
      (a.rank == 0 || (a.shape && std::equal(spec.shape.begin(), spec.shape.end(), a.shape)));
  if (dtype_ok && shape_ok) {
    if (!a.data && byte_size(spec) > 0)
      return std::string(what) + " " + std::to_string(i) + " has no data";
    return "";
  }
  // The given shape is printed only when it can be read sensibly (a garbage rank is not).
  std::string given;
  if (a.dtype >= 0 && a.dtype < jx::num_dtypes && a.rank >= 0 && a.rank <= 32 &&
      (a.rank == 0 || a.shape))
    given = spec_text({{jx::DType(a.dtype), std::vector<int64_t>(a.shape, a.shape + a.rank)}});
  else
    given = "dtype code " + std::to_string(a.dtype) + ", rank " + std::to_string(a.rank);
  return std::string(what) + " " + std::to_string(i) + " is " + given + ", expected " +
         spec_text({spec});
}

int32_t fail(int32_t status, const std::string &message, char *error, size_t error_size) {
  if (error && error_size > 0) std::snprintf(error, error_size, "%s", message.c_str());
  return status;
}

int32_t run(void **state, const jx_aot_object *object, const jx_aot_array *args, int32_t num_args,
            const jx_aot_array *results, int32_t num_results, char *error, size_t error_size) {
  if (!state) return fail(JX_AOT_ERROR_ABI, "jx_aot_run_v7: state is null", error, error_size);
  if (!object) return fail(JX_AOT_ERROR_ABI, "jx_aot_run_v7: object is null", error, error_size);
  // Decoded once per object, published in the object's own slot (so an unloaded and reloaded
  // object never sees another's program); a losing racer drops its copy.
  std::atomic_ref<void *> slot(*state);
  auto *d = static_cast<const Decoded *>(slot.load(std::memory_order_acquire));
  if (!d) {
    std::unique_ptr<Decoded> fresh;
    try {
      fresh = std::make_unique<Decoded>(decode(*object, default_pool().size()));
    } catch (const jx::Error &e) {
      return fail(JX_AOT_ERROR_ABI, e.what(), error, error_size);
    }
    void *expected = nullptr;
    if (slot.compare_exchange_strong(expected, fresh.get(), std::memory_order_acq_rel))
      d = fresh.release();
    else
      d = static_cast<const Decoded *>(expected);
  }
  static const uint64_t host = host_cpu_features();
  if (const std::string missing = missing_cpu_features(d->required_features, host);
      !missing.empty())
    return fail(JX_AOT_ERROR_CPU,
                "this object was compiled for a CPU with " + missing + ", which this one lacks",
                error, error_size);
  const Signature &sig = d->signature;
  if (num_args && !args)
    return fail(JX_AOT_ERROR_ARGUMENTS,
                "args is null, but the function takes " + std::to_string(sig.args.size()) +
                    " arguments (" + spec_text(sig.args) + ")",
                error, error_size);
  if (num_results && !results)
    return fail(JX_AOT_ERROR_ARGUMENTS,
                "results is null, but the function returns " + std::to_string(sig.results.size()) +
                    " results (" + spec_text(sig.results) + ")",
                error, error_size);
  if (num_args != int32_t(sig.args.size()) || num_results != int32_t(sig.results.size()))
    return fail(JX_AOT_ERROR_ARGUMENTS,
                "called with " + std::to_string(num_args) + " arguments and " +
                    std::to_string(num_results) + " results, but the function takes " +
                    std::to_string(sig.args.size()) + " arguments (" + spec_text(sig.args) +
                    ") and returns " + std::to_string(sig.results.size()) + " results (" +
                    spec_text(sig.results) + ")",
                error, error_size);
  std::string problem;
  for (size_t i = 0; problem.empty() && i < sig.args.size(); ++i)
    problem = mismatch("argument", i, args[i], sig.args[i]);
  for (size_t i = 0; problem.empty() && i < sig.results.size(); ++i)
    problem = mismatch("result", i, results[i], sig.results[i]);
  // Results are written while arguments are read: they must not share memory.
  for (size_t i = 0; problem.empty() && i < sig.results.size(); ++i) {
    const char *r = static_cast<const char *>(results[i].data);
    const size_t rn = byte_size(sig.results[i]);
    auto overlaps = [&](const void *p, size_t n) {
      const char *q = static_cast<const char *>(p);
      return rn > 0 && n > 0 && r < q + n && q < r + rn;
    };
    for (size_t k = 0; problem.empty() && k < sig.args.size(); ++k)
      if (overlaps(args[k].data, byte_size(sig.args[k])))
        problem = "result " + std::to_string(i) + " overlaps argument " + std::to_string(k);
    for (size_t k = 0; problem.empty() && k < i; ++k)
      if (overlaps(results[k].data, byte_size(sig.results[k])))
        problem = "result " + std::to_string(i) + " overlaps result " + std::to_string(k);
  }
  if (!problem.empty())
    return fail(JX_AOT_ERROR_ARGUMENTS,
                "Argument types differ from the types for which this computation was compiled: " +
                    problem,
                error, error_size);
  std::vector<BufferPtr> in, out;
  for (size_t i = 0; i < sig.args.size(); ++i)
    in.push_back(Buffer::borrow(args[i].data, byte_size(sig.args[i])));
  for (size_t i = 0; i < sig.results.size(); ++i)
    out.push_back(Buffer::borrow(results[i].data, byte_size(sig.results[i])));
  runtime::run(d->program, in, out);
  return JX_AOT_OK;
}

} // namespace
} // namespace jx::runtime::aot

using jx::runtime::aot::fail;

extern "C" int32_t jx_aot_abi_version(void) { return JX_AOT_ABI_VERSION; }

namespace {

// The live blocks of jx_aot_allocate and their sizes, beside the blocks: jx_aot_free checks a
// pointer here without reading memory in front of it, which a foreign pointer may not have.
struct LiveBlocks {
  std::mutex mutex;
  std::unordered_map<void *, size_t> bytes;
};
LiveBlocks &live_blocks() {
  static auto *blocks = new LiveBlocks; // never destroyed: blocks may be freed in static teardown
  return *blocks;
}

} // namespace

extern "C" void *jx_aot_allocate(size_t bytes) {
  size_t capacity;
  void *block = nullptr;
  try {
    block = jx::runtime::allocate(bytes, &capacity);
    LiveBlocks &live = live_blocks();
    std::lock_guard lock(live.mutex);
    live.bytes[block] = bytes;
    return block;
  } catch (...) { // out of memory, whatever the allocator throws: nothing escapes into C
    if (block) jx::runtime::deallocate(block, capacity);
    return nullptr;
  }
}

extern "C" void jx_aot_free(void *data, size_t bytes) {
  if (!data) return;
  LiveBlocks &live = live_blocks();
  {
    std::lock_guard lock(live.mutex);
    auto it = live.bytes.find(data);
    if (it == live.bytes.end()) {
      std::fprintf(stderr,
                   "jx_aot_free: %p was not returned by jx_aot_allocate, or was freed already; "
                   "left alone\n",
                   data);
      return;
    }
    if (it->second != bytes) {
      // Freed with the wrong size, the block would join another size class and overflow the
      // next allocation of that class.
      std::fprintf(stderr,
                   "jx_aot_free: %p was allocated with %zu bytes but freed with %zu; not freed "
                   "(free it with %zu)\n",
                   data, it->second, bytes, it->second);
      return;
    }
    live.bytes.erase(it);
  }
  jx::runtime::deallocate(data, jx::runtime::block_capacity(bytes));
}

extern "C" int32_t jx_aot_run_v7(void **state, const jx_aot_object *object,
                                 const jx_aot_array *args, int32_t num_args,
                                 const jx_aot_array *results, int32_t num_results, char *error,
                                 size_t error_size) {
  // Nothing may escape into C callers.
  try {
    return jx::runtime::aot::run(state, object, args, num_args, results, num_results, error,
                                 error_size);
  } catch (const std::bad_alloc &) {
    return fail(JX_AOT_ERROR_RUNTIME, "out of memory", error, error_size);
  } catch (const std::exception &e) {
    return fail(JX_AOT_ERROR_RUNTIME, e.what(), error, error_size);
  } catch (...) {
    return fail(JX_AOT_ERROR_RUNTIME, "unknown error", error, error_size);
  }
}

namespace {
// What an object of an older ABI version gets from its entry point, which the runtime keeps.
int32_t old_version(int version, char *error, size_t error_size) {
  return fail(JX_AOT_ERROR_ABI,
              "jx AOT object: generated for ABI version " + std::to_string(version) +
                  ", but this runtime is ABI version " + std::to_string(JX_AOT_ABI_VERSION) +
                  " (generate the object again with this jx)",
              error, error_size);
}
} // namespace

extern "C" int32_t jx_aot_run_v6(void **, const jx_aot_object *, const jx_aot_array *, int32_t,
                                 const jx_aot_array *, int32_t, char *error, size_t error_size) {
  return old_version(6, error, error_size);
}

extern "C" int32_t jx_aot_run_v5(void **, const jx_aot_object *, const jx_aot_array *, int32_t,
                                 const jx_aot_array *, int32_t, char *error, size_t error_size) {
  return old_version(5, error, error_size);
}

extern "C" int32_t jx_aot_run_v4(void **, const jx_aot_object *, const jx_aot_array *, int32_t,
                                 const jx_aot_array *, int32_t, char *error, size_t error_size) {
  return old_version(4, error, error_size);
}

extern "C" int32_t jx_aot_run_v3(void **, const jx_aot_object *, const jx_aot_array *, int32_t,
                                 const jx_aot_array *, int32_t, char *error, size_t error_size) {
  return old_version(3, error, error_size);
}

extern "C" int32_t jx_aot_run_v2(void **, const int64_t *, int64_t, const jx_aot_kernel *,
                                 const void *const *, const jx_aot_array *, int32_t,
                                 const jx_aot_array *, int32_t, char *error, size_t error_size) {
  return old_version(2, error, error_size);
}
