#include "driver/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "driver/c2c_means.hpp"
#include "driver/runner.hpp"
#include "io/files.hpp"

namespace lockstep::driver {

using report::RowReport;

namespace {

namespace fs = std::filesystem;
namespace mc = sim::machine;

// A fitted parameter stops moving when the simulated figure is this close to the measured one.
constexpr double kFitTolerance = 0.005;
constexpr int kMaxFitRounds = 5;
// A fit whose simulated figure ends further than this from the measured one has failed.
constexpr double kFitReached = 0.05;
constexpr int kScanPoints = 8;
// A probed size whose mean is past this share of the largest buffer's reached memory too often.
constexpr double kMostOfDram = 0.3;
// Where a chase's loads reach memory: its mean is past this share of the largest buffer's.
constexpr double kDramReached = 0.5;
constexpr int kBisectionRounds = 8;  // to 1/2048 of the interval after the scan
// The simulated adds in a row are whole numbers in a steady state: 3.5 measured can come out
// as 3 or 4 at best.
constexpr double kRunsReached = 0.15;
constexpr std::uint64_t kProbeSamples = 4000;

double round_to(double v, double step) { return std::round(v / step) * step; }

// The simulated probes a fit runs: scenarios a user could write, on the candidate machine
// written as a machine file, run by the same driver as `lockstep run`.
class ProbeSimulator {
 public:
  explicit ProbeSimulator(std::string work_dir) : dir_(std::move(work_dir)) { fs::create_directories(dir_); }

  double latency_mean(const Calibration& c, std::uint64_t bytes) {
    const RowReport r = run(c, fmt::format("workload: {{kind: latency-probe, bytes: {}, cpu: 0, samples: {}, seed: 1}}",
                                           bytes, kProbeSamples));
    if (r.machine.mean_ns <= 0) throw std::logic_error("calibration: the simulated latency probe measured nothing");
    return r.machine.mean_ns;
  }

  // The simulated c2c matrix, as means within and across packages.
  C2cMeans c2c(const Calibration& c) {
    const RowReport r = run(c, "workload: {kind: c2c, rounds: 100}");
    return c2c_means(r.machine.c2c_cpus, r.machine.c2c_ns,
                     [&c](int model_cpu) { return model_place(c.config, model_cpu); });
  }

  // ccbench's load of a line `holder` modified, from `reader`: the median over fresh lines.
  double ccbench_load_modified(const Calibration& c, int holder, int reader) {
    const RowReport r = run(c, fmt::format("workload: {{kind: ccbench, state: modified, op: load, holders: [{}], "
                                           "cpus: [{}], repetitions: 20}}",
                                           holder, reader));
    if (r.machine.ccbench.size() != 1) throw std::logic_error("calibration: the simulated ccbench measured nothing");
    return r.machine.ccbench.front().median_ns;
  }

  // Two threads on CPUs 0 and 1 adding to one counter: the adds one makes in a row.
  double adds_per_handover(const Calibration& c) {
    return positive(run(c, "workload: {kind: counter-sharing, layout: shared, threads: 2, cpus: 2, iterations: 2000}"),
                    "adds_per_handover", "counter-sharing made no add");
  }

  // A FUTEX_WAIT that finds the word changed, on the kernel's table: one thread's ns per call.
  double eagain_ns(const Calibration& c) {
    return 1e9 / positive(run(c,
                              "design: {futex: linux-3.14}\nworkload: {kind: futex-hash, threads: 1, futexes: 64, "
                              "runtime_us: 200}"),
                          "ops_per_s", "futex-hash made no call");
  }

  // futex-wake's one sleeper on the kernel's table, which the waker wakes only once it
  // sleeps (a ping-pong's waits often find the word changed): how long the waker's
  // FUTEX_WAKE takes, and how long from it to the sleeper running.
  struct WakeFigures {
    double call_ns = 0;
    double latency_ns = 0;
  };
  WakeFigures wake(const Calibration& c) {
    const RowReport r = run(c,
                            "design: {futex: linux-3.14}\nworkload: {kind: futex-wake, threads: 1, batch: 1, "
                            "rounds: 20}");
    const double calls = r.workload.value("calls_per_round");
    const WakeFigures w{calls > 0 ? r.workload.value("wake_ns_per_round") / calls : 0,
                        r.workload.value("wakeup_latency_ns")};
    if (w.latency_ns <= 0 || w.call_ns <= 0)
      throw std::logic_error("calibration: the simulated futex-wake woke nobody");
    return w;
  }

 private:
  // A workload figure that a simulated probe must have made positive.
  static double positive(const RowReport& r, const std::string& figure, const std::string& otherwise) {
    const double value = r.workload.value(figure);
    if (value <= 0) throw std::logic_error("calibration: the simulated " + otherwise);
    return value;
  }

  RowReport run(const Calibration& c, const std::string& workload) {
    const fs::path machine = fs::path(dir_) / "machine.yaml";
    const fs::path scenario = fs::path(dir_) / "probe.yaml";
    io::write_file_atomically(machine.string(), machine_file_text(c));
    io::write_file_atomically(scenario.string(),
                              fmt::format("name: calibration probe\nmachine: {{file: machine.yaml}}\n{}\n"
                                          "strategy: {{kind: timed, seed: 1, max_steps: 20000000}}\nexpect: pass\n",
                                          workload));
    const ScenarioFile file = scenario::load_scenario_file(scenario.string());
    RunOptions options;
    options.command = Command::run;
    options.out_dir = dir_;
    RowReport r = run_scenario_row(file, 0, options);
    if (r.result != "pass") throw std::logic_error(fmt::format("calibration: a simulated probe failed: {}", r.message));
    return r;
  }

  std::string dir_;
};

// What fit() reached: the last simulated figure, and whether it came within kFitReached of
// the measured one. A fit can fail: a simulated probe that never reaches what the parameter
// prices (a huge last level the probe's few lines never fill) does not move with it, and a
// fit that kept stepping would write a runaway value (it once wrote an L3 hit of 531 ns).
struct Fitted {
  double simulated = 0;
  bool reached = true;
};

// Moves `param` by the difference between `measured` and what `simulate` gives (divided by
// `slope`, how much the figure moves per unit of the parameter), until they agree. When they
// do not come within kFitReached, `param` goes back to its starting value (and `simulated` is
// the figure there): the caller says the field was not fitted. `param` stays at or above
// `floor` (a cache level is no faster than the level below it).
Fitted fit(double& param, double measured, const std::function<double()>& simulate, double step = 0.1, double slope = 1,
           double floor = 0) {
  const double start = param;
  double simulated = simulate();
  for (int round = 0; round < kMaxFitRounds; ++round) {
    const double diff = measured - simulated;
    if (std::abs(diff) <= kFitTolerance * measured) break;
    param = std::max(floor, round_to(param + diff / slope, step));
    simulated = simulate();
  }
  if (std::abs(measured - simulated) <= kFitReached * measured) return {simulated, true};
  param = start;
  return {simulate(), false};
}

// fit() for a figure that moves with `param` in steps, or not in one direction throughout
// (a ping-pong gets cheaper with a longer request leg only while the waiting side's request
// still arrives before the line is free): a scan of [lo, hi] finds the first interval where
// the figure crosses the measured one in the `rising` direction, a bisection narrows it, and
// the value whose figure came nearest is kept if within `reached` of the measured one;
// otherwise `param` goes back.
Fitted fit_by_scan(double& param, double lo, double hi, double measured, double reached, bool rising,
                   const std::function<double()>& simulate) {
  const double start = param;
  double best = start;
  double best_figure = simulate();
  // Simulates `value`, keeps it if nearest so far; true while the figure has not crossed.
  const auto short_of = [&](double value) {
    param = value;
    const double figure = simulate();
    if (std::abs(figure - measured) < std::abs(best_figure - measured)) {
      best = value;
      best_figure = figure;
    }
    return (figure < measured) == rising;
  };
  const double step = (hi - lo) / kScanPoints;
  bool crossed = !short_of(lo);
  for (int i = 1; i <= kScanPoints && !crossed; ++i) {
    if (!short_of(lo + step * i)) {
      crossed = true;
      hi = lo + step * i;
      lo = hi - step;
    }
  }
  for (int round = 0; round < kBisectionRounds && crossed; ++round) {
    const double mid = (lo + hi) / 2;
    (short_of(mid) ? lo : hi) = mid;
  }
  param = best;
  if (std::abs(measured - best_figure) <= reached * measured) return {best_figure, true};
  param = start;
  return {simulate(), false};
}

// What a source line adds for a fit that did not come close: the value kept is the start.
std::string unfitted(const Fitted& f, double kept) {
  if (f.reached) return {};
  return fmt::format(
      "; NOT FITTED: no value tried brought the simulated figure within {:g}% of the measured one, so "
      "the start, {:g}, is kept [guess]",
      kFitReached * 100, kept);
}

// fit() for a whole-nanosecond OS cost, from `start` (at least 0): the field holds each
// candidate while it is simulated, and the fitted value at the end.
Fitted fit_ns(std::uint64_t& field, double start, double measured, const std::function<double()>& simulate) {
  double value = std::max(0.0, start);
  const auto apply = [&] { field = static_cast<std::uint64_t>(std::round(value)); };
  apply();
  const Fitted fitted = fit(
      value, measured,
      [&] {
        apply();
        return simulate();
      },
      1.0);
  apply();
  return fitted;
}

// The probed size that exercises a cache of `bytes`: the largest at most a quarter of it,
// else at most half. The levels below still answer part of the accesses; the fit by
// simulation accounts for them, as the simulator mixes levels the way the host does. What
// it cannot account for is a level that holds less than it reports: at half its size a
// chase already misses now and then on a VM (this workplace's Intel guest, whose L2 says 2
// MiB: 4.44 ns a load at 128 and 256 KiB, 4.5-4.8 at 512 KiB, 5.1-9.7 at 1 MiB from run to
// run), and the fitted hit then moved the simulated 128 KiB point from -12% to +56%.
// A level is taken to be no larger than the probe shows it: the largest size whose mean
// stays within kMostOfDram of `dram_ns` (DRAM's figure; infinite when none was measured).
// Past that many loads went to memory, so the level is smaller than sysfs says (a VM may
// report its host's whole last level: this workplace's Intel guest says 480 MiB, and its
// loads reach DRAM from about 16 MiB). The quarter and the half are of that size, then the
// size itself: at the edge a chase's mean is part DRAM's (45-58 ns at 8-16 MiB here, from
// run to run, against 36.6-37.3 at 4 MiB).
std::optional<CalibrationMeasurements::MemoryPoint> point_within(const CalibrationMeasurements& m, std::uint64_t bytes,
                                                                 std::uint64_t above, double dram_ns) {
  std::uint64_t shown = 0;
  for (const auto& p : m.memory)
    if (p.mean_ns <= kMostOfDram * dram_ns) shown = std::max(shown, p.bytes);
  const std::uint64_t size = std::min(bytes, shown);
  for (std::uint64_t limit : {size / 4, size / 2, size}) {
    std::optional<CalibrationMeasurements::MemoryPoint> best;
    for (const auto& p : m.memory)
      if (p.bytes <= limit && p.bytes > above && p.mean_ns <= kMostOfDram * dram_ns && (!best || p.bytes > best->bytes))
        best = p;
    if (best) return best;
  }
  return std::nullopt;
}

std::string kib(std::uint64_t bytes) {
  return bytes >= (1u << 20) && bytes % (1u << 20) == 0 ? fmt::format("{} MiB", bytes >> 20)
                                                        : fmt::format("{} KiB", bytes >> 10);
}

// The point that prices DRAM for a model without a TLB. Past the last cache a chase's mean
// keeps growing with the buffer, as page walks do: this workplace's Intel guest measured
// 157-168 ns a load from 32 to 256 MiB and 226 ns at 2 GiB, all in 2 MiB pages, so the
// largest buffer priced every simulated DRAM access 20-35% too high. Memory is reached, for
// most loads, from the first size whose mean is past half the largest's (a chase there still
// hits the last level now and then); from 4 times that size on, the least mean is the one
// with the fewest page walks. Without 4 times that size probed, the largest buffer.
CalibrationMeasurements::MemoryPoint dram_point(const CalibrationMeasurements& m,
                                                const CalibrationMeasurements::MemoryPoint& largest) {
  std::uint64_t reached = largest.bytes;
  for (const auto& p : m.memory)
    if (p.mean_ns > kDramReached * largest.mean_ns) reached = std::min(reached, p.bytes);
  std::optional<CalibrationMeasurements::MemoryPoint> best;
  for (const auto& p : m.memory)
    if (p.bytes >= 4 * reached && (!best || p.mean_ns < best->mean_ns)) best = p;
  return best.value_or(largest);
}

void fit_memory(Calibration& c, const CalibrationMeasurements& m, ProbeSimulator& sim) {
  auto& sources = c.info.sources;
  // DRAM is measured when the largest probed buffer, which the probe makes at least 4 times
  // the last level, is. Which size prices it is dram_point's choice; the simulated probe
  // runs at the largest (past the model's caches its latency does not grow with the buffer).
  const auto largest = std::max_element(m.memory.begin(), m.memory.end(),
                                        [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  const bool dram_measured = largest != m.memory.end() && largest->bytes >= 4 * c.config.caches.back().size_bytes;
  const double dram_ns = dram_measured ? largest->mean_ns : std::numeric_limits<double>::infinity();
  std::uint64_t below = 0;
  for (std::size_t level = 0; level < c.config.caches.size(); ++level) {
    mc::CacheLevel& cache = c.config.caches[level];
    const auto point = point_within(m, cache.size_bytes, below, dram_ns);
    below = cache.size_bytes;
    if (!point) {
      sources.emplace_back(fmt::format("caches.{}.hit_ns", cache.name),
                           fmt::format("{}'s [guess]: no probed size fits {} ({})", kCalibrationBase, cache.name,
                                       kib(cache.size_bytes)));
      continue;
    }
    // From the preset's value, so that a level the simulated probe cannot fit keeps it.
    // The probe chases a cycle (sim/line_cycle.hpp), so past a level's size that level misses
    // every read: a level's mean is mostly its own hit, and it can be fitted below the
    // level under it. The floor keeps a level at least as slow as that one.
    const double floor = level == 0 ? 0.0 : c.config.caches[level - 1].hit_ns;
    const Fitted f = fit(
        cache.hit_ns, point->mean_ns, [&] { return sim.latency_mean(c, point->bytes); }, 0.1, 1, floor);
    sources.emplace_back(
        fmt::format("caches.{}.hit_ns", cache.name),
        fmt::format("memory probe: {:.1f} ns per access at {} ({} is {}); simulated {:.1f} ns{}", point->mean_ns,
                    kib(point->bytes), cache.name, kib(cache.size_bytes), f.simulated, unfitted(f, cache.hit_ns)));
  }
  if (!dram_measured) {
    sources.emplace_back("dram.latency_ns",
                         fmt::format("{}'s [guess]: no probed size reaches 4x the last level", kCalibrationBase));
    return;
  }
  const CalibrationMeasurements::MemoryPoint dram = dram_point(m, *largest);
  c.config.dram.latency_ns = std::max(1.0, round_to(dram.mean_ns - c.config.uncore_ns, 0.1));
  const Fitted f = fit(c.config.dram.latency_ns, dram.mean_ns, [&] { return sim.latency_mean(c, largest->bytes); });
  const std::string chosen =
      dram.bytes == largest->bytes
          ? std::string("the largest buffer")
          : fmt::format("the least mean from 4 times where memory is reached; {:.1f} ns at {}, with more page walks",
                        largest->mean_ns, kib(largest->bytes));
  sources.emplace_back("dram.latency_ns",
                       fmt::format("memory probe: {:.1f} ns per access at {} ({}; {}; includes the TLB misses the "
                                   "model does not have), less uncore_ns {:g}, fitted; simulated at {} {:.1f} ns{}",
                                   dram.mean_ns, kib(dram.bytes), m.huge_pages, chosen, c.config.uncore_ns,
                                   kib(largest->bytes), f.simulated, unfitted(f, c.config.dram.latency_ns)));
}

// Two model CPUs on different cores of package 0 (the ccbench pair of the simulated side);
// nullopt when package 0 has one core.
std::optional<std::pair<int, int>> model_pair_in_package(const mc::MachineConfig& config) {
  const CpuPlace first = model_place(config, 0);
  for (int cpu = 1; cpu < config.cpus(); ++cpu) {
    const CpuPlace p = model_place(config, cpu);
    if (p.package == first.package && p.core != first.core) return std::pair{0, cpu};
  }
  return std::nullopt;
}

// The native ccbench pair is in one package, on two cores.
bool transfer_in_package(const CalibrationMeasurements& m, const std::map<int, CpuPlace>& at) {
  if (!m.ccbench_transfer) return false;
  const auto a = at.find(m.ccbench_transfer->holder);
  const auto b = at.find(m.ccbench_transfer->reader);
  return a != at.end() && b != at.end() && a->second.package == b->second.package && a->second.core != b->second.core;
}

// The legs of a transfer within a package (c2c_legs), once c2c_same_package_ns is one whole
// transfer: the request leg from the ping-pong, whose waiting side has its request ordered
// already, so that a pass costs the transfer less that leg; the forward leg from two CPUs'
// contended adds, since the owner keeps adding while the next request is forwarded to it.
// Each is fitted by simulation; they barely interact (the ping-pong does not depend on how
// the rest splits, the adds' runs not on the request leg).
void fit_legs(Calibration& c, const CalibrationMeasurements& m, double pingpong_ns, std::pair<int, int> pair,
              ProbeSimulator& sim) {
  auto& sources = c.info.sources;
  c.config.c2c_legs = mc::MachineConfig::C2cLegs{1.0 / 3, 1.0 / 3};
  auto& legs = *c.config.c2c_legs;
  const double transfer = c.config.c2c_same_package_ns;
  // The longer the request leg, the cheaper the ping-pong's pass.
  const Fitted request = fit_by_scan(legs.request, 0, 1 - legs.forward, pingpong_ns, kFitReached, false,
                                     [&] { return sim.c2c(c).same_package; });
  sources.emplace_back("c2c_legs.request",
                       fmt::format("c2c probe: a ping-pong's one way, {:.1f} ns, against one transfer of {:g} ns: "
                                   "simulated {:.1f} ns{}",
                                   pingpong_ns, transfer, request.simulated, unfitted(request, legs.request)));
  if (!m.adds_per_handover || pair != std::pair{0, 1}) {
    sources.emplace_back("c2c_legs.forward", m.adds_per_handover
                                                 ? "a third [guess]: the model's CPUs 0 and 1 are not two cores of "
                                                   "one package, where the simulated adds run"
                                                 : "a third [guess]: the contended adds were not measured");
    return;
  }
  // The simulated runs grow with the forward leg in whole adds (an owner makes a whole add or
  // none), so a bisection finds the nearest; it counts as fitted within kRunsReached.
  const Fitted forward = fit_by_scan(legs.forward, 0, 1 - legs.request, *m.adds_per_handover, kRunsReached, true,
                                     [&] { return sim.adds_per_handover(c); });
  sources.emplace_back("c2c_legs.forward",
                       fmt::format("c2c probe: two CPUs adding to one counter make {:.2f} adds in a row before the "
                                   "line moves; simulated {:.2f}{}",
                                   *m.adds_per_handover, forward.simulated, unfitted(forward, legs.forward)));
}

// Whether a read of a line another core of the package modified takes it whole: the writer's
// own re-read after the other core's load costs a transfer then, a hit if the line was shared.
// Half a transfer decides [derived: the two differ by the transfer].
void fit_migratory(Calibration& c, const CalibrationMeasurements& m, bool transfer_in_package) {
  auto& sources = c.info.sources;
  if (!m.writer_reread_ns || !m.ccbench_transfer || !transfer_in_package) {
    sources.emplace_back("migratory_reads",
                         fmt::format("{}'s: false (not measured within one package)", kCalibrationBase));
    return;
  }
  const double transfer = m.ccbench_transfer->ns;
  c.config.migratory_reads = *m.writer_reread_ns > transfer / 2;
  sources.emplace_back(
      "migratory_reads",
      fmt::format("c2c probe: CPU {} re-read a line it wrote, after CPU {} loaded it, in {:.1f} ns (median), against "
                  "one transfer of {:.1f} ns: {}",
                  m.ccbench_transfer->holder, m.ccbench_transfer->reader, *m.writer_reread_ns, transfer,
                  c.config.migratory_reads ? "the read took the line whole" : "the read shared the line"));
}

void fit_c2c(Calibration& c, const CalibrationMeasurements& m, const mc::HostTopology& host, ProbeSimulator& sim,
             TransferFit transfer) {
  auto& sources = c.info.sources;
  const std::map<int, CpuPlace> at = host_places(host);
  const C2cMeans native = c2c_means(m.c2c_cpus, m.c2c_ns, [&at](int cpu) {
    const auto it = at.find(cpu);
    return it == at.end() ? CpuPlace{} : it->second;
  });
  const auto simulated_means = [&] { return sim.c2c(c); };
  const std::optional<std::pair<int, int>> pair = model_pair_in_package(c.config);
  const bool have_transfer = transfer_in_package(m, at) && pair;
  fit_migratory(c, m, have_transfer);
  const auto simulated_transfer = [&] { return sim.ccbench_load_modified(c, pair->first, pair->second); };
  if (transfer == TransferFit::ccbench && !have_transfer)
    throw std::runtime_error("calibrate --transfer-from ccbench: no two cores of one package were measured");
  // The legs need one transfer and a ping-pong within a package; without them the
  // transfer is fitted to the ping-pong and split in thirds.
  const bool legs = transfer == TransferFit::legs && have_transfer && native.same_pairs > 0;
  if (transfer == TransferFit::legs && !legs)
    sources.emplace_back("c2c_legs", "a third each [guess]: no transfer and ping-pong within one package measured");
  if (transfer == TransferFit::ccbench || legs) {
    const double measured = m.ccbench_transfer->ns;
    c.config.c2c_same_package_ns = round_to(measured, 0.1);
    const Fitted f = fit(c.config.c2c_same_package_ns, measured, simulated_transfer);
    const std::string pingpong =
        native.same_pairs > 0 && !legs
            ? fmt::format("; the c2c probe's ping-pong, one way {:.1f} ns, is simulated {:.1f} ns", native.same_package,
                          simulated_means().same_package)
            : std::string();
    sources.emplace_back(
        "c2c_same_package_ns",
        fmt::format("ccbench probe{}: a load of a line CPU {} modified, "
                    "from CPU {}, {:.1f} ns (the least of its runs' medians); simulated {:.1f} ns{}{}",
                    legs ? "" : " (--transfer-from ccbench)", m.ccbench_transfer->holder, m.ccbench_transfer->reader,
                    measured, f.simulated, unfitted(f, c.config.c2c_same_package_ns), pingpong));
    if (legs) fit_legs(c, m, native.same_package, *pair, sim);
  } else if (native.same_pairs > 0) {
    // Scanned, not stepped: where a locked instruction's wait comes before its line, the
    // ping-pong's retrying CAS meets the line at a phase that moves with the transfer, so
    // the one way grows with it in steps.
    c.config.c2c_same_package_ns = round_to(native.same_package, 0.1);
    const Fitted f =
        fit_by_scan(c.config.c2c_same_package_ns, native.same_package / 2, 2 * native.same_package, native.same_package,
                    kFitReached, true, [&] { return simulated_means().same_package; });
    const std::string one_transfer =
        have_transfer ? fmt::format("; the ccbench probe's load of a modified line, {:.1f} ns, is simulated {:.1f} ns",
                                    m.ccbench_transfer->ns, simulated_transfer())
                      : std::string();
    sources.emplace_back("c2c_same_package_ns",
                         fmt::format("c2c probe: mean one-way {:.1f} ns over {} pair(s) of cores in one package; "
                                     "simulated {:.1f} ns{}{}",
                                     native.same_package, native.same_pairs, f.simulated,
                                     unfitted(f, c.config.c2c_same_package_ns), one_transfer));
  } else {
    sources.emplace_back("c2c_same_package_ns",
                         fmt::format("{}'s [guess]: no two cores of one package were measured", kCalibrationBase));
  }
  if (native.cross_pairs > 0) {
    const Fitted f =
        fit(c.config.remote_cache_ns, native.cross_package, [&] { return simulated_means().cross_package; });
    sources.emplace_back(
        "remote_cache_ns",
        fmt::format("c2c probe: mean one-way {:.1f} ns over {} pair(s) across packages; simulated "
                    "{:.1f} ns{}",
                    native.cross_package, native.cross_pairs, f.simulated, unfitted(f, c.config.remote_cache_ns)));
  } else {
    sources.emplace_back("remote_cache_ns", fmt::format("{}'s [guess]: {}", kCalibrationBase,
                                                        c.config.packages == 1 ? "one package, nothing crosses one"
                                                                               : "no cross-package pair measured"));
  }
}

// A locked instruction's own cost and a fence's, from the c2c probe's uncontended timings.
// A simulated fetch_add on a line of one's own costs an L1 hit plus locked_ns, so locked_ns
// is the difference; a fence costs fence_ns whole.
void fit_atomics(Calibration& c, const CalibrationMeasurements& m) {
  auto& sources = c.info.sources;
  if (m.own_line_rmw_ns) {
    const double l1 = c.config.caches.front().hit_ns;
    c.config.locked_ns = std::max(0.0, round_to(*m.own_line_rmw_ns - l1, 0.1));
    sources.emplace_back("locked_ns",
                         fmt::format("c2c probe: a locked fetch_add on a line of one's own takes {:.2f} ns "
                                     "uncontended; less the L1 hit of {:g} ns",
                                     *m.own_line_rmw_ns, l1));
  } else {
    sources.emplace_back("locked_ns", std::string(kCalibrationBase) + "'s: not measured");
  }
  if (m.fence_ns) {
    c.config.os.fence_ns = static_cast<std::uint64_t>(std::max(1.0, std::round(*m.fence_ns)));
    sources.emplace_back("fence_ns", fmt::format("c2c probe: a seq_cst fence between loads of one's own line takes "
                                                 "{:.2f} ns more than the loads alone",
                                                 *m.fence_ns));
  } else {
    sources.emplace_back("fence_ns", std::string(kCalibrationBase) + "'s [guess]: not measured");
  }
  // x86's locked instructions are full fences (Intel SDM vol. 3A, 9.2.2: loads and stores
  // are not reordered with them): the part of their own cost that a fence costs too is the
  // wait for the store buffer and the older instructions, before the read reaches the line.
  if (m.own_line_rmw_ns && m.fence_ns && c.config.locked_ns > 0) {
    c.config.locked_before_line = round_to(std::min(1.0, *m.fence_ns / c.config.locked_ns), 0.01);
    sources.emplace_back("locked_before_line",
                         fmt::format("c2c probe: a fence costs {:.2f} ns, a locked instruction {:g} ns beyond its L1 "
                                     "hit; the fence's share of that ({:g}) comes before the line is taken [derived: "
                                     "a locked instruction is a fence, Intel SDM vol. 3A 9.2.2]",
                                     *m.fence_ns, c.config.locked_ns, c.config.locked_before_line));
  } else {
    sources.emplace_back("locked_before_line", std::string(kCalibrationBase) +
                                                   "'s: 0, the locked instruction holds its line throughout "
                                                   "(a fence and a locked instruction were not both measured)");
  }
  if (m.pause_ns) {
    c.config.os.pause_ns = static_cast<std::uint64_t>(std::max(1.0, std::round(*m.pause_ns)));
    sources.emplace_back("pause_ns", fmt::format("c2c probe: a spin hint (pause) takes {:.2f} ns", *m.pause_ns));
  } else {
    sources.emplace_back("pause_ns", std::string(kCalibrationBase) + "'s [guess]: not measured");
  }
}

// How much a transfer varies, from the ping-pong timed round trip by round trip: one pass is
// one transfer (the waiting side's request is already ordered), so a round trip's variation
// is two transfers' jitter. Two uniform draws on [0, J) add up to an interquartile range of
// (2 - sqrt 2) J, and a one-way time is half a round trip, so J = 2 IQR / (2 - sqrt 2)
// [derived; the clock's noise is counted in, so J is at most this].
void fit_jitter(Calibration& c, const CalibrationMeasurements& m) {
  auto& sources = c.info.sources;
  if (!m.one_way_iqr_ns || *m.one_way_iqr_ns <= 0) {
    sources.emplace_back("transfer_jitter_ns", std::string(kCalibrationBase) + "'s: 0 (not measured)");
    return;
  }
  c.config.transfer_jitter_ns = round_to(2 * *m.one_way_iqr_ns / (2 - std::sqrt(2.0)), 0.1);
  sources.emplace_back("transfer_jitter_ns",
                       fmt::format("c2c probe: the ping-pong's one way varies by {:.2f} ns (interquartile range, round "
                                   "trips timed one by one): two transfers' uniform jitter of {:g} ns each [derived]",
                                   *m.one_way_iqr_ns, c.config.transfer_jitter_ns));
}

void fit_os(Calibration& c, const CalibrationMeasurements& m, ProbeSimulator& sim) {
  auto& sources = c.info.sources;
  auto& work = c.config.os.work_ns;
  auto& entry = work[static_cast<std::size_t>(Work::syscall_entry)];
  auto& exit = work[static_cast<std::size_t>(Work::syscall_exit)];
  if (m.syscall_ns) {
    // One parameter moves both halves; the split is a guess (the probe times the round trip).
    double half = std::max(1.0, std::round((*m.syscall_ns - static_cast<double>(entry + exit)) / 2 + entry));
    const auto apply = [&] {
      entry = static_cast<std::uint64_t>(half);
      exit = static_cast<std::uint64_t>(half);
    };
    apply();
    // Both halves move: the call's cost moves twice as far as `half`.
    const Fitted f = fit(
        half, *m.syscall_ns,
        [&] {
          apply();
          return sim.eagain_ns(c);
        },
        1.0, 2.0);
    apply();
    const std::string from = fmt::format(
        "futex probe: FUTEX_WAIT returning EAGAIN takes {:.0f} ns; a simulated one "
        "(linux-3.14's table, one thread) {:.0f} ns; split evenly [guess]{}",
        *m.syscall_ns, f.simulated, unfitted(f, half));
    sources.emplace_back("syscall_entry_ns", from);
    sources.emplace_back("syscall_exit_ns", from);
    if (!m.wake_call_ns) {
      // The waker's share of a wakeup is at least its FUTEX_WAKE call [guess].
      c.config.os.unpark_ns = static_cast<std::uint64_t>(std::round(*m.syscall_ns));
      sources.emplace_back("unpark_ns", "the EAGAIN system call's cost: a FUTEX_WAKE is one system call [guess]");
    }
  } else {
    sources.emplace_back("syscall_entry_ns", std::string(kCalibrationBase) + "'s [guess]: not measured");
  }
  if (m.context_switch_ns) {
    c.config.os.context_switch_ns = static_cast<std::uint64_t>(std::round(*m.context_switch_ns));
    sources.emplace_back(
        "context_switch_ns",
        fmt::format("futex probe: two threads on one CPU, half a round trip: {:.0f} ns", *m.context_switch_ns));
  }
  if (m.wake_call_ns) {
    // The waker's FUTEX_WAKE of a sleeper is a system call plus the kernel's waking (on a VM
    // the IPI goes through the hypervisor): unpark_ns is that call less the table's own work
    // and the call's entry and exit, fitted on the simulated futex-wake.
    const Fitted f = fit_ns(c.config.os.unpark_ns, *m.wake_call_ns - (m.syscall_ns ? *m.syscall_ns : 0.0),
                            *m.wake_call_ns, [&] { return sim.wake(c).call_ns; });
    sources.emplace_back(
        "unpark_ns",
        fmt::format("futex probe: the waker's FUTEX_WAKE of a sleeping thread takes {:.0f} "
                    "ns; simulated (futex-wake, one sleeper, linux-3.14's table): {:.0f} ns{}",
                    *m.wake_call_ns, f.simulated, unfitted(f, static_cast<double>(c.config.os.unpark_ns))));
  }
  if (m.wake_ns) {
    const Fitted f = fit_ns(c.config.os.wake_ns, *m.wake_ns - static_cast<double>(c.config.os.unpark_ns), *m.wake_ns,
                            [&] { return sim.wake(c).latency_ns; });
    sources.emplace_back("wake_ns",
                         fmt::format("futex probe: wake to running {:.0f} ns (ping-pong / 2); simulated "
                                     "(futex-wake, one sleeper, linux-3.14's table): {:.0f} ns{}",
                                     *m.wake_ns, f.simulated, unfitted(f, static_cast<double>(c.config.os.wake_ns))));
  }
}

}  // namespace

Calibration fit_calibration(const mc::HostTopology& host, const CalibrationMeasurements& measured,
                            const scenario::HostIdentity& id, const std::string& when, const std::string& work_dir,
                            TransferFit transfer) {
  if (transfer == TransferFit::ccbench && !measured.ccbench_transfer)
    throw std::runtime_error("calibrate --transfer-from ccbench: no two cores of one package were measured");
  Calibration c;
  c.config = host.config;
  c.config.name = "host";
  if (c.config.threads_per_core == 1) c.config.smt_work_factor = 1.0;
  c.info.host = id.host;
  c.info.cpu = id.cpu;
  c.info.cpus = id.cpus;
  c.info.when = when;
  c.info.clock = measured.clock;
  c.info.notes = host.notes;
  ProbeSimulator sim(work_dir);
  fit_memory(c, measured, sim);
  fit_atomics(c, measured);
  fit_jitter(c, measured);  // before the transfer's fits, which it moves
  fit_c2c(c, measured, host, sim, transfer);
  fit_os(c, measured, sim);
  c.info.notes.push_back(
      fmt::format("not measured, {}'s [guess]: coherence protocol, uncore_ns, probe_ns, DRAM "
                  "banks and rows, link bandwidth, hash and compute costs",
                  kCalibrationBase));
  return c;
}

std::string machine_file_text(const Calibration& c) {
  const mc::MachineConfig& m = c.config;
  YAML::Emitter out;
  out.SetDoublePrecision(6);  // fitted numbers are rounded to 0.1 ns; binary noise would only confuse
  out << YAML::Comment("lockstep machine file (docs/machines.md, \"Machine files\"): written by lockstep calibrate")
      << YAML::Newline;
  out << YAML::BeginMap;
  out << YAML::Key << "calibration" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "host" << YAML::Value << c.info.host;
  out << YAML::Key << "cpu" << YAML::Value << c.info.cpu;
  out << YAML::Key << "cpus" << YAML::Value << c.info.cpus;
  out << YAML::Key << "when" << YAML::Value << c.info.when;
  out << YAML::Key << "clock" << YAML::Value << c.info.clock;
  out << YAML::Key << "sources" << YAML::Value << YAML::BeginMap;
  for (const auto& [field, from] : c.info.sources) out << YAML::Key << field << YAML::Value << from;
  out << YAML::EndMap;
  out << YAML::Key << "notes" << YAML::Value << YAML::BeginSeq;
  for (const std::string& note : c.info.notes) out << note;
  out << YAML::EndSeq << YAML::EndMap;

  out << YAML::Key << "machine" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << m.name;
  out << YAML::Key << "preset" << YAML::Value << kCalibrationBase
      << YAML::Comment("what nothing measured keeps [guess]");
  out << YAML::Key << "packages" << YAML::Value << m.packages;
  out << YAML::Key << "cores_per_package" << YAML::Value << m.cores_per_package;
  out << YAML::Key << "threads_per_core" << YAML::Value << m.threads_per_core;
  out << YAML::Key << "smt_work_factor" << YAML::Value << m.smt_work_factor;
  out << YAML::Key << "caches" << YAML::Value << YAML::BeginSeq;
  for (const mc::CacheLevel& level : m.caches) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << level.name << YAML::Key << "size_bytes"
        << YAML::Value << level.size_bytes << YAML::Key << "ways" << YAML::Value << level.ways << YAML::Key << "hit_ns"
        << YAML::Value << level.hit_ns << YAML::Key << "scope" << YAML::Value
        << (level.scope == mc::CacheScope::core ? "core" : "package") << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "dram" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "latency_ns" << YAML::Value
      << m.dram.latency_ns << YAML::EndMap;
  out << YAML::Key << "c2c_same_package_ns" << YAML::Value << m.c2c_same_package_ns;
  if (m.c2c_legs) {
    out << YAML::Key << "c2c_legs" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "request"
        << YAML::Value << m.c2c_legs->request << YAML::Key << "forward" << YAML::Value << m.c2c_legs->forward
        << YAML::EndMap;
  }
  if (m.migratory_reads) out << YAML::Key << "migratory_reads" << YAML::Value << true;
  out << YAML::Key << "remote_cache_ns" << YAML::Value << m.remote_cache_ns;
  out << YAML::Key << "locked_ns" << YAML::Value << m.locked_ns;
  if (m.locked_before_line > 0) out << YAML::Key << "locked_before_line" << YAML::Value << m.locked_before_line;
  if (m.transfer_jitter_ns > 0) out << YAML::Key << "transfer_jitter_ns" << YAML::Value << m.transfer_jitter_ns;
  out << YAML::Key << "fence_ns" << YAML::Value << m.os.fence_ns;
  out << YAML::Key << "pause_ns" << YAML::Value << m.os.pause_ns;
  if (!m.links.empty()) {
    out << YAML::Key << "links" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "latency_ns"
        << YAML::Value << m.links.front().latency_ns << YAML::EndMap;
  }
  const auto& work = m.os.work_ns;
  out << YAML::Key << "wake_ns" << YAML::Value << m.os.wake_ns;
  out << YAML::Key << "unpark_ns" << YAML::Value << m.os.unpark_ns;
  out << YAML::Key << "context_switch_ns" << YAML::Value << m.os.context_switch_ns;
  out << YAML::Key << "syscall_entry_ns" << YAML::Value << work[static_cast<std::size_t>(Work::syscall_entry)];
  out << YAML::Key << "syscall_exit_ns" << YAML::Value << work[static_cast<std::size_t>(Work::syscall_exit)];
  out << YAML::EndMap << YAML::EndMap;
  if (!out.good())
    throw std::logic_error(fmt::format("calibration: cannot write the machine file: {}", out.GetLastError()));
  return std::string(out.c_str()) + "\n";
}

}  // namespace lockstep::driver
