// The idle loop (sim/exec/idle_model.hpp, docs/os.md "Adaptive idle"): each policy's
// decision on hand-checkable cases, FreeBSD's switch counter, and the engine charging what
// the model says: a two-thread ring on the flat machine, whose hops differ between policies
// by exactly the difference of their wake-up costs, computed here from the costs alone.
#include <catch2/catch.hpp>

#include <array>
#include <fstream>
#include <string>

#include "driver/runner.hpp"
#include "scratch_dir.hpp"
#include "sim/exec/idle_model.hpp"
#include "spec/scenario.hpp"

using namespace lockstep;  // NOLINT(google-build-using-namespace)
using sim::idle_wake;
using sim::IdleCosts;
using sim::IdlePolicy;
using sim::IdleState;

TEST_CASE("idle: each policy's wake-up, by hand", "[idle]") {
  IdleCosts c;
  c.ipi_send_ns = 600;
  c.hlt_exit_ns = 4000;
  c.mwait_exit_ns = 200;
  c.spin_detect_ns = 60;
  c.spin_iterations = 100;
  c.spin_switches = 4;
  c.mwait_switches = 1;
  const std::uint64_t pause = 4;  // spin window: 400 ns
  const std::uint64_t path = 30;
  // hlt: always an IPI, whatever the load; the waker pays the send.
  for (std::uint32_t switches : {0U, 100U}) {
    const auto w = idle_wake(IdlePolicy::hlt, c, switches, false, 10, pause, path);
    CHECK(w.state == IdleState::hlt);
    CHECK(w.wakee_ns == 600 + 30 + 4000);
    CHECK(w.waker_ns == 600);
  }
  // mwait: never an IPI.
  const auto m = idle_wake(IdlePolicy::mwait, c, 0, false, 1'000'000, pause, path);
  CHECK(m.state == IdleState::mwait);
  CHECK(m.wakee_ns == 200 + 30);
  CHECK(m.waker_ns == 0);
  // adaptive, FreeBSD's rules: above 4 recent switches spin for the window, then mwait;
  // above 1, mwait; else hlt. Never spin on an SMT core's thread.
  auto state = [&](std::uint32_t switches, bool smt, std::uint64_t idle_ns) {
    return idle_wake(IdlePolicy::adaptive, c, switches, smt, idle_ns, pause, path).state;
  };
  CHECK(state(5, false, 0) == IdleState::spin);
  CHECK(state(5, false, 399) == IdleState::spin);
  CHECK(idle_wake(IdlePolicy::adaptive, c, 5, false, 399, pause, path).wakee_ns == 60 + 30);
  CHECK(state(5, false, 400) == IdleState::mwait);
  CHECK(state(4, false, 0) == IdleState::mwait);
  CHECK(state(2, false, 0) == IdleState::mwait);
  CHECK(state(1, false, 0) == IdleState::hlt);
  CHECK(state(5, true, 0) == IdleState::mwait);  // SMT: no spinning
  CHECK(state(1, true, 0) == IdleState::hlt);
  CHECK(idle_wake(IdlePolicy::adaptive, c, 0, false, 0, pause, path).waker_ns == 600);
  // Where the idle time went (spin, mwait, hlt), for the same decisions.
  using Spent = std::array<std::uint64_t, 3>;
  CHECK(sim::idle_residency(IdlePolicy::hlt, c, 100, false, 1000, pause) == Spent{0, 0, 1000});
  CHECK(sim::idle_residency(IdlePolicy::mwait, c, 0, false, 1000, pause) == Spent{0, 1000, 0});
  CHECK(sim::idle_residency(IdlePolicy::adaptive, c, 5, false, 300, pause) == Spent{300, 0, 0});  // woken spinning
  CHECK(sim::idle_residency(IdlePolicy::adaptive, c, 5, false, 1000, pause) ==
        Spent{400, 600, 0});  // the window, then mwait
  CHECK(sim::idle_residency(IdlePolicy::adaptive, c, 5, true, 1000, pause) == Spent{0, 1000, 0});  // SMT: no spin
  CHECK(sim::idle_residency(IdlePolicy::adaptive, c, 2, false, 1000, pause) == Spent{0, 1000, 0});
  CHECK(sim::idle_residency(IdlePolicy::adaptive, c, 1, false, 1000, pause) == Spent{0, 0, 1000});
}

TEST_CASE("idle: the switch counter keeps this tick's and the last tick's switches", "[idle]") {
  const std::uint64_t tick = 1000;
  sim::SwitchCounter s;
  for (std::uint64_t at : {100, 200, 300}) s.count(at, tick);
  CHECK(s.recent(400, tick) == 3);
  s.count(1100, tick);  // the next tick: 3 last, 1 now
  CHECK(s.last == 3);
  CHECK(s.now == 1);
  CHECK(s.recent(1200, tick) == 4);
  CHECK(s.recent(2500, tick) == 1);  // a tick later: 1 last, 0 now
  CHECK(s.recent(9000, tick) == 0);  // ticks skipped: nothing recent
}

namespace {

struct RingRow {
  double virtual_ns = 0;
  double spin = 0, mwait = 0, hlt = 0;  // wake-ups by the state they found
};

// Runs the scenario `yaml` (written into `scratch`) as `lockstep run` does.
report::ScenarioReport run_scenario(const testing::ScratchDir& scratch, const std::string& yaml) {
  const auto path = scratch.path() / "scenario.yaml";
  std::ofstream(path) << yaml;
  driver::RunOptions o;
  o.command = driver::Command::run;
  o.out_dir = scratch.path().string();
  return driver::run_scenario_file(scenario::load_scenario_file(path.string()), o);
}

// A four-thread ring on the flat machine (whose idle costs are IdleCosts' defaults), one row
// per policy: hlt, mwait, adaptive, none.
std::vector<RingRow> ring_rows(const testing::ScratchDir& scratch) {
  const report::ScenarioReport report = run_scenario(scratch,
                                                     "name: ring\n"
                                                     "machine: {preset: flat, cpus: 4}\n"
                                                     "design: {futex: linux-3.14}\n"
                                                     "scheduler: {idle: hlt}\n"
                                                     "workload: {kind: ring, threads: 4, laps: 100}\n"
                                                     "sweep: {scheduler.idle: [hlt, mwait, adaptive, none]}\n"
                                                     "expect: pass\n");
  std::vector<RingRow> rows;
  for (const auto& row : report.rows) {
    REQUIRE(row.result == "pass");
    REQUIRE(row.workload.value("hops") == 400);
    rows.push_back({static_cast<double>(row.virtual_time_ns), row.workload.value("idle_wakes_spin"),
                    row.workload.value("idle_wakes_mwait"), row.workload.value("idle_wakes_hlt")});
  }
  return rows;
}

}  // namespace

TEST_CASE("idle: a ring's run time differs between policies by exactly their wake-ups' costs", "[idle]") {
  const testing::ScratchDir scratch("lockstep-idle");
  const std::vector<RingRow> rows = ring_rows(scratch);
  REQUIRE(rows.size() == 4);
  const IdleCosts c;  // the flat machine's; one CPU per thread, so no path between packages
  // A wake-up delays the woken thread by: hlt, the IPI's send and the halt's exit; mwait, its
  // exit; spin, the line's transfer. Everything else in the run is the same, and every hop
  // is on the token's one critical path, so the run times differ by the sum of these.
  auto cost = [&c](const RingRow& r) {
    return r.hlt * static_cast<double>(c.ipi_send_ns + c.hlt_exit_ns) + r.mwait * static_cast<double>(c.mwait_exit_ns) +
           r.spin * static_cast<double>(c.spin_detect_ns);
  };
  const RingRow& hlt = rows[0];
  const RingRow& mwait = rows[1];
  const RingRow& adaptive = rows[2];
  CHECK(hlt.hlt > 400);  // every hop wakes a halted CPU (and the stop token's round)
  CHECK(hlt.spin + hlt.mwait == 0);
  CHECK(mwait.mwait == hlt.hlt);
  CHECK(mwait.spin + mwait.hlt == 0);
  // adaptive (the flat machine has no SMT): the first wake-ups find CPUs that have not
  // switched enough to spin (they halt or mwait); then every CPU switches on every hop, and
  // a hop comes round within the spin window.
  CHECK(adaptive.hlt > 0);
  CHECK(adaptive.hlt + adaptive.mwait < 16);
  CHECK(adaptive.spin + adaptive.mwait + adaptive.hlt == hlt.hlt);
  CHECK(hlt.virtual_ns - mwait.virtual_ns == cost(hlt) - cost(mwait));
  CHECK(hlt.virtual_ns - adaptive.virtual_ns == cost(hlt) - cost(adaptive));
  // none keeps the engine's flat wake_ns: today's results, another figure.
  CHECK(rows[3].virtual_ns != hlt.virtual_ns);
}

TEST_CASE("idle: the periodic balancer wakes the idle CPU it hands a thread to, with an IPI", "[idle][placement]") {
  // scenarios/os/placement-periodic.yaml, shorter: the balancer moves 8 queued threads onto
  // 8 CPUs whose threads finished; under hlt each move is an IPI and a halted CPU's wake-up.
  const testing::ScratchDir scratch("lockstep-balance-ipi");
  const report::ScenarioReport report =
      run_scenario(scratch,
                   "name: balancer ipis\n"
                   "machine: {preset: barcelona-4s, time_slice_ns: 10000}\n"
                   "scheduler: {placement: topology, idle: hlt}\n"
                   "workload: {kind: counter-sharing, layout: padded, threads: 24, iterations: 30000, cpus: 1}\n"
                   "sweep: {scheduler.balance_interval_us: [0, 20]}\n"
                   "strategy: {kind: timed, seed: 1, max_steps: 20000000}\n"
                   "expect: pass\n");
  REQUIRE(report.rows.size() == 2);
  const auto& off = report.rows[0].workload;
  const auto& on = report.rows[1].workload;
  CHECK(off.value("balancer_moves") == 0);
  CHECK(off.value("ipis") == 0);  // nothing sleeps: no other wake-up
  CHECK(on.value("balancer_moves") == 8);
  CHECK(on.value("ipis") == on.value("balancer_moves"));
  CHECK(on.value("idle_wakes_hlt") == on.value("balancer_moves"));
  CHECK(report.rows[1].virtual_time_ns < report.rows[0].virtual_time_ns);  // it still pays
}

TEST_CASE("idle: a scenario overrides the machine's idle costs", "[idle]") {
  // The flat ring under hlt: every hop wakes a halted CPU on the token's critical path, so a
  // hlt exit 3 us shorter shortens the run by 3 us per halted wake-up.
  const testing::ScratchDir scratch("lockstep-idle-costs");
  const report::ScenarioReport report =
      run_scenario(scratch,
                   "name: ring\n"
                   "machine: {preset: flat, cpus: 4, idle_costs: {hlt_exit_ns: 4000}}\n"
                   "design: {futex: linux-3.14}\n"
                   "scheduler: {idle: hlt}\n"
                   "workload: {kind: ring, threads: 4, laps: 100}\n"
                   "sweep: {machine.idle_costs.hlt_exit_ns: [4000, 1000]}\n"
                   "expect: pass\n");
  REQUIRE(report.rows.size() == 2);
  const double halts = report.rows[0].workload.value("idle_wakes_hlt");
  CHECK(halts > 400);
  CHECK(report.rows[1].workload.value("idle_wakes_hlt") == halts);
  CHECK(static_cast<double>(report.rows[0].virtual_time_ns - report.rows[1].virtual_time_ns) == 3000 * halts);
}
