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
#include <optional>
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
  // How a lane's rank gives work back while it runs a unit: the unit's own subtrees, not yet
  // started there, which this process runs when one of its threads has nothing to do (a dfs
  // unit's nested subtrees would otherwise stay on the rank that runs it, however idle this
  // one and the other ranks are). `idle`: whether this process has such a thread (a worker,
  // or a lane's thread whose rank waits for work) that no ask claims yet. `claim`: the same,
  // and if so claims it for one ask, until `release` (the answer came, with or without a
  // unit: so that many lanes asking at once do not take more subtrees than there are idle
  // threads, leaving the rest queued here while their ranks could have run them). `start`:
  // runs a unit sent back on one of this process's threads; what it returns gives the unit's
  // answer once done (none before; throws what the unit threw).
  struct Lending {
    std::function<bool()> idle;
    std::function<bool()> claim;
    std::function<void()> release;
    std::function<std::function<std::optional<std::string>()>(std::string)> start;
  };
  // Sends a unit to `lane` and waits for its answer; `progress` (or null) meanwhile, and runs
  // what the lane lends back through `lending` (or lends nothing, null). Callers use a lane
  // one at a time; different lanes may be called from different threads at once.
  virtual std::string call(std::size_t lane, const std::string& unit, const Progress* progress,
                           const Lending* lending) = 0;
  // Units answered so far, over every lane (a report says how much work went elsewhere).
  virtual std::uint64_t units() const = 0;
  // Progress reports received so far, over every lane (Progress): that a checkpointed
  // search's remote units did report.
  virtual std::uint64_t progress_reports() const { return 0; }
  // Units the lanes lent back and this process ran (Lending), over every lane.
  virtual std::uint64_t units_lent_back() const { return 0; }
};

// The serving rank's end of Lending, for a dfs unit's search there: a thread of its pool polls
// `asked` (true once for each time the caller asked for work), takes a subtree not yet started
// and sends it with `call`, which returns its answer; with none to take, it `decline`s.
struct LendBack {
  std::function<bool()> asked;
  std::function<void()> decline;
  std::function<std::string(const std::string&)> call;
};

}  // namespace lockstep::model
