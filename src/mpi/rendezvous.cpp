#include "mpi/rendezvous.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <jx/error.h>

#include "runtime/collectives.h"

namespace jx::mpi {

namespace {

using Clock = std::chrono::steady_clock;

pid_t name_server = -1;

[[noreturn]] void fail(const std::string &what) {
  throw Error("jx::distributed::initialize: " + what);
}

// A socket closed when it goes out of scope.
struct Socket {
  int fd = -1;
  explicit Socket(int f = -1) : fd(f) {}
  Socket(Socket &&o) noexcept : fd(o.fd) { o.fd = -1; }
  Socket &operator=(Socket &&o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
};

void send_all(const Socket &s, const void *data, size_t n) {
  const char *p = static_cast<const char *>(data);
  while (n > 0) {
    const ssize_t k = ::send(s.fd, p, n, MSG_NOSIGNAL);
    if (k <= 0) fail(fmt::format("the coordinator's connection failed: {}", std::strerror(errno)));
    p += k;
    n -= size_t(k);
  }
}

void receive_all(const Socket &s, void *data, size_t n) {
  char *p = static_cast<char *>(data);
  while (n > 0) {
    const ssize_t k = ::recv(s.fd, p, n, 0);
    if (k <= 0) fail("the coordinator's connection closed before every process had joined");
    p += k;
    n -= size_t(k);
  }
}

void send_text(const Socket &s, const std::string &text) {
  const uint32_t n = uint32_t(text.size());
  send_all(s, &n, sizeof n);
  send_all(s, text.data(), n);
}

std::string receive_text(const Socket &s) {
  uint32_t n = 0;
  receive_all(s, &n, sizeof n);
  std::string text(n, '\0');
  receive_all(s, text.data(), n);
  return text;
}

// host:port (the port after the last colon).
addrinfo *resolve(const std::string &coordinator, bool passive) {
  const size_t colon = coordinator.rfind(':');
  if (colon == std::string::npos || colon + 1 == coordinator.size())
    throw ValueError(fmt::format("jx::distributed::initialize: coordinator_address '{}' is not "
                                 "host:port",
                                 coordinator));
  std::string host = coordinator.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (passive) hints.ai_flags = AI_PASSIVE;
  addrinfo *found = nullptr;
  if (const int rc = ::getaddrinfo(passive ? nullptr : host.c_str(),
                                   coordinator.c_str() + colon + 1, &hints, &found))
    fail(fmt::format("cannot resolve coordinator_address '{}': {}", coordinator,
                     ::gai_strerror(rc)));
  return found;
}

Clock::time_point deadline() {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(runtime::collective_timeout_seconds()));
}

// Process 0: the other processes' connections, by process id.
std::vector<Socket> accept_all(const std::string &coordinator, int num_processes) {
  addrinfo *at = resolve(coordinator, true);
  Socket listener(::socket(at->ai_family, SOCK_STREAM, 0));
  const int yes = 1;
  ::setsockopt(listener.fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  const int bound = ::bind(listener.fd, at->ai_addr, at->ai_addrlen);
  ::freeaddrinfo(at);
  if (listener.fd < 0 || bound != 0 || ::listen(listener.fd, num_processes) != 0)
    fail(fmt::format("cannot listen at coordinator_address '{}': {}", coordinator,
                     std::strerror(errno)));
  ::fcntl(listener.fd, F_SETFL, O_NONBLOCK);
  std::vector<Socket> peers(static_cast<size_t>(num_processes));
  const auto until = deadline();
  for (int joined = 1; joined < num_processes;) {
    Socket s(::accept(listener.fd, nullptr, nullptr));
    if (s.fd < 0) {
      if (Clock::now() > until)
        fail(fmt::format("only {} of {} processes reached the coordinator within {} s "
                         "(JX_COLLECTIVE_TIMEOUT_S)",
                         joined, num_processes, runtime::collective_timeout_seconds()));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    ::fcntl(s.fd, F_SETFL, 0);
    int32_t id = -1;
    receive_all(s, &id, sizeof id);
    if (id <= 0 || id >= num_processes || peers[size_t(id)].fd >= 0)
      fail(fmt::format("a process joined the coordinator as process_id {} (of {} processes, "
                       "each once)",
                       id, num_processes));
    peers[size_t(id)] = std::move(s);
    ++joined;
  }
  return peers;
}

// Another process: its connection to process 0, retried until process 0 listens.
Socket reach(const std::string &coordinator, int process_id) {
  const auto until = deadline();
  while (true) {
    addrinfo *at = resolve(coordinator, false);
    Socket s(::socket(at->ai_family, SOCK_STREAM, 0));
    const int rc = ::connect(s.fd, at->ai_addr, at->ai_addrlen);
    ::freeaddrinfo(at);
    if (rc == 0) {
      const int32_t id = process_id;
      send_all(s, &id, sizeof id);
      return s;
    }
    if (Clock::now() > until)
      fail(fmt::format("cannot reach the coordinator at '{}' within {} s "
                       "(JX_COLLECTIVE_TIMEOUT_S): {}",
                       coordinator, runtime::collective_timeout_seconds(), std::strerror(errno)));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// Process 0: ompi-server started, its URI (what MPI_Comm_accept/connect between processes of
// different launches need).
std::string start_name_server() {
  char path[] = "/tmp/jx-ompi-server-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) fail("cannot create a file for ompi-server's address");
  ::close(fd);
  name_server = ::fork();
  if (name_server == 0) {
    ::execlp("ompi-server", "ompi-server", "--no-daemonize", "-r", path, nullptr);
    std::_Exit(127);
  }
  std::string uri;
  const auto until = deadline();
  while (uri.empty()) {
    std::ifstream in(path);
    std::getline(in, uri);
    int status = 0;
    if (name_server < 0 || ::waitpid(name_server, &status, WNOHANG) != 0) {
      name_server = -1;
      fail("cannot start ompi-server (Open MPI's name server, package openmpi-bin): it exited");
    }
    if (uri.empty() && Clock::now() > until) fail("ompi-server did not report its address");
    if (uri.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::unlink(path);
  return uri;
}

void init_mpi() {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    fail("MPI_Init_thread failed");
}

} // namespace

MPI_Comm join_at(const std::string &coordinator, int num_processes, int process_id) {
  if (num_processes < 1 || process_id < 0 || process_id >= num_processes)
    throw ValueError(fmt::format("jx::distributed::initialize: process_id {} is not in [0, "
                                 "num_processes={})",
                                 process_id, num_processes));
  MPI_Comm comm = MPI_COMM_NULL;
  if (process_id == 0) {
    std::vector<Socket> peers = accept_all(coordinator, num_processes);
    const std::string uri = num_processes > 1 ? start_name_server() : "";
    for (int p = 1; p < num_processes; ++p)
      send_text(peers[size_t(p)], uri);
    if (!uri.empty()) ::setenv("OMPI_MCA_pmix_server_uri", uri.c_str(), 1);
    init_mpi();
    MPI_Comm_dup(MPI_COMM_SELF, &comm);
    if (num_processes == 1) return comm;
    char port[MPI_MAX_PORT_NAME];
    MPI_Open_port(MPI_INFO_NULL, port);
    // One process at a time, in process_id order, so that ranks follow process ids.
    for (int p = 1; p < num_processes; ++p) {
      send_text(peers[size_t(p)], port);
      MPI_Comm inter, merged;
      MPI_Comm_accept(port, MPI_INFO_NULL, 0, comm, &inter);
      MPI_Intercomm_merge(inter, 0, &merged);
      MPI_Comm_free(&inter);
      MPI_Comm_free(&comm);
      comm = merged;
    }
    MPI_Close_port(port);
    return comm;
  }
  Socket to_coordinator = reach(coordinator, process_id);
  const std::string uri = receive_text(to_coordinator);
  ::setenv("OMPI_MCA_pmix_server_uri", uri.c_str(), 1);
  init_mpi();
  const std::string port = receive_text(to_coordinator);
  MPI_Comm inter;
  MPI_Comm_connect(port.c_str(), MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
  MPI_Intercomm_merge(inter, 1, &comm);
  MPI_Comm_free(&inter);
  // Then a member: each later process joins through every member.
  int size = 0;
  MPI_Comm_size(comm, &size);
  for (; size < num_processes; ++size) {
    MPI_Comm next, merged;
    MPI_Comm_accept("", MPI_INFO_NULL, 0, comm, &next); // the port matters at the root only
    MPI_Intercomm_merge(next, 0, &merged);
    MPI_Comm_free(&next);
    MPI_Comm_free(&comm);
    comm = merged;
  }
  return comm;
}

void stop_name_server() {
  if (name_server <= 0) return;
  ::kill(name_server, SIGTERM);
  ::waitpid(name_server, nullptr, 0);
  name_server = -1;
}

} // namespace jx::mpi
