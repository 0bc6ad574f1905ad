// The state of an execution at one step, rebuilt from the trace for counterexample
// stepping: where each thread is, what memory holds at the addresses the execution has
// touched, what waits in each store buffer (TSO), who holds which lock, and each futex
// bucket's queue. Everything up to and including the step counts; later events do not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gui/model/trace.hpp"

namespace lockstep::view {

struct ThreadAtStep {
  int id = -1;
  ThreadState state = ThreadState::unknown;
  std::optional<std::size_t> last_op;  // index into Trace::ops of its latest operation so far
};

struct MemoryCell {
  std::uint64_t value = 0;
  std::uint64_t size = 0;
  int writer = -1;         // the thread whose write (or drain) put the value there; -1: read only
  bool this_step = false;  // the current step read or wrote it
};

struct BufferedEntry {
  std::uint64_t addr = 0;
  std::uint64_t size = 0;
  std::uint64_t value = 0;
};

struct Holder {
  int thread = -1;
  bool shared = false;
};

struct QueuedWaiter {
  int waiter = -1;
  std::uint64_t key = 0;
};

struct StepState {
  std::uint64_t t = 0;
  std::vector<ThreadAtStep> threads;                                // indexed by thread
  std::map<std::uint64_t, MemoryCell> memory;                       // by address
  std::vector<std::vector<BufferedEntry>> store_buffers;            // per thread, oldest first
  std::map<std::uint64_t, std::vector<Holder>> lock_holders;        // by lock address; held locks only
  std::map<std::uint64_t, std::vector<int>> lock_waiters;           // by lock address
  std::map<std::uint64_t, std::vector<QueuedWaiter>> futex_queues;  // by bucket; non-empty only
  bool at_violation = false;
  bool at_witness = false;
};

// The state after `step` (an index into Trace::steps); throws std::out_of_range past the end.
StepState state_at(const Trace& trace, std::size_t step);

// The same as readable text, one section per kind, for the window's state panel and tests.
std::string describe(const Trace& trace, const StepState& state);

}  // namespace lockstep::view
