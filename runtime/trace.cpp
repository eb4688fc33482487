#include "runtime/trace.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <vector>

#include <jx/error.h>

#include "runtime/collectives.h"

namespace jx::runtime::trace {

namespace detail {
std::atomic<bool> recording{false};
}

namespace {

struct Event {
  char phase;
  const char *cat;
  std::string name, args;
  int64_t ts, dur;
  int tid;
};

struct Recorder {
  std::mutex mutex;
  std::vector<Event> events;
  std::vector<std::pair<int, std::string>> thread_names;
  std::string path;
  int64_t origin = 0;
};

// Never destroyed: JX_TRACE's writer at exit may outlive any other static.
Recorder &recorder() {
  static Recorder &r = *new Recorder;
  return r;
}

std::atomic<int> next_tid{0};

int this_tid() {
  thread_local const int tid = next_tid.fetch_add(1);
  return tid;
}

void add(Event e) {
  Recorder &r = recorder();
  std::lock_guard lock(r.mutex);
  if (recording()) r.events.push_back(std::move(e));
}

std::string escaped(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\u%04x", c);
      out += hex;
      continue;
    }
    out += c;
  }
  return out;
}

// JX_TRACE: recording from the first use of the runtime to exit.
struct FromEnvironment {
  FromEnvironment() {
    const char *path = std::getenv("JX_TRACE");
    if (!path || !*path) return;
    // The processes mpirun starts share the variable: each writes a file of its own.
    const char *rank = std::getenv("OMPI_COMM_WORLD_RANK");
    start(rank ? std::string(path) + "." + rank : std::string(path));
  }
  ~FromEnvironment() {
    if (!recording()) return;
    try {
      stop();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "jx: warning: JX_TRACE: %s\n", e.what());
    }
  }
} from_environment;

} // namespace

int64_t now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void start(const std::string &path) {
  Recorder &r = recorder();
  std::lock_guard lock(r.mutex);
  if (recording())
    throw Error("jx::profiler: a trace is already being recorded (to " + r.path + ")");
  r.events.clear();
  r.path = path;
  r.origin = now();
  detail::recording.store(true);
}

std::string stop() {
  Recorder &r = recorder();
  std::vector<Event> events;
  std::string path;
  int64_t origin;
  std::vector<std::pair<int, std::string>> names;
  {
    std::lock_guard lock(r.mutex);
    if (!recording()) throw Error("jx::profiler: no trace is being recorded");
    detail::recording.store(false);
    events.swap(r.events);
    path = r.path;
    origin = r.origin;
    names = r.thread_names;
  }
  std::ofstream out(path);
  if (!out) throw Error("jx::profiler: cannot write the trace to " + path);
  // The MPI process this is, even after jx::distributed::shutdown (JX_TRACE writes at exit).
  const char *rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const int pid = process_count() > 1 ? process_index() : rank ? std::atoi(rank) : 0;
  char line[128];
  out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  std::snprintf(line, sizeof line,
                "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"tid\": 0, ", pid);
  out << line << "\"args\": {\"name\": \"jx process " << pid << "\"}}";
  for (const auto &[tid, name] : names)
    out << ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " << pid << ", \"tid\": " << tid
        << ", \"args\": {\"name\": \"" << escaped(name) << "\"}}";
  for (const Event &e : events) {
    std::snprintf(line, sizeof line, ",\n{\"ph\": \"%c\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f",
                  e.phase, pid, e.tid, double(e.ts - origin) / 1e3);
    out << line;
    if (e.phase == 'X') {
      std::snprintf(line, sizeof line, ", \"dur\": %.3f", double(e.dur) / 1e3);
      out << line;
    }
    if (e.phase == 'i') out << ", \"s\": \"t\"";
    out << ", \"cat\": \"" << e.cat << "\", \"name\": \"" << escaped(e.name) << "\", \"args\": {"
        << e.args << "}}";
  }
  out << "\n]}\n";
  out.close();
  if (!out) throw Error("jx::profiler: cannot write the trace to " + path);
  return path;
}

void Span::finish() {
  const int64_t end = now();
  add({'X', cat_, std::move(name_), std::move(args_), start_, end - start_, this_tid()});
}

void complete(const char *cat, std::string name, int64_t start) {
  if (recording()) add({'X', cat, std::move(name), {}, start, now() - start, this_tid()});
}

void instant(const char *cat, const std::string &name, const std::string &args) {
  if (recording()) add({'i', cat, name, args, now(), 0, this_tid()});
}

void counter(const std::string &name, double value) {
  if (!recording()) return;
  char args[64];
  std::snprintf(args, sizeof args, "\"value\": %.17g", value);
  add({'C', "memory", name, args, now(), 0, this_tid()});
}

std::string quoted(const std::string &text) {
  // Appended piece by piece: "\"" + string trips GCC 12's -Wrestrict.
  std::string out(1, '"');
  out += escaped(text);
  out += '"';
  return out;
}

void name_thread(const std::string &name) {
  Recorder &r = recorder();
  std::lock_guard lock(r.mutex);
  r.thread_names.emplace_back(this_tid(), name);
}

} // namespace jx::runtime::trace
