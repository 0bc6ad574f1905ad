// Which simulated threads share cache lines, and how much (docs/os.md, "Topology-aware
// placement"): what the "sharing" placement needs to act on the seed's "when there is cache
// overlap between threads the scheduler can now place them near-by each other".
//
// Overlap is counted per pair of threads as hand-overs of lines: a thread touching a line
// that another thread wrote last, when it was not the line's last toucher itself. A thread
// that spins on another's line counts once per write it sees, not once per read; a line only
// read by several threads counts nothing (it would be shared, not moved). The count is the
// program's own, whatever CPUs the threads run on, so placing threads does not change it.
// It is kept for the whole run: no ageing [choice: the seed says nothing of how overlap
// would be measured or forgotten].
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sim/scheduler.hpp"

namespace lockstep::sim {

class CacheOverlap {
 public:
  // Hand-overs between two threads below this are not a partnership [guess: enough to
  // tell a line passed back and forth from one written at start-up and read once].
  static constexpr std::uint64_t kSignificant = 4;

  // `t` performs `kind` on `addr` (a memory access: is_memory_access(kind)).
  void record(ThreadId t, std::uint64_t addr, OpKind kind);
  // Hand-overs between `a` and `b`, both ways.
  std::uint64_t between(ThreadId a, ThreadId b) const;
  // The thread `t` shares most with, if at least kSignificant (the lowest id on ties).
  std::optional<ThreadId> partner(ThreadId t) const;

 private:
  struct Line {
    ThreadId writer = kNoThread;   // the last thread to write it
    ThreadId toucher = kNoThread;  // the last thread to access it
  };
  std::unordered_map<std::uint64_t, Line> lines_;
  std::vector<std::vector<std::uint64_t>> counts_;  // [a][b], a > b
};

}  // namespace lockstep::sim
