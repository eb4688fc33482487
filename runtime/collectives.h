// The runtime's side of a program that spans processes: the boxes a step sends and receives, and
// the communicator that moves them (jx::distributed installs one over MPI; none in a
// single-process program, where devices read each other's shards in place).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace jx::runtime {

// A box [lo, hi) of one slot's buffer (the window it holds, row-major of `extent`, elements of
// `itemsize` bytes) moved to or from process `peer`. Both sides list the same message: the sender's
// box is read from its slot, the receiver's written into the same box of its own.
struct Message {
  int peer = 0;
  int slot = 0;
  std::vector<int64_t> extent, lo, hi;
  size_t itemsize = 0;

  int64_t elements() const;
};

// What a process sends and receives before one step (or after the last): every process lists the
// messages of one global schedule in the same order, so messages between two processes match in
// order.
struct Exchange {
  std::vector<Message> sends, recvs;
  bool empty() const { return sends.empty() && recvs.empty(); }
};

class Communicator {
public:
  virtual ~Communicator() = default;
  virtual int process_index() const = 0;
  virtual int process_count() const = 0;
  // An exchange in flight (start), completed by finish.
  class Pending {
  public:
    virtual ~Pending() = default;
  };
  // Starts moving every message of `exchange` between slots' memory (address: by slot): the
  // caller computes what reads none of it, then calls finish before reading or freeing it.
  virtual std::unique_ptr<Pending> start(const Exchange &exchange, void *const *address) = 0;
  // Waits for the messages. Raises jx::Error when a peer fails or the exchange outlasts the
  // collective timeout; the communicator is then unusable and every later call raises at once.
  virtual void finish(Pending &pending) = 0;
  void exchange(const Exchange &exchange, void *const *address) {
    std::unique_ptr<Pending> p = start(exchange, address);
    finish(*p);
  }
  // Every process's value, by process index (with the same timeout and failures).
  virtual std::vector<uint64_t> allgather(uint64_t value) = 0;
  // Disconnects (MPI_Finalize where this communicator initialized MPI).
  virtual void shutdown() = 0;
};

// The communicator of a multi-process program, or null (one process).
std::shared_ptr<Communicator> communicator();
void set_communicator(std::shared_ptr<Communicator> c);

// This process's index and the number of processes (0 and 1 without a communicator).
int process_index();
int process_count();

// JX_COLLECTIVE_TIMEOUT_S: how long an exchange may wait for its peers, in seconds (default
// 300); jx::ValueError for a value that is not a positive number.
double collective_timeout_seconds();

} // namespace jx::runtime
