// Remote ranks as the driver sees them (docs/distributed.md): for each row it searches, the
// lanes whose units name that row, so that a rank can build the row's executors from the
// same scenario file. The MPI front end (mpi/) implements it; without one a search has
// only its own workers.
#pragma once

#include <cstddef>
#include <string>

#include "model/remote_lanes.hpp"
#include "scenario/scenario.hpp"

namespace lockstep::driver {

class RowLanes {
 public:
  virtual ~RowLanes() = default;
  // Null when there are no remote ranks.
  virtual model::RemoteLanes* for_row(const scenario::ScenarioFile& file, std::size_t row) = 0;
};

}  // namespace lockstep::driver
