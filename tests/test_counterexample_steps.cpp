// Counterexamples in the design's words (docs/traces.md, "Names" and "Counterexamples in
// protocol steps"): the naming rule, and the grouping checked against the raw steps it
// folds, on the futex lost wakeup and a file-offset lost write.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "tests/traced_run.hpp"
#include "trace/address_names.hpp"
#include "trace/interleaving.hpp"

using namespace lockstep;

namespace {

trace::NamedRegion region(std::uint64_t addr, std::uint64_t bytes, std::string name, std::uint64_t stride = 0,
                          std::uint64_t first = 0, std::vector<trace::FieldName> fields = {}) {
  return trace::NamedRegion{addr, bytes, std::move(name), stride, first, std::move(fields)};
}

const std::vector<trace::FieldName> kBucketFields{{0, 8, "lock"}, {8, 4, "waiters"}, {16, 8, "head"}, {24, 8, "tail"}};

}  // namespace

TEST_CASE("address names: arrays, fields, offsets, the innermost region, hex outside", "[names]") {
  trace::AddressNames names;
  names.add(region(0x1000, 4096, "bucket", 64, 0, kBucketFields));
  names.add(region(0x9000, 4096, "bucket", 64, 64, kBucketFields));  // the next page of an interleaved table
  names.add(region(0x0, 4, "f"));
  CHECK(names.name_of(0x0) == "f");
  CHECK(names.name_of(0x2) == "f+2");
  CHECK(names.name_of(0x4) == "0x4");
  CHECK(names.name_of(0x1000) == "bucket[0].lock");
  CHECK(names.name_of(0x1004) == "bucket[0].lock+4");
  CHECK(names.name_of(0x1000 + 14 * 64 + 8) == "bucket[14].waiters");
  CHECK(names.name_of(0x1000 + 14 * 64 + 12) == "bucket[14]+12");  // padding between fields
  CHECK(names.name_of(0x1000 + 14 * 64 + 40) == "bucket[14]+40");  // the cacheline's padding
  CHECK(names.name_of(0x9000 + 2 * 64 + 16) == "bucket[66].head");
  CHECK(names.name_of(0x1000 + 4096) == "0x2000");

  // An inner object names itself; labeling a start again replaces the old label.
  names.add(region(0x100, 64, "file.fd", 0, 0, {{0, 8, "f_pos"}, {8, 4, "f_count"}}));
  names.add(region(0x100 + 8, 4, "count_alone"));
  CHECK(names.name_of(0x100) == "file.fd.f_pos");
  CHECK(names.name_of(0x108) == "count_alone");
  CHECK(names.name_of(0x10c) == "file.fd+12");
  names.add(region(0x108, 4, "again"));
  CHECK(names.name_of(0x108) == "again");

  // A field outside its element would name the wrong bytes: refused.
  CHECK_THROWS_AS(names.add(region(0x5000, 128, "bad", 16, 0, {{8, 16, "too_long"}})), std::invalid_argument);
  CHECK_THROWS_AS(names.add(region(~std::uint64_t{0} - 2, 8, "wraps")), std::invalid_argument);
}

namespace {

// Every numbered raw step is folded by exactly one protocol-step line, in order.
void check_folding(const trace::Interleaving& view) {
  std::vector<std::size_t> folded;
  std::size_t last_first = 0;
  for (const trace::ProtocolStepLine& s : view.steps) {
    if (s.first_raw == 0) continue;
    CHECK(s.first_raw >= last_first);
    last_first = s.first_raw;
    for (std::size_t k = s.first_raw; k <= s.last_raw; ++k)
      if (!view.raw[k - 1].starts_with("    ")) folded.push_back(k);  // numbered lines only
  }
  std::vector<std::size_t> numbered;
  for (std::size_t k = 1; k <= view.raw.size(); ++k)
    if (!view.raw[k - 1].starts_with("    ")) numbered.push_back(k);
  CHECK(folded == numbered);
  CHECK(numbered.size() == view.raw_steps);
}

// Checks the library scenario `name`, which must violate `property`, and reads its trace.
trace::Interleaving view_of(const std::string& name, const std::string& property) {
  const testing::TracedRun run = testing::traced_run(testing::library_scenario(name));
  REQUIRE(run.report.property == property);
  std::string text = run.header.dump() + "\n";
  for (const nlohmann::json& e : run.events) text += e.dump() + "\n";
  trace::Interleaving view = trace::read_interleaving(text);
  check_folding(view);
  return view;
}

bool has_step(const trace::Interleaving& view, const std::string& thread, const std::string& step_prefix,
              const std::string& detail_part = "") {
  return std::any_of(view.steps.begin(), view.steps.end(), [&](const trace::ProtocolStepLine& s) {
    return s.thread == thread && s.step.starts_with(step_prefix) && s.detail.find(detail_part) != std::string::npos;
  });
}

}  // namespace

TEST_CASE("the futex lost wakeup reads as the protocol's steps with design-level names", "[names]") {
  const trace::Interleaving view = view_of("futex/lost-wakeup-missing-barrier.yaml", "lost_wakeup");
  // The raw view names the words by design: no "futex_table+" offsets remain.
  for (const std::string& line : view.raw) CHECK(line.find("futex_table") == std::string::npos);
  // The story SPIN tells in ten steps, here in the design's steps.
  CHECK(has_step(view, "waker", "store f = 1"));
  CHECK(has_step(view, "waker", "futex_wake > read the waiter count (no barrier B)", "].waiters -> 0"));
  CHECK(has_step(view, "waker", "futex_wake > nobody waits: return without the lock"));
  CHECK(has_step(view, "waiter", "futex_wait > count the waiter", "].waiters: 0 -> 1"));
  CHECK(has_step(view, "waiter", "futex_wait > lock the bucket", "].lock"));
  CHECK(has_step(view, "waiter", "futex_wait > read the futex word", "load f -> 0"));
  CHECK(has_step(view, "waiter", "futex_wait > queue the waiter on the bucket", "futex_q[waiter]."));
  CHECK(has_step(view, "waiter", "futex_wait > unlock the bucket"));
  CHECK(has_step(view, "waiter", "futex_wait > sleep until woken"));
  CHECK(has_step(view, "waker", "store buffer drains", "f = 1 reaches memory"));
  // Folded: far fewer lines than raw steps.
  const std::size_t lines = static_cast<std::size_t>(std::count_if(
      view.steps.begin(), view.steps.end(), [](const trace::ProtocolStepLine& s) { return s.thread != "-"; }));
  CHECK(lines <= 14);
  CHECK(view.raw_steps >= 30);
  // The verbose form lists every raw step under its line.
  const std::vector<std::string> verbose = trace::format_protocol_steps(view, true);
  const std::vector<std::string> brief = trace::format_protocol_steps(view, false);
  CHECK(verbose.size() > brief.size());
  CHECK(std::count_if(verbose.begin(), verbose.end(), [](const std::string& l) { return l.starts_with("      | "); }) >=
        static_cast<long>(view.raw_steps - brief.size()));
}

TEST_CASE("a file-offset lost write reads as the write's steps on f_pos", "[names]") {
  const trace::Interleaving view = view_of("fileio/offset-none-lost-write.yaml", "no_lost_write");
  CHECK(has_step(view, "w0", "write > load the offset (no lock)", "file.fd.f_pos -> 0"));
  CHECK(has_step(view, "w1", "write > load the offset (no lock)", "file.fd.f_pos -> 0"));
  CHECK(has_step(view, "w0", "write > store the new offset", "file.fd.f_pos = 16"));
  CHECK(has_step(view, "w1", "write > copy the page's words", "page[0].data[0]"));
}

TEST_CASE("a trace whose protocol steps do not nest is an error naming the line", "[names]") {
  const std::string bad = R"({"format":"lockstep-trace","version":1}
{"t":0,"ev":"thread","th":0,"name":"a","cpu":0}
{"t":1,"ev":"step","th":0,"act":"end"}
)";
  CHECK_THROWS_WITH(trace::read_interleaving(bad),
                    Catch::Contains("trace, line 3: a protocol step ends that did not begin"));
}
