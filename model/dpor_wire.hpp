// What a subtree's search found, and its form on the wire to and from remote lanes and in
// checkpoints (model/work_units.hpp), for the parallel dfs (model/dpor_parallel.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/dpor_strategy.hpp"
#include "model/run_groups.hpp"

namespace lockstep::model::parallel {

using RunRecord = RunFigures;

// What a subtree's search found, in the order the sequential search would have.
struct TaskResult {
  Runs runs;
  std::optional<sim::Violation> violation;  // found by the last run
  sim::Schedule schedule;
  std::vector<DporStrategy::Request> requests;
  bool capped = false;                // stopped at the run cap with work left
  std::uint64_t internal_errors = 0;  // of this subtree's strategy and its children's
};

// Runs packed for the wire and for checkpoints (model/work_units.hpp), and back.
nlohmann::json pack(const Runs& runs);
Runs unpack(const nlohmann::json& packed);
// A subtree's result as a remote lane sends it back (model/work_units.hpp).
nlohmann::json encode_result(const TaskResult& r);
TaskResult decode_result(const nlohmann::json& j);

}  // namespace lockstep::model::parallel
