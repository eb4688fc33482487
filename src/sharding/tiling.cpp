// Tilings of arrays over devices (tiling.h).
#include "sharding/tiling.h"

#include <algorithm>

namespace jx::sharding {

std::vector<int64_t> coordinates(int64_t flat, const Shape &shape) {
  std::vector<int64_t> coords(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    coords[k] = flat % shape[k];
    flat /= shape[k];
  }
  return coords;
}

namespace {

Tiling sorted(Tiling t) {
  std::sort(t.tiles.begin(), t.tiles.end());
  return t;
}

// Device `device`'s box when it holds tile `tile`.
DeviceBox tile_box(int device, const std::vector<int64_t> &tile, const Shape &ways,
                   const Shape &shape) {
  DeviceBox box{device, {}, {}};
  for (size_t a = 0; a < shape.size(); ++a) {
    const int64_t n = shape[a], chunk = (n + ways[a] - 1) / ways[a];
    box.lo.push_back(std::min(tile[a] * chunk, n));
    box.hi.push_back(std::min(tile[a] * chunk + chunk, n));
  }
  return box;
}

} // namespace

Tiling mesh_tiling(const Shape &mesh_shape, const std::vector<int> &devices,
                   const std::vector<std::vector<size_t>> &spec_axes, int64_t ndim) {
  Tiling t{Shape(size_t(ndim), 1), {}};
  for (size_t dim = 0; dim < spec_axes.size(); ++dim)
    for (size_t a : spec_axes[dim])
      t.ways[dim] *= mesh_shape[a];
  for (size_t f = 0; f < devices.size(); ++f) {
    const std::vector<int64_t> at = coordinates(int64_t(f), mesh_shape);
    std::vector<int64_t> tile(size_t(ndim), 0);
    for (size_t dim = 0; dim < spec_axes.size(); ++dim)
      for (size_t a : spec_axes[dim])
        tile[dim] = tile[dim] * mesh_shape[a] + at[a];
    t.tiles.emplace_back(devices[f], std::move(tile));
  }
  return sorted(std::move(t));
}

Tiling grid_tiling(const Shape &grid, const std::vector<std::vector<int>> &device_sets) {
  Tiling t{grid, {}};
  for (size_t p = 0; p < device_sets.size(); ++p)
    for (int d : device_sets[p])
      t.tiles.emplace_back(d, coordinates(int64_t(p), grid));
  return sorted(std::move(t));
}

Tiling replicated_tiling(const std::vector<int> &devices, int64_t ndim) {
  Tiling t{Shape(size_t(ndim), 1), {}};
  for (int d : devices)
    t.tiles.emplace_back(d, std::vector<int64_t>(size_t(ndim), 0));
  return sorted(std::move(t));
}

Placement tile_boxes(const Tiling &t, const Shape &shape) {
  Placement out;
  for (const auto &[device, tile] : t.tiles)
    out.push_back(tile_box(device, tile, t.ways, shape));
  return out;
}

} // namespace jx::sharding
