// The sharding stage (placement.h): boxes per step and the transfers between devices.
#include "sharding/placement.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "sharding/regions.h"

namespace jx::sharding {

namespace {

// Innermost runs shorter than this waste the vector loop (an 8-lane body, a 4-lane epilogue and
// the loop overhead for a dozen elements).
constexpr int64_t min_inner_run = 64;

// Per placed input of a kernel: the bytes its devices read outside their own shards of it. Reads
// from at most two other devices each are a halo exchange (XLA's collective-permute); wider ones
// gather the input (all-gather).
std::vector<Transfer> transfers(const passes::KernelPlan &plan, const Placement &boxes,
                                const std::unordered_map<const ir::Node *, Placement> &placed_at) {
  std::vector<Transfer> out;
  for (size_t k = 0; k < plan.inputs.size(); ++k) {
    auto placed = placed_at.find(plan.inputs[k]);
    if (placed == placed_at.end() || placed->second.empty()) continue;
    const ir::Node &input = *plan.inputs[k];
    double bytes = 0;
    size_t widest = 0;
    for (const DeviceBox &b : boxes) {
      const auto regions = input_regions(plan, {b.lo, b.hi});
      auto read = regions.find(&input);
      if (read == regions.end()) continue;
      std::optional<Region> own;
      for (const DeviceBox &shard : placed->second)
        if (shard.device == b.device) own = Region{shard.lo, shard.hi};
      // Devices holding part of what this one reads beyond its own shard (replicas of its own
      // part do not count).
      size_t sources = 0;
      for (const DeviceBox &shard : placed->second) {
        if (shard.device == b.device) continue;
        const Region part = intersect(read->second, {shard.lo, shard.hi});
        sources += part.size() > (own ? intersect(part, *own).size() : 0);
      }
      const int64_t local = own ? intersect(read->second, *own).size() : 0;
      bytes += double((read->second.size() - local) * itemsize(input.dtype));
      widest = std::max(widest, sources);
    }
    if (bytes > 0) out.push_back({k, widest <= 2 ? "collective-permute" : "all-gather", bytes});
  }
  return out;
}

} // namespace

Placement distinct_boxes(const Placement &placement, const Shape &shape) {
  Placement out;
  for (const DeviceBox &b : placement)
    if (std::none_of(out.begin(), out.end(),
                     [&](const DeviceBox &o) { return o.lo == b.lo && o.hi == b.hi; }))
      out.push_back(b);
  if (out.size() == 1 && out[0].lo == std::vector<int64_t>(shape.size(), 0) && out[0].hi == shape)
    out.clear();
  return out;
}

// On shared memory any split gives the same bits (math is position independent), and bands keep
// long rows.
Placement compute_boxes(Placement boxes, const Shape &shape) {
  if (shape.size() < 2 || boxes.empty()) return boxes;
  const size_t inner = shape.size() - 1;
  const bool short_runs = std::any_of(boxes.begin(), boxes.end(), [&](const DeviceBox &b) {
    return b.hi[inner] - b.lo[inner] < std::min(min_inner_run, shape[inner]);
  });
  if (!short_runs) return boxes;
  Placement bands;
  const int64_t n = int64_t(boxes.size());
  for (int64_t d = 0; d < n; ++d) {
    DeviceBox band{boxes[size_t(d)].device, std::vector<int64_t>(shape.size(), 0), shape};
    band.lo[0] = shape[0] * d / n;
    band.hi[0] = shape[0] * (d + 1) / n;
    if (band.hi[0] > band.lo[0]) bands.push_back(band);
  }
  return bands;
}

std::vector<StepPlacement> place(std::vector<passes::Step> &plan,
                                 const std::vector<ir::NodePtr> &roots,
                                 const std::vector<Placement> &placements,
                                 const std::vector<ir::NodePtr> &params,
                                 const std::vector<Placement> &param_placements) {
  auto placement_of = [&](const passes::KernelPlan &kernel) -> Placement {
    const Shape &shape = kernel.roots[0]->shape;
    for (size_t i = 0; i < placements.size() && i < roots.size(); ++i)
      if (!placements[i].empty() &&
          std::find(kernel.roots.begin(), kernel.roots.end(), roots[i]) != kernel.roots.end())
        return compute_boxes(distinct_boxes(placements[i], shape), shape);
    for (size_t i = 0; i < placements.size() && i < roots.size(); ++i)
      if (!placements[i].empty() && roots[i]->shape == shape)
        return compute_boxes(distinct_boxes(placements[i], shape), shape);
    return {};
  };
  // Where each placed value lives: arguments' shards, placed kernels' outputs.
  std::unordered_map<const ir::Node *, Placement> placed_at;
  for (size_t i = 0; i < params.size() && i < param_placements.size(); ++i)
    placed_at[params[i].get()] = param_placements[i];
  std::vector<StepPlacement> out(plan.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    passes::Step &p = plan[i];
    // Contractions run in tiles fixed by their shape, whatever the placement: the bits never
    // depend on the mesh.
    if (p.kind != passes::Step::Kind::Kernel) continue;
    Placement boxes = placement_of(p.plan);
    if (boxes.empty()) continue;
    const Shape &shape = p.plan.roots[0]->shape;
    for (const DeviceBox &b : boxes)
      for (size_t a = 0; a < shape.size(); ++a)
        if (b.lo[a] != 0 || b.hi[a] != shape[a]) p.plan.boxed_axes |= uint64_t(1) << a;
    out[i].transfers = transfers(p.plan, boxes, placed_at);
    for (const ir::NodePtr &root : p.plan.roots)
      placed_at[root.get()] = boxes;
    out[i].boxes = std::move(boxes);
  }
  return out;
}

} // namespace jx::sharding
