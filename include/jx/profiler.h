// jax.profiler for jx: a timeline of what a program did, as Chrome trace-event JSON that Perfetto
// (ui.perfetto.dev) and chrome://tracing open. JX_TRACE=<file.json> records a whole run.
//
// Tracks: one per thread (the caller, each pool worker "pool worker k", LLVM's compile threads).
// Spans: "compile" (tracing, each stage of the compile driver), "pass" (each graph pass, per
// round), "llvm" (IR emission, O3, code generation per module, with its kernels; "disk cache
// hit" instants), "step" (each step of a call: kernel symbol, kind, slot), "task" (each box or
// row chunk a thread computes: the box and its device), "wait" (the caller at the pool's barrier
// after its share), "transfer" (waiting for a multi-process program's messages, with bytes),
// "memory" (allocations from the system with their huge-page bytes; the arena's size as a
// counter), "user" (TraceAnnotation).
#pragma once

#include <cstdint>
#include <string>

namespace jx::profiler {

// jax.profiler.start_trace: records until stop_trace into
// <log_dir>/<host>.<pid>.trace.json (log_dir is created). jx::Error while a trace is recording.
void start_trace(const std::string &log_dir);
// jax.profiler.stop_trace: writes the trace; returns its path. jx::Error when none records.
std::string stop_trace();

// jax.profiler.TraceAnnotation: the caller's own code as a span of this thread's track, from
// construction to destruction (nothing while no trace records).
class TraceAnnotation {
public:
  explicit TraceAnnotation(std::string name);
  TraceAnnotation(const TraceAnnotation &) = delete;
  TraceAnnotation &operator=(const TraceAnnotation &) = delete;
  ~TraceAnnotation();

private:
  std::string name_;
  int64_t start_;
};

} // namespace jx::profiler
