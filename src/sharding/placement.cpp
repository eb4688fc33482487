// The sharding stage (placement.h): boxes per step and the transfers between devices.
#include "sharding/placement.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "sharding/regions.h"

namespace jx::sharding {

namespace {

// Innermost runs shorter than this waste the vector loop (an 8-lane body, a 4-lane epilogue and
// the loop overhead for a dozen elements).
constexpr int64_t min_inner_run = 64;

// Whether input k of plan is the operand of a reduction root and its placement splits an axis
// that reduction reduces: the devices then combine partial results (an all-reduce).
bool reduces_split_axis(const passes::KernelPlan &plan, size_t k, const Placement &placed) {
  for (const ir::NodePtr &root : plan.roots) {
    if (op_kind(root->op) != ir::OpKind::Reduce || root->inputs[0].get() != plan.inputs[k])
      continue;
    const ir::Node &x = *root->inputs[0];
    const bool argreduce = root->op == ir::Op::ArgMax || root->op == ir::Op::ArgMin;
    const std::vector<int64_t> axes =
        argreduce ? std::vector<int64_t>{root->attrs[0]} : root->attrs;
    for (int64_t axis : axes)
      for (const DeviceBox &shard : placed)
        if (shard.lo[size_t(axis)] != 0 || shard.hi[size_t(axis)] != x.shape[size_t(axis)])
          return true;
  }
  return false;
}

// Per placed input of a kernel: the bytes its devices read outside their own shards of it. Reads
// from at most two other devices each are a halo exchange (XLA's collective-permute); a reduction
// over a split axis combines the devices' parts (all-reduce); other wide reads gather the input
// (all-gather).
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
    if (bytes <= 0) continue;
    const char *collective = reduces_split_axis(plan, k, placed->second) ? "all-reduce"
                             : widest <= 2                               ? "collective-permute"
                                                                         : "all-gather";
    out.push_back({k, collective, bytes});
  }
  return out;
}

Region whole_region(const Shape &shape) { return {std::vector<int64_t>(shape.size(), 0), shape}; }

// An output axis that passes an input axis through, shifted: output index o reads input o + shift
// (give or take a halo).
struct PassedAxis {
  int input_axis = -1; // -1: none
  int64_t shift = 0;
};

// Per output axis of plan's kernel, the axis of `input` it passes through: splitting the output
// along it splits what is read of the input alike (an elementwise op, a transpose, a broadcast,
// the kept axes of a reduction, the free axes of a contraction; a slice or pad shifts it; a
// stencil reads a halo past the split). Found by probing the regions the two halves of the
// output axis read: they must move forward along exactly one input axis, each about as wide as
// its half.
std::vector<PassedAxis> passed_axes(const passes::KernelPlan &plan, const ir::Node *input) {
  const Shape &shape = plan.roots[0]->shape;
  std::vector<PassedAxis> out(shape.size());
  for (size_t a = 0; a < shape.size(); ++a) {
    const int64_t extent = shape[a], half = extent / 2, halo = std::max<int64_t>(2, extent / 8);
    if (extent < 2) continue;
    Region low = whole_region(shape), high = whole_region(shape);
    low.hi[a] = half;
    high.lo[a] = half;
    const auto low_read = input_regions(plan, low), high_read = input_regions(plan, high);
    auto l = low_read.find(input), h = high_read.find(input);
    if (l == low_read.end() || h == high_read.end()) continue;
    int count = 0;
    for (size_t b = 0; b < input->shape.size(); ++b) {
      const Region &lr = l->second, &hr = h->second;
      const bool forward = hr.lo[b] > lr.lo[b] && hr.hi[b] > lr.hi[b];
      const bool narrow = lr.hi[b] - lr.lo[b] <= half + halo &&
                          hr.hi[b] - hr.lo[b] <= extent - half + halo &&
                          std::abs(lr.hi[b] - hr.lo[b]) <= halo;
      if (!forward || !narrow) continue;
      // The split point: where the halves' reads meet (the middle of an overlapping halo).
      out[a] = {int(b), (lr.hi[b] + hr.lo[b]) / 2 - half};
      ++count;
    }
    if (count != 1) out[a] = {};
  }
  return out;
}

// A shard's range [lo, hi) of an input axis of extent n, as the range of an output axis of
// `extent` that reads it through `shift`. The first shard's range reaches back to 0 and the last
// one's on to the end, so the shards of a partition of the input give a partition of the output.
std::pair<int64_t, int64_t> shifted_range(int64_t lo, int64_t hi, int64_t n, int64_t shift,
                                          int64_t extent) {
  if (lo >= hi) return {extent, extent}; // an empty shard computes nothing
  return {lo == 0 ? 0 : std::clamp<int64_t>(lo - shift, 0, extent),
          hi == n ? extent : std::clamp<int64_t>(hi - shift, 0, extent)};
}

bool splits(const Placement &placement, size_t axis, int64_t extent) {
  return std::any_of(placement.begin(), placement.end(),
                     [&](const DeviceBox &b) { return b.lo[axis] != 0 || b.hi[axis] != extent; });
}

// Bands of the rows of the box [lo, hi), one per device (fewer when there are fewer rows); a 0-d
// value is one box.
Placement row_bands(const std::vector<int> &devices, const std::vector<int64_t> &lo,
                    const std::vector<int64_t> &hi) {
  if (lo.empty() || devices.empty()) return {{devices.empty() ? 0 : devices[0], {}, {}}};
  Placement bands;
  const int64_t n = int64_t(devices.size()), rows = hi[0] - lo[0];
  for (int64_t d = 0; d < n; ++d) {
    DeviceBox band{devices[size_t(d)], lo, hi};
    band.lo[0] = lo[0] + rows * d / n;
    band.hi[0] = lo[0] + rows * (d + 1) / n;
    if (band.hi[0] > band.lo[0]) bands.push_back(band);
  }
  if (bands.empty()) bands.push_back({devices[0], lo, hi});
  return bands;
}

Placement row_bands(const std::vector<int> &devices, const Shape &shape) {
  return row_bands(devices, std::vector<int64_t>(shape.size(), 0), shape);
}

// Across processes: each process's boxes, when they make one box, as row bands of it over that
// process's devices, so that banding moves nothing between processes. Empty when some process's
// boxes do not make one box, or cut the innermost axis into short runs too (the bits of a kernel
// may depend on where its vector loop starts).
Placement bands_per_process(const Placement &boxes, const Shape &shape, int devices_per_process) {
  const size_t inner = shape.size() - 1;
  std::map<int, Placement> by_process;
  for (const DeviceBox &b : boxes)
    by_process[b.device / devices_per_process].push_back(b);
  Placement out;
  for (const auto &[process, group] : by_process) {
    std::vector<int64_t> lo = group[0].lo, hi = group[0].hi;
    int64_t covered = 0;
    std::vector<int> devices;
    for (const DeviceBox &b : group) {
      for (size_t a = 0; a < lo.size(); ++a) {
        lo[a] = std::min(lo[a], b.lo[a]);
        hi[a] = std::max(hi[a], b.hi[a]);
      }
      covered += Region{b.lo, b.hi}.size();
      devices.push_back(b.device);
    }
    if (covered != Region{lo, hi}.size() ||
        hi[inner] - lo[inner] < std::min(min_inner_run, shape[inner]))
      return {};
    const Placement bands = row_bands(devices, lo, hi);
    out.insert(out.end(), bands.begin(), bands.end());
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
Placement compute_boxes(Placement boxes, const Shape &shape, int devices_per_process) {
  if (shape.size() < 2 || boxes.empty()) return boxes;
  const size_t inner = shape.size() - 1;
  const bool short_runs = std::any_of(boxes.begin(), boxes.end(), [&](const DeviceBox &b) {
    return b.hi[inner] - b.lo[inner] < std::min(min_inner_run, shape[inner]);
  });
  if (!short_runs) return boxes;
  if (devices_per_process > 0)
    if (Placement bands = bands_per_process(boxes, shape, devices_per_process); !bands.empty())
      return bands;
  std::vector<int> devices;
  for (const DeviceBox &b : boxes)
    devices.push_back(b.device);
  return row_bands(devices, shape);
}

std::vector<int> outputs_placed_like_params(const std::vector<ir::NodePtr> &outputs,
                                            const std::vector<Placement> &declared,
                                            const std::vector<ir::NodePtr> &params,
                                            const std::vector<Placement> &param_placements) {
  std::vector<int> like(outputs.size(), -1);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (i < declared.size() && !declared[i].empty()) continue;
    for (size_t k = 0; k < params.size() && k < param_placements.size() && like[i] < 0; ++k)
      if (!param_placements[k].empty() && params[k]->shape == outputs[i]->shape) like[i] = int(k);
  }
  return like;
}

std::vector<StepPlacement>
place(std::vector<passes::Step> &plan, const std::vector<ir::NodePtr> &roots,
      const std::vector<Placement> &placements, const std::vector<ir::NodePtr> &params,
      const std::vector<Placement> &param_placements, int devices_per_process) {
  std::vector<StepPlacement> out(plan.size());
  // The mesh: every device named by a placement.
  std::vector<int> devices;
  for (const auto *list : {&placements, &param_placements})
    for (const Placement &p : *list)
      for (const DeviceBox &b : p)
        devices.push_back(b.device);
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  if (devices.empty()) return out;
  // Where each placed value lives: arguments' shards, placed steps' outputs.
  std::unordered_map<const ir::Node *, Placement> placed_at;
  for (size_t i = 0; i < params.size() && i < param_placements.size(); ++i)
    if (!param_placements[i].empty()) placed_at[params[i].get()] = param_placements[i];
  // A root's placement, or one of a root's shape: (boxes, why).
  auto from_roots = [&](const passes::KernelPlan &kernel) -> std::pair<Placement, std::string> {
    const Shape &shape = kernel.roots[0]->shape;
    auto boxes = [&](const Placement &placement) {
      Placement distinct =
          compute_boxes(distinct_boxes(placement, shape), shape, devices_per_process);
      // Replicated: computed once, as one box; across processes in row bands over its devices,
      // then gathered by every process (a reduction's all-reduce as a reduce-scatter and an
      // all-gather, rather than one process computing it all).
      if (distinct.empty()) {
        std::vector<int> holders;
        for (const DeviceBox &b : placement)
          holders.push_back(b.device);
        if (devices_per_process > 0 && holders.size() > 1)
          distinct = row_bands(holders, shape);
        else
          distinct.push_back({placement[0].device, whole_region(shape).lo, shape});
      }
      return distinct;
    };
    for (size_t i = 0; i < placements.size() && i < roots.size(); ++i)
      if (!placements[i].empty() &&
          std::find(kernel.roots.begin(), kernel.roots.end(), roots[i]) != kernel.roots.end())
        return {boxes(placements[i]), fmt::format("output {}'s sharding", i)};
    for (size_t i = 0; i < placements.size() && i < roots.size(); ++i)
      if (!placements[i].empty() && roots[i]->shape == shape)
        return {boxes(placements[i]), fmt::format("output {}'s sharding (same shape)", i)};
    return {};
  };
  // The largest placed input whose split axes pass through to the output: its shards mapped
  // onto the output's axes.
  auto from_inputs = [&](const passes::KernelPlan &kernel, StepPlacement &s) {
    const Shape &shape = kernel.roots[0]->shape;
    int64_t best_bytes = -1;
    for (size_t k = 0; k < kernel.inputs.size(); ++k) {
      const ir::Node *input = kernel.inputs[k];
      auto placed = placed_at.find(input);
      if (placed == placed_at.end()) continue;
      const int64_t bytes = input->size() * int64_t(itemsize(input->dtype));
      if (bytes <= best_bytes) continue;
      const std::vector<PassedAxis> axes = passed_axes(kernel, input);
      std::vector<std::string> mapped;
      for (size_t a = 0; a < axes.size(); ++a) {
        const int b = axes[a].input_axis;
        if (b < 0 || !splits(placed->second, size_t(b), input->shape[size_t(b)])) continue;
        mapped.push_back(axes[a].shift == 0 ? fmt::format("{}<-{}", a, b)
                                            : fmt::format("{}<-{}{:+}", a, b, axes[a].shift));
      }
      if (mapped.empty()) continue;
      Placement boxes;
      for (const DeviceBox &shard : placed->second) {
        DeviceBox box{shard.device, std::vector<int64_t>(shape.size(), 0), shape};
        for (size_t a = 0; a < axes.size(); ++a)
          if (const size_t b = size_t(axes[a].input_axis); axes[a].input_axis >= 0)
            std::tie(box.lo[a], box.hi[a]) =
                shifted_range(shard.lo[b], shard.hi[b], input->shape[b], axes[a].shift, shape[a]);
        boxes.push_back(std::move(box));
      }
      boxes = compute_boxes(distinct_boxes(boxes, shape), shape, devices_per_process);
      if (boxes.empty()) continue;
      best_bytes = bytes;
      s.boxes = std::move(boxes);
      s.why = fmt::format("through axes {}", fmt::join(mapped, ","));
      s.source = int(k);
    }
  };
  for (size_t i = 0; i < plan.size(); ++i) {
    passes::Step &p = plan[i];
    if (p.kind == passes::Step::Kind::Control) {
      StepPlacement &s = out[i];
      for (const ir::Node *in : p.plan.inputs) {
        auto placed = placed_at.find(in);
        s.operands.push_back(placed == placed_at.end() ? Placement{} : placed->second);
      }
      const bool loop = p.node->op == ir::Op::While || p.node->op == ir::Op::Scan;
      for (size_t r = 0; loop && r < size_t(p.node->attrs[0]); ++r)
        if (!s.operands[r].empty()) placed_at[p.plan.roots[r].get()] = s.operands[r];
      continue;
    }
    // Contractions and library routines are placed for the plan and the transfers only: they run
    // in tiles or lines fixed by their shape, whatever the placement, so their bits never depend
    // on the mesh.
    if (p.kind != passes::Step::Kind::Kernel && p.kind != passes::Step::Kind::Contraction &&
        p.kind != passes::Step::Kind::Library)
      continue;
    StepPlacement &s = out[i];
    std::tie(s.boxes, s.why) = from_roots(p.plan);
    if (s.boxes.empty()) from_inputs(p.plan, s);
    const Shape &shape = p.plan.roots[0]->shape;
    if (s.boxes.empty()) {
      s.boxes = row_bands(devices, shape);
      s.why = fmt::format("row bands over the mesh's {} devices (no split axis passes through)",
                          devices.size());
    }
    if (p.kind == passes::Step::Kind::Kernel)
      for (const DeviceBox &b : s.boxes)
        for (size_t a = 0; a < shape.size(); ++a)
          if (b.lo[a] != 0 || b.hi[a] != shape[a]) p.plan.boxed_axes |= uint64_t(1) << a;
    s.transfers = transfers(p.plan, s.boxes, placed_at);
    for (const ir::NodePtr &root : p.plan.roots)
      placed_at[root.get()] = s.boxes;
  }
  return out;
}

} // namespace jx::sharding
