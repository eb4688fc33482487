#include "mpi/communicator.h"

#include <chrono>
#include <climits>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <mpi.h>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <jx/error.h>

#include "mpi/rendezvous.h"

namespace jx::mpi {

namespace {

std::string error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, size_t(length));
}

// A message's box of its slot's array as one MPI datatype (C order, elements as bytes).
MPI_Datatype box_type(const runtime::Message &m) {
  MPI_Datatype element, box;
  MPI_Type_contiguous(int(m.itemsize), MPI_BYTE, &element);
  if (m.extent.empty()) {
    MPI_Type_commit(&element);
    return element;
  }
  std::vector<int> sizes, subsizes, starts;
  for (size_t a = 0; a < m.extent.size(); ++a) {
    if (m.extent[a] > INT_MAX)
      throw NotImplementedError(
          fmt::format("jx::distributed: an array dimension of {} elements is past MPI's int counts",
                      m.extent[a]));
    sizes.push_back(int(m.extent[a]));
    subsizes.push_back(int(m.hi[a] - m.lo[a]));
    starts.push_back(int(m.lo[a]));
  }
  MPI_Type_create_subarray(int(sizes.size()), sizes.data(), subsizes.data(), starts.data(),
                           MPI_ORDER_C, element, &box);
  MPI_Type_commit(&box);
  MPI_Type_free(&element);
  return box;
}

class MpiCommunicator final : public runtime::Communicator {
public:
  MpiCommunicator(MPI_Comm base, bool owns_mpi) : owns_mpi_(owns_mpi) {
    MPI_Comm_dup(base, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }

  // Dropped without shutdown (an initialize that refused its options): its duplicate freed, MPI
  // left initialized for the next connect.
  ~MpiCommunicator() override {
    if (comm_ != MPI_COMM_NULL && broken_.empty()) MPI_Comm_free(&comm_);
  }

  int process_index() const override { return rank_; }
  int process_count() const override { return size_; }

  struct InFlight final : Pending {
    std::vector<MPI_Request> requests;
    std::vector<MPI_Datatype> types;
    std::string what;
    bool done = false;
    ~InFlight() override {
      for (MPI_Datatype &t : types)
        MPI_Type_free(&t);
    }
  };

  std::unique_ptr<Pending> start(const runtime::Exchange &e, void *const *address) override {
    std::lock_guard lock(mutex_);
    check_usable();
    auto p = std::make_unique<InFlight>();
    std::set<int> peers;
    auto post = [&](const runtime::Message &m, bool send) {
      if (m.elements() == 0) return;
      p->types.push_back(box_type(m));
      MPI_Request &r = p->requests.emplace_back();
      const int rc = send ? MPI_Isend(address[m.slot], 1, p->types.back(), m.peer, 0, comm_, &r)
                          : MPI_Irecv(address[m.slot], 1, p->types.back(), m.peer, 0, comm_, &r);
      if (rc != MPI_SUCCESS) fail("posting a message to process " + std::to_string(m.peer), rc);
      peers.insert(m.peer);
    };
    for (const runtime::Message &m : e.recvs)
      post(m, false);
    for (const runtime::Message &m : e.sends)
      post(m, true);
    p->what = fmt::format("an exchange with process{} {}", peers.size() == 1 ? "" : "es",
                          fmt::join(peers, ", "));
    return p;
  }

  void finish(Pending &pending) override {
    auto &p = static_cast<InFlight &>(pending);
    if (p.done) return;
    std::lock_guard lock(mutex_);
    check_usable();
    p.done = true;
    wait(p.requests, p.what, true);
  }

  std::vector<uint64_t> allgather(uint64_t value) override {
    std::lock_guard lock(mutex_);
    check_usable();
    // Kept by the communicator: a collective cannot be cancelled, and a peer that comes late
    // still writes here.
    send_value_ = value;
    gathered_.assign(size_t(size_), 0);
    std::vector<MPI_Request> requests(1);
    const int rc = MPI_Iallgather(&send_value_, 1, MPI_UINT64_T, gathered_.data(), 1, MPI_UINT64_T,
                                  comm_, &requests[0]);
    if (rc != MPI_SUCCESS) fail("an allgather", rc);
    wait(requests, "an allgather of every process", false);
    return gathered_;
  }

  void shutdown() override {
    std::lock_guard lock(mutex_);
    if (comm_ == MPI_COMM_NULL) return;
    // After a failure the communicator may still have requests in flight: left as it is.
    if (broken_.empty()) MPI_Comm_free(&comm_);
    comm_ = MPI_COMM_NULL;
    if (owns_mpi_) MPI_Finalize();
    if (owns_mpi_) stop_name_server();
  }

private:
  void check_usable() const {
    if (!broken_.empty())
      throw Error("jx::distributed: an earlier exchange failed (" + broken_ +
                  "); this process can no longer run programs across processes");
    if (comm_ == MPI_COMM_NULL) throw Error("jx::distributed has been shut down");
  }

  [[noreturn]] void fail(const std::string &what, int code) {
    broken_ = fmt::format("{}: {}", what, error_text(code));
    throw Error("jx::distributed: " + broken_);
  }

  // Waits for every request until JX_COLLECTIVE_TIMEOUT_S, polling: a peer that died or raised
  // before its part must not hang this process. Spins briefly, then sleeps between polls so that
  // oversubscribed processes leave their cores to the peers.
  // Point-to-point requests are cancelled on a timeout (their buffers are the caller's).
  void wait(std::vector<MPI_Request> &requests, const std::string &what, bool point_to_point) {
    using clock = std::chrono::steady_clock;
    const double timeout = runtime::collective_timeout_seconds();
    const auto deadline = clock::now() + std::chrono::duration<double>(timeout);
    for (int polls = 0;; ++polls) {
      int done = 0;
      const int rc = MPI_Testall(int(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS) fail(what, rc);
      if (done) return;
      if (clock::now() > deadline) {
        for (MPI_Request &r : requests)
          if (point_to_point && r != MPI_REQUEST_NULL) {
            MPI_Cancel(&r);
            MPI_Request_free(&r);
          }
        broken_ = fmt::format("{} did not complete within {} s (JX_COLLECTIVE_TIMEOUT_S): a "
                              "process failed, exited or runs a different program",
                              what, timeout);
        throw Error("jx::distributed: " + broken_);
      }
      if (polls < 1000)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  bool owns_mpi_;
  std::string broken_;
  std::mutex mutex_;
  uint64_t send_value_ = 0;
  std::vector<uint64_t> gathered_;
};

} // namespace

bool available() { return true; }

std::shared_ptr<runtime::Communicator> connect(const void *mpi_communicator) {
  // Whether jx called MPI_Init_thread (then its shutdown finalizes), kept across connects.
  static bool jx_initialized_mpi = false;
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
    throw Error("jx::distributed::initialize: MPI has been finalized in this process (after "
                "jx::distributed::shutdown); it cannot start again");
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
      throw Error("jx::distributed::initialize: MPI_Init_thread failed");
    jx_initialized_mpi = true;
  }
  const bool owns = jx_initialized_mpi;
  const MPI_Comm base =
      mpi_communicator ? *static_cast<const MPI_Comm *>(mpi_communicator) : MPI_COMM_WORLD;
  return std::make_shared<MpiCommunicator>(base, owns);
}

std::shared_ptr<runtime::Communicator> connect_at(const std::string &coordinator, int num_processes,
                                                  int process_id) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    throw Error("jx::distributed::initialize: coordinator_address starts MPI, which is running "
                "already in this process (started by mpirun? then leave coordinator_address out)");
  MPI_Comm all = join_at(coordinator, num_processes, process_id);
  auto c = std::make_shared<MpiCommunicator>(all, true);
  MPI_Comm_free(&all);
  return c;
}

} // namespace jx::mpi
