/* A C caller of generated functions: NAME.h compiles as C99 and its entry point is callable from
 * C (test_aot.cpp calls this and compares with the JIT). */
#include "simpson_stack.h"

int32_t c_call_simpson_stack(const double *a, const double *b, double *result, char *error,
                             size_t error_size) {
  static const int64_t interval[1] = {100}, shape[2] = {200, 100};
  const jx_aot_array args[2] = {{(void *)a, JX_AOT_FLOAT64, 1, interval},
                                {(void *)b, JX_AOT_FLOAT64, 1, interval}};
  const jx_aot_array results[1] = {{result, JX_AOT_FLOAT64, 2, shape}};
  return simpson_stack(args, 2, results, 1, error, error_size);
}
