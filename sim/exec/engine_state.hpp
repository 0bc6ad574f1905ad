// The engine's per-execution records of threads and CPUs (private to sim/exec).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "sim/exec/engine.hpp"

namespace lockstep::sim {

// A read made by the current spin-loop iteration, with the value it returned.
struct SpinRead {
  std::uint64_t addr = 0;
  const void* host = nullptr;
  std::uint8_t size = 0;
  std::uint64_t value = 0;
};

// A store waiting in a thread's store buffer.
struct BufferedStore {
  std::uint64_t addr = 0;
  void* host = nullptr;
  std::uint8_t size = 0;
  std::uint64_t value = 0;
  std::uint64_t visible_ns = 0;  // timed mode: when it reaches memory
  std::uint32_t step = kNoStep;  // the step that buffered it (event log)
};

struct Engine::SimThread {
  std::string name;
  CpuId cpu = 0;
  std::function<void()> body;
  ThreadRunState state = ThreadRunState::ready;
  bool started = false;
  bool permit = false;        // an unpark that arrived before the park
  std::uint64_t clock_ns = 0; // when its next operation can start (timed mode)
  PendingOp pending;
  // Explore mode: what the current spin-loop iteration read, and whether it wrote.
  std::vector<SpinRead> spin_watch;
  bool spin_wrote = false;
  bool spin_overflow = false;
  bool spin_timed = false;  // the iteration read the clock: it may be waiting for a time, not a write
  std::uint32_t enabled_by = kNoStep;  // event log: the step that last made it runnable
  PendingOp last_op;          // the operation before the pending one, for deadlock reports
  std::deque<BufferedStore> store_buffer;  // x86-TSO: oldest first
};

struct Engine::SimCpu {
  ThreadId running = kNoThread;
  std::deque<ThreadId> queue;  // ready threads, FIFO (round robin)
  std::uint64_t slice_end_ns = 0;
  std::uint64_t idle_since_ns = 0;
};

}  // namespace lockstep::sim
