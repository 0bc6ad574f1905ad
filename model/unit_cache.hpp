// The finished work units of a parallel or distributed search, with their answers: what a
// checkpoint of such a search holds (docs/distributed.md, "Checkpoints").
//
// A parallel search has no single stack to save: it is a tree of subtree tasks, running on
// several threads or ranks, whose results are merged in the sequential search's order. But
// a unit's answer depends only on the unit (that is what lets a rank run it,
// model/work_units.hpp), so a search that meets a unit it has answered before may take the
// answer instead of running it. A resumed search starts from the top again with the answers
// of every unit finished before the interruption: it makes the same units, merges the same
// answers in the same order, and ends with the counts and verdict of an uninterrupted run.
// Units that were running left their states here too: this process's (put_running,
// model/dpor_parallel.cpp) and, as reported, other ranks' (merge_remote), so those go on
// from where the last save found them instead of from their roots.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

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

  // Running units (docs/distributed.md, "Checkpoints"): a unit's state between two of its
  // executions, kept until the unit finishes (put() drops it, and its children's). A resumed
  // search that meets the unit goes on from there instead of from its root.
  // The units it made that are not in `unmerged` are merged into it, and so into its state:
  // their answers are dropped (the state's runs hold theirs).
  void put_running(const std::string& unit, std::string state, const std::string* parent,
                   const std::set<std::string>& unmerged);
  std::optional<std::string> find_running(const std::string& unit) const;
  bool is_running(const std::string& unit) const;  // find_running without the state's copy
  // Whether any unit made by `unit` is here (finished or running).
  bool has_children(const std::string& unit) const;
  // A unit running on another rank reported its progress (RemoteLanes::Progress): `units`,
  // that rank's cache of it as save() writes one (the unit's own running state, its subtrees
  // finished and running), replaces what it reported before. The unit's own entry gets
  // `parent` (the reporting rank ran it as a root). When the unit's answer comes (put()),
  // all it reported is dropped. Throws std::runtime_error as load() does.
  void merge_remote(const std::string& unit, const std::string* parent, const nlohmann::json& units);
  // Bumped by each save(): a running unit leaves its state when it sees a new generation, so
  // each checkpoint holds the states left since the one before (one period behind at most).
  std::uint64_t generation() const { return generation_.load(std::memory_order_relaxed); }

  // For the checkpoint file: every unit, answer and parent, their bytes in base64.
  nlohmann::json save() const;
  // What save() writes of the units made below `unit` (its subtrees, theirs, ...) and of
  // `unit`'s own running state, for a rank that goes on with `unit` from that state. Does
  // not bump the generation.
  nlohmann::json save_from(const std::string& unit) const;
  // Throws std::runtime_error on anything save() did not write.
  static void load(const nlohmann::json& j, UnitCache& into);

 private:
  struct Entry {
    std::string answer;  // or, for a running unit, its state
    std::optional<std::string> parent;
  };
  struct Parsed {
    std::string unit;
    Entry entry;
    bool running = false;
  };
  static std::vector<Parsed> parse(const nlohmann::json& j);
  // Under mutex_: forgets what `unit`'s rank reported (merge_remote).
  void drop_reported(const std::string& unit);

  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
  std::map<std::string, Entry> running_;
  std::map<std::string, std::set<std::string>> reported_;  // by remote unit: the units it reported
  mutable std::atomic<std::uint64_t> generation_{0};
};

// Saves `cache` as a checkpoint of a search split at `split`, every policy->every_s seconds;
// null when the policy saves nothing. The caller calls finish() when its search ends.
// `before`, if any, runs before each save (on the saving thread): the searches that wait for
// their subtrees leave their states then (model/dpor_parallel.cpp).
std::unique_ptr<PeriodicSave> save_periodically(const CheckpointPolicy* policy, const UnitCache& cache, unsigned split,
                                                std::function<void()> before = {});

}  // namespace lockstep::model
