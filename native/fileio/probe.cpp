#include "native/fileio/probe.hpp"

#include <chrono>

#include "native/fileio/experiments.hpp"
#include "native/fileio/interrupt.hpp"
#include "native/fileio/probe_dir.hpp"
#include "native/fileio/race.hpp"

namespace lockstep::native::fileio {

namespace {

// Shares of the probe's time, in percent. Torn reads get the most: they are the anomaly
// Linux is known to show (docs/sources.md section 3), and each size needs its own share.
constexpr int kTornPercent = 40;  // split evenly among kTornReadSizes
constexpr int kInterleaveRangePercent = 10;
constexpr int kInterleaveAppendPercent = 10;
constexpr int kSharedReadPercent = 15;
constexpr int kSharedWritePercent = 10;
constexpr int kAppendPercent = 15;
static_assert(kTornPercent + kInterleaveRangePercent + kInterleaveAppendPercent + kSharedReadPercent +
                  kSharedWritePercent + kAppendPercent ==
              100);

// Deadlines are cumulative from the start, so setup time or an overrun in one experiment
// shortens the next instead of adding up past the user's budget.
class Schedule {
 public:
  Schedule(Clock::time_point start, double seconds) : start_(start), seconds_(seconds) {}
  Deadline next(double percent) {
    used_ += percent / 100;
    return Deadline{start_ +
                    std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(used_ * seconds_))};
  }

 private:
  Clock::time_point start_;
  double seconds_;
  double used_ = 0;
};

}  // namespace

ProbeResult run_probe(const ProbeOptions& options) {
  const InterruptGuard guard;
  ProbeResult result;
  result.path = options.path;
  result.filesystem = filesystem_name(options.path);
  result.seconds = options.seconds;
  const Clock::time_point start = Clock::now();
  {
    const ProbeDir dir(options.path);
    Schedule schedule(start, options.seconds);
    constexpr double kPerSize = static_cast<double>(kTornPercent) / std::size(kTornReadSizes);
    for (const std::size_t bytes : kTornReadSizes)
      result.torn_reads.push_back(measure_torn_reads(dir, bytes, schedule.next(kPerSize)));
    measure_interleaved_same_range(dir, result.interleaved, schedule.next(kInterleaveRangePercent));
    measure_interleaved_appends(dir, result.interleaved, schedule.next(kInterleaveAppendPercent));
    result.shared_reads = measure_shared_reads(dir, schedule.next(kSharedReadPercent));
    result.shared_writes = measure_shared_writes(dir, schedule.next(kSharedWritePercent));
    result.appends = measure_append_losses(dir, schedule.next(kAppendPercent));
  }  // the directory is removed here, inside the timed span: cleaning up is part of the probe
  result.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  result.interrupted = interrupted();
  return result;
}

}  // namespace lockstep::native::fileio
