#include "sim/exec/trace.hpp"

#include "profile/lock_profile.hpp"
#include "trace/format.hpp"

namespace lockstep::sim {

namespace {

std::int64_t thread_field(ThreadId id) { return id == kNoThread ? -1 : static_cast<std::int64_t>(id); }

// The simulator's notions in the trace's words (trace/format.hpp).
trace::ThreadState trace_state(ThreadRunState state) {
  switch (state) {
    case ThreadRunState::running:
      return trace::ThreadState::running;
    case ThreadRunState::ready:
      return trace::ThreadState::ready;
    case ThreadRunState::parked:
      return trace::ThreadState::parked;
    case ThreadRunState::spinning:
      return trace::ThreadState::spinning;
    case ThreadRunState::finished:
      break;
  }
  return trace::ThreadState::finished;
}

std::string_view trace_op(OpKind kind) {
  switch (kind) {
    case OpKind::load:
      return trace::op::load;
    case OpKind::store:
      return trace::op::store;
    case OpKind::rmw:
      return trace::op::rmw;
    case OpKind::fence:
      return trace::op::fence;
    case OpKind::pause:
      return trace::op::pause;
    case OpKind::park:
      return trace::op::park;
    case OpKind::unpark:
      return trace::op::unpark;
    case OpKind::plain_load:
      return trace::op::plain_load;
    case OpKind::plain_store:
      return trace::op::plain_store;
    case OpKind::drain:
      return trace::op::drain;
    case OpKind::start:
      break;  // a thread's first step: no operation of the trace
  }
  return name_of(kind);
}

std::string_view trace_rmw(RmwOp op) {
  switch (op) {
    case RmwOp::exchange:
      return trace::rmw::exchange;
    case RmwOp::compare_exchange:
      return trace::rmw::cas;
    case RmwOp::fetch_add:
      return trace::rmw::fetch_add;
    case RmwOp::fetch_sub:
      return trace::rmw::fetch_sub;
    case RmwOp::fetch_or:
      return trace::rmw::fetch_or;
    case RmwOp::fetch_and:
      return trace::rmw::fetch_and;
  }
  return "?";
}

trace::LockAct trace_lock_act(LockNote note) {
  switch (note) {
    case LockNote::wait:
      return trace::LockAct::wait;
    case LockNote::acquire:
      return trace::LockAct::acquire;
    case LockNote::release:
      break;
  }
  return trace::LockAct::release;
}

trace::FutexAct trace_futex_act(FutexQueueNote note) {
  return note == FutexQueueNote::enqueue ? trace::FutexAct::enqueue : trace::FutexAct::dequeue;
}

// The answer's `src`, `peer` and `st`, when the cost model gave one.
struct Source {
  explicit Source(const AccessDetail* detail) {
    if (detail != nullptr) {
      value = trace::AccessSource{detail->source, detail->peer, detail->state};
      given = &value;
    }
  }
  trace::AccessSource value;
  const trace::AccessSource* given = nullptr;
};

}  // namespace

const char* name_of(ThreadRunState state) { return trace::name_of(trace_state(state)).data(); }

TraceRecorder::TraceRecorder(std::string_view header_fields) : writer_(header_fields) {}

void TraceRecorder::label(std::uint64_t addr, std::uint64_t bytes, std::string_view name, const LabelLayout& layout) {
  writer_.label(addr, bytes, name, layout.stride, layout.first, layout.fields);
}

void TraceRecorder::step(std::uint64_t t_ns, ThreadId id, StepNote act, std::string_view what) {
  if (act == StepNote::begin) {
    writer_.step_begin(t_ns, id, what);
  } else {
    writer_.step_end(t_ns, id);
  }
}

void TraceRecorder::thread(std::uint64_t t_ns, ThreadId id, std::string_view name, CpuId cpu) {
  writer_.thread(t_ns, id, name, cpu);
}

void TraceRecorder::cpu(std::uint64_t t_ns, CpuId cpu, ThreadId running) {
  writer_.cpu(t_ns, cpu, thread_field(running));
}

void TraceRecorder::state(std::uint64_t t_ns, ThreadId id, ThreadRunState state) {
  writer_.state(t_ns, id, trace_state(state));
}

void TraceRecorder::access(std::uint64_t t_ns, ThreadId id, CpuId cpu, OpKind kind, std::uint64_t addr, unsigned size,
                           std::uint64_t value, std::uint64_t latency_ns, const AccessDetail* detail, bool buffered) {
  writer_.access(t_ns, id, cpu, trace_op(kind), addr, size, value, latency_ns, Source(detail).given, buffered);
}

void TraceRecorder::rmw(std::uint64_t t_ns, ThreadId id, CpuId cpu, RmwOp op, std::uint64_t addr, unsigned size,
                        std::uint64_t old_value, std::uint64_t new_value, bool success, std::uint64_t latency_ns,
                        const AccessDetail* detail) {
  writer_.rmw(t_ns, id, cpu, trace_rmw(op), addr, size, old_value, new_value, success, latency_ns,
              Source(detail).given);
}

void TraceRecorder::simple(std::uint64_t t_ns, ThreadId id, CpuId cpu, OpKind kind, std::uint64_t latency_ns) {
  writer_.simple(t_ns, id, cpu, trace_op(kind), latency_ns);
}

void TraceRecorder::unpark(std::uint64_t t_ns, ThreadId id, CpuId cpu, ThreadId target, bool was_parked) {
  writer_.unpark(t_ns, id, cpu, target, was_parked);
}

void TraceRecorder::lock(std::uint64_t t_ns, ThreadId id, std::uint64_t addr, LockNote act, bool shared,
                         const std::source_location& site) {
  // Relative to the source tree, so that a trace does not depend on where it was built.
  const std::string where =
      site.line() == 0 ? std::string() : profile::source_relative(site.file_name()) + ":" + std::to_string(site.line());
  writer_.lock(t_ns, id, addr, trace_lock_act(act), shared, where);
}

void TraceRecorder::syscall(std::uint64_t t_ns, ThreadId id, bool enter) {
  writer_.syscall(t_ns, id, enter ? trace::SyscallAct::enter : trace::SyscallAct::exit);
}

void TraceRecorder::futex_queue(std::uint64_t t_ns, ThreadId id, FutexQueueNote act, std::uint32_t bucket,
                                std::uint64_t key, ThreadId waiter) {
  writer_.futex(t_ns, id, trace_futex_act(act), bucket, key, waiter);
}

void TraceRecorder::violation(std::uint64_t t_ns, ThreadId id, std::string_view property, std::string_view message) {
  writer_.violation(t_ns, thread_field(id), property, message);
}

void TraceRecorder::witness(std::uint64_t t_ns, std::string_view property, std::string_view message) {
  writer_.witness(t_ns, property, message);
}

void TraceRecorder::end(std::uint64_t t_ns, std::uint64_t steps, std::string_view outcome) {
  writer_.end(t_ns, steps, outcome);
}

}  // namespace lockstep::sim
