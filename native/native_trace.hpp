// What a native run's notes record while its trace is wanted (`lockstep native --trace`;
// docs/traces.md, "Native traces"): NativePlatform's note_lock, note_futex_queue, note_step
// and label, Parker's park and unpark, and the runner's thread starts and ends, each an event
// with a time stamp in a buffer of the thread that made it.
//
// Untraced runs pay one relaxed load and a predicted branch per note: every note tests
// trace_mask(), which is 0 unless a TraceSession is alive. Traced, a note is an out-of-line
// call that reads the clock and stores 32 bytes into its thread's buffer. The buffers are
// allocated and touched before the threads are released, each by its own thread (so on its
// NUMA node), and never grow: a full buffer records nothing more for its thread and counts
// what it dropped. After the run the driver merges the buffers by time and writes the trace
// (driver/native_trace.hpp); this layer knows nothing of the trace format.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/platform.hpp"
#include "profile/lock_profile.hpp"

namespace lockstep::native {

// What is recorded: bits of one mask that every note reads with one relaxed load.
enum TraceMaskBits : std::uint8_t {
  kTraceEvents = 1,   // locks, futex queues, park and unpark, thread starts and ends, labels
  kTraceSteps = 2,    // also each thread's outermost protocol steps (an operation: futex_wait)
  kProfileLocks = 4,  // lock profiling (profile/lock_profile.hpp): each thread's locks into its recorder
};

namespace detail {
inline std::atomic<std::uint8_t> trace_mask{0};
}  // namespace detail

inline std::uint8_t trace_mask() { return detail::trace_mask.load(std::memory_order_relaxed); }

enum class TraceEventKind : std::uint8_t { lock, futex_queue, step, park, unpark, state };
enum class NativeThreadState : std::uint8_t { running, parked, finished };

// One recorded event. 32 bytes, so a cache line holds two and a buffer's size is plain.
struct TraceEvent {
  std::uint64_t ticks = 0;  // TraceClock::ticks() when it happened
  std::uint64_t a = 0;      // lock: its address; futex_queue: the key; step: `what`'s characters; unpark: target thread
  std::uint64_t b = 0;      // futex_queue: the waiter's node; step: `what`'s length; lock: its site's file (a literal)
  std::uint32_t c =
      0;  // futex_queue: the bucket; park, unpark: the CPU it ran on (sched_getcpu); lock: its site's line
  TraceEventKind kind = TraceEventKind::lock;
  std::uint8_t act = 0;  // LockNote, FutexQueueNote, StepNote or NativeThreadState
  bool flag = false;     // lock: a shared hold; unpark: the target was parked (woke)
};
static_assert(sizeof(TraceEvent) == 32);

// The clock of the time stamps: the time stamp counter where the CPU says it is invariant
// (x86-64, CPUID 0x80000007 EDX bit 8: constant rate, runs in every C-state, so one count
// serves every core), else steady_clock's nanoseconds. On this project's VM rdtsc costs 11-12
// ns and steady_clock 26-31 ns (bench/README.md, "Native traces"), and a traced futex call
// reads the clock two to four times.
struct TraceClock {
  static bool uses_tsc();
  static std::uint64_t ticks();
  static std::uint64_t steady_ns();
};

// A buffer of one thread's events.
struct ThreadTrace {
  std::size_t index = 0;  // the runner's thread number
  std::string name;
  CpuId cpu = -1;                             // the one CPU its affinity mask allows; -1 when pinning failed
  std::uintptr_t stack_lo = 0, stack_hi = 0;  // its stack, to name a futex waiter by its node
  std::unique_ptr<TraceEvent[]> events;
  std::size_t capacity = 0;  // events of the notes; the start and the end have two slots more
  std::size_t used = 0;      // events[0, used) are recorded
  std::size_t notes = 0;     // of which the notes'
  std::uint64_t dropped = 0;
  int step_depth = 0;  // protocol steps open (only the outermost are recorded)
  // Sampling (TraceOptions::sample): a unit is an outermost lock hold (its wait, acquire and
  // release, and any lock taken inside it) or an outermost protocol step with the holds inside
  // it. Whether the open unit is recorded is drawn when it opens.
  std::uint32_t sample = 1;
  std::uint32_t open_units = 0;  // lock holds, a pending wait and outermost steps now open
  bool waiting = false;          // a lock wait noted, its acquire not yet
  bool recording = true;
  std::uint64_t rng = 0;  // xorshift64 state, seeded per thread
  // Lock profiling: this thread's ownership records and table (it runs pinned to one CPU, so
  // a per-thread table is the seed's per-CPU one), in ticks of TraceClock.
  std::unique_ptr<profile::LockProfiler> locks;

  void push(const TraceEvent& e) {
    if (notes < capacity) {
      ++notes;
      events[used++] = e;
    } else {
      ++dropped;
    }
  }
  // The start and the end are always kept: a reader needs them to draw the thread at all.
  void push_bookend(const TraceEvent& e) { events[used++] = e; }
};

// A label (P::label), copied: its name may be a temporary.
struct TraceLabel {
  struct Field {
    std::uint32_t offset = 0, bytes = 0;
    std::string name;
  };
  std::uint64_t addr = 0, bytes = 0;
  std::string name;
  std::uint64_t stride = 0, first = 0;
  std::vector<Field> fields;
};

struct TraceOptions {
  std::size_t events_per_thread = 0;  // 0: kDefaultEventsPerThread, less when threads are many
  bool steps = false;                 // record the outermost protocol steps too (kTraceSteps)
  // Record each unit (ThreadTrace: an outermost lock hold or protocol step) with probability
  // 1/sample; futex queue, park, unpark and thread events are always recorded. 1: every unit.
  std::uint32_t sample = 1;
  bool events = true;          // record events at all (off: a lock profile alone)
  bool profile_locks = false;  // lock profiling (kProfileLocks)
};

// 32 MiB a thread [guess: a futex-hash thread's first few hundred thousand calls, enough to see
// a run's shape in the viewer], and 1 GiB over all threads, so a machine of hundreds of CPUs
// does not allocate hundreds of GiB [guess].
inline constexpr std::size_t kDefaultEventsPerThread = std::size_t{1} << 20;
inline constexpr std::size_t kMaxEventsAllThreads = std::size_t{1} << 25;
// Labels are few (a table's arrays, a workload's words); futex_q nodes are labeled on every
// sleeping wait, but at the same stack addresses, and a label seen before is not kept again.
inline constexpr std::size_t kMaxLabels = std::size_t{1} << 16;

// One native run's recording. While one is alive the notes record (at most one at a time:
// the mask is global); the native runner finds it with active() and gives each thread its
// buffer. Read it after the runner returned.
class TraceSession {
 public:
  explicit TraceSession(TraceOptions options);
  ~TraceSession();
  TraceSession(const TraceSession&) = delete;
  TraceSession& operator=(const TraceSession&) = delete;
  static TraceSession* active();

  // The runner's calls: prepare before it spawns; attach on each thread before the release
  // (allocates and touches its buffer); started just before the release (time 0); running
  // on each thread as it starts; detach on each thread as it ends; ended after the join.
  void prepare(std::size_t threads);
  void attach(std::size_t index, std::string name, CpuId pinned_cpu);
  void started();
  void running();
  void detach();
  void ended();

  void label(const void* at, std::size_t bytes, std::string_view name, const LabelLayout* layout);

  // Reading, after the run.
  const std::vector<std::unique_ptr<ThreadTrace>>& threads() const { return threads_; }
  const std::vector<TraceLabel>& labels() const { return labels_; }
  std::uint64_t labels_dropped() const { return labels_dropped_; }
  std::size_t events_per_thread() const { return capacity_; }
  std::uint32_t sample() const { return options_.sample; }
  bool uses_tsc() const { return tsc_; }
  // Nanoseconds from the release of the threads to `ticks` (0 for earlier ones).
  std::uint64_t ns_since_start(std::uint64_t ticks) const;
  std::uint64_t duration_ns() const { return ns_since_start(end_ticks_); }
  // Lock profiling: every thread's table merged, times in nanoseconds; notes no record explained.
  profile::LockProfile lock_profile(const profile::LockProfiler::Namer& name_of) const;
  std::uint64_t lock_profile_unmatched() const;
  // The thread on whose stack `addr` lies (a futex waiter's node), or -1.
  int thread_of_stack_address(std::uint64_t addr) const;

 private:
  TraceOptions options_;
  bool tsc_;
  std::size_t capacity_ = 0;
  std::vector<std::unique_ptr<ThreadTrace>> threads_;
  // The clock's calibration: ticks and steady_clock read together at the session's start
  // and at the run's end; the ratio converts ticks to ns.
  std::uint64_t calib_ticks_ = 0, calib_ns_ = 0;
  double ns_per_tick_ = 1;
  std::uint64_t start_ticks_ = 0, end_ticks_ = 0;
  std::mutex labels_mutex_;
  std::vector<TraceLabel> labels_;
  std::set<std::tuple<std::uint64_t, std::uint64_t, std::string>> labels_seen_;
  std::uint64_t labels_dropped_ = 0;
};

// The notes' recorders (NativePlatform calls them when trace_mask() says so). A thread the
// runner did not start (the main thread, setting a workload up) records no events; labels
// are recorded from any thread.
void trace_lock(const void* lock, LockNote act, bool shared, const std::source_location& site);
void trace_futex_queue(FutexQueueNote act, std::uint32_t bucket, std::uint64_t key, const void* waiter_node);
void trace_step(StepNote act, std::string_view what);
void trace_label(const void* at, std::size_t bytes, std::string_view name, const LabelLayout* layout);
void trace_park(bool sleeps);  // a park; `sleeps`: no permit was pending, the thread blocks
void trace_woken();            // a park that slept returns
void trace_unpark(int target, bool woke);

}  // namespace lockstep::native
