// The finished work units of a parallel or distributed search, with their answers: what a
// checkpoint of such a search holds (docs/distributed.md, "Checkpoints").
//
// A parallel search has no single stack to save: it is a tree of subtree tasks, running on
// several threads or ranks, whose results are merged in the sequential search's order. But
// a unit's answer depends only on the unit (that is what lets a rank run it,
// model/work_units.hpp), so a search that meets a unit it has answered before may take the
// answer instead of running it. A resumed search starts from the top again with the answers
// of every unit finished before the interruption: it makes the same units, merges the same
// answers in the same order, and ends with the counts and verdict of an uninterrupted run,
// re-running only the units that were unfinished (and the splitting executions above them).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/checkpoint.hpp"

namespace lockstep::model {

class UnitCache {
 public:
  // The answer to `unit` (its bytes as sent to a lane), if it is known.
  std::optional<std::string> find(const std::string& unit) const;
  // Keeps `answer` to `unit`. `parent` is the unit that made this one (a dfs subtree made
  // inside another), or null: a parent's answer includes its children's, so keeping it drops
  // theirs, which the search would no longer ask for.
  void put(const std::string& unit, std::string answer, const std::string* parent);
  std::size_t size() const;

  // For the checkpoint file: every unit, answer and parent, their bytes in base64.
  nlohmann::json save() const;
  // Throws std::runtime_error on anything save() did not write.
  static void load(const nlohmann::json& j, UnitCache& into);

 private:
  struct Entry {
    std::string answer;
    std::optional<std::string> parent;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

// Saves `cache` as a checkpoint of a search split at `split`, every policy->every_s seconds;
// null when the policy saves nothing. The caller calls finish() when its search ends.
std::unique_ptr<PeriodicSave> save_periodically(const CheckpointPolicy* policy, const UnitCache& cache, unsigned split);

}  // namespace lockstep::model
