// The sharding stage: which device computes which box of each step of a fusion plan, and what
// each placed kernel reads from other devices' shards.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/node.h"
#include "passes/fusion.h"

namespace jx::sharding {

// The part of an array a device computes and owns: [lo, hi) along each axis of one global buffer.
struct DeviceBox {
  int device;
  std::vector<int64_t> lo, hi;
};
// Where an array lives: one box per device (equal boxes for replicas); empty: one device.
using Placement = std::vector<DeviceBox>;

// What the devices of a placed kernel read from other devices' shards of one input, as the
// collective a distributed runtime would run for it (on shared memory: direct reads after the
// producing step's barrier).
struct Transfer {
  size_t input; // position in the kernel plan's inputs
  const char *collective;
  double bytes;
};

// A step's devices: the distinct boxes they compute (empty: the step is not placed and runs on all
// threads as one device), what they read from other devices' shards, and why these boxes.
struct StepPlacement {
  Placement boxes;
  std::vector<Transfer> transfers;
  std::string why;
  int source = -1; // the position in the plan's inputs of the input it follows, if it follows one
  // Control steps: where each operand lives (empty: whole); their regions' programs are placed
  // alike, and a loop's carried results keep their initial values' placement.
  std::vector<Placement> operands{};
};

// Where each output of a jit program without a declared placement lives: with the first placed
// parameter of its shape (JAX's propagation in its simplest form: an elementwise result stays with
// its operands, so a loop's carries keep their sharding from call to call), whose position this
// returns; -1 where it is declared or no placed parameter has its shape (whole; across processes,
// on every process). Region programs place their outputs explicitly instead.
std::vector<int> outputs_placed_like_params(const std::vector<ir::NodePtr> &outputs,
                                            const std::vector<Placement> &declared,
                                            const std::vector<ir::NodePtr> &params,
                                            const std::vector<Placement> &param_placements);

// Sharding propagation over the steps of a fusion plan, as XLA's in spirit: a kernel writing a
// placed root takes its placement; another of a placed root's shape follows it; any other kernel
// or contraction follows its largest placed input through the axes it passes through (an
// elementwise op, transpose, broadcast or the kept axes of a reduction map an input axis onto an
// output axis, a slice or pad shifted; the rest are whole in every box); what maps no split axis
// is computed in bands of rows, one per device of the mesh. So in a program with any placement,
// every computed value has device boxes, which cover it exactly once. Marks the placed kernels'
// boxed axes in their plans. placements: per root (or none); param_placements: per parameter,
// where its shards live. A program without placements stays unplaced. devices_per_process: in a
// program across processes, each process's device count (compute_boxes keeps bands inside
// processes); 0 for one process.
std::vector<StepPlacement>
place(std::vector<passes::Step> &plan, const std::vector<ir::NodePtr> &roots,
      const std::vector<Placement> &placements, const std::vector<ir::NodePtr> &params,
      const std::vector<Placement> &param_placements, int devices_per_process = 0);

// The distinct boxes of a placement (replicas compute once), or none when one box is the whole
// array.
Placement distinct_boxes(const Placement &placement, const Shape &shape);

// The boxes the devices of a placement compute: a placement that cuts the innermost axis into
// short runs is computed in bands of whole rows instead, one per device. Across processes
// (devices_per_process > 0), the bands of each process's part where each part is one box.
Placement compute_boxes(Placement boxes, const Shape &shape, int devices_per_process = 0);

} // namespace jx::sharding
