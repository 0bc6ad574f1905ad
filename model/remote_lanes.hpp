// Ranks of a distributed search (docs/distributed.md) as the parallel searches see them:
// lanes, each of which runs a unit of work somewhere else and answers with its result. The
// searches hand lanes the same units they hand their own threads (a dfs or bounded subtree,
// a range of sampled executions) and merge the answers by the same rule, so the outcome
// does not depend on how many lanes there are or how fast they answer. This header knows
// nothing of MPI: the units travel as bytes (model/work_units.hpp), and the front end
// (mpi/) moves them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lockstep::model {

class RemoteLanes {
 public:
  virtual ~RemoteLanes() = default;
  // How many lanes (remote ranks) there are.
  virtual std::size_t size() const = 0;
  // Sends a unit to `lane` and waits for its answer. Callers use a lane one at a time;
  // different lanes may be called from different threads at once.
  virtual std::string call(std::size_t lane, const std::string& unit) = 0;
  // Units answered so far, over every lane (a report says how much work went elsewhere).
  virtual std::uint64_t units() const = 0;
};

}  // namespace lockstep::model
