#include "model/checkpoint.hpp"

#include <stdexcept>

namespace lockstep::model {

nlohmann::json encode_checkpoint(const SearchCheckpoint& c) {
  const SearchOutcome& o = c.so_far;
  return {{"next", c.next},
          {"executions", o.executions},
          {"pruned", o.pruned},
          {"max_depth", o.max_depth},
          {"sim_ops", o.sim_ops},
          {"internal_errors", o.internal_errors},
          {"strategy", c.strategy}};
}

SearchCheckpoint decode_checkpoint(const nlohmann::json& j) {
  try {
    SearchCheckpoint c;
    c.next = j.at("next").get<std::uint64_t>();
    c.so_far.executions = j.at("executions").get<std::uint64_t>();
    c.so_far.pruned = j.at("pruned").get<std::uint64_t>();
    c.so_far.max_depth = j.at("max_depth").get<std::uint64_t>();
    c.so_far.sim_ops = j.at("sim_ops").get<std::uint64_t>();
    c.so_far.internal_errors = j.at("internal_errors").get<std::uint64_t>();
    c.strategy = j.at("strategy");
    if (c.so_far.executions + c.so_far.pruned != c.next)
      throw std::runtime_error("its counts do not add up to its next execution");
    return c;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed: ") + e.what());
  }
}

}  // namespace lockstep::model
