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
#include <functional>
#include <string>

namespace lockstep::model {

class RemoteLanes {
 public:
  virtual ~RemoteLanes() = default;
  // How many lanes (remote ranks) there are.
  virtual std::size_t size() const = 0;
  // What a lane reports while a unit runs, when its caller asks (a checkpointed search):
  // every `every_s` seconds the unit's progress, the units of a UnitCache (its own state and
  // its finished and running subtrees, model/unit_cache.hpp) as MessagePack, which the
  // caller merges into its own cache (UnitCache::merge_remote). So a checkpoint holds what a
  // long unit on another rank has done, and a resumed search goes on from there.
  struct Progress {
    double every_s = 0;
    std::function<void(const std::string&)> receive;
  };
  // Sends a unit to `lane` and waits for its answer; `progress` (or null) meanwhile. Callers
  // use a lane one at a time; different lanes may be called from different threads at once.
  virtual std::string call(std::size_t lane, const std::string& unit, const Progress* progress) = 0;
  // Units answered so far, over every lane (a report says how much work went elsewhere).
  virtual std::uint64_t units() const = 0;
  // Progress reports received so far, over every lane (Progress): that a checkpointed
  // search's remote units did report.
  virtual std::uint64_t progress_reports() const { return 0; }
};

}  // namespace lockstep::model
