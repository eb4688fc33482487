// Stage 6 (multi-process programs only): the global schedule of boxes between processes and
// this process's part of it.
#pragma once

#include "compile/lower.h"

namespace jx::compile {

// Keeps in each step's run (stage 4's) the tasks of the boxes whose devices live on this process
// (device d on process d / devices_per_process), gives each step the exchange that brings it the
// parts of its inputs held elsewhere, and sets plan.processes: the window of its array each
// slot's buffer holds here, and the exchange that leaves every output's addressable shards here
// (the whole of an output without a sharding). Every process computes the same steps' unplaced
// work (constants, random fills, contractions, library routines, control flow and unplaced
// kernels), reading whole inputs. The kernels that touch windows get plans indexing them with the
// windows' strides, for stage 7 to compile. plan.processes->moved_bytes: what all processes
// together move per call (a control step's regions' own exchanges, per iteration, not counted).
void partition_processes(ProgramPlan &plan, const LowerOptions &options);

// The exchange that gives every process the whole of an array (in slot 0) whose boxes live where
// `held` says (a sharding's shards: devices on their processes); process_allgather's.
runtime::Exchange allgather_exchange(const sharding::Placement &held, const Shape &shape,
                                     DType dtype, int process, int processes, int local_devices);

} // namespace jx::compile
