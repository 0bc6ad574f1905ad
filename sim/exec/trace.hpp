// The trace of one execution, as JSON lines (docs/traces.md). The first line is a header
// naming the format and version; each following line is one event with its virtual time.
// Nothing host-dependent (host time, host addresses) is written, so the same scenario,
// seed and build give the same bytes, and `trace_sha256` identifies a run.
//
// The format itself (its version, members and encoding) is the trace library's
// (trace/format.hpp, trace/writer.hpp): the recorder turns the simulator's notions
// (threads, operation kinds, notes) into the writer's calls.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/platform.hpp"
#include "sim/exec/cost_model.hpp"
#include "sim/scheduler.hpp"
#include "trace/writer.hpp"

namespace lockstep::sim {

enum class ThreadRunState : std::uint8_t { running, ready, parked, spinning, finished };
const char* name_of(ThreadRunState state);

class TraceRecorder {
 public:
  // `header_fields` are extra JSON members for the header (without braces), from the caller.
  explicit TraceRecorder(std::string_view header_fields = {});

  // A label (P::label); a layout adds `stride`, `first` and `fields` (docs/traces.md, "Names").
  void label(std::uint64_t addr, std::uint64_t bytes, std::string_view name, const LabelLayout& layout = {});
  void thread(std::uint64_t t_ns, ThreadId id, std::string_view name, CpuId cpu);
  void cpu(std::uint64_t t_ns, CpuId cpu, ThreadId running);  // kNoThread: idle
  void state(std::uint64_t t_ns, ThreadId id, ThreadRunState state);
  // `detail`: where a costed access was answered from (a machine model's `src` and `peer`);
  // `buffered`: a store that entered the TSO store buffer (`buf`).
  void access(std::uint64_t t_ns, ThreadId id, CpuId cpu, OpKind kind, std::uint64_t addr, unsigned size,
              std::uint64_t value, std::uint64_t latency_ns, const AccessDetail* detail = nullptr,
              bool buffered = false);
  void rmw(std::uint64_t t_ns, ThreadId id, CpuId cpu, RmwOp op, std::uint64_t addr, unsigned size,
           std::uint64_t old_value, std::uint64_t new_value, bool success, std::uint64_t latency_ns,
           const AccessDetail* detail = nullptr);
  void simple(std::uint64_t t_ns, ThreadId id, CpuId cpu, OpKind kind, std::uint64_t latency_ns);
  void unpark(std::uint64_t t_ns, ThreadId id, CpuId cpu, ThreadId target, bool was_parked);
  // A lock's note (P::note_lock): thread `id` waits for, holds or let go of the lock at `addr`.
  void lock(std::uint64_t t_ns, ThreadId id, std::uint64_t addr, LockNote act, bool shared,
            const std::source_location& site);
  // A futex bucket queue's note (P::note_futex_queue): thread `id` put `waiter` on bucket
  // `bucket`'s queue, or took it off, for the futex word at `key`.
  // A thread enters (`enter` true) or leaves a system call (P::charge of syscall_entry/exit).
  void syscall(std::uint64_t t_ns, ThreadId id, bool enter);
  void futex_queue(std::uint64_t t_ns, ThreadId id, FutexQueueNote act, std::uint32_t bucket, std::uint64_t key,
                   ThreadId waiter);
  // A protocol step's note (P::note_step): thread `id` begins the step `what`, or ends its
  // innermost one.
  void step(std::uint64_t t_ns, ThreadId id, StepNote act, std::string_view what);
  void violation(std::uint64_t t_ns, ThreadId id, std::string_view property, std::string_view message);
  // The final state satisfies the `exists` condition `property` (found outside any thread).
  void witness(std::uint64_t t_ns, std::string_view property, std::string_view message);
  void end(std::uint64_t t_ns, std::uint64_t steps, std::string_view outcome);

  // Hands the text on in chunks instead of keeping it (a timed run of millions of steps
  // writes gigabytes); text() then holds only what has not been handed on yet.
  using Sink = trace::Writer::Sink;
  void set_sink(Sink sink) { writer_.set_sink(std::move(sink)); }
  void flush() { writer_.flush(); }

  const std::string& text() const { return writer_.text(); }
  // True while text() still holds the whole trace (nothing handed on yet).
  bool whole_text_kept() const { return writer_.whole_text_kept(); }
  std::uint64_t events() const { return writer_.events(); }

 private:
  trace::Writer writer_;
};

}  // namespace lockstep::sim
