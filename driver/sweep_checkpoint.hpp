// Checkpoints of a sweep (`lockstep run SWEEP --checkpoint FILE`, `--resume FILE`;
// docs/distributed.md, "Sweeps"): the reports of the rows finished so far. A timed row is
// deterministic and independent of the others, so a resumed sweep takes those reports as
// they are and runs only the rest, on one process or on MPI ranks; its table, CSV and JSON
// are an uninterrupted run's (but for host times). The file is written atomically each
// time a row finishes, so a run killed at any moment (a rank lost, the job's time up) keeps
// every row finished before it.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "driver/runner.hpp"

namespace lockstep::driver {

using report::RowReport;

class SweepCheckpoint {
 public:
  // Reads options.checkpoints.resume_path if set. Throws std::runtime_error, naming the
  // file, when it is not a checkpoint of this sweep run with these options (exit 2).
  SweepCheckpoint(const ScenarioFile& file, const RunOptions& options);
  // The report of `row` if it finished before.
  std::optional<RowReport> finished(std::size_t row) const;
  // Records a finished row; with --checkpoint, rewrites the file (atomically).
  void row_done(std::size_t row, const RowReport& report);

 private:
  void write() const;

  std::string write_path_;
  std::string scenario_;
  std::string sha256_;
  std::string options_;  // what the rows' results depend on, as the file records it
  mutable std::mutex mutex_;
  std::map<std::size_t, std::string> rows_;  // encoded reports (report/row_codec.hpp)
};

}  // namespace lockstep::driver
