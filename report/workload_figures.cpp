#include "report/workload_figures.hpp"

#include <algorithm>
#include <cctype>

namespace lockstep::report {

namespace {

constexpr double kNs = 1e-9;
using K = FigureKind;

// Each name is declared once, with every workload that reports it. Headline ranks only order the figures of one
// workload (futex-hash: ops_per_s, then its per-process rates, then per thread); compared figures are the same quantity
// both ways, since P::now() is real time natively and virtual time in the simulator.
const std::vector<FigureInfo>& table() {
  static const std::vector<FigureInfo> figures{
      // futex-hash (core/workloads/futex_hash.hpp)
      {"futex-hash, futex-pingpong, futex-wake, futex-requeue, ring, fileio", "design", K::label},
      {"futex-hash, futex-pingpong, futex-wake, futex-requeue, ring", "futex", K::label},
      {"futex-hash", "keys", K::label},
      {"futex-hash, futex-pingpong, ring, lock-counter, counter-sharing, fileio", "threads", K::parameter},
      {"futex-hash", "futexes", K::parameter},
      {"futex-hash", "buckets", K::parameter},
      {"futex-hash", "processes", K::parameter},
      {"futex-hash, fileio, counter-sharing", "ops_per_s", K::measured, "ops/s", 1, 1, true, true},
      {"futex-hash", "ops_per_s_p0", K::measured, "ops/s", 1, 2},
      {"futex-hash", "ops_per_s_p1", K::measured, "ops/s", 1, 3},
      {"futex-hash", "ops_per_s_p", K::numbered, "ops/s"},
      {"futex-hash", "colliding_bucket_p", K::numbered},
      {"futex-hash", "ops_per_s_per_thread", K::measured, "ops/s", 1, 8, true},
      {"futex-hash, fileio, counter-sharing", "per_thread_ops_per_s", K::per_thread, "ops/s", 1, 0, true},
      {"futex-hash", "release_skew_ns", K::measured, "s", kNs},
      {"futex-hash", "bucket_locks_per_op", K::measured},
      // futex-pingpong (core/workloads/futex_pingpong.hpp)
      {"futex-pingpong", "pairs", K::parameter},
      {"futex-pingpong", "words", K::parameter},
      {"futex-pingpong", "round_trips", K::measured},
      {"futex-pingpong", "round_trips_per_s", K::measured, "trips/s", 1, 4, true, true},
      {"futex-pingpong", "round_trips_per_s_per_pair", K::measured, "trips/s", 1, 0, true},
      {"futex-pingpong", "per_pair_round_trips_per_s", K::per_thread, "trips/s", 1, 0, true},
      {"futex-pingpong", "round_trip_ns", K::measured, "s", kNs, 7, true, true},
      {"futex-pingpong", "round_trip_p50_ns", K::measured, "s", kNs, 0, true},
      {"futex-pingpong", "round_trip_p90_ns", K::measured, "s", kNs, 0, true},
      {"futex-pingpong", "round_trip_p99_ns", K::measured, "s", kNs, 0, true},
      // futex-wake and futex-requeue (core/workloads/futex_wake.hpp)
      {"futex-wake, futex-requeue", "sleepers", K::parameter},
      {"futex-wake, futex-requeue", "batch", K::parameter},
      {"futex-wake, futex-requeue", "rounds", K::parameter},
      {"futex-wake, futex-requeue", "settle_us", K::parameter},
      {"futex-wake", "wake_ns_per_round", K::measured, "s", kNs, 5, true, true},
      {"futex-requeue", "requeue_ns_per_round", K::measured, "s", kNs, 6, true, true},
      {"futex-wake, futex-requeue", "calls_per_round", K::measured, "", 1, 12, true},
      {"futex-wake, futex-requeue", "wakeup_latency_ns", K::measured, "s", kNs, 11, true},
      // fileio (core/workloads/fileio_workload.hpp)
      {"fileio", "offset", K::label},
      {"fileio", "data", K::label},
      {"fileio", "read_ops_per_s", K::measured, "ops/s", 1, 9, true},
      {"fileio", "write_ops_per_s", K::measured, "ops/s", 1, 10, true},
      // ring (core/workloads/futex_ring.hpp)
      {"ring", "spin", K::parameter},
      {"ring", "work", K::parameter},
      {"ring", "laps", K::parameter},
      {"ring", "hops", K::measured},
      {"ring", "hop_ns", K::measured, "s", kNs, 13, true, true},
      {"ring", "hops_per_s", K::measured, "hops/s", 1, 14, true},
      // header-scan (core/workloads/header_scan.hpp)
      {"header-scan", "keg", K::label},
      {"header-scan", "buffers", K::parameter},
      {"header-scan", "colours", K::measured, "", 1, 17},
      {"header-scan", "colour_share", K::measured},
      {"header-scan", "bytes_per_buffer", K::measured, "B"},
      {"header-scan", "large_share", K::measured},
      {"header-scan", "remote_share", K::measured},
      {"header-scan", "header_reads", K::measured},
      {"header-scan", "header_ns", K::measured, "s", kNs, 16, true, true},
      // lock-counter (core/workloads/lock_counter.hpp): compare holds the run's duration
      // (driver/compare.cpp), as its rate counts each thread's own time.
      {"lock-counter", "acquisitions_per_s", K::measured, "acq/s"},
      {"lock-counter", "ns_per_acquisition", K::measured, "s", kNs},
      // counter-sharing (core/workloads/counter_sharing.hpp)
      {"counter-sharing", "layout", K::label},
      {"counter-sharing", "ns_per_op", K::measured, "s", kNs, 0, true},
      {"counter-sharing", "adds_per_handover", K::measured, "", 1, 0, true},
      // Any timed row with scheduler.idle or scheduler.placement (driver/row_runner.cpp)
      {"timed rows", "idle", K::label},
      {"timed rows", "idle_wakes_spin", K::measured},
      {"timed rows", "idle_wakes_mwait", K::measured},
      {"timed rows", "idle_wakes_hlt", K::measured},
      {"timed rows", "ipis", K::measured, "", 1, 15},
      {"timed rows", "idle_us", K::measured, "s", 1e-6},
      {"timed rows", "idle_spin_share", K::measured},
      {"timed rows", "idle_mwait_share", K::measured},
      {"timed rows", "idle_hlt_share", K::measured},
      {"timed rows", "placement", K::label},
      {"timed rows", "migrations", K::measured},
      {"timed rows", "balancer_moves", K::measured},
      {"timed rows", "near_placements", K::measured},
  };
  return figures;
}

}  // namespace

const std::vector<FigureInfo>& workload_figures() { return table(); }

const FigureInfo* find_figure(std::string_view name) {
  const std::vector<FigureInfo>& figures = table();
  for (const FigureInfo& f : figures)
    if (f.kind != FigureKind::numbered && f.name == name) return &f;
  for (const FigureInfo& f : figures) {
    if (f.kind != FigureKind::numbered || !name.starts_with(f.name) || name.size() == f.name.size()) continue;
    const std::string_view index = name.substr(f.name.size());
    if (std::all_of(index.begin(), index.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return &f;
  }
  return nullptr;
}

}  // namespace lockstep::report
