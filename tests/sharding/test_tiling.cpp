// The sharding stage's tilings (sharding/tiling.h): JAX's tile order and chunk sizes.
#include <gtest/gtest.h>

#include "sharding/tiling.h"

namespace {

using jx::sharding::DeviceBox;
using jx::sharding::Tiling;

std::vector<std::pair<int, std::vector<int64_t>>> tiles(const Tiling &t) { return t.tiles; }

TEST(Tiling, MeshAxesNamedTogetherAreMajorFirst) {
  // Mesh (2, 4) over devices 7..0; dimension 0 split over ('y', 'x'): y is the major factor.
  const std::vector<int> devices = {7, 6, 5, 4, 3, 2, 1, 0};
  const Tiling t = jx::sharding::mesh_tiling({2, 4}, devices, {{1, 0}}, 2);
  EXPECT_EQ(t.ways, (jx::Shape{8, 1}));
  ASSERT_EQ(t.tiles.size(), 8u);
  // Device 7 sits at mesh (0, 0): tile 0; device 6 at (0, 1): y = 1 -> tile 1 * 2 + 0 = 2;
  // device 3 at (1, 0): tile 0 * 2 + 1 = 1.
  EXPECT_EQ(t.tiles[7], (std::pair<int, std::vector<int64_t>>{7, {0, 0}}));
  EXPECT_EQ(t.tiles[6], (std::pair<int, std::vector<int64_t>>{6, {2, 0}}));
  EXPECT_EQ(t.tiles[3], (std::pair<int, std::vector<int64_t>>{3, {1, 0}}));
}

TEST(Tiling, UnnamedMeshAxesReplicate) {
  const Tiling t = jx::sharding::mesh_tiling({2, 2}, {0, 1, 2, 3}, {{}, {0}}, 2);
  EXPECT_EQ(t.ways, (jx::Shape{1, 2}));
  EXPECT_EQ(tiles(t), (std::vector<std::pair<int, std::vector<int64_t>>>{
                          {0, {0, 0}}, {1, {0, 0}}, {2, {0, 1}}, {3, {0, 1}}}));
}

TEST(Tiling, GridPositionsHoldDeviceSets) {
  const Tiling t = jx::sharding::grid_tiling({2, 1}, {{3, 1}, {0, 2}});
  EXPECT_EQ(tiles(t), (std::vector<std::pair<int, std::vector<int64_t>>>{
                          {0, {1, 0}}, {1, {0, 0}}, {2, {1, 0}}, {3, {0, 0}}}));
}

TEST(Tiling, ChunksAreCeilLongAndTheLastMayBeEmpty) {
  // 10 rows in 4 ways: chunks of 3, the last holds one row; 2 rows in 4 ways: two are empty.
  const Tiling t = jx::sharding::mesh_tiling({4}, {0, 1, 2, 3}, {{0}}, 1);
  std::vector<std::pair<int64_t, int64_t>> rows, short_rows;
  for (const DeviceBox &b : jx::sharding::tile_boxes(t, {10}))
    rows.push_back({b.lo[0], b.hi[0]});
  for (const DeviceBox &b : jx::sharding::tile_boxes(t, {2}))
    short_rows.push_back({b.lo[0], b.hi[0]});
  EXPECT_EQ(rows, (std::vector<std::pair<int64_t, int64_t>>{{0, 3}, {3, 6}, {6, 9}, {9, 10}}));
  EXPECT_EQ(short_rows, (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 2}, {2, 2}, {2, 2}}));
}

TEST(Tiling, ReplicatedDevicesHoldTheWhole) {
  const jx::sharding::Placement boxes =
      jx::sharding::tile_boxes(jx::sharding::replicated_tiling({2, 0}, 2), {3, 5});
  ASSERT_EQ(boxes.size(), 2u);
  EXPECT_EQ(boxes[0].device, 0);
  EXPECT_EQ(boxes[1].hi, (std::vector<int64_t>{3, 5}));
}

} // namespace
