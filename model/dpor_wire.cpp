#include "model/dpor_wire.hpp"

#include "model/work_units.hpp"

namespace lockstep::model::parallel {

// Runs packed for the wire and for checkpoints (model/work_units.hpp), and back.
nlohmann::json pack(const Runs& runs) {
  PackedRuns packed;
  runs.for_first(runs.size(), [&packed](const RunRecord& x, std::uint64_t count) {
    packed.add(x.steps, x.memory_ops, x.abandoned, count);
  });
  return to_json(std::move(packed));
}

Runs unpack(const nlohmann::json& packed) {
  Runs runs;
  for_each_run_group(packed, [&runs](const RunFigures& x, std::uint64_t count) { runs.push(x, count); });
  return runs;
}

// A subtree's result as a remote lane sends it back (model/work_units.hpp).
nlohmann::json encode_result(const TaskResult& r) {
  nlohmann::json requests = nlohmann::json::array();
  for (const DporStrategy::Request& q : r.requests) requests.push_back(encode_request(q));
  return {{"runs", pack(r.runs)},
          {"violation", encode_violation(r.violation)},
          {"schedule", encode_choices(r.schedule)},
          {"requests", std::move(requests)},
          {"capped", r.capped},
          {"internal_errors", r.internal_errors}};
}

TaskResult decode_result(const nlohmann::json& j) {
  TaskResult r;
  r.runs = unpack(j.at("runs"));
  r.violation = decode_violation(j.at("violation"));
  r.schedule = decode_choices(j.at("schedule"));
  for (const auto& q : j.at("requests")) r.requests.push_back(decode_request(q));
  r.capped = j.at("capped").get<bool>();
  r.internal_errors = j.at("internal_errors").get<std::uint64_t>();
  return r;
}

}  // namespace lockstep::model::parallel
