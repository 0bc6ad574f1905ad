// The smt strategy (axiomatic/, driver/smt_row.cpp): the classic litmus shapes under SC and
// x86-TSO with the verdicts the literature gives them (herd's x86-TSO tests; Owens, Sarkar,
// Sewell 2009), each held against dfs on the same file as well; every witness is followed
// by the engine and its schedule replays; the bundled litmus scenarios get the same
// verdicts under smt as under their own strategy; what cannot be encoded is refused at its
// place.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "axiomatic/checker.hpp"
#include "axiomatic/futex_keys.hpp"
#include "core/futex/futex_designs.hpp"
#include "core/futex/futex_key.hpp"
#include "driver/runner.hpp"
#include "io/files.hpp"
#include "model/schedule_file.hpp"
#include "tests/scratch_dir.hpp"

using namespace lockstep;
using lockstep::report::RowReport;
using lockstep::report::ScenarioReport;
using namespace lockstep::driver;
using namespace lockstep::scenario;
namespace fs = std::filesystem;

namespace {

struct Litmus {
  const char* name;
  const char* threads;    // the `threads:` block
  const char* condition;  // an exists condition
  bool sc;                // reachable under SC
  bool tso;               // reachable under x86-TSO
};

// Known verdicts: SB's relaxed outcome is the one x86-TSO adds (the store buffer) and mfence
// takes away; MP, LB, CoRR, IRIW and 2+2W keep their SC verdicts under x86-TSO (stores leave
// the buffer in order, loads are not reordered with loads or later stores, and TSO is
// multi-copy atomic).
const Litmus kLitmus[] = {
    {"SB",
     "  - {name: t0, program: [{store: {var: x, value: 1, order: relaxed}}, {load: {var: y, into: r0, order: "
     "relaxed}}]}\n"
     "  - {name: t1, program: [{store: {var: y, value: 1, order: relaxed}}, {load: {var: x, into: r1, order: "
     "relaxed}}]}\n",
     "t0.r0 == 0 && t1.r1 == 0", false, true},
    {"SB+mfences",
     "  - {name: t0, program: [{store: {var: x, value: 1, order: relaxed}}, {fence: {order: seq_cst}}, "
     "{load: {var: y, into: r0, order: relaxed}}]}\n"
     "  - {name: t1, program: [{store: {var: y, value: 1, order: relaxed}}, {fence: {order: seq_cst}}, "
     "{load: {var: x, into: r1, order: relaxed}}]}\n",
     "t0.r0 == 0 && t1.r1 == 0", false, false},
    {"SB+release-fences (no instruction on x86)",
     "  - {name: t0, program: [{store: {var: x, value: 1, order: relaxed}}, {fence: {order: acq_rel}}, "
     "{load: {var: y, into: r0, order: relaxed}}]}\n"
     "  - {name: t1, program: [{store: {var: y, value: 1, order: relaxed}}, {fence: {order: acq_rel}}, "
     "{load: {var: x, into: r1, order: relaxed}}]}\n",
     "t0.r0 == 0 && t1.r1 == 0", false, true},
    {"SB+xchg (seq_cst stores)",
     "  - {name: t0, program: [{store: {var: x, value: 1, order: seq_cst}}, {load: {var: y, into: r0, order: "
     "relaxed}}]}\n"
     "  - {name: t1, program: [{store: {var: y, value: 1, order: seq_cst}}, {load: {var: x, into: r1, order: "
     "relaxed}}]}\n",
     "t0.r0 == 0 && t1.r1 == 0", false, false},
    {"SB+fetch_add (locked)",
     "  - {name: t0, program: [{fetch_add: {var: x, value: 1}}, {load: {var: y, into: r0, order: relaxed}}]}\n"
     "  - {name: t1, program: [{fetch_add: {var: y, value: 1}}, {load: {var: x, into: r1, order: relaxed}}]}\n",
     "t0.r0 == 0 && t1.r1 == 0", false, false},
    {"MP",
     "  - {name: t0, program: [{store: {var: x, value: 1, order: relaxed}}, {store: {var: y, value: 1, order: "
     "relaxed}}]}\n"
     "  - {name: t1, program: [{load: {var: y, into: r0, order: relaxed}}, {load: {var: x, into: r1, order: "
     "relaxed}}]}\n",
     "t1.r0 == 1 && t1.r1 == 0", false, false},
    {"LB",
     "  - {name: t0, program: [{load: {var: x, into: r0, order: relaxed}}, {store: {var: y, value: 1, order: "
     "relaxed}}]}\n"
     "  - {name: t1, program: [{load: {var: y, into: r1, order: relaxed}}, {store: {var: x, value: 1, order: "
     "relaxed}}]}\n",
     "t0.r0 == 1 && t1.r1 == 1", false, false},
    {"CoRR",
     "  - {name: t0, program: [{store: {var: x, value: 1, order: relaxed}}]}\n"
     "  - {name: t1, program: [{load: {var: x, into: r0, order: relaxed}}, {load: {var: x, into: r1, order: "
     "relaxed}}]}\n",
     "t1.r0 == 1 && t1.r1 == 0", false, false},
    {"CoWR",
     "  - {name: t0, program: [{store: {var: x, value: 1, order: relaxed}}, {load: {var: x, into: r0, order: "
     "relaxed}}]}\n"
     "  - {name: t1, program: [{store: {var: x, value: 2, order: relaxed}}]}\n",
     "t0.r0 == 2 && x == 2", true, true},
    {"IRIW",
     "  - {name: t0, program: [{store: {var: x, value: 1, order: relaxed}}]}\n"
     "  - {name: t1, program: [{store: {var: y, value: 1, order: relaxed}}]}\n"
     "  - {name: t2, program: [{load: {var: x, into: r0, order: relaxed}}, {load: {var: y, into: r1, order: "
     "relaxed}}]}\n"
     "  - {name: t3, program: [{load: {var: y, into: r2, order: relaxed}}, {load: {var: x, into: r3, order: "
     "relaxed}}]}\n",
     "t2.r0 == 1 && t2.r1 == 0 && t3.r2 == 1 && t3.r3 == 0", false, false},
    {"2+2W",
     "  - {name: t0, program: [{store: {var: x, value: 1, order: relaxed}}, {store: {var: y, value: 2, order: "
     "relaxed}}]}\n"
     "  - {name: t1, program: [{store: {var: y, value: 1, order: relaxed}}, {store: {var: x, value: 2, order: "
     "relaxed}}]}\n",
     "x == 1 && y == 1", false, false},
    {"2+2W+mfences",
     "  - {name: t0, program: [{store: {var: x, value: 1, order: relaxed}}, {fence: {order: seq_cst}}, "
     "{store: {var: y, value: 2, order: relaxed}}]}\n"
     "  - {name: t1, program: [{store: {var: y, value: 1, order: relaxed}}, {fence: {order: seq_cst}}, "
     "{store: {var: x, value: 2, order: relaxed}}]}\n",
     "x == 1 && y == 1", false, false},
    {"2+2W, the SC outcome",
     "  - {name: t0, program: [{store: {var: x, value: 1, order: relaxed}}, {fence: {order: seq_cst}}, "
     "{store: {var: y, value: 2, order: relaxed}}]}\n"
     "  - {name: t1, program: [{store: {var: y, value: 1, order: relaxed}}, {fence: {order: seq_cst}}, "
     "{store: {var: x, value: 2, order: relaxed}}]}\n",
     "x == 1 && y == 2", true, true},
};

fs::path write_litmus(const Litmus& l, const char* model, const char* strategy) {
  const fs::path dir = lockstep::testing::scratch_dir() / "smt";
  fs::create_directories(dir);
  std::string stem;
  for (const char c : std::string(l.name)) stem += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  const fs::path path = dir / fmt::format("{}-{}-{}.yaml", stem, model, strategy);
  std::ofstream(path) << fmt::format(
      "name: {}\nmachine: {{preset: flat, cpus: 4}}\nmemory_model: {}\nvariables: {{x: 0, y: 0}}\nthreads:\n{}"
      "properties:\n  - {{name: seen, exists: \"{}\"}}\nstrategy: {{kind: {}}}\nexpect: {{{}: seen}}\n",
      l.name, model, l.threads, l.condition, strategy,
      (std::string(model) == "sc" ? l.sc : l.tso) ? "reachable" : "unreachable");
  return path;
}

RowReport check_file(const fs::path& path, RunOptions options = {}) {
  options.out_dir = (lockstep::testing::scratch_dir() / "smt" / "out").string();
  const ScenarioReport r = run_scenario_file(load_scenario_file(path.string()), options);
  REQUIRE(r.rows.size() == 1);
  return r.rows.front();
}

}  // namespace

TEST_CASE("smt: the litmus shapes get the literature's verdicts under SC and x86-TSO, as dfs does", "[smt]") {
  for (const Litmus& l : kLitmus) {
    for (const char* model : {"sc", "tso"}) {
      const bool reachable = std::string(model) == "sc" ? l.sc : l.tso;
      INFO(l.name << " under " << model);
      const RowReport smt = check_file(write_litmus(l, model, "smt"));
      const RowReport dfs = check_file(write_litmus(l, model, "dfs"));
      CHECK(smt.result == (reachable ? "reachable" : "unreachable"));
      CHECK(dfs.result == smt.result);
      CHECK(smt.internal_errors == 0);
      CHECK(smt.smt.present);
      CHECK(smt.smt.complete);
      if (reachable) {
        // The engine followed the solver's witness; the schedule it wrote replays it.
        CHECK(smt.smt.witness_replayed);
        REQUIRE_FALSE(smt.schedule_path.empty());
        const model::ScheduleFile schedule = model::parse_schedule(io::read_file(smt.schedule_path), smt.schedule_path);
        CHECK(schedule.strategy == "smt");
        const ScenarioReport replayed = replay_schedule(schedule, smt.schedule_path, RunOptions{});
        REQUIRE(replayed.rows.size() == 1);
        CHECK(replayed.rows.front().result == "reachable");
        CHECK(replayed.rows.front().trace_sha256 == smt.trace_sha256);
      } else {
        CHECK_THAT(smt.message, Catch::Contains("proven by the solver"));
      }
    }
  }
}

TEST_CASE("smt: every bundled litmus scenario gets its own strategy's verdict", "[smt]") {
  for (const auto& entry : fs::directory_iterator(std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/litmus")) {
    ScenarioFile file = load_scenario_file(entry.path().string());
    INFO(entry.path().string());
    RunOptions options;
    options.out_dir = (lockstep::testing::scratch_dir() / "smt" / "bundled").string();
    const ScenarioReport own = run_scenario_file(file, options);
    for (Scenario& row : file.rows) row.strategy.kind = model::StrategyKind::smt;
    const ScenarioReport smt = run_scenario_file(file, options);
    REQUIRE(own.rows.size() == smt.rows.size());
    for (std::size_t i = 0; i < own.rows.size(); ++i) {
      CHECK(smt.rows[i].outcome() == own.rows[i].outcome());
      CHECK(smt.rows[i].matched);
      CHECK(smt.rows[i].internal_errors == 0);
    }
  }
}

TEST_CASE("smt: --all-outcomes lists SB's four final states under TSO and three under SC", "[smt]") {
  RunOptions options;
  options.all_outcomes = true;
  const RowReport tso = check_file(write_litmus(kLitmus[0], "tso", "smt"), options);
  const RowReport sc = check_file(write_litmus(kLitmus[0], "sc", "smt"), options);
  CHECK(tso.smt.outcomes.size() == 4);
  CHECK(sc.smt.outcomes.size() == 3);
  CHECK(std::find(tso.smt.outcomes.begin(), tso.smt.outcomes.end(), "x=1 y=1 t0.r0=0 t1.r1=0") !=
        tso.smt.outcomes.end());
  CHECK(std::find(sc.smt.outcomes.begin(), sc.smt.outcomes.end(), "x=1 y=1 t0.r0=0 t1.r1=0") == sc.smt.outcomes.end());
}

TEST_CASE("smt: asserts, while loops within and past the unrolling", "[smt]") {
  const fs::path dir = lockstep::testing::scratch_dir() / "smt";
  fs::create_directories(dir);
  // t1 spins until it sees the flag, at most 3 times; under TSO t0's store may still be in
  // its buffer, so the loop can run out: bound_exceeded is a violation.
  const auto file = [&](const std::string& name, const std::string& strategy, const std::string& expect) {
    const fs::path path = dir / (name + ".yaml");
    std::ofstream(path) << "name: " << name << "\nmachine: {preset: flat, cpus: 2}\nmemory_model: tso\n"
                        << "variables: {x: 0, flag: 0}\nthreads:\n"
                        << "  - {name: t0, program: [{store: {var: x, value: 1, order: relaxed}}, "
                           "{store: {var: flag, value: 1, order: relaxed}}]}\n"
                        << "  - name: t1\n    program:\n      - load: {var: flag, into: r0, order: relaxed}\n"
                        << "      - while: {cond: \"r0 == 0\", max: 3, body: [{load: {var: flag, into: r0, order: "
                           "relaxed}}]}\n"
                        << "      - load: {var: x, into: r1, order: relaxed}\n      - assert: \"r1 == 1\"\n"
                        << "properties: [assertion, bound_exceeded]\nstrategy: " << strategy << "\nexpect: " << expect
                        << "\n";
    return path;
  };
  // MP under TSO: once the flag is seen, x is 1, so the assert holds; the loop can run out.
  const RowReport bound = check_file(file("spin", "{kind: smt}", "{violation: bound_exceeded}"));
  CHECK(bound.result == "violation");
  CHECK(bound.property == "bound_exceeded");
  CHECK(bound.smt.witness_replayed);
  CHECK(bound.matched);
  // Unrolled once, paths that need more iterations are left out, and the result says so.
  const RowReport cut = check_file(file("spin-cut", "{kind: smt, unroll: 1}", "pass"));
  CHECK(cut.result == "pass");
  CHECK_FALSE(cut.smt.complete);
  CHECK_FALSE(cut.exhaustive);
  CHECK(cut.smt.unroll == 1);
}

TEST_CASE("smt: an op it cannot encode is an error at its place", "[smt]") {
  const fs::path path = lockstep::testing::scratch_dir() / "smt" / "lock.yaml";
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "name: l\nmachine: {preset: flat, cpus: 2}\nvariables: {x: 0}\nlocks: [m]\nthreads:\n"
                         "  - {name: t0, program: [{lock: m}, {store: {var: x, value: 1}}, {unlock: m}]}\n"
                         "strategy: {kind: smt}\nexpect: pass\n";
  CHECK_THROWS_WITH(load_scenario_file(path.string()),
                    Catch::Contains("lock.yaml:6:26: the smt strategy cannot encode `lock`"));
  const fs::path timed = lockstep::testing::scratch_dir() / "smt" / "timed.yaml";
  std::ofstream(timed) << "name: t\nmachine: {preset: flat, cpus: 2}\nworkload: {kind: lock-counter, threads: 2, "
                          "iterations: 2}\nstrategy: {kind: smt}\nexpect: pass\n";
  CHECK_THROWS_WITH(load_scenario_file(timed.string()), Catch::Contains("the smt strategy decides thread programs"));
}

TEST_CASE("keys: Z3's colliding addresses land in one bucket by the table's own hash", "[smt][keys]") {
  axiomatic::KeyQuery q;
  q.config = futex::named_design("linux-6.16-private")->config;  // a 64-bucket table: quick to solve
  q.machine = {16, 2, 16};
  q.count = 4;
  const axiomatic::KeyAnswer a = axiomatic::colliding_keys(q);
  REQUIRE(a.addresses.size() == 4);
  CHECK(a.verified);
  CHECK(a.buckets_per_table == 64);
  for (std::size_t i = 0; i < a.addresses.size(); ++i) {
    const std::uint64_t addr = a.addresses[i];
    CHECK(addr % 4 == 0);
    CHECK(addr >= q.lo);
    CHECK(addr < q.hi);
    if (i > 0) CHECK(addr > a.addresses[i - 1]);
    // Independently of real_bucket: the key and hash as FutexTableImpl computes them.
    const std::uint32_t h = futex::hash_key(q.config.hash, futex::make_key(q.config.key, addr));
    CHECK((h & 63) == a.bucket.index);
  }
  // Shared keys hash another key (the page's index in the object), still verified.
  q.config.key = futex::KeyKind::shared_key;
  CHECK(axiomatic::colliding_keys(q).verified);
  // Per-node tables: the node's table is part of the bucket.
  axiomatic::KeyQuery numa;
  numa.config = futex::named_design("linux-6.16-private")->config;
  numa.config.sizing = futex::Sizing::per_node;
  numa.machine = {1, 4, 1};  // 4 tables of 64 buckets
  numa.count = 3;
  const axiomatic::KeyAnswer n = axiomatic::colliding_keys(numa);
  CHECK(n.tables == 4);
  CHECK(n.verified);
  // A range too small to hold them is refused, with the solver's proof.
  q.lo = 0x7f0000000000;
  q.hi = q.lo + 8;
  q.count = 3;
  CHECK_THROWS_WITH(axiomatic::colliding_keys(q), Catch::Contains("holds only"));
}
