// The sharding stage across processes: which process holds which part of each array (device d
// lives on process d / devices per process) and the messages that bring each process the parts
// it reads but does not hold. Every process computes the same global schedule; compile/
// distribute.cpp keeps its own part of it, as windows of its buffers and runtime exchanges.
#pragma once

#include <optional>
#include <vector>

#include "sharding/placement.h"
#include "sharding/regions.h"

namespace jx::sharding {

// A part of an array that a process holds.
struct Piece {
  Region region;
  int process;
};
// The pieces that hold an array, or none for a value every process holds whole (constants,
// random fills, steps every process computes).
using Holding = std::optional<std::vector<Piece>>;

// Process `from` sends `region` of the array in `slot` to process `to`.
struct ProcessMessage {
  int from, to, slot;
  Region region;
};

// All of an array of `shape`.
Region whole(const Shape &shape);

bool contains(const Region &outer, const Region &inner);

class ProcessSchedule {
public:
  ProcessSchedule(int processes, int devices_per_process)
      : processes_(processes), local_(devices_per_process) {}

  int process_of(int device) const { return device / local_; }

  // A placement's boxes as the pieces their devices' processes hold.
  std::vector<Piece> pieces(const Placement &boxes) const;

  // Process `to` reads `need` of a slot held as `held`: a message from a holder of each part it
  // lacks (of replicas, the first), unless one already carries it.
  void need(int to, int slot, const Region &need, const Holding &held,
            std::vector<ProcessMessage> &out) const;

  // Every process reads `need` of the slot.
  void need_everywhere(int slot, const Region &need, const Holding &held,
                       std::vector<ProcessMessage> &out) const;

private:
  int processes_, local_;
};

} // namespace jx::sharding
