/* The C ABI of jx's ahead-of-time compiled functions (jx::aot): what a generated NAME.h includes
 * and libjx_runtime implements. C and C++. */
#ifndef JX_AOT_ABI_H
#define JX_AOT_ABI_H

#include <stddef.h>
#include <stdint.h>

/* Bumped whenever generated objects and the runtime stop understanding each other. 3: programs
 * carry a checksum, objects describe their kernels and constants (jx_aot_object). 4: loops and
 * branches (while, case and scan steps, their regions nested programs). */
#define JX_AOT_ABI_VERSION 7

/* Element types, as jx::DType. */
enum jx_aot_dtype {
  JX_AOT_BOOL = 0,
  JX_AOT_INT32 = 1,
  JX_AOT_INT64 = 2,
  JX_AOT_FLOAT32 = 3,
  JX_AOT_FLOAT64 = 4,
  JX_AOT_INT8 = 5,
  JX_AOT_INT16 = 6,
  JX_AOT_UINT8 = 7,
  JX_AOT_UINT16 = 8,
  JX_AOT_UINT32 = 9,
  JX_AOT_UINT64 = 10,
  JX_AOT_FLOAT16 = 11,   /* IEEE binary16, as its bits */
  JX_AOT_BFLOAT16 = 12,  /* the top half of a float32's bits */
  JX_AOT_COMPLEX64 = 13, /* real and imaginary parts, interleaved */
  JX_AOT_COMPLEX128 = 14
};

/* What an entry point returns. */
enum jx_aot_status {
  JX_AOT_OK = 0,
  JX_AOT_ERROR_ARGUMENTS = 1, /* count, dtype, shape or data of an argument or result */
  JX_AOT_ERROR_ABI = 2,       /* the object's program is of another ABI version, or corrupt */
  JX_AOT_ERROR_RUNTIME = 3,   /* the run failed (out of memory) */
  JX_AOT_ERROR_CPU = 4        /* the object needs CPU features this machine lacks */
};

/* A dense, C-ordered array the caller owns: an argument (read) or a result (written). */
typedef struct jx_aot_array {
  void *data;
  int32_t dtype; /* enum jx_aot_dtype */
  int32_t rank;
  const int64_t *shape;
} jx_aot_array;

typedef void (*jx_aot_kernel)(const int64_t *box, void *const *buffers);

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime's ABI version (JX_AOT_ABI_VERSION of the libjx_runtime linked in). */
int32_t jx_aot_abi_version(void);

/* Memory for arguments and results like the runtime's own buffers: 64-byte aligned, and when
 * large 2 MiB aligned and backed by huge pages (kernels striding across rows then miss the TLB
 * far less), recycled through the runtime's caching allocator. NULL when out of memory. Free with
 * jx_aot_free and the same size.
 *
 * jx_aot_free checks the block against the runtime's record of live blocks (kept beside the
 * blocks, so no memory in front of a foreign pointer is read). A size other than the one
 * allocated, a block freed twice, or a pointer jx_aot_allocate did not return is reported on
 * stderr and the block is left alone: not freed, never handed to the allocator's size classes
 * (where a wrong size would overflow the next allocation). A block refused for its size stays
 * allocated, so freeing it again with the right size releases it. jx_aot_free(NULL, n) does
 * nothing. */
void *jx_aot_allocate(size_t bytes);
void jx_aot_free(void *data, size_t bytes);

/* What a generated object holds for one function, handed to jx_aot_run_v7 whole. The tables
 * describe the object's code independently of the program, so that program words that disagree
 * with them are refused instead of calling a kernel with the wrong buffers. */
typedef struct jx_aot_object {
  const int64_t *program; /* the encoded program (checksummed) */
  int64_t program_words;
  const jx_aot_kernel *kernels;
  int64_t num_kernels;
  /* Per kernel: its outputs, inputs and literals, then each output's and each input's bytes. */
  const int64_t *kernel_info;
  int64_t kernel_info_words;
  const void *const *constants;
  const int64_t *constant_bytes; /* each constant's size */
  int64_t num_constants;
} jx_aot_object;

/* Runs an object's program (what a generated entry point does): checks its checksum, decodes it
 * once into *state (the object's own slot, null at first) checking every field against the
 * object's tables, checks the CPU, the arguments and results against its signature, then
 * computes the results into their buffers. Returns a jx_aot_status; on failure writes a message
 * into error (when error_size > 0). Thread-safe. The name carries the ABI version, so that an
 * object of another version never calls it wrongly; the runtime keeps the previous versions'
 * names, jx_aot_run_v6, jx_aot_run_v5, jx_aot_run_v4, jx_aot_run_v3 and jx_aot_run_v2, which answer
 * JX_AOT_ERROR_ABI naming both versions. */
int32_t jx_aot_run_v7(void **state, const jx_aot_object *object, const jx_aot_array *args,
                      int32_t num_args, const jx_aot_array *results, int32_t num_results,
                      char *error, size_t error_size);

#ifdef __cplusplus
}

#include <new>
#include <span>
#include <stdexcept>
#include <string>

namespace jx::aot {
/* What the generated C++ wrappers throw when an entry point fails: its status and message. */
class CallError : public std::runtime_error {
public:
  CallError(int32_t status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  int32_t status() const { return status_; }

private:
  int32_t status_;
};

/* n elements of T in jx_aot_allocate's memory, zero-filled; converts to std::span (the
 * generated wrappers' parameters). */
template <class T> class Buffer {
public:
  explicit Buffer(size_t n)
      : data_(n > SIZE_MAX / sizeof(T) ? nullptr
                                       : static_cast<T *>(jx_aot_allocate(n * sizeof(T)))),
        size_(n) {
    if (!data_) throw std::bad_alloc();
    for (size_t i = 0; i < n; ++i)
      data_[i] = T();
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() { jx_aot_free(data_, size_ * sizeof(T)); }
  T *data() { return data_; }
  const T *data() const { return data_; }
  size_t size() const { return size_; }
  T &operator[](size_t i) { return data_[i]; }
  const T &operator[](size_t i) const { return data_[i]; }
  T *begin() { return data_; }
  T *end() { return data_ + size_; }
  operator std::span<T>() { return {data_, size_}; }
  operator std::span<const T>() const { return {data_, size_}; }

private:
  T *data_;
  size_t size_;
};
} /* namespace jx::aot */
#endif

#endif /* JX_AOT_ABI_H */
