// The sharding stage across processes (sharding/processes.h): who holds what, what is sent.
#include <gtest/gtest.h>

#include "sharding/processes.h"

namespace {

using namespace jx::sharding;

// 8 rows of 4 columns in bands of 2 rows over devices 0..3; two processes of 2 devices each.
Placement bands() {
  Placement p;
  for (int d = 0; d < 4; ++d)
    p.push_back({d, {2 * d, 0}, {2 * d + 2, 4}});
  return p;
}

TEST(ProcessSchedule, SendsOnlyWhatAProcessLacks) {
  const ProcessSchedule schedule(2, 2);
  const Holding held = schedule.pieces(bands());
  ASSERT_EQ(held->size(), 4u);
  EXPECT_EQ((*held)[3].process, 1);
  std::vector<ProcessMessage> out;
  // Process 0 holds rows 0-3: reading rows 3-5 brings rows 4-5 from process 1.
  schedule.need(0, 7, {{3, 0}, {6, 4}}, held, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].from, 1);
  EXPECT_EQ(out[0].to, 0);
  EXPECT_EQ(out[0].slot, 7);
  EXPECT_EQ(out[0].region.lo, (std::vector<int64_t>{4, 0}));
  EXPECT_EQ(out[0].region.hi, (std::vector<int64_t>{6, 4}));
  // Asked again, nothing more is sent.
  schedule.need(0, 7, {{4, 0}, {5, 4}}, held, out);
  EXPECT_EQ(out.size(), 1u);
}

TEST(ProcessSchedule, ReplicasAreSentOnceAndValuesHeldWholeNever) {
  const ProcessSchedule schedule(2, 2);
  // Devices 2 and 3 (process 1) both hold the whole array.
  const Holding replicas = schedule.pieces({{2, {0, 0}, {8, 4}}, {3, {0, 0}, {8, 4}}});
  std::vector<ProcessMessage> out;
  schedule.need_everywhere(0, whole({8, 4}), replicas, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].to, 0);
  schedule.need_everywhere(1, whole({8, 4}), std::nullopt, out);
  EXPECT_EQ(out.size(), 1u);
}

} // namespace
