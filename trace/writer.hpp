// The trace writer: encodes the header and each kind of event as one JSON line
// (docs/traces.md), with the members in the documented order. The simulator's
// TraceRecorder (sim/exec/trace.hpp) writes through it; the tests of the reader use it to
// make traces. Nothing host-dependent is written, so the same calls give the same bytes.
//
// Each event is formatted with a format parsed at compile time straight into the text: a
// timed run writes millions of events, and this is most of what tracing costs. The member
// names in those formats are the ones trace/format.hpp declares (the writer-reader round
// trip of tests/test_trace_format.cpp checks every event kind against them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "trace/format.hpp"

namespace lockstep::trace {

// A JSON string literal for `s`, quotes included (escapes as nlohmann_json's dump does).
std::string quoted(std::string_view s);

// Where a costed access was answered from (a machine model's `src`, `peer`, `st`).
struct AccessSource {
  std::string_view source;  // l1 ... upgrade
  std::int64_t peer = -1;   // the CPU that supplied the line; -1: none (not written)
  char state = 0;           // the line's state after the access (kLineStates); 0: not written
};

class Writer {
 public:
  // `header_fields` are extra JSON members for the header (without braces), from the caller.
  explicit Writer(std::string_view header_fields = {});

  // A label; with `stride` above 0 also `stride` and `first`, and the `fields` when there are
  // any (each with .offset, .bytes and .name).
  template <class Fields>
  void label(std::uint64_t addr, std::uint64_t bytes, std::string_view name, std::uint64_t stride, std::uint64_t first,
             const Fields& fields) {
    label_head(addr, bytes, name, stride, first);
    bool any = false;
    for (const auto& f : fields) {
      label_field(!any, f.offset, f.bytes, f.name);
      any = true;
    }
    label_tail(any);
  }
  void step_begin(std::uint64_t t_ns, std::uint64_t th, std::string_view what);
  void step_end(std::uint64_t t_ns, std::uint64_t th);
  // `dropped` (a native trace's, written when above 0): events this thread's full buffer lost.
  void thread(std::uint64_t t_ns, std::uint64_t th, std::string_view name, std::int64_t cpu, std::uint64_t dropped = 0);
  void cpu(std::uint64_t t_ns, std::int64_t cpu, std::int64_t th);  // th -1: idle
  void state(std::uint64_t t_ns, std::uint64_t th, ThreadState state);
  // A load or store (`op` one of trace::op's accesses); `buffered`: it entered the TSO
  // store buffer (`buf`).
  void access(std::uint64_t t_ns, std::uint64_t th, std::int64_t cpu, std::string_view op, std::uint64_t addr,
              std::uint64_t size, std::uint64_t value, std::uint64_t lat_ns, const AccessSource* source = nullptr,
              bool buffered = false);
  void rmw(std::uint64_t t_ns, std::uint64_t th, std::int64_t cpu, std::string_view rmw, std::uint64_t addr,
           std::uint64_t size, std::uint64_t old_value, std::uint64_t new_value, bool ok, std::uint64_t lat_ns,
           const AccessSource* source = nullptr);
  // An operation with no members but its latency (fence, pause, park).
  void simple(std::uint64_t t_ns, std::uint64_t th, std::int64_t cpu, std::string_view op, std::uint64_t lat_ns);
  void unpark(std::uint64_t t_ns, std::uint64_t th, std::int64_t cpu, std::uint64_t target, bool woke);
  // `site`: where the lock was taken ("core/futex/futex_table_impl.hpp:100"); empty: none.
  void lock(std::uint64_t t_ns, std::uint64_t th, std::uint64_t addr, LockAct act, bool shared,
            std::string_view site = {});
  void syscall(std::uint64_t t_ns, std::uint64_t th, SyscallAct act);
  void futex(std::uint64_t t_ns, std::uint64_t th, FutexAct act, std::uint64_t bucket, std::uint64_t key,
             std::uint64_t waiter);
  void violation(std::uint64_t t_ns, std::int64_t th, std::string_view property,
                 std::string_view message);  // th -1: none
  void witness(std::uint64_t t_ns, std::string_view property, std::string_view message);
  void end(std::uint64_t t_ns, std::uint64_t steps, std::string_view outcome);

  // Hands the text on in chunks instead of keeping it (a timed run of millions of steps
  // writes gigabytes); text() then holds only what has not been handed on yet.
  using Sink = std::function<void(std::string_view)>;
  void set_sink(Sink sink) { sink_ = std::move(sink); }
  void flush();

  const std::string& text() const { return text_; }
  // True while text() still holds the whole trace (nothing handed on yet).
  bool whole_text_kept() const { return !flushed_; }
  std::uint64_t events() const { return events_; }

 private:
  static constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
  void label_head(std::uint64_t addr, std::uint64_t bytes, std::string_view name, std::uint64_t stride,
                  std::uint64_t first);
  void label_field(bool first_field, std::uint64_t offset, std::uint64_t bytes, std::string_view name);
  void label_tail(bool had_fields);
  void close_op(const AccessSource* source, bool buffered);
  void appended() {
    ++events_;
    if (sink_ && text_.size() >= kChunkBytes) flush();
  }
  Sink sink_;
  bool flushed_ = false;
  std::string text_;
  std::uint64_t events_ = 0;
};

}  // namespace lockstep::trace
