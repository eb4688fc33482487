// Timeline tracing (jx::profiler, JX_TRACE=<file.json>): events in Chrome's trace-event format,
// which Perfetto (ui.perfetto.dev) and chrome://tracing open. While nothing records, each
// instrumented point costs one relaxed atomic load.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace jx::runtime::trace {

namespace detail {
extern std::atomic<bool> recording;
}

inline bool recording() { return detail::recording.load(std::memory_order_relaxed); }

// Starts recording (events kept in memory); stop writes them to `path` as one JSON object. A
// second start while recording, or a stop without one, raises jx::Error.
void start(const std::string &path);
// Returns the path written.
std::string stop();

// Nanoseconds on the trace's clock.
int64_t now();

// A complete event ("X": a span of time on this thread) of category `cat`, from construction to
// destruction, when recording at construction. `args`: the body of a JSON object (`"k": v, ...`).
class Span {
public:
  explicit Span(const char *cat) : cat_(cat), start_(recording() ? now() : -1) {}
  Span(const char *cat, std::string name) : Span(cat) {
    if (active()) name_ = std::move(name);
  }
  Span(const Span &) = delete;
  Span &operator=(const Span &) = delete;
  // Inline: a step of a loop body opens a span every iteration, recording or not.
  ~Span() {
    if (active()) finish();
  }
  bool active() const { return start_ >= 0; }
  void set_name(std::string name) { name_ = std::move(name); }
  void set_args(std::string args) { args_ = std::move(args); }

private:
  void finish();

  const char *cat_;
  int64_t start_;
  std::string name_, args_;
};

// A complete event from `start` (now()) to now on this thread.
void complete(const char *cat, std::string name, int64_t start);
// An instant event ("i") on this thread.
void instant(const char *cat, const std::string &name, const std::string &args = {});
// A counter track ("C"): `name` takes `value` from now on.
void counter(const std::string &name, double value);

// `text` as a JSON string literal (quoted, escaped): for values in a span's args.
std::string quoted(const std::string &text);

// A name for this thread's track (a pool worker, the caller).
void name_thread(const std::string &name);

} // namespace jx::runtime::trace
