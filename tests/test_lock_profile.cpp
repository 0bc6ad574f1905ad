// Lock profiling (profile/lock_profile.hpp, docs/os.md "Lock profiling"): the recorder on
// hand-checkable note sequences, and a simulated run's profile against its own trace's lock
// events, summed by a loop that shares no code with the recorder.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "driver/runner.hpp"
#include "profile/lock_profile.hpp"
#include "scratch_dir.hpp"

using namespace lockstep;  // NOLINT(google-build-using-namespace)
using profile::LockProfiler;

namespace {

std::string plain_name(std::uint64_t addr) { return addr == 0x40 ? "bucket[3].lock" : "bucket[7].lock"; }

}  // namespace

TEST_CASE("lock profile: a hand-off between two threads on two CPUs", "[profile]") {
  LockProfiler p;
  const std::source_location site = std::source_location::current();
  p.note(0, 0, 0x40, LockNote::acquire, false, site, 10);  // t0 takes it at 10 on CPU 0
  p.note(1, 1, 0x40, LockNote::wait, false, site, 12);     // t1 finds it taken at 12
  p.note(0, 0, 0x40, LockNote::release, false, {}, 30);    // held 20
  p.note(1, 1, 0x40, LockNote::acquire, false, site, 35);  // waited 23
  p.note(1, 1, 0x40, LockNote::release, false, {}, 40);    // held 5, on CPU 1's table
  const profile::LockProfile prof = p.profile(plain_name);
  REQUIRE(prof.entries.size() == 1);
  const profile::LockProfileEntry& e = prof.entries[0];
  CHECK(e.name == "bucket[].lock");
  CHECK(e.file == "tests/test_lock_profile.cpp");
  CHECK(e.line == site.line());
  CHECK(e.acquisitions == 2);
  CHECK(e.contended == 1);
  CHECK(e.hold_total_ns == 25);
  CHECK(e.hold_max_ns == 20);
  CHECK(e.wait_total_ns == 23);
  CHECK(e.wait_max_ns == 23);
  CHECK(e.hold_avg_ns() == 12.5);
  CHECK(e.wait_avg_ns() == 11.5);
  CHECK(p.unmatched() == 0);
}

TEST_CASE("lock profile: nested holds, folded names, worst first, absorb", "[profile]") {
  LockProfiler a;
  const std::source_location outer = std::source_location::current();
  const std::source_location inner = std::source_location::current();
  // Two bucket locks fold into one row per site; a hold inside a hold is timed on its own.
  a.note(0, 0, 0x40, LockNote::acquire, false, outer, 0);
  a.note(0, 0, 0x80, LockNote::acquire, false, inner, 5);
  a.note(0, 0, 0x80, LockNote::release, false, {}, 7);
  a.note(0, 0, 0x40, LockNote::release, false, {}, 100);
  LockProfiler b;  // another thread's recorder (native runs keep one per thread)
  b.note(3, 2, 0x40, LockNote::wait, false, inner, 0);
  b.note(3, 2, 0x40, LockNote::acquire, false, inner, 9);
  b.note(3, 2, 0x40, LockNote::release, false, {}, 10);
  a.absorb(b);
  const profile::LockProfile prof = a.profile(plain_name);
  REQUIRE(prof.entries.size() == 2);
  // The inner site: 0x80 held 2, 0x40 held 1 after a wait of 9: the most waiting, first.
  CHECK(prof.entries[0].line == inner.line());
  CHECK(prof.entries[0].acquisitions == 2);
  CHECK(prof.entries[0].hold_total_ns == 3);
  CHECK(prof.entries[0].wait_total_ns == 9);
  CHECK(prof.entries[1].line == outer.line());
  CHECK(prof.entries[1].hold_total_ns == 100);
  // Notes no record explains are counted, not trusted.
  a.note(5, 0, 0x40, LockNote::release, false, {}, 1);
  CHECK(a.unmatched() == 1);
  CHECK(profile::fold_indices("node3.bucket[14].lock+8") == "node3.bucket[].lock+8");
  CHECK(profile::fold_indices("a[x]") == "a[x]");
}

TEST_CASE("lock profile of a simulated run equals its trace's lock events", "[profile]") {
  const testing::ScratchDir scratch("lockstep-lock-profile");
  const scenario::ScenarioFile file =
      scenario::load_scenario_file(std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/basics/counter-under-spinlock.yaml");
  driver::RunOptions o;
  o.command = driver::Command::run;
  o.lock_profile = true;
  o.save_traces = true;
  o.out_dir = scratch.path().string();
  const report::ScenarioReport report = driver::run_scenario_file(file, o);
  REQUIRE(report.rows.size() == 5);  // ticket, ttas, mcs, tas, clh
  for (const report::RowReport& row : report.rows) {
    INFO(row.params.front().second);
    // The trace's lock events, summed here: per thread, a wait's time, an acquire's, a release's.
    std::map<std::uint64_t, std::uint64_t> wait_start, acquired;
    std::uint64_t acquisitions = 0, waits = 0, hold_total = 0, wait_total = 0;
    std::ifstream in(row.trace_path);
    for (std::string line; std::getline(in, line);) {
      const nlohmann::json e = nlohmann::json::parse(line);
      if (e.value("ev", "") != "lock") continue;
      const auto th = e.at("th").get<std::uint64_t>();
      const auto t = e.at("t").get<std::uint64_t>();
      const std::string act = e.at("act");
      if (act == "wait") {
        wait_start[th] = t;
        ++waits;
      } else if (act == "acquire") {
        ++acquisitions;
        acquired[th] = t;
        if (const auto w = wait_start.find(th); w != wait_start.end()) {
          wait_total += t - w->second;
          wait_start.erase(w);
        }
      } else {
        hold_total += t - acquired.at(th);
      }
    }
    // 3 threads x 20 increments, each under the one lock.
    CHECK(acquisitions == 60);
    REQUIRE(row.lock_profile.entries.size() == 1);
    const profile::LockProfileEntry& e = row.lock_profile.entries[0];
    CHECK(e.name == "lock");
    CHECK(e.file == "core/workloads/lock_counter.hpp");
    CHECK(e.acquisitions == acquisitions);
    CHECK(e.contended == waits);
    CHECK(e.hold_total_ns == hold_total);
    CHECK(e.wait_total_ns == wait_total);
    CHECK(row.lock_profile_unmatched == 0);
  }
}
