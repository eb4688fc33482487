// How a sharding tiles an array over devices: the ways each axis is split and each device's tile,
// as JAX's NamedSharding (a mesh and a partition spec) and PositionalSharding (a device grid)
// define them, and the boxes those tiles cover. The public sharding classes (api/sharding.cpp)
// describe themselves in these terms; the placement stage reads the boxes.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sharding/placement.h"

namespace jx::sharding {

// How arrays of one rank are split: the number of ways each axis is split, and each device's tile
// (its chunk index along every axis), sorted by device id. Replicas share a tile.
struct Tiling {
  Shape ways;
  std::vector<std::pair<int, std::vector<int64_t>>> tiles;
  bool operator==(const Tiling &) const = default;
};

// Row-major coordinates of element `flat` of an array of `shape`.
std::vector<int64_t> coordinates(int64_t flat, const Shape &shape);

// A mesh of `mesh_shape` over `devices` (row-major) and a spec naming, per array axis, the mesh
// axes it is split over (the first named the most significant, as JAX orders them); array axes
// past the spec are whole.
Tiling mesh_tiling(const Shape &mesh_shape, const std::vector<int> &devices,
                   const std::vector<std::vector<size_t>> &spec_axes, int64_t ndim);

// A grid of `grid` positions (one per tile, row-major), each held by a set of devices.
Tiling grid_tiling(const Shape &grid, const std::vector<std::vector<int>> &device_sets);

// Every device holds the whole array.
Tiling replicated_tiling(const std::vector<int> &devices, int64_t ndim);

// Every device's box of an array of `shape` under `t`, by device id. Each axis a is cut into
// chunks ceil(shape[a] / ways[a]) long, as JAX tiles: the last ones may be short or empty.
Placement tile_boxes(const Tiling &t, const Shape &shape);

} // namespace jx::sharding
