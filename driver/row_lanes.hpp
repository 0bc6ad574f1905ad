// Remote ranks as the driver sees them (docs/distributed.md): for each row it searches, the
// lanes whose units name that row, so that a rank can build the row's executors from the
// same scenario file; and, for sweeps, lanes that each run a whole row. The MPI front end (mpi/) implements it; without
// one a search has only its own workers.
#pragma once

#include <cstddef>
#include <string>

#include "model/remote_lanes.hpp"
#include "spec/scenario.hpp"

namespace lockstep::driver {

class RowLanes {
 public:
  virtual ~RowLanes() = default;
  // Null when there are no remote ranks.
  virtual model::RemoteLanes* for_row(const scenario::ScenarioFile& file, std::size_t row) = 0;
  // How many remote ranks there are, and a unit for row `row` of `file` sent to one of them
  // (lane < ranks()) and its answer: how a sweep hands out whole rows (driver/row_units.hpp).
  // Different lanes may be called from different threads at once.
  virtual std::size_t ranks() const = 0;
  virtual std::string call(std::size_t lane, const scenario::ScenarioFile& file, std::size_t row,
                           const std::string& unit) = 0;
};

}  // namespace lockstep::driver
