// Statistics over a selection of a trace: a time range [t0, t1) and optionally some threads.
// Counts of operations per kind, the latencies of memory operations (distribution and
// histogram), which level answered the accesses (`src`), lock wait and hold times per lock and
// per thread, futex bucket queue lengths, and the time each thread spent in each state. No Qt:
// the statistics panel and the compare view both paint what this computes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gui/model/samples.hpp"
#include "gui/model/trace.hpp"
#include "profile/lock_profile.hpp"

namespace lockstep::view {

struct Selection {
  std::uint64_t t0 = 0;
  std::uint64_t t1 = 0;      // exclusive
  std::vector<int> threads;  // empty: every thread

  bool has_thread(int th) const;
  bool has_time(std::uint64_t t) const { return t >= t0 && t < t1; }
};

// The whole trace, every thread: [0, end + 1), so events at the end time count too.
Selection whole_trace(const Trace& trace);

// Which operations are memory accesses, whose latency is the memory system's (docs/results.md:
// loads, stores and read-modify-writes; fences, pauses, park/unpark and drains are not).
bool is_memory_access(const Operation& op);

// Lock times attributed to the selection: a wait (wait -> acquire) or hold (acquire -> release)
// counts when it begins inside it, with its whole length. One still open at the end of the
// trace is counted in `open_*`, not in the distributions. An acquire with no wait before it
// (an uncontended one) waited 0 ns.
struct LockTimes {
  Distribution wait;
  Distribution hold;
  std::size_t open_waits = 0;
  std::size_t open_holds = 0;
  std::size_t shared_holds = 0;  // holds of a reader-writer or range lock in shared mode
};

// A futex hash bucket's wait queue: waiters queued (enqueue +1, dequeue -1, never below 0).
// Queue lengths belong to the bucket, so the thread filter does not apply to them.
struct FutexQueue {
  std::size_t enqueues = 0;  // in the range
  std::size_t dequeues = 0;
  std::size_t max_length = 0;  // the most waiters queued at once in the range
  double mean_length = 0;      // time-weighted over the range
};

// Time in each state within the range, clipped to it.
constexpr std::size_t kThreadStates = 6;  // ThreadState's values
struct ThreadTimes {
  std::array<std::uint64_t, kThreadStates> ns{};  // indexed by ThreadState
  std::uint64_t in(ThreadState s) const { return ns[static_cast<std::size_t>(s)]; }
};

struct Statistics {
  Selection selection;
  std::size_t ops = 0;                            // operations starting in the range
  std::map<std::string, std::size_t> op_counts;   // by `op` (load, store, rmw, park, ...)
  std::map<std::string, std::size_t> rmw_counts;  // by `rmw` (cas, exchange, fetch_add, ...)
  std::size_t failed_cas = 0;
  std::vector<std::uint64_t> latencies_ns;  // of the memory accesses, in time order
  Distribution latency;
  std::vector<HistogramBin> latency_histogram;
  std::map<std::string, std::size_t> sources;  // `src` of the accesses that have one
  std::map<std::uint64_t, LockTimes> locks;    // by lock address
  std::map<int, LockTimes> lock_threads;       // by thread
  LockTimes all_locks;
  std::map<std::uint64_t, FutexQueue> futex_queues;  // by bucket
  std::map<int, ThreadTimes> thread_times;           // by thread, selected threads only
  // The lock profile of `lockstep run --lock-profile` (docs/os.md), of the waits and holds that
  // lie wholly inside the selection, by the same recorder: per (site, lock), worst first.
  profile::LockProfile lock_profile;
  std::size_t lock_profile_unmatched = 0;  // releases whose acquire is before the selection, and such
};

Statistics compute_statistics(const Trace& trace, const Selection& selection);

}  // namespace lockstep::view
