#include "report/headline_figures.hpp"

#include <algorithm>
#include <array>

namespace lockstep::report {

namespace {

constexpr double kNs = 1e-9;

// Every headline figure a bundled workload reports, most telling first. A workload reports a
// few of these (futex-hash: ops_per_s, ops_per_s_per_thread; fileio: ops_per_s and its read
// and write shares), so the order only ranks figures of one workload.
constexpr std::array<HeadlineFigure, 17> kHeadlines = {{
    {"ops_per_s", "ops/s", 1},                // futex-hash, fileio
    {"ops_per_s_p0", "ops/s", 1},             // futex-hash with processes: the first two (the CSV has all)
    {"ops_per_s_p1", "ops/s", 1},
    {"round_trips_per_s", "trips/s", 1},      // futex-pingpong
    {"wake_ns_per_round", "s", kNs},          // futex-wake
    {"requeue_ns_per_round", "s", kNs},       // futex-wake, requeue mode
    {"round_trip_ns", "s", kNs},              // futex-pingpong
    {"ops_per_s_per_thread", "ops/s", 1},     // futex-hash
    {"read_ops_per_s", "ops/s", 1},           // fileio
    {"write_ops_per_s", "ops/s", 1},          // fileio
    {"wakeup_latency_ns", "s", kNs},          // futex-wake
    {"calls_per_round", "", 1},               // futex-wake
    {"hop_ns", "s", kNs},                     // ring
    {"hops_per_s", "hops/s", 1},              // ring
    {"ipis", "", 1},                          // any timed row with scheduler.idle
    {"header_ns", "s", kNs},                  // header-scan
    {"colours", "", 1},                       // header-scan
}};

}  // namespace

std::vector<HeadlineFigure> headline_figures(const std::vector<std::string>& names) {
  std::vector<HeadlineFigure> out;
  for (const HeadlineFigure& h : kHeadlines)
    if (std::find(names.begin(), names.end(), h.name) != names.end()) out.push_back(h);
  return out;
}

std::string format_figure(const HeadlineFigure& figure, double raw, const SiStyle& style) {
  return format_si(raw * figure.scale, figure.unit, style);
}

}  // namespace lockstep::report
