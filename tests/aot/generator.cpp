// The generator of tests/aot: the functions of functions.h under the names test_aot.cpp calls.
// tests/aot/CMakeLists.txt runs it three times: for this host's CPU, for x86-64-v3 (AVX2 tier)
// and for the x86-64 baseline (those functions are registered again with the prefixes v3_ and
// base_, so that all libraries link into one test).
#include <jx/aot.h>

#include "aot/functions.h"
#include "random_graph_seeds.h"

// The host library.
JX_AOT_FUNCTION(simpson_stack) { return aot_test::simpson_stack(); }
JX_AOT_FUNCTION(simpson_broadcast) { return aot_test::simpson_broadcast(); }
JX_AOT_FUNCTION(diff_1x1) { return aot_test::diff(1, 1); }
JX_AOT_FUNCTION(diff_8x1) { return aot_test::diff(8, 1); }
JX_AOT_FUNCTION(diff_1x8) { return aot_test::diff(1, 8); }
JX_AOT_FUNCTION(random_normal) { return aot_test::random_normal(); }
JX_AOT_FUNCTION(random_uniform) { return aot_test::random_uniform(); }
JX_AOT_FUNCTION(several_outputs) { return aot_test::several_outputs(); }
JX_AOT_FUNCTION(passthrough) { return aot_test::passthrough(); }
JX_AOT_FUNCTION(constant_output) { return aot_test::constant_output(); }
JX_AOT_FUNCTION(repeated_output) { return aot_test::repeated_output(); }
JX_AOT_FUNCTION(int_power) { return aot_test::int_power(); }
JX_AOT_FUNCTION(float32_math) { return aot_test::float32_math(); }
JX_AOT_FUNCTION(bool_output) { return aot_test::bool_output(); }
JX_AOT_FUNCTION(scalar_output) { return aot_test::scalar_output(); }
JX_AOT_FUNCTION(reduction) { return aot_test::reduction(); }
JX_AOT_FUNCTION(empty_arrays) { return aot_test::empty_arrays(); }
JX_AOT_FUNCTION(sharding_constraint) { return aot_test::sharding_constraint(); }
JX_AOT_FUNCTION(donated_argument) { return aot_test::donated_argument(); }
JX_AOT_FUNCTION(contraction) { return aot_test::contraction(); }
JX_AOT_FUNCTION(value_and_grad) { return aot_test::value_and_grad(); }
JX_AOT_FUNCTION(control_flow) { return aot_test::control_flow(); }
JX_AOT_FUNCTION(sort_and_scan) { return aot_test::sort_and_scan(); }
JX_AOT_FUNCTION(linear_algebra) { return aot_test::linear_algebra(); }
JX_AOT_FUNCTION(updates) { return aot_test::updates(); }
JX_AOT_FUNCTION(sequential_loops) { return aot_test::sequential_loops(); }

#define JX_AOT_TEST_REGISTER_GRAPH(SEED)                                                           \
  JX_AOT_FUNCTION(random_graph_##SEED) { return aot_test::random_graph(SEED); }
JX_AOT_TEST_RANDOM_GRAPHS(JX_AOT_TEST_REGISTER_GRAPH)

// The x86-64-v3 library (AVX2 math tier).
JX_AOT_FUNCTION(v3_simpson_stack) { return aot_test::simpson_stack(); }
JX_AOT_FUNCTION(v3_value_and_grad) { return aot_test::value_and_grad(); }
JX_AOT_FUNCTION(v3_simpson_broadcast) { return aot_test::simpson_broadcast(); }
JX_AOT_FUNCTION(v3_diff_1x1) { return aot_test::diff(1, 1); }
JX_AOT_FUNCTION(v3_diff_8x1) { return aot_test::diff(8, 1); }
JX_AOT_FUNCTION(v3_diff_1x8) { return aot_test::diff(1, 8); }
JX_AOT_FUNCTION(v3_random_normal) { return aot_test::random_normal(); }
JX_AOT_FUNCTION(v3_int_power) { return aot_test::int_power(); }
JX_AOT_FUNCTION(v3_float32_math) { return aot_test::float32_math(); }

// The x86-64 baseline library (no AVX: the scalar tier, libm's functions).
JX_AOT_FUNCTION(base_simpson_stack) { return aot_test::simpson_stack(); }
JX_AOT_FUNCTION(base_diff_1x8) { return aot_test::diff(1, 8); }
JX_AOT_FUNCTION(base_random_normal) { return aot_test::random_normal(); }
JX_AOT_FUNCTION(base_float32_math) { return aot_test::float32_math(); }
