// A rank's side of a distributed search (docs/distributed.md): runs the work units rank 0
// sends for a row of a scenario file, on executors built from the same file. The file is
// loaded on the first unit of a row and must have the bytes rank 0 has (its sha256), or the
// rank would search another scenario.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "driver/simulation.hpp"
#include "model/work_units.hpp"
#include "spec/scenario.hpp"

namespace lockstep::driver {

class UnitServer {
 public:
  // `min_piece_runs`: a dfs unit's splits on demand (SearchLimits::min_piece_runs).
  explicit UnitServer(unsigned workers, std::uint64_t min_piece_runs = model::SearchLimits{}.min_piece_runs)
      : workers_(workers == 0 ? 1 : workers), min_piece_runs_(min_piece_runs) {}

  // The answer to `unit`, for row `row` of the file at `path` whose bytes hash to `sha256`;
  // a dfs unit reports its progress to `progress` meanwhile (or not, null). Throws
  // std::runtime_error (or ScenarioError) when that cannot be.
  std::string serve(const std::string& path, const std::string& sha256, std::size_t row, const std::string& unit,
                    const model::RemoteLanes::Progress* progress = nullptr, const model::LendBack* lend_back = nullptr);

 private:
  unsigned workers_;
  std::uint64_t min_piece_runs_;
  std::string path_;
  std::size_t row_ = 0;
  std::unique_ptr<scenario::ScenarioFile> file_;
  std::vector<std::unique_ptr<OwnedSimExecutor>> executors_;  // the workers', then the lending thread's
  model::UnitContext context_;
};

}  // namespace lockstep::driver
