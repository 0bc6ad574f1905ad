#include "trace/writer.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>
#include <nlohmann/json.hpp>

namespace lockstep::trace {

namespace {

// Formats one event into a stack buffer with a format parsed at compile time, then appends
// it.
template <class Format, class... Args>
void emit(std::string& text, const Format& format, const Args&... args) {
  fmt::memory_buffer line;
  fmt::format_to(fmt::appender(line), format, args...);
  text.append(line.data(), line.size());
}

}  // namespace

std::string quoted(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }

void Writer::flush() {
  if (!sink_ || text_.empty()) return;
  flushed_ = true;
  sink_(text_);
  text_.clear();
}

Writer::Writer(std::string_view header_fields) {
  auto out = std::back_inserter(text_);
  fmt::format_to(out, R"({{"{}":"{}","{}":{})", field::format, kFormatName, field::version, kVersion);
  if (!header_fields.empty()) fmt::format_to(out, ",{}", header_fields);
  text_ += "}\n";
}

void Writer::label_head(std::uint64_t addr, std::uint64_t bytes, std::string_view name, std::uint64_t stride,
                        std::uint64_t first) {
  emit(text_, FMT_COMPILE(R"({{"t":0,"ev":"label","addr":"{:#x}","size":{},"name":{})"), addr, bytes, quoted(name));
  if (stride > 0) emit(text_, FMT_COMPILE(R"(,"stride":{},"first":{})"), stride, first);
}

void Writer::label_field(bool first_field, std::uint64_t offset, std::uint64_t bytes, std::string_view name) {
  text_ += first_field ? R"(,"fields":[)" : ",";
  emit(text_, FMT_COMPILE(R"({{"off":{},"size":{},"name":{}}})"), offset, bytes, quoted(name));
}

void Writer::label_tail(bool had_fields) {
  if (had_fields) text_ += ']';
  text_ += "}\n";
  appended();
}

void Writer::step_begin(std::uint64_t t_ns, std::uint64_t th, std::string_view what) {
  emit(text_,
       FMT_COMPILE(R"({{"t":{},"ev":"step","th":{},"act":"begin","what":{}}})"
                   "\n"),
       t_ns, th, quoted(what));
  appended();
}

void Writer::step_end(std::uint64_t t_ns, std::uint64_t th) {
  emit(text_,
       FMT_COMPILE(R"({{"t":{},"ev":"step","th":{},"act":"end"}})"
                   "\n"),
       t_ns, th);
  appended();
}

void Writer::thread(std::uint64_t t_ns, std::uint64_t th, std::string_view name, std::int64_t cpu,
                    std::uint64_t dropped) {
  emit(text_, FMT_COMPILE(R"({{"t":{},"ev":"thread","th":{},"name":{},"cpu":{})"), t_ns, th, quoted(name), cpu);
  if (dropped > 0) emit(text_, FMT_COMPILE(R"(,"dropped":{})"), dropped);
  text_ += "}\n";
  appended();
}

void Writer::cpu(std::uint64_t t_ns, std::int64_t cpu, std::int64_t th) {
  emit(text_,
       FMT_COMPILE(R"({{"t":{},"ev":"cpu","cpu":{},"th":{}}})"
                   "\n"),
       t_ns, cpu, th);
  appended();
}

void Writer::state(std::uint64_t t_ns, std::uint64_t th, ThreadState state) {
  emit(text_,
       FMT_COMPILE(R"({{"t":{},"ev":"state","th":{},"state":"{}"}})"
                   "\n"),
       t_ns, th, name_of(state));
  appended();
}

// The members revisions of version 1 added at the end of a memory operation (src, peer,
// st, buf), and the operation's closing brace.
void Writer::close_op(const AccessSource* source, bool buffered) {
  if (source != nullptr) {
    emit(text_, FMT_COMPILE(R"(,"src":"{}")"), source->source);
    if (source->peer >= 0) emit(text_, FMT_COMPILE(R"(,"peer":{})"), source->peer);
    if (source->state != 0) emit(text_, FMT_COMPILE(R"(,"st":"{}")"), source->state);
  }
  if (buffered) text_ += R"(,"buf":true)";
  text_ += "}\n";
}

void Writer::access(std::uint64_t t_ns, std::uint64_t th, std::int64_t cpu, std::string_view op, std::uint64_t addr,
                    std::uint64_t size, std::uint64_t value, std::uint64_t lat_ns, const AccessSource* source,
                    bool buffered) {
  emit(text_,
       FMT_COMPILE(R"({{"t":{},"ev":"op","th":{},"cpu":{},"op":"{}","addr":"{:#x}","size":{},"val":{},"lat":{})"), t_ns,
       th, cpu, op, addr, size, value, lat_ns);
  close_op(source, buffered);
  appended();
}

void Writer::rmw(std::uint64_t t_ns, std::uint64_t th, std::int64_t cpu, std::string_view rmw, std::uint64_t addr,
                 std::uint64_t size, std::uint64_t old_value, std::uint64_t new_value, bool ok, std::uint64_t lat_ns,
                 const AccessSource* source) {
  emit(
      text_,
      FMT_COMPILE(
          R"({{"t":{},"ev":"op","th":{},"cpu":{},"op":"rmw","rmw":"{}","addr":"{:#x}","size":{},"old":{},"val":{},"ok":{},"lat":{})"),
      t_ns, th, cpu, rmw, addr, size, old_value, new_value, ok, lat_ns);
  close_op(source, false);
  appended();
}

void Writer::simple(std::uint64_t t_ns, std::uint64_t th, std::int64_t cpu, std::string_view op, std::uint64_t lat_ns) {
  emit(text_,
       FMT_COMPILE(R"({{"t":{},"ev":"op","th":{},"cpu":{},"op":"{}","lat":{}}})"
                   "\n"),
       t_ns, th, cpu, op, lat_ns);
  appended();
}

void Writer::unpark(std::uint64_t t_ns, std::uint64_t th, std::int64_t cpu, std::uint64_t target, bool woke) {
  emit(text_,
       FMT_COMPILE(R"({{"t":{},"ev":"op","th":{},"cpu":{},"op":"unpark","target":{},"woke":{}}})"
                   "\n"),
       t_ns, th, cpu, target, woke);
  appended();
}

void Writer::lock(std::uint64_t t_ns, std::uint64_t th, std::uint64_t addr, LockAct act, bool shared,
                  std::string_view site) {
  if (site.empty()) {
    emit(text_,
         FMT_COMPILE(R"({{"t":{},"ev":"lock","th":{},"addr":"{:#x}","act":"{}","mode":"{}"}})"
                     "\n"),
         t_ns, th, addr, name_of(act), shared ? kShared : kExclusive);
  } else {
    emit(text_,
         FMT_COMPILE(R"({{"t":{},"ev":"lock","th":{},"addr":"{:#x}","act":"{}","mode":"{}","site":{}}})"
                     "\n"),
         t_ns, th, addr, name_of(act), shared ? kShared : kExclusive, quoted(site));
  }
  appended();
}

void Writer::syscall(std::uint64_t t_ns, std::uint64_t th, SyscallAct act) {
  emit(text_,
       FMT_COMPILE(R"({{"t":{},"ev":"syscall","th":{},"act":"{}"}})"
                   "\n"),
       t_ns, th, name_of(act));
  appended();
}

void Writer::futex(std::uint64_t t_ns, std::uint64_t th, FutexAct act, std::uint64_t bucket, std::uint64_t key,
                   std::uint64_t waiter) {
  emit(text_,
       FMT_COMPILE(R"({{"t":{},"ev":"futex","th":{},"act":"{}","bucket":{},"key":"{:#x}","waiter":{}}})"
                   "\n"),
       t_ns, th, name_of(act), bucket, key, waiter);
  appended();
}

void Writer::violation(std::uint64_t t_ns, std::int64_t th, std::string_view property, std::string_view message) {
  emit(text_,
       FMT_COMPILE(R"({{"t":{},"ev":"violation","th":{},"property":{},"msg":{}}})"
                   "\n"),
       t_ns, th, quoted(property), quoted(message));
  appended();
}

void Writer::witness(std::uint64_t t_ns, std::string_view property, std::string_view message) {
  emit(text_,
       FMT_COMPILE(R"({{"t":{},"ev":"witness","property":{},"msg":{}}})"
                   "\n"),
       t_ns, quoted(property), quoted(message));
  appended();
}

void Writer::end(std::uint64_t t_ns, std::uint64_t steps, std::string_view outcome) {
  emit(text_,
       FMT_COMPILE(R"({{"t":{},"ev":"end","steps":{},"outcome":{}}})"
                   "\n"),
       t_ns, steps, quoted(outcome));
  appended();
}

}  // namespace lockstep::trace
