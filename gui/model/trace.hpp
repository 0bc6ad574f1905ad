// The viewer's trace model: a lockstep trace (docs/traces.md, version 1) parsed into
// threads, CPUs, state intervals, operations, wake edges and the violation. No Qt and
// no simulator: the model reads the file through the trace library's reader
// (trace/reader.hpp), so it can be tested on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "gui/model/compact.hpp"
#include "trace/address_names.hpp"
#include "trace/error.hpp"

namespace lockstep::view {

// A file the viewer cannot read (trace/error.hpp): the file, the 1-based line at fault (0:
// the file itself) and what is wrong.
using TraceError = trace::FormatError;

enum class ThreadState { ready, running, parked, spinning, finished, unknown };
std::string_view to_string(ThreadState s);

struct StateInterval {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  ThreadState state = ThreadState::ready;
};

struct Thread {
  int id = 0;
  std::string name;
  int cpu = -1;                              // the CPU it is pinned to, -1 when the trace does not say
  std::vector<StateInterval> intervals;      // sorted by begin, not overlapping
  std::optional<std::uint64_t> finished_at;  // when its body returned, if it did
  // Its outermost protocol steps begun, by name: the design's operations (futex_wait, ...).
  std::map<std::string, std::uint64_t> operations;
  std::uint64_t dropped = 0;  // a native trace's: events its full buffer did not keep
};

struct CpuInterval {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  int thread = -1;
};

struct Cpu {
  int id = 0;
  int node = -1;
  std::vector<CpuInterval> intervals;  // timed runs only
};

// One memory operation. Compact (80 bytes): a big trace holds millions, and the viewer keeps
// them all (docs/traces.md, "How large a trace the viewer opens").
struct Operation {
  std::uint64_t t = 0;
  std::uint64_t lat = 0;
  Maybe<std::uint64_t> addr, val, old;
  Maybe<std::uint32_t> size;
  std::uint32_t line = 0;  // line in the file (the viewer reads at most 2^32 - 1 lines)
  std::int32_t thread = -1;
  std::int32_t cpu = -1;
  // Names are interned (Name): a million operations share a handful of strings.
  Name op;   // load, store, plain_load, plain_store, rmw, fence, pause, park, drain, unpark, or newer
  Name rmw;  // for rmw: exchange, cas, fetch_add, ...
  // Machine-model runs: which level answered the access (l1, l2, l3, same_package_core,
  // remote_cache, dram_local, dram_remote, upgrade), and for a line taken from another
  // core's cache, the CPU that held it. Empty / none on the flat machine.
  Name src;
  // The protocol step its thread was in (`step` events, P::note_step), outermost first:
  // "futex_wait > lock the bucket"; interned; empty outside any step and for drains.
  Name step;
  Maybe<std::int32_t> target;  // unpark
  Maybe<std::int32_t> peer;
  Maybe<bool> ok;
  Maybe<bool> woke;       // unpark
  char state = 0;         // the line's state in this core's caches after the access (M, O, E, S, F), if traced
  bool buffered = false;  // TSO: the store entered the store buffer (a `drain` lands it later)
};

// A lock's life as instrumented locks report it (`ev` "lock"): a thread starts waiting,
// acquires, releases.
struct LockEvent {
  enum class Act { wait, acquire, release };
  std::size_t line = 0;
  std::uint64_t t = 0;
  int thread = -1;
  std::uint64_t addr = 0;
  Act act = Act::acquire;
  bool shared = false;    // a reader's hold of a reader-writer or range lock
  std::string_view site;  // where it was taken ("core/futex/futex_table_impl.hpp:100"), interned; empty: none
};
std::string_view to_string(LockEvent::Act a);

// A thread enters or leaves a system call (`ev` "syscall"; the futex calls).
struct SyscallEvent {
  std::size_t line = 0;
  std::uint64_t t = 0;
  int thread = -1;
  bool enter = true;
};

// A futex hash bucket's wait queue (`ev` "futex"): `waiter` was queued on or taken off
// bucket `bucket` for the futex at `key`, by thread `thread` (the waiter itself, or a waker).
struct FutexEvent {
  enum class Act { enqueue, dequeue };
  std::size_t line = 0;
  std::uint64_t t = 0;
  int thread = -1;
  Act act = Act::enqueue;
  std::uint64_t bucket = 0;
  std::uint64_t key = 0;
  int waiter = -1;
};
std::string_view to_string(FutexEvent::Act a);

struct WakeEdge {
  std::size_t op = 0;  // index into Trace::ops of the unpark
  int from = -1;
  int to = -1;
  std::uint64_t t_unpark = 0;
  std::uint64_t t_running = 0;  // start of the target's next running interval
};

struct Finding {  // a violation or a witness
  std::size_t line = 0;
  std::uint64_t t = 0;
  int thread = -1;
  std::string property;
  std::string msg;
};

// One entry of the stepping list: an operation, or the violation/witness at its place in time.
struct Step {
  enum class Kind { op, violation, witness } kind = Kind::op;
  std::size_t op = 0;  // index into Trace::ops when kind == op
  std::uint64_t t = 0;
};

struct Trace {
  // Where it ran (the header's `platform`): the simulator's virtual time, or a native run's
  // real time on the host's CPUs (docs/traces.md, "Native traces").
  bool native = false;
  std::string clock;                 // native: tsc or steady_clock
  std::uint64_t dropped_events = 0;  // native: events full buffers did not keep
  std::uint64_t sample = 1;          // native: one in this many lock holds (and steps) recorded
  std::uint64_t events = 0;          // events other than labels, thread declarations and `end`
  std::string scenario, name, strategy, memory_model;
  std::optional<std::uint64_t> seed, execution;
  trace::AddressNames names;    // the labels (docs/traces.md, "Names"): bucket[14].waiters
  std::vector<Thread> threads;  // indexed by thread number
  std::vector<Cpu> cpus;        // indexed by CPU number
  std::vector<Operation> ops;   // sorted by t, stably (file order among equal times)
  // Per thread, the indices into ops of its operations (in time order), and the longest
  // latency of them: what the timeline needs to find a window's operations by binary search.
  std::vector<std::vector<std::uint32_t>> ops_by_thread;
  std::vector<std::vector<std::uint64_t>> op_times_by_thread;  // their start times, contiguous for searching
  std::vector<std::vector<std::uint64_t>> op_ends_by_thread;   // and t + lat: painting touches no Operation
  std::vector<std::uint64_t> longest_op_by_thread;
  std::vector<WakeEdge> wakes;
  std::vector<LockEvent> locks;        // sorted by t, stably
  std::vector<FutexEvent> futexes;     // sorted by t, stably
  std::vector<SyscallEvent> syscalls;  // sorted by t, stably
  std::optional<Finding> violation, witness;
  std::vector<Step> steps;  // ops, the violation and the witness, in time order
  std::uint64_t end_time = 0;
  std::uint64_t end_steps = 0;
  std::string outcome;

  const Thread* thread(int id) const;
  // The address as the trace names it (trace/address_names.hpp, the rule the command line
  // uses too): innermost label, its element and field (+offset), else hex.
  std::string address_name(std::uint64_t addr) const;
  std::string thread_name(int id) const;
  // One line saying what an operation did, e.g. "waker: store f = 1 (lat 4 ns)".
  std::string describe(const Operation& op) const;
  std::string describe(const Step& step) const;
};

// A name that lives as long as the process (a set of the distinct names seen, which in a
// trace are a few dozen), so operations hold 16-byte views instead of strings.
std::string_view intern_name(std::string_view name);

// Parses a whole trace. Throws TraceError naming the line (and `name`, the file, when given)
// for a file that is not a lockstep trace, has another version, is not JSON lines, lacks or
// mistypes a member, has a line over the reader's limit, or is truncated (no `end` event).
Trace parse_trace(std::string_view text, const std::string& name = {});
// A whole file's bytes, read with one read of its size into the padded buffer simdjson
// parses in place (a stream buffer would copy a 130 MB trace several times while
// growing); an unreadable file is a TraceError, line 0.
simdjson::padded_string read_file(const std::filesystem::path& path);
// Parses text already in such a buffer.
Trace parse_padded_trace(const simdjson::padded_string& text, const std::string& name = {});
// Reads and parses a file; an unreadable file is a TraceError with line 0.
Trace load_trace(const std::filesystem::path& path);

}  // namespace lockstep::view
