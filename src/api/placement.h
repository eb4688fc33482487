// A Sharding as the sharding stage's Placement: the box of each of its devices.
#pragma once

#include <jx/sharding.h>

#include "sharding/placement.h"

namespace jx::api {

// One box per device of s over an array of `shape` (Sharding::shard_boxes, by device id).
sharding::Placement placement_of(const Sharding &s, const Shape &shape);

} // namespace jx::api
