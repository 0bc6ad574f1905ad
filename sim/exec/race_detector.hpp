// Data races on plain shared data (P::Shared, the engine's plain_load and plain_store): two
// accesses to one location by different threads, at least one a write, that happens-before
// does not order (property `data_race`, docs/scenarios.md). The detector keeps vector clocks
// in the manner of FastTrack (Flanagan and Freund, PLDI 2009; docs/sources.md section 5; loom's
// runtime keeps its vector clocks in a file of their own, as this one does): each thread has
// a clock, each atomic location the clock its last release published, and each plain
// location the epoch (thread, clock) of its last write and of each thread's last read since.
//
// Happens-before is built from the C++ memory model's synchronizes-with edges:
//   - program order: a thread's own clock;
//   - a store or read-modify-write with release or stronger order publishes the thread's
//     clock to the location; an RMW joins into what is there (it continues the release
//     sequence), a store replaces it;
//   - a load or RMW with acquire or stronger order joins the location's clock; a relaxed one
//     keeps it aside for a later acquire fence, and a relaxed store publishes the clock of
//     the thread's last release fence (C++ [atomics.fences]); seq_cst fences are both;
//   - unpark(t) happens before the return of the park it ends;
//   - under x86-TSO a buffered store publishes when it drains, the clock it had when issued.
// Atomic accesses never race with each other; mixed atomic and plain accesses to one
// location are not checked (P::Shared and P::Atomic cells never share an address here).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "sim/scheduler.hpp"

namespace lockstep::sim {

using VectorClock = std::vector<std::uint32_t>;  // one entry per thread of the execution

// One plain access: who made it, which kind (plain_load or plain_store), at which of its
// own clock ticks.
struct RaceAccess {
  ThreadId thread = kNoThread;
  OpKind kind = OpKind::plain_load;
  std::uint32_t clock = 0;
};

struct Race {
  std::uint64_t addr = 0;
  RaceAccess earlier;
  RaceAccess later;
};

class RaceDetector {
 public:
  // A new execution with `threads` threads; a disabled detector ignores every event.
  void reset(std::size_t threads, bool enabled);
  bool enabled() const { return enabled_; }

  std::optional<Race> plain_load(ThreadId t, std::uint64_t addr);
  std::optional<Race> plain_store(ThreadId t, std::uint64_t addr, bool buffered);
  void atomic_load(ThreadId t, std::uint64_t addr, std::memory_order order);
  void atomic_store(ThreadId t, std::uint64_t addr, std::memory_order order, bool buffered);
  void rmw(ThreadId t, std::uint64_t addr, std::memory_order order);
  void fence(ThreadId t, std::memory_order order);
  // unpark(target) by t; `parked`: the target sleeps, so its park returns next.
  void unpark(ThreadId t, ThreadId target, bool parked);
  void parking(ThreadId t);                      // t calls park(): a permit left by an earlier unpark ends it
  void drained(ThreadId t, std::uint64_t addr);  // t's oldest buffered store reached memory

 private:
  // A store waiting in a store buffer, mirrored here so its clock travels with it.
  struct Buffered {
    std::uint64_t addr = 0;
    bool publishes = false;  // an atomic store: the location's clock becomes `clock` on drain
    VectorClock clock;
  };
  struct ThreadState {
    VectorClock now;
    VectorClock release_fence;     // the clock at the last release fence (relaxed stores publish it)
    VectorClock acquired_relaxed;  // what relaxed loads saw, for the next acquire fence
    VectorClock woken_by;          // the clocks of unparks that left a permit
    std::deque<Buffered> buffer;
  };
  struct Epoch {
    ThreadId thread = kNoThread;
    std::uint32_t clock = 0;
  };
  struct Location {
    VectorClock sync;          // atomic: what an acquire of it joins
    Epoch write;               // plain: the last write
    std::vector<Epoch> reads;  // plain: each thread's last read since that write
  };

  bool ordered_before(const Epoch& e, ThreadId t) const;
  bool forwarded(ThreadId t, std::uint64_t addr) const;
  VectorClock release_clock(ThreadId t, std::memory_order order);
  void acquire(ThreadId t, const VectorClock& sync, std::memory_order order);
  static void join(VectorClock& into, const VectorClock& from);

  bool enabled_ = false;
  std::vector<ThreadState> threads_;
  std::map<std::uint64_t, Location> locations_;  // ordered: nothing here depends on host addresses
};

}  // namespace lockstep::sim
