// Including this makes the test executable use 8 CPU devices (its meshes), set before anything
// uses devices, as a JAX program sets jax_num_cpu_devices right after importing jax.
#pragma once

#include <jx/jx.h>

#include <gtest/gtest.h>

namespace jx_test {

class EightDevices : public testing::Environment {
public:
  void SetUp() override { jx::config::set_num_cpu_devices(8); }
};

// One registration per executable, however many of its files include this.
inline const testing::Environment *const eight_devices =
    testing::AddGlobalTestEnvironment(new EightDevices);

} // namespace jx_test
