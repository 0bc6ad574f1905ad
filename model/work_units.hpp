// Work units of a distributed search (docs/distributed.md, "How work is split"): what a
// search hands a remote lane (model/remote_lanes.hpp) and what the lane answers, encoded as
// MessagePack. A unit is self-contained: the serving rank has only the scenario's executors
// and verdict, and runs the unit exactly as a worker thread of the same search would.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/bounded_strategy.hpp"
#include "model/dpor_strategy.hpp"
#include "model/remote_lanes.hpp"
#include "model/search.hpp"

namespace lockstep::model {

// What a serving rank runs units with: its executors (one per local worker) and the verdict.
struct UnitContext {
  std::vector<Executor*> executors;
  Verdict verdict;
  // Where a dfs unit reports its progress while it runs (RemoteLanes::Progress), or null.
  const RemoteLanes::Progress* progress = nullptr;
  // How a dfs unit lends subtrees back to its caller, and the executor the lending thread
  // merges their answers on (first-step probes); or null.
  const LendBack* lend_back = nullptr;
  Executor* lend_executor = nullptr;
  // A dfs unit's splits on demand (SearchLimits::min_piece_runs).
  std::uint64_t min_piece_runs = SearchLimits{}.min_piece_runs;
};

// Runs one unit (any kind) and returns its answer. Throws std::runtime_error on bytes that
// are not a unit.
std::string serve_unit(const std::string& unit, const UnitContext& context);

// --- the parts, for the searches that make and read units ---
nlohmann::json encode_choices(const sim::Schedule& choices);
sim::Schedule decode_choices(const nlohmann::json& j);
nlohmann::json encode_violation(const std::optional<sim::Violation>& v);
std::optional<sim::Violation> decode_violation(const nlohmann::json& j);
nlohmann::json encode_subtree(const DporStrategy::Subtree& t);
DporStrategy::Subtree decode_dpor_subtree(const nlohmann::json& j);
// A subtree's request for a node above it: [node, initials].
nlohmann::json encode_request(const DporStrategy::Request& r);
DporStrategy::Request decode_request(const nlohmann::json& j);
nlohmann::json encode_subtree(const BoundedStrategy::Subtree& t);
BoundedStrategy::Subtree decode_bounded_subtree(const nlohmann::json& j);

// Per-run figures travel packed: millions of runs as JSON values cost more than running them.
// Runs come in groups of equal ones (a search's executions mostly have the same length), each
// group three LEB128 varints: steps, memory operations * 2 + abandoned, and how many runs
// (a few bytes for thousands of runs; a checkpoint of a parallel search holds every finished
// unit's runs, model/unit_cache.hpp).
struct RunFigures {
  std::uint64_t steps = 0;
  std::uint64_t memory_ops = 0;
  bool abandoned = false;
  bool operator==(const RunFigures&) const = default;
};
class PackedRuns {
 public:
  // Runs equal to the last ones added join their group.
  void add(std::uint64_t steps, std::uint64_t memory_ops, bool abandoned, std::uint64_t count = 1);
  friend nlohmann::json to_json(PackedRuns runs);

 private:
  void flush();
  std::vector<std::uint8_t> bytes_;
  RunFigures last_;
  std::uint64_t pending_ = 0;  // runs equal to last_ not written yet
};
nlohmann::json to_json(PackedRuns runs);
// Calls f(RunFigures, count) for each group of equal runs, in order.
void for_each_run_group(const nlohmann::json& packed, const std::function<void(const RunFigures&, std::uint64_t)>& f);
// Calls f(RunFigures) for each run, in order (for a unit's runs, which its caller keeps one by
// one: a group of more than 2^32 runs is refused, as a corrupt one).
void for_each_run(const nlohmann::json& packed, const std::function<void(const RunFigures&)>& f);

nlohmann::json encode_chunk(const SamplingChunk& c);
SamplingChunk decode_chunk(const nlohmann::json& j);

std::string to_bytes(const nlohmann::json& j);
nlohmann::json from_bytes(const std::string& bytes);

// Each search's server side (in the file of the search it belongs to).
// `key`: the unit's bytes as its caller sent them, which name it in the progress it reports.
nlohmann::json serve_dfs_unit(const nlohmann::json& unit, const std::string& key, const UnitContext& context);
// A dfs unit that goes on from its running state (a resumed checkpoint's): {"kind":
// "dfs-resumed", "unit": the unit's bytes, "below": UnitCache::save_from(unit)}.
nlohmann::json serve_resumed_dfs_unit(const nlohmann::json& resumed, const UnitContext& context);
nlohmann::json serve_bounded_unit(const nlohmann::json& unit, const UnitContext& context);
nlohmann::json serve_sampling_unit(const nlohmann::json& unit, const UnitContext& context);

}  // namespace lockstep::model
