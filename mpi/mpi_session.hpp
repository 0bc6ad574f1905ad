// lockstep under MPI (docs/distributed.md). Every rank runs the same command line; rank 0
// runs it as a single process would, and hands work units of its searches to the others
// through MpiLanes; the others only serve units (UnitServer) until rank 0 is done. MPI is
// the transport and nothing more: what a unit is, and how answers merge, is the search's
// (model/work_units.hpp), so results do not depend on the number of ranks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "driver/row_lanes.hpp"

namespace lockstep::mpi {

// Whether this process was started by an MPI launcher (mpirun, srun): the launchers'
// environment variables (Open MPI's OMPI_COMM_WORLD_SIZE, PMI and PMIx's).
bool launched_by_mpi();

class Session final : public driver::RowLanes {
 public:
  Session(int& argc, char**& argv);
  ~Session() override;  // rank 0 tells the others to stop; MPI_Finalize
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Rank 0: lanes to ranks 1..size-1 for a row (null with one rank).
  model::RemoteLanes* for_row(const scenario::ScenarioFile& file, std::size_t row) override;
  std::size_t ranks() const override { return static_cast<std::size_t>(size_ - 1); }
  std::string call(std::size_t lane, const scenario::ScenarioFile& file, std::size_t row,
                   const std::string& unit) override;

  // Ranks above 0: serve units with `workers` executors each until rank 0 stops; returns
  // the process's exit code (0, or 3 if a unit failed: rank 0 reports it). A dfs unit splits
  // on demand as `min_piece_runs` says (SearchLimits::min_piece_runs).
  int serve(unsigned workers, std::uint64_t min_piece_runs);

 private:
  class Lanes;
  int rank_ = 0;
  int size_ = 1;
  std::unique_ptr<Lanes> lanes_;
};

}  // namespace lockstep::mpi
