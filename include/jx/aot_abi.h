/* The C ABI of jx's ahead-of-time compiled functions (jx::aot): what a generated NAME.h includes
 * and libjx_runtime implements. C and C++. */
#ifndef JX_AOT_ABI_H
#define JX_AOT_ABI_H

#include <stddef.h>
#include <stdint.h>

/* Bumped whenever generated objects and the runtime stop understanding each other. */
#define JX_AOT_ABI_VERSION 1

/* Element types, as jx::DType. */
enum jx_aot_dtype {
  JX_AOT_BOOL = 0,
  JX_AOT_INT32 = 1,
  JX_AOT_INT64 = 2,
  JX_AOT_FLOAT32 = 3,
  JX_AOT_FLOAT64 = 4
};

/* What an entry point returns. */
enum jx_aot_status {
  JX_AOT_OK = 0,
  JX_AOT_ERROR_ARGUMENTS = 1, /* count, dtype, shape or data of an argument or result */
  JX_AOT_ERROR_ABI = 2,       /* the object was generated for another runtime ABI version */
  JX_AOT_ERROR_RUNTIME = 3    /* the run failed (out of memory) */
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

/* Runs an encoded program (what a generated entry point does): checks the arguments and results
 * against its signature, then computes the results into their buffers. Returns a jx_aot_status;
 * on failure writes a message into error (when error_size > 0). Thread-safe. */
int32_t jx_aot_run(const int64_t *program, int64_t program_words, const jx_aot_kernel *kernels,
                   const void *const *constants, const jx_aot_array *args, int32_t num_args,
                   const jx_aot_array *results, int32_t num_results, char *error,
                   size_t error_size);

#ifdef __cplusplus
}

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
} // namespace jx::aot
#endif

#endif /* JX_AOT_ABI_H */
