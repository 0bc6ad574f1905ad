#include "sim/exec/trace.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>
#include <nlohmann/json.hpp>

namespace lockstep::sim {

namespace {
std::string quoted(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }
long long thread_field(ThreadId id) { return id == kNoThread ? -1 : static_cast<long long>(id); }

// Formats one event into a stack buffer with a format parsed at compile time, then appends
// it: a timed run writes millions of events, and this is most of what tracing costs.
template <class Format, class... Args>
void emit(std::string& text, const Format& format, const Args&... args) {
  fmt::memory_buffer line;
  fmt::format_to(fmt::appender(line), format, args...);
  text.append(line.data(), line.size());
}

// The members revisions of version 1 added at the end of a memory operation (src, peer,
// st, buf), and the operation's closing brace.
void close_op(std::string& text, const AccessDetail* detail, bool buffered) {
  if (detail != nullptr) {
    emit(text, FMT_COMPILE(R"(,"src":"{}")"), detail->source);
    if (detail->peer >= 0) emit(text, FMT_COMPILE(R"(,"peer":{})"), detail->peer);
    if (detail->state != 0) emit(text, FMT_COMPILE(R"(,"st":"{}")"), detail->state);
  }
  if (buffered) text += R"(,"buf":true)";
  text += "}\n";
}
}  // namespace

const char* name_of(ThreadRunState state) {
  switch (state) {
    case ThreadRunState::running: return "running";
    case ThreadRunState::ready: return "ready";
    case ThreadRunState::parked: return "parked";
    case ThreadRunState::spinning: return "spinning";
    case ThreadRunState::finished: return "finished";
  }
  return "?";
}

const char* name_of(RmwOp op) {
  switch (op) {
    case RmwOp::exchange: return "exchange";
    case RmwOp::compare_exchange: return "cas";
    case RmwOp::fetch_add: return "fetch_add";
    case RmwOp::fetch_sub: return "fetch_sub";
    case RmwOp::fetch_or: return "fetch_or";
    case RmwOp::fetch_and: return "fetch_and";
  }
  return "?";
}

const char* name_of(LockNote note) {
  switch (note) {
    case LockNote::wait: return "wait";
    case LockNote::acquire: return "acquire";
    case LockNote::release: return "release";
  }
  return "?";
}

const char* name_of(FutexQueueNote note) {
  switch (note) {
    case FutexQueueNote::enqueue: return "enqueue";
    case FutexQueueNote::dequeue: return "dequeue";
  }
  return "?";
}

void TraceRecorder::flush() {
  if (!sink_ || text_.empty()) return;
  flushed_ = true;
  sink_(text_);
  text_.clear();
}

TraceRecorder::TraceRecorder(std::string_view header_fields) {
  auto out = std::back_inserter(text_);
  fmt::format_to(out, R"({{"format":"lockstep-trace","version":{})", kTraceVersion);
  if (!header_fields.empty()) fmt::format_to(out, ",{}", header_fields);
  text_ += "}\n";
}

void TraceRecorder::label(std::uint64_t addr, std::uint64_t bytes, std::string_view name, const LabelLayout& layout) {
  emit(text_, FMT_COMPILE(R"({{"t":0,"ev":"label","addr":"{:#x}","size":{},"name":{})"), addr, bytes, quoted(name));
  if (layout.stride > 0) emit(text_, FMT_COMPILE(R"(,"stride":{},"first":{})"), layout.stride, layout.first);
  if (!layout.fields.empty()) {
    text_ += R"(,"fields":[)";
    bool first = true;
    for (const LabelField& f : layout.fields) {
      if (!first) text_ += ',';
      first = false;
      emit(text_, FMT_COMPILE(R"({{"off":{},"size":{},"name":{}}})"), f.offset, f.bytes, quoted(f.name));
    }
    text_ += ']';
  }
  text_ += "}\n";
  appended();
}

void TraceRecorder::step(std::uint64_t t_ns, ThreadId id, StepNote act, std::string_view what) {
  if (act == StepNote::begin) {
    emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"step","th":{},"act":"begin","what":{}}})" "\n"), t_ns, id, quoted(what));
  } else {
    emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"step","th":{},"act":"end"}})" "\n"), t_ns, id);
  }
  appended();
}

void TraceRecorder::thread(std::uint64_t t_ns, ThreadId id, std::string_view name, CpuId cpu) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"thread","th":{},"name":{},"cpu":{}}})" "\n"), t_ns, id, quoted(name), cpu);
  appended();
}

void TraceRecorder::cpu(std::uint64_t t_ns, CpuId cpu, ThreadId running) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"cpu","cpu":{},"th":{}}})" "\n"), t_ns, cpu, thread_field(running));
  appended();
}

void TraceRecorder::state(std::uint64_t t_ns, ThreadId id, ThreadRunState state) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"state","th":{},"state":"{}"}})" "\n"), t_ns, id, name_of(state));
  appended();
}

void TraceRecorder::access(std::uint64_t t_ns, ThreadId id, CpuId cpu, OpKind kind, std::uint64_t addr,
                           unsigned size, std::uint64_t value, std::uint64_t latency_ns, const AccessDetail* detail,
                           bool buffered) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"op","th":{},"cpu":{},"op":"{}","addr":"{:#x}","size":{},"val":{},"lat":{})"), t_ns, id, cpu, name_of(kind), addr, size, value, latency_ns);
  close_op(text_, detail, buffered);
  appended();
}

void TraceRecorder::rmw(std::uint64_t t_ns, ThreadId id, CpuId cpu, RmwOp op, std::uint64_t addr, unsigned size,
                        std::uint64_t old_value, std::uint64_t new_value, bool success, std::uint64_t latency_ns,
                        const AccessDetail* detail) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"op","th":{},"cpu":{},"op":"rmw","rmw":"{}","addr":"{:#x}","size":{},"old":{},"val":{},"ok":{},"lat":{})"), t_ns, id, cpu, name_of(op), addr, size, old_value, new_value, success, latency_ns);
  close_op(text_, detail, false);
  appended();
}

void TraceRecorder::simple(std::uint64_t t_ns, ThreadId id, CpuId cpu, OpKind kind, std::uint64_t latency_ns) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"op","th":{},"cpu":{},"op":"{}","lat":{}}})" "\n"), t_ns, id, cpu, name_of(kind), latency_ns);
  appended();
}

void TraceRecorder::unpark(std::uint64_t t_ns, ThreadId id, CpuId cpu, ThreadId target, bool was_parked) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"op","th":{},"cpu":{},"op":"unpark","target":{},"woke":{}}})" "\n"), t_ns, id, cpu, target, was_parked);
  appended();
}

void TraceRecorder::lock(std::uint64_t t_ns, ThreadId id, std::uint64_t addr, LockNote act, bool shared) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"lock","th":{},"addr":"{:#x}","act":"{}","mode":"{}"}})" "\n"), t_ns, id, addr, name_of(act), shared ? "shared" : "exclusive");
  appended();
}

void TraceRecorder::syscall(std::uint64_t t_ns, ThreadId id, bool enter) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"syscall","th":{},"act":"{}"}})" "\n"), t_ns, id, enter ? "enter" : "exit");
  appended();
}

void TraceRecorder::futex_queue(std::uint64_t t_ns, ThreadId id, FutexQueueNote act, std::uint32_t bucket,
                                std::uint64_t key, ThreadId waiter) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"futex","th":{},"act":"{}","bucket":{},"key":"{:#x}","waiter":{}}})" "\n"), t_ns, id, name_of(act), bucket, key, waiter);
  appended();
}

void TraceRecorder::violation(std::uint64_t t_ns, ThreadId id, std::string_view property, std::string_view message) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"violation","th":{},"property":{},"msg":{}}})" "\n"), t_ns, thread_field(id), quoted(property), quoted(message));
  appended();
}

void TraceRecorder::witness(std::uint64_t t_ns, std::string_view property, std::string_view message) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"witness","property":{},"msg":{}}})" "\n"), t_ns, quoted(property), quoted(message));
  appended();
}

void TraceRecorder::end(std::uint64_t t_ns, std::uint64_t steps, std::string_view outcome) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"end","steps":{},"outcome":{}}})" "\n"), t_ns, steps, quoted(outcome));
  appended();
}

}  // namespace lockstep::sim
