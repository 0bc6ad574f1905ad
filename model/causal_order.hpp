// Happens-before over one execution's steps, and the races in it (the core of dynamic
// partial-order reduction).
//
// Each choice the engine offers is a *process*: a thread's steps, or the drains of a thread's
// store buffer (under x86-TSO a buffered store reaching memory is an event of its own, as in
// Nidhugg's TSO model). Two steps of different processes are dependent when they touch
// overlapping bytes and at least one writes (a park and an unpark of the same thread both
// write its permit). Under x86-TSO one exception makes the classes reads-from and coherence
// classes: a load that reads its own thread's store, from the buffer or from memory once it
// drained, does not depend on that drain; from the drain on it is a reader of the store's
// location, which the writes after it depend on (docs/model-checking.md, "Dependence under
// x86-TSO"). Happens-before is the transitive closure of program order, the engine's causal
// edges (an unpark to the woken thread, a write to the spinner it released, a buffered store
// to its drain) and the execution order of dependent steps.
//
// A race is a pair of dependent steps of different processes ordered by nothing but each
// other: reversing it gives an execution that is not equivalent to this one.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/scheduler.hpp"

namespace lockstep::model {

// Choice -> process number: a thread's steps, then its store buffer's drains.
inline std::uint32_t process_of(const sim::Choice& c) {
  return c.thread * 2 + (c.kind == sim::Choice::Kind::drain ? 1U : 0U);
}

// True when the two access sets touch overlapping bytes and one of them writes.
bool conflicting(std::span<const sim::StepAccess> a, std::span<const sim::StepAccess> b);

// A load of the thread's that its buffer answered from the store `drain` wrote (a drain step's
// accesses) reads that store from memory from now on: its footprint becomes the store's
// location (docs/model-checking.md, "Dependence under x86-TSO").
void follow_drain(std::span<sim::StepAccess> accesses, std::span<const sim::StepAccess> drain);

struct Race {
  std::uint32_t first = 0;   // step index
  std::uint32_t second = 0;  // step index, > first
};

class CausalOrder {
 public:
  // Computes vector clocks for every step of `log`; appends its races to `races` (sorted by
  // second step, then by first step descending). One object serves execution after
  // execution, reusing its storage.
  void analyse(const sim::EventLog& log, std::vector<Race>* races);

  std::size_t steps() const { return process_.size(); }
  std::uint32_t process(std::size_t step) const { return process_[step]; }
  // Step a happens before step b (or is b).
  bool happens_before(std::size_t a, std::size_t b) const { return clocks_[b * processes_ + process_[a]] >= local_[a]; }

 private:
  std::size_t processes_ = 0;
  std::vector<std::uint32_t> process_;  // per step
  std::vector<std::uint32_t> local_;    // per step: its number among its process's steps, from 1
  std::vector<std::uint32_t> clocks_;   // steps x processes
  // Per location (address and size, as accessed): the last step that wrote it and the
  // steps that read it since. A step depends on at most these, over every location that
  // overlaps what it touches: any earlier conflicting step is ordered before them. Few
  // locations per execution, so a linear scan is fastest.
  struct Location {
    std::uint64_t addr = 0;
    std::uint8_t size = 0;
    std::uint32_t space = sim::kSharedSpace;
    std::uint32_t last_write = sim::kNoStep;
    std::vector<std::uint32_t> reads_since;
  };
  Location& location(const sim::StepAccess& a);
  // Locations in a store buffer (StepAccess::space): one per buffered store, read by the
  // loads it answers and then written once, by its drain, which makes the latest of those
  // loads a reader of the store's location (the thread's earlier ones are ordered before
  // it). Indexed by thread and ordinal instead of scanning `locations_`: under TSO there is
  // one per store of the execution.
  std::uint32_t& buffer_read(const sim::StepAccess& a);
  std::vector<std::vector<std::uint32_t>> buffer_reads_;  // [thread][ordinal] -> step
  std::vector<Location> locations_;
  std::size_t locations_used_ = 0;
  std::vector<std::uint32_t> count_;    // per process: its steps so far
  std::vector<std::uint32_t> last_;     // per process: its latest step
  std::vector<std::uint32_t> earlier_;  // the current step's candidate dependent steps
};

}  // namespace lockstep::model
