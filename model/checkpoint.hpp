// Checkpoints of a search (docs/distributed.md, "Checkpoints"): what a search needs to go
// on where it stopped. Two kinds:
// - one-worker dfs: a stateless search's whole state is its stack (each node's enabled,
//   backtrack and sleep sets) and the counts so far; both are saved after an execution, and
//   a resumed search runs execution `next` on with the same stack. Sampling searches
//   (random, pct) on any number of workers save this kind too: their "stack" is their
//   parameters (SamplingStrategy), the counts those of executions 0 .. next-1;
// - parallel or distributed dfs and bounded: the answers of the work units finished so far
//   (model/unit_cache.hpp) and how the search was split; a resumed search splits the same
//   way and takes those answers instead of running their units again.
// Either way the resumed search ends with the counts and verdict of an uninterrupted run.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "model/search.hpp"

namespace lockstep::model {

struct SearchCheckpoint {
  // A one-worker search's:
  SearchOutcome so_far;     // executions 0 .. next-1 counted (no violation among them)
  std::uint64_t next = 0;   // the index of the next execution
  nlohmann::json strategy;  // ExplorationStrategy::save_state() after execution next-1
  // A parallel search's instead: UnitCache::save(), and the split its units were cut at
  // (split branchings for dfs, split depth for bounded), which a resumed search keeps
  // whatever its worker or rank count, so that it makes the same units.
  std::optional<nlohmann::json> units;
  unsigned split = 0;
};

struct CheckpointPolicy {
  double every_s = 0;  // host seconds between checkpoints; 0: never
  std::function<void(const SearchCheckpoint&)> save;
  std::optional<SearchCheckpoint> resume;  // start from here
};

// Calls `save` every `every_s` seconds on a thread of its own until destroyed: a parallel
// search's workers run units of any length, so none of them can be relied on to look at
// the clock.
class PeriodicSave {
 public:
  PeriodicSave(double every_s, std::function<void()> save);
  ~PeriodicSave();
  PeriodicSave(const PeriodicSave&) = delete;
  PeriodicSave& operator=(const PeriodicSave&) = delete;
  // Stops saving, then rethrows what a save threw (saving stopped there): the search calls
  // it when it ends.
  void finish();

 private:
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

nlohmann::json encode_checkpoint(const SearchCheckpoint& c);
// Throws std::runtime_error (with what is wrong) on anything that is not one.
SearchCheckpoint decode_checkpoint(const nlohmann::json& j);

}  // namespace lockstep::model
