// What a thread is inside of, as bands under its lane: holding a lock, waiting for one,
// in a system call, queued on a futex bucket. Derived from the trace's lock and futex events (docs/traces.md),
// so a lost wakeup shows as a waiter whose queued band runs to the end of the trace.
#pragma once

#include <cstdint>
#include <vector>

#include "gui/model/trace.hpp"

namespace lockstep::view {

struct Band {
  enum class Kind { lock_held, lock_wait, futex_queued, syscall };
  Kind kind = Kind::lock_held;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;   // the trace's end when it never closed
  std::uint64_t addr = 0;  // the lock, or the futex word
  bool shared = false;     // a reader's hold
  bool open = false;       // still held / waiting / queued when the trace ended
};

struct ThreadBands {
  std::vector<Band> bands;  // sorted by begin
  std::uint64_t longest_ns = 0;
};

// Per thread (indexed like Trace::threads). A wait ends at the acquire (or the trace's
// end); a hold at the release; a futex wait from the enqueue of the thread as waiter to
// its dequeue, whoever performs it.
std::vector<ThreadBands> derive_bands(const Trace& trace);

}  // namespace lockstep::view
