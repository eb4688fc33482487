// jax.profiler for jx (include/jx/profiler.h) over the runtime's recorder (runtime/trace.h).
#include <jx/profiler.h>

#include <filesystem>
#include <fmt/format.h>
#include <unistd.h>

#include <jx/error.h>

#include "runtime/trace.h"

namespace jx::profiler {

void start_trace(const std::string &log_dir) {
  std::error_code error;
  std::filesystem::create_directories(log_dir, error);
  if (error)
    throw Error(
        fmt::format("jx::profiler::start_trace: cannot create {}: {}", log_dir, error.message()));
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  runtime::trace::start(
      (std::filesystem::path(log_dir) / fmt::format("{}.{}.trace.json", host, getpid())).string());
}

std::string stop_trace() { return runtime::trace::stop(); }

TraceAnnotation::TraceAnnotation(std::string name)
    : name_(std::move(name)), start_(runtime::trace::recording() ? runtime::trace::now() : -1) {}

TraceAnnotation::~TraceAnnotation() {
  if (start_ >= 0) runtime::trace::complete("user", std::move(name_), start_);
}

} // namespace jx::profiler
