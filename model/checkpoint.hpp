// Checkpoints of a search (docs/distributed.md, "Checkpoints"): what a one-worker dfs or
// bounded search needs to go on where it stopped. A stateless search's whole state is its
// stack (each node's enabled, backtrack and sleep sets, or its options) and the counts so
// far; both are saved after an execution, and a resumed search runs execution `next` on
// with the same stack, so it ends with the counts and verdict of an uninterrupted run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include <nlohmann/json.hpp>

#include "model/search.hpp"

namespace lockstep::model {

struct SearchCheckpoint {
  SearchOutcome so_far;     // executions 0 .. next-1 counted (no violation among them)
  std::uint64_t next = 0;   // the index of the next execution
  nlohmann::json strategy;  // ExplorationStrategy::save_state() after execution next-1
};

struct CheckpointPolicy {
  double every_s = 0;  // host seconds between checkpoints; 0: never
  std::function<void(const SearchCheckpoint&)> save;
  std::optional<SearchCheckpoint> resume;  // start from here
};

nlohmann::json encode_checkpoint(const SearchCheckpoint& c);
// Throws std::runtime_error (with what is wrong) on anything that is not one.
SearchCheckpoint decode_checkpoint(const nlohmann::json& j);

}  // namespace lockstep::model
