#include "runtime/collectives.h"

#include <cstdlib>
#include <mutex>
#include <string>

#include <jx/error.h>

namespace jx::runtime {

namespace {

std::mutex installed_mutex;
std::shared_ptr<Communicator> installed;

} // namespace

int64_t Message::elements() const {
  int64_t n = 1;
  for (size_t a = 0; a < lo.size(); ++a)
    n *= hi[a] > lo[a] ? hi[a] - lo[a] : 0;
  return n;
}

std::shared_ptr<Communicator> communicator() {
  std::lock_guard lock(installed_mutex);
  return installed;
}

void set_communicator(std::shared_ptr<Communicator> c) {
  std::lock_guard lock(installed_mutex);
  installed = std::move(c);
}

int process_index() {
  const std::shared_ptr<Communicator> c = communicator();
  return c ? c->process_index() : 0;
}

int process_count() {
  const std::shared_ptr<Communicator> c = communicator();
  return c ? c->process_count() : 1;
}

double collective_timeout_seconds() {
  const char *text = std::getenv("JX_COLLECTIVE_TIMEOUT_S");
  if (!text || !*text) return 300;
  char *end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (*end != '\0' || !(seconds > 0))
    throw ValueError(std::string("JX_COLLECTIVE_TIMEOUT_S must be a positive number of seconds, "
                                 "got '") +
                     text + "'");
  return seconds;
}

} // namespace jx::runtime
