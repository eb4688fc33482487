// Stage 8 (multi-process programs only): the global schedule of boxes between processes and
// this process's part of it.
#pragma once

#include "compile/lower.h"

namespace jx::compile {

// Keeps in `program` (stage 7's, of `plan`) the tasks of the boxes whose devices live on
// `process` (device d on process d / local_devices), and gives each step the exchange that
// brings it the parts of its inputs held elsewhere, and the program the exchange that leaves
// every output's addressable shards here (the whole of an output without a sharding). Every
// process computes the same steps' unplaced work (constants, random fills, contractions,
// library routines, control flow and unplaced kernels), reading whole inputs. Each slot's buffer
// holds the window of its array this process holds and receives (program.layouts); the kernels
// that touch windows are compiled again for them (plan's steps get those kernels). Returns the
// bytes all processes together move per call (a control step's regions' own exchanges, per
// iteration, not counted).
double distribute(ProgramPlan &plan, const LowerOptions &options, int process, int processes,
                  int local_devices, runtime::Program &program);

// The exchange that gives every process the whole of an array (in slot 0) whose boxes live where
// `held` says (a sharding's shards: devices on their processes); process_allgather's.
runtime::Exchange allgather_exchange(const sharding::Placement &held, const Shape &shape,
                                     DType dtype, int process, int processes, int local_devices);

} // namespace jx::compile
