// The trace format (docs/traces.md), in one place: its name and version, the members of
// the header and of the events, and the words their string members take. The writer
// (trace/writer.hpp) and the reader (trace/reader.hpp) are the format's only encoder and
// decoder; every other part of lockstep (the simulator, the command line's exporters, the
// viewer, the tests) goes through them and names members and words by these constants,
// never by a literal of its own.
//
// Plain C++: no simulator, no Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace lockstep::trace {

// The header's first two members: {"format":"lockstep-trace","version":1,...}.
inline constexpr std::string_view kFormatName = "lockstep-trace";
inline constexpr int kVersion = 1;

// Thread and CPU numbers index readers' vectors: a larger one is a corrupt file, not a big
// machine (the simulator's limits are far below it).
inline constexpr std::int64_t kMaxIndex = std::int64_t{1} << 16;

// Member names. The header's (docs/traces.md, "Header"), then the events'.
namespace field {
inline constexpr std::string_view format = "format";
inline constexpr std::string_view version = "version";
inline constexpr std::string_view scenario = "scenario";
inline constexpr std::string_view name = "name";  // the header's scenario name; a label's, a thread's name
inline constexpr std::string_view params = "params";
inline constexpr std::string_view strategy = "strategy";
inline constexpr std::string_view seed = "seed";
inline constexpr std::string_view execution = "execution";
inline constexpr std::string_view memory_model = "memory_model";
inline constexpr std::string_view cpus = "cpus";
inline constexpr std::string_view node_of_cpu = "node_of_cpu";
// Native traces' header (docs/traces.md, "Native traces"): where the run happened (absent:
// sim), the clock its timestamps come from, how many events full buffers dropped, and how
// many labels the label table's limit dropped.
inline constexpr std::string_view platform = "platform";
inline constexpr std::string_view clock = "clock";
inline constexpr std::string_view events_per_thread = "events_per_thread";
inline constexpr std::string_view dropped_events = "dropped_events";
inline constexpr std::string_view dropped_labels = "dropped_labels";
inline constexpr std::string_view sample = "sample";  // one in this many lock holds recorded

inline constexpr std::string_view t = "t";    // every event: virtual nanoseconds
inline constexpr std::string_view ev = "ev";  // every event: its kind (EventKind)
inline constexpr std::string_view th = "th";
inline constexpr std::string_view cpu = "cpu";
inline constexpr std::string_view addr = "addr";  // a hex string: "0x1f40"
inline constexpr std::string_view size = "size";
inline constexpr std::string_view stride = "stride";  // label layout
inline constexpr std::string_view first = "first";
inline constexpr std::string_view fields = "fields";
inline constexpr std::string_view off = "off";  // a label field's offset
inline constexpr std::string_view state = "state";
inline constexpr std::string_view op = "op";
inline constexpr std::string_view rmw = "rmw";
inline constexpr std::string_view old = "old";
inline constexpr std::string_view val = "val";
inline constexpr std::string_view ok = "ok";
inline constexpr std::string_view lat = "lat";
inline constexpr std::string_view src = "src";
inline constexpr std::string_view peer = "peer";
inline constexpr std::string_view st = "st";
inline constexpr std::string_view buf = "buf";
inline constexpr std::string_view target = "target";
inline constexpr std::string_view woke = "woke";
inline constexpr std::string_view act = "act";
inline constexpr std::string_view mode = "mode";
inline constexpr std::string_view site = "site";  // a lock event: where the lock was taken ("file:line")
inline constexpr std::string_view what = "what";
inline constexpr std::string_view bucket = "bucket";
inline constexpr std::string_view key = "key";  // hex
inline constexpr std::string_view waiter = "waiter";
inline constexpr std::string_view dropped = "dropped";  // a native trace's thread event: events its full buffer lost
inline constexpr std::string_view property = "property";
inline constexpr std::string_view msg = "msg";
inline constexpr std::string_view steps = "steps";
inline constexpr std::string_view outcome = "outcome";
}  // namespace field

// Event kinds (`ev`). `other`: a kind a later revision of version 1 added; readers skip it.
enum class EventKind : std::uint8_t {
  label,
  step,
  thread,
  cpu,
  state,
  op,
  lock,
  syscall,
  futex,
  violation,
  witness,
  end,
  other
};
std::string_view name_of(EventKind kind);  // "" for other
EventKind event_kind(std::string_view ev);

// `op` of an `op` event.
namespace op {
inline constexpr std::string_view load = "load";
inline constexpr std::string_view store = "store";
inline constexpr std::string_view plain_load = "plain_load";
inline constexpr std::string_view plain_store = "plain_store";
inline constexpr std::string_view rmw = "rmw";
inline constexpr std::string_view fence = "fence";
inline constexpr std::string_view pause = "pause";
inline constexpr std::string_view park = "park";
inline constexpr std::string_view drain = "drain";
inline constexpr std::string_view unpark = "unpark";
}  // namespace op

// `rmw` of an `rmw` operation.
namespace rmw {
inline constexpr std::string_view exchange = "exchange";
inline constexpr std::string_view cas = "cas";
inline constexpr std::string_view fetch_add = "fetch_add";
inline constexpr std::string_view fetch_sub = "fetch_sub";
inline constexpr std::string_view fetch_or = "fetch_or";
inline constexpr std::string_view fetch_and = "fetch_and";
}  // namespace rmw

// The words of the string members that readers interpret. Each parse_* returns nullopt
// for a word the format does not have.
enum class ThreadState : std::uint8_t { running, ready, parked, spinning, finished };
std::string_view name_of(ThreadState state);
std::optional<ThreadState> parse_thread_state(std::string_view word);

enum class LockAct : std::uint8_t { wait, acquire, release };
std::string_view name_of(LockAct act);
std::optional<LockAct> parse_lock_act(std::string_view word);
// `mode` of a lock event.
inline constexpr std::string_view kShared = "shared";
inline constexpr std::string_view kExclusive = "exclusive";

enum class FutexAct : std::uint8_t { enqueue, dequeue };
std::string_view name_of(FutexAct act);
std::optional<FutexAct> parse_futex_act(std::string_view word);

enum class StepAct : std::uint8_t { begin, end };
std::string_view name_of(StepAct act);
std::optional<StepAct> parse_step_act(std::string_view word);

enum class SyscallAct : std::uint8_t { enter, exit };
std::string_view name_of(SyscallAct act);
std::optional<SyscallAct> parse_syscall_act(std::string_view word);

// `platform` of the header: the simulator (also what a header without the member means) or
// real threads on the host (`lockstep native`).
enum class TracePlatform : std::uint8_t { sim, native };
std::string_view name_of(TracePlatform platform);
std::optional<TracePlatform> parse_platform(std::string_view word);

// `clock` of a native trace's header: the time stamp counter, calibrated against
// steady_clock over the run, or steady_clock itself (docs/traces.md, "Native traces").
inline constexpr std::string_view kClockTsc = "tsc";
inline constexpr std::string_view kClockSteady = "steady_clock";

// `st`: a line state, one of these letters.
inline constexpr std::string_view kLineStates = "MOESF";

}  // namespace lockstep::trace
