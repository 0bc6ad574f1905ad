// The scheduler oracle (docs/architecture.md, "The scheduler oracle").
//
// The simulator never decides an interleaving by itself: at every scheduling point it asks
// the oracle which candidate goes next. Every strategy (timed, random, replay, and the
// model checker's dfs, bounded and pct) is an oracle; the recorded answers are the schedule.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/platform.hpp"

namespace lockstep::sim {

using ThreadId = std::uint32_t;
inline constexpr ThreadId kNoThread = ~ThreadId{0};

enum class OpKind : std::uint8_t {
  load,
  store,
  rmw,
  fence,
  pause,  // cpu_relax()
  park,
  unpark,
  plain_load,   // P::Shared
  plain_store,  // P::Shared
  start,        // a thread's first step
  drain,        // a buffered store reaching memory (x86-TSO)
};
const char* name_of(OpKind kind);
// Loads, stores and read-modify-writes: the operations a cost model charges by address.
constexpr bool is_memory_access(OpKind kind) {
  return kind == OpKind::load || kind == OpKind::store || kind == OpKind::rmw || kind == OpKind::plain_load ||
         kind == OpKind::plain_store;
}

// The next visible operation of a thread: what DPOR needs to know which choices commute.
// Sixteen bytes, so that it is passed in two registers: every simulated operation hands
// one to the scheduler, and a copy through memory right after writing it field by field
// stalled on store forwarding (3% of sim-speed's host time).
struct PendingOp {
  OpKind kind = OpKind::start;
  std::uint8_t size = 0;
  std::memory_order order : 8 = std::memory_order_seq_cst;
  ThreadId target = kNoThread;  // unpark's target
  std::uint64_t addr = 0;       // simulated address, 0 when none
};
static_assert(sizeof(PendingOp) == 16);

// One thing the oracle may choose: `step` runs a thread's pending operation; `drain` moves
// the oldest store in a thread's store buffer to memory (x86-TSO, explore mode).
struct Choice {
  enum class Kind : std::uint8_t { step, drain };
  Kind kind = Kind::step;
  ThreadId thread = kNoThread;
  friend bool operator==(const Choice&, const Choice&) = default;
};

struct Candidate {
  Choice choice;
  CpuId cpu = 0;
  std::uint64_t ready_ns = 0;  // when the candidate can act (timed mode)
  PendingOp op;
  // A drain whose thread waits for it: its pending operation needs its store buffer empty
  // (or a free entry), so this drain is how that thread goes on (bounded search: no
  // preemption).
  bool owner_waits = false;
};

// A location one step touched, for the model checker's dependence relation: two steps of
// different processes are dependent when they touch overlapping bytes of the same space and
// one writes.
struct StepAccess {
  std::uint64_t addr = 0;
  std::uint8_t size = 0;
  bool write = false;
  // kSharedSpace: simulated memory. Otherwise buffer_space(t): the stores in thread t's
  // store buffer (x86-TSO), `addr` being a store's ordinal among t's buffered stores. A load
  // that store-to-load forwarding answers reads its source store there, and that store's
  // drain writes it. Accesses in a buffer's space depend on nothing: the load reads the same
  // store before the drain and after it. They name the load for its drain, which makes it a
  // reader of the store's location from then on (docs/model-checking.md, "Dependence under
  // x86-TSO").
  std::uint32_t space = 0;
};
inline constexpr std::uint32_t kSharedSpace = 0;
inline std::uint32_t buffer_space(std::uint32_t thread) { return thread + 1; }

// Park and unpark read and write a thread's wake-up permit; giving each permit an address of
// its own (above any simulated memory) lets the dependence relation treat them as accesses.
inline constexpr std::uint64_t kPermitAddressBase = 0xffff'ff00'0000'0000ULL;
inline std::uint64_t permit_address(ThreadId id) { return kPermitAddressBase + id; }

inline constexpr std::uint32_t kNoStep = ~std::uint32_t{0};

// One step of an execution as an exploring oracle sees it: who acted, what it touched, and
// the steps that made it possible (the unpark that woke the thread, the write that ended its
// spin-wait, or for a drain the step that buffered the store; and under x86-TSO the drain
// that emptied the thread's store buffer for a locked operation, or made room in a full
// one for a store): causality that no access shows.
struct StepRecord {
  Choice choice;
  std::uint32_t first_access = 0;  // into EventLog::accesses
  std::uint32_t access_count = 0;
  std::uint32_t enabled_by = kNoStep;
  std::uint32_t enabled_by_drain = kNoStep;
};

// Every step of the current execution, in order; filled only for oracles that ask for it.
struct EventLog {
  std::vector<StepRecord> steps;
  std::vector<StepAccess> accesses;
  void clear() {
    steps.clear();
    accesses.clear();
  }
  std::span<const StepAccess> accesses_of(const StepRecord& s) const {
    return {accesses.data() + s.first_access, s.access_count};
  }
};

// How the engine offers candidates. Timed: the thread with the earliest clock goes next,
// ties ordered by keys from the oracle's tie_seed(); exploring oracles see every enabled thread,
// whatever its CPU, because any preemption is possible on a real machine.
enum class EngineMode : std::uint8_t { timed, explore };

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual EngineMode mode() const = 0;
  // A new execution starts; `index` counts executions from 0.
  virtual void begin_execution(std::uint64_t index) = 0;
  // Returns an index into `candidates` (never empty; at least two entries unless the oracle
  // observes every step). Candidates are ordered by thread id, then drains by thread id, so
  // an answer is stable across runs. An exploring oracle may return kAbandon to end the
  // execution early (a model checker that knows the rest is redundant).
  virtual std::size_t pick(std::span<const Candidate> candidates) = 0;
  static constexpr std::size_t kAbandon = ~std::size_t{0};
  // An oracle that returns a log here is asked at every step, even when only one candidate
  // exists, and the engine records each step's accesses into the log (explore mode only).
  // Single-candidate answers are not part of the schedule, so replay needs none of this.
  virtual EventLog* event_log() { return nullptr; }
  // Timed mode: the execution's seed for the keys that order threads ready at the same
  // instant (lower goes first). A thread's k-th key is a hash of this seed, the thread and k
  // (Rng::key), so ties are broken in O(log n) without gathering them, and a key does not
  // depend on the order in which the engine queued the threads: a thread that runs ahead
  // without being queued (docs/architecture.md, "Running ahead") leaves every later key as it
  // was. Exploring oracles never see timed ties.
  virtual std::uint64_t tie_seed() { return 0; }
  // Short strategy name for results and schedule files.
  virtual std::string name() const = 0;
  // Exploring: when a simulated thread reports a violation, stop only that thread and run
  // the others on to their ends, instead of ending the execution there. The result still
  // reports the first violation, with the schedule and step count it had then; the rest of
  // the execution is seen only through the event log. A reducing search needs it: the
  // races of the steps that would have followed decide which other executions it tries,
  // and an execution cut short hides them (difftest seed 52: dfs missed an outcome that
  // needed a step after another thread's failed assert).
  virtual bool continue_after_violation() const { return false; }
};

// The answers of one execution, in order: only decisions with more than one candidate.
using Schedule = std::vector<Choice>;

}  // namespace lockstep::sim
