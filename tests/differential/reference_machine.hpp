// The reference for the model checker's verdicts: an explicit-state enumerator of thread
// programs under sequential consistency and x86-TSO that shares no code with the engine or
// the strategies (no fibers, no event log, no dependence relation).
//
// It interprets the parsed program (core/workloads/program.hpp) on an abstract machine of
// its own: under TSO each thread has an unbounded FIFO store buffer, a load reads the newest
// buffered store to its location or else memory, a drain (any thread's oldest buffered
// store reaching memory) is a transition of its own, and mfence, locked read-modify-writes
// and seq_cst stores (xchg) are enabled only when their thread's buffer is empty (Owens,
// Sarkar and Sewell, "A better x86 memory model: x86-TSO", TPHOLs 2009, the abstract
// machine of section 3). Every reachable state is visited once (a breadth-first search
// with a visited set), so the set of final states is exact, and the number of
// interleavings (paths from the initial state to a final one) is counted on the way.
//
// Granularity matches the engine's scheduling points: a thread's step performs one visible
// operation (load, store, fence, read-modify-write) and then runs the thread-local ops after
// it (set, if, assert) up to its next visible operation; its first step also runs those
// before its first. A failed assert stops its thread there; the others go on.
//
// Only what the random program generator emits is supported: load, store, fence, the
// read-modify-writes, set, if and assert over atomic and plain variables, and `loop`
// (unrolled). Anything else (locks, futexes, while, pause) throws std::invalid_argument.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/workloads/program.hpp"

namespace lockstep::difftest {

enum class Model : std::uint8_t { sc, tso };

struct ReferenceResult {
  // Every reachable outcome: "x=1 y=0 t0.r0=1 ..." (variables in order, then each thread's
  // registers) for an execution in which no assert failed, or the asserts that failed
  // ("assertion at line 7:9 & ...") for one in which some did. A thread stops at its failed
  // assert and the others run on, as the engine does for dfs and naive
  // (Scheduler::continue_after_violation), so which asserts fail is a property of the
  // execution's reads, not of the order of independent steps.
  std::set<std::string> outcomes;
  std::uint64_t states = 0;  // distinct states visited
  double interleavings = 0;  // paths to an outcome (as a double: it can be huge)
  // Executions counted up to reads-from and coherence order (what GenMC counts; a load
  // answered from its own thread's buffer reads from that store): computed when asked for
  // and the program has no failing assert; nullopt when not computed or past the cap.
  std::optional<std::uint64_t> rf_co_classes;
  // The same classes as dfs's dependence relation draws them: a read-modify-write that
  // leaves the value as it was is a read (it commutes with other reads); otherwise the
  // reads-from and coherence classes. dfs (source sets with sleep sets) must run exactly this
  // many complete executions; docs/model-checking.md, "Counts".
  std::optional<std::uint64_t> dependence_classes;
};

struct ReferenceLimits {
  std::uint64_t max_states = 2'000'000;        // throws std::length_error past it
  std::uint64_t max_class_states = 2'000'000;  // gives up counting classes past it
  bool count_classes = false;
};

ReferenceResult enumerate(const program::Program& program, Model model, const ReferenceLimits& limits = {});

// The outcome string for a finished execution, from the values the engine or the reference
// found (shared so both sides print the same text; no semantics in it).
std::string final_state_text(const program::Program& program, const std::vector<std::uint64_t>& values,
                             const std::vector<std::vector<std::int64_t>>& registers);
// "assertion at line 7:9 & assertion at line 12:9": the asserts that failed, by their places
// ("FILE:LINE:COL"), sorted and without repeats.
std::string assertions_text(std::vector<std::string> where);

}  // namespace lockstep::difftest
