// The trace library (trace/format.hpp, writer.hpp, reader.hpp): what the writer writes the
// reader reads back, for every event kind; and the reader refuses bad input (a cut line, a
// version it does not read, an over-long line, too many events) with an error naming the
// file and the line.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "trace/error.hpp"
#include "trace/format.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

using namespace lockstep;
namespace field = trace::field;

namespace {

struct Field {
  std::uint64_t offset;
  std::uint64_t bytes;
  std::string_view name;
};

// One event of every kind, with every optional member somewhere.
std::string every_kind() {
  trace::Writer w(R"("scenario":"s.yaml","seed":7)");
  const std::vector<Field> fields{{0, 8, "lock"}, {8, 4, "waiters"}};
  w.label(0x1000, 4096, "bucket", 64, 2, fields);
  w.label(0x0, 8, "x \"quoted\"", 0, 0, std::vector<Field>{});
  w.thread(0, 0, "waiter", 1);
  w.cpu(1, 1, 0);
  w.cpu(2, 1, -1);
  w.state(3, 0, trace::ThreadState::parked);
  w.step_begin(4, 0, "lock the bucket");
  const trace::AccessSource remote{"remote_cache", 4, 'S'};
  w.access(5, 0, 1, trace::op::load, 0x1008, 4, 9, 85, &remote);
  w.access(6, 0, 1, trace::op::store, 0x0, 8, 1, 2, nullptr, true);
  w.rmw(7, 0, 1, trace::rmw::cas, 0x1000, 8, 0, 0, false, 3);
  w.simple(8, 0, 1, trace::op::fence, 4);
  w.unpark(9, 0, 1, 1, true);
  w.step_end(10, 0);
  w.lock(11, 0, 0x1000, trace::LockAct::acquire, true);
  w.syscall(12, 0, trace::SyscallAct::exit);
  w.futex(13, 0, trace::FutexAct::dequeue, 14, 0x0, 1);
  w.violation(14, -1, "lost_update", "x != 2");
  w.witness(15, "seen", "x=1");
  w.end(16, 42, "violation");
  return w.text();
}

std::vector<std::string> error_of(const std::string& text, trace::ReaderLimits limits = {},
                                  const std::string& name = "t.jsonl") {
  std::istringstream in(text);
  try {
    trace::Reader reader(in, name, limits);
    while (reader.next()) {
    }
    reader.require_end();
  } catch (const trace::FormatError& e) {
    return {e.what(), std::to_string(e.line()), e.detail(), e.file()};
  }
  return {"", "", "", ""};  // read without an error
}

}  // namespace

TEST_CASE("trace: every event kind the writer writes reads back", "[trace]") {
  const std::string text = every_kind();
  std::istringstream in(text);
  trace::Reader reader(in, "every.jsonl");
  CHECK(reader.header()[std::string(field::version)] == trace::kVersion);
  CHECK(reader.header()[std::string(field::format)] == std::string(trace::kFormatName));
  CHECK(reader.header()[std::string(field::seed)] == 7);
  CHECK(reader.header_line() == 1);

  std::vector<trace::EventKind> kinds;
  while (reader.next()) {
    const trace::Event& e = reader.event();
    kinds.push_back(e.kind());
    CHECK(e.line() == kinds.size() + 1);
    CHECK(e.kind_name() == trace::name_of(e.kind()));
    switch (e.kind()) {
      case trace::EventKind::label: {
        const trace::NamedRegion r = e.region();
        if (r.name == "bucket") {
          CHECK(r.addr == 0x1000);
          CHECK(r.bytes == 4096);
          CHECK(r.stride == 64);
          CHECK(r.first == 2);
          REQUIRE(r.fields.size() == 2);
          CHECK(r.fields[1].offset == 8);
          CHECK(r.fields[1].bytes == 4);
          CHECK(r.fields[1].name == "waiters");
        } else {
          CHECK(r.name == "x \"quoted\"");
          CHECK(!e.has(field::stride));
          CHECK(!e.has(field::fields));
        }
        break;
      }
      case trace::EventKind::thread:
        CHECK(e.index(field::th, false) == 0);
        CHECK(e.text(field::name) == "waiter");
        CHECK(e.index(field::cpu, true) == 1);
        break;
      case trace::EventKind::cpu:
        CHECK(e.index(field::cpu, false) == 1);
        CHECK(e.index(field::th, true) == (e.time() == 1 ? 0 : -1));
        break;
      case trace::EventKind::state:
        CHECK(trace::parse_thread_state(e.text(field::state)) == trace::ThreadState::parked);
        break;
      case trace::EventKind::step:
        if (e.time() == 4) {
          CHECK(trace::parse_step_act(e.text(field::act)) == trace::StepAct::begin);
          CHECK(e.text(field::what) == "lock the bucket");
        } else {
          CHECK(trace::parse_step_act(e.text(field::act)) == trace::StepAct::end);
          CHECK(!e.has(field::what));
        }
        break;
      case trace::EventKind::op: {
        const std::string_view op = e.text(field::op);
        CHECK(e.index(field::cpu, false) == 1);
        if (op == trace::op::load) {
          CHECK(e.address(field::addr) == 0x1008);
          CHECK(e.u64(field::size) == 4);
          CHECK(e.u64(field::val) == 9);
          CHECK(e.u64(field::lat) == 85);
          CHECK(e.text(field::src) == "remote_cache");
          CHECK(e.index(field::peer, false) == 4);
          CHECK(e.text(field::st) == "S");
          CHECK(!e.has(field::buf));
        } else if (op == trace::op::store) {
          CHECK(e.flag(field::buf));
          CHECK(!e.has(field::src));
        } else if (op == trace::op::rmw) {
          CHECK(e.text(field::rmw) == trace::rmw::cas);
          CHECK(e.u64(field::old) == 0);
          CHECK(e.flag(field::ok) == false);
        } else if (op == trace::op::fence) {
          CHECK(e.u64(field::lat) == 4);
          CHECK(!e.has(field::addr));
        } else {
          CHECK(op == trace::op::unpark);
          CHECK(e.index(field::target, false) == 1);
          CHECK(e.flag(field::woke));
        }
        break;
      }
      case trace::EventKind::lock:
        CHECK(e.address(field::addr) == 0x1000);
        CHECK(trace::parse_lock_act(e.text(field::act)) == trace::LockAct::acquire);
        CHECK(e.text(field::mode) == trace::kShared);
        break;
      case trace::EventKind::syscall:
        CHECK(trace::parse_syscall_act(e.text(field::act)) == trace::SyscallAct::exit);
        break;
      case trace::EventKind::futex:
        CHECK(trace::parse_futex_act(e.text(field::act)) == trace::FutexAct::dequeue);
        CHECK(e.u64(field::bucket) == 14);
        CHECK(e.address(field::key) == 0);
        CHECK(e.index(field::waiter, false) == 1);
        break;
      case trace::EventKind::violation:
        CHECK(e.index(field::th, true) == -1);
        CHECK(e.text(field::property) == "lost_update");
        CHECK(e.text(field::msg) == "x != 2");
        break;
      case trace::EventKind::witness:
        CHECK(e.text(field::property) == "seen");
        CHECK(!e.has(field::th));
        break;
      case trace::EventKind::end:
        CHECK(e.time() == 16);
        CHECK(e.u64(field::steps) == 42);
        CHECK(e.text(field::outcome) == "violation");
        break;
      case trace::EventKind::other:
        FAIL("an unknown kind");
        break;
    }
  }
  CHECK(reader.ended());
  CHECK_NOTHROW(reader.require_end());
  using K = trace::EventKind;
  CHECK(kinds == std::vector<K>{K::label, K::label, K::thread, K::cpu, K::cpu, K::state, K::step, K::op, K::op, K::op,
                                K::op, K::op, K::step, K::lock, K::syscall, K::futex, K::violation, K::witness,
                                K::end});
  CHECK(reader.events() == kinds.size());
}

TEST_CASE("trace: the writer's bytes, header first, members in the documented order", "[trace]") {
  trace::Writer w;
  w.access(5, 1, 0, trace::op::plain_store, 0x1f40, 8, 3, 2, nullptr, true);
  w.end(7, 1, "pass");
  CHECK(w.text() == R"({"format":"lockstep-trace","version":1}
{"t":5,"ev":"op","th":1,"cpu":0,"op":"plain_store","addr":"0x1f40","size":8,"val":3,"lat":2,"buf":true}
{"t":7,"ev":"end","steps":1,"outcome":"pass"}
)");
  CHECK(w.events() == 2);
}

TEST_CASE("trace: a streamed read sees every event, across buffer refills", "[trace]") {
  trace::Writer w;
  for (std::uint64_t i = 0; i < 20000; ++i) w.access(i, i % 7, 0, trace::op::load, i * 8, 8, i, 1);
  w.end(20000, 20000, "pass");
  std::istringstream in(w.text());
  trace::Reader reader(in, "big.jsonl", trace::ReaderLimits{200, 1u << 20});
  std::uint64_t n = 0;
  while (reader.next() && reader.event().kind() == trace::EventKind::op) {
    CHECK(reader.event().u64(field::val) == n);
    CHECK(reader.event().line() == n + 2);
    ++n;
  }
  CHECK(n == 20000);
  CHECK(reader.ended());
  // From text in memory, the same.
  trace::Reader again(std::string_view(w.text()));
  std::uint64_t m = 0;
  while (again.next()) ++m;
  CHECK(m == 20001);
}

TEST_CASE("trace: blank lines are skipped but counted, unknown kinds are read, nothing after end", "[trace]") {
  const std::string text = "\n" + std::string(R"({"format":"lockstep-trace","version":1})") + "\n\n" +
                           R"({"t":1,"ev":"cache_miss","th":0,"extra":[1,{"a":null}]})"
                           "\n  \n" +
                           R"({"t":2,"ev":"end","steps":0,"outcome":"pass"})"
                           "\n" +
                           "not even json\n";
  trace::Reader reader(std::string_view(text), "b.jsonl");
  CHECK(reader.header_line() == 2);
  REQUIRE(reader.next());
  CHECK(reader.event().kind() == trace::EventKind::other);
  CHECK(reader.event().kind_name() == "cache_miss");
  CHECK(reader.event().line() == 4);
  CHECK(reader.event().member_json<nlohmann::json>("extra") == nlohmann::json::parse(R"([1,{"a":null}])"));
  REQUIRE(reader.next());
  CHECK(reader.event().line() == 6);
  CHECK(!reader.next());
  CHECK(reader.last_line() == 6);
}

TEST_CASE("trace: a truncated trace is an error at its last line", "[trace]") {
  const std::string full = every_kind();
  // The last line cut in the middle.
  const auto cut = error_of(full.substr(0, full.size() - 10));
  REQUIRE(!cut[0].empty());
  CHECK(cut[1] == "20");
  CHECK(cut[0] == "t.jsonl, line 20: the last line is cut off (the file is truncated)");
  // Whole lines, but no end event.
  const auto no_end = error_of(full.substr(0, full.rfind(R"({"t":16,)")));
  REQUIRE(!no_end[0].empty());
  CHECK(no_end[1] == "19");
  CHECK(no_end[2] == "the trace is truncated: it ends without an 'end' event");
  // Every prefix: read or refused with a FormatError.
  for (std::size_t n = 0; n < full.size(); n += 7) CHECK_NOTHROW(error_of(full.substr(0, n)));
}

TEST_CASE("trace: another format or version is refused at the header", "[trace]") {
  CHECK(error_of(R"({"format":"lockstep-trace","version":2})"
                 "\n")[0] == "t.jsonl, line 1: unsupported trace version 2 (this build reads version 1)");
  CHECK(error_of(R"({"format":"lockstep-trace"})"
                 "\n")[2]
            .starts_with("unsupported trace version (none)"));
  CHECK(error_of(R"({"format":"other","version":1})"
                 "\n")[2]
            .starts_with("not a lockstep trace"));
  CHECK(error_of("[1,2]\n")[2] == "the header must be a JSON object");
  CHECK(error_of("")[0] == "t.jsonl, line 1: empty input, not a lockstep trace");
  CHECK(error_of("\n\n")[1] == "1");
}

TEST_CASE("trace: an over-long line and too many events are refused, not read", "[trace]") {
  const std::string header = R"({"format":"lockstep-trace","version":1})"
                             "\n";
  const std::string event = R"({"t":0,"ev":"state","th":0,"state":"running"})"
                            "\n";
  const std::string long_line = R"({"t":0,"ev":"label","name":")" + std::string(5000, 'a') + "\"}\n";
  const auto too_long = error_of(header + event + long_line + event, trace::ReaderLimits{1000, 100});
  REQUIRE(!too_long[0].empty());
  CHECK(too_long[0] == "t.jsonl, line 3: the line is longer than 1000 bytes");
  // A line of no newline at all, longer than the limit, stops at the limit too.
  CHECK(error_of(header + std::string(1 << 16, ' ') + "x", trace::ReaderLimits{1000, 100})[1] == "2");
  // The limit itself is allowed.
  const std::string exact = R"({"t":0,"ev":"x","p":")" + std::string(77, 'b') + "\"}";
  REQUIRE(exact.size() == 100);
  CHECK(error_of(header + exact + "\n" +
                     R"({"t":0,"ev":"end","steps":0,"outcome":"pass"})"
                     "\n",
                 trace::ReaderLimits{100, 100})[0]
            .empty());
  std::string many = header;
  for (int i = 0; i < 11; ++i) many += event;
  CHECK(error_of(many, trace::ReaderLimits{1000, 10})[0] == "t.jsonl, line 12: more than 10 events");
}

TEST_CASE("trace: errors name the file and the line, and the member", "[trace]") {
  const std::string header = R"({"format":"lockstep-trace","version":1})"
                             "\n";
  const auto bad = error_of(header + "\n" +
                            R"({"t":0,"ev":"state","th":0})"
                            "\n");
  REQUIRE(!bad[0].empty());
  CHECK(bad[3] == "t.jsonl");
  CHECK(bad[1] == "3");  // the blank line counts
  CHECK(error_of(header + "{not json\n" +
                 R"({"t":0,"ev":"end","steps":0,"outcome":"pass"})"
                 "\n")[0] == "t.jsonl, line 2: not valid JSON");
  CHECK(error_of(header + R"({"ev":"end"})"
                          "\n")[2] == "the event has no 't'");
  CHECK(error_of(header + R"({"t":-1,"ev":"end"})"
                          "\n")[2] == "'t' must be an unsigned integer");
  CHECK(error_of(header + R"({"t":1,"ev":7})"
                          "\n")[2] == "'ev' must be a string");
  // Typed access after reading names the line too; without a file name, only the line.
  const std::string text = header + R"({"t":0,"ev":"op","th":100000000,"addr":"12"})"
                                    "\n";
  trace::Reader reader{std::string_view(text)};
  REQUIRE(reader.next());
  CHECK_THROWS_WITH(reader.event().index(field::th, false), "line 2: 'th' is 100000000, out of range");
  CHECK_THROWS_WITH(reader.event().address(field::addr), "line 2: 'addr' must be a hex address like \"0x1f0\"");
  CHECK_THROWS_WITH(reader.event().u64(field::val), "line 2: the event has no 'val'");
  CHECK(trace::FormatError("f.jsonl", 0, "cannot open the file").what() ==
        std::string("f.jsonl: cannot open the file"));
}
