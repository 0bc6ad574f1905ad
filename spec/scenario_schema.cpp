#include "spec/scenario_schema.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/fileio/fileio_config.hpp"
#include "core/properties.hpp"
#include "core/sync/spinlock.hpp"
#include "core/usync/any_condvar.hpp"
#include "core/usync/any_mutex.hpp"
#include "model/strategy_spec.hpp"
#include "sim/exec/idle_model.hpp"
#include "sim/exec/placement.hpp"
#include "spec/futex_loader.hpp"
#include "spec/machine_loader.hpp"
#include "spec/scenario.hpp"
#include "spec/workload_kinds.hpp"

namespace lockstep::scenario {

namespace {

using Json = nlohmann::ordered_json;

template <typename Names>
Json enum_of(const Names& names) {
  Json out = Json::array();
  for (const auto& n : names) out.push_back(std::string(n));
  return out;
}

// An object whose keys are `keys` (each any value: the loader checks the values), no other.
template <typename Keys>
Json closed_object(const Keys& keys, const std::string& description) {
  Json properties = Json::object();
  for (const auto& k : keys) properties[std::string(k)] = Json::object();
  return Json{
      {"type", "object"}, {"description", description}, {"properties", properties}, {"additionalProperties", false}};
}

// One alternative of a `kind:` map: `kind` is the given constant, the other keys `properties`.
Json kind_object(Json kind, Json properties) {
  properties["kind"] = std::move(kind);
  return Json{{"type", "object"},
              {"properties", std::move(properties)},
              {"required", Json::array({"kind"})},
              {"additionalProperties", false}};
}

Json workload_schema() {
  Json one_of = Json::array();
  for (const WorkloadKindInfo& row : workload_kind_table()) {
    if (row.load == nullptr) continue;  // thread programs: `threads`, not a workload map
    Json properties = Json::object();
    for (const std::string_view key : row.keys) properties[std::string(key)] = Json::object();
    one_of.push_back(kind_object(Json{{"const", std::string(row.name)}}, std::move(properties)));
  }
  return Json{{"description", "what the threads do (docs/scenarios.md, \"workload\")"}, {"oneOf", one_of}};
}

Json strategy_schema() {
  Json one_of = Json::array();
  for (const model::StrategyInfo& s : model::kStrategies) {
    Json properties = Json::object();
    properties["max_steps"] = Json{{"type", "integer"}, {"minimum", 1}};
    for (const auto& [key, bit] : model::kStrategyKeys)
      if ((s.keys & bit) != 0) properties[std::string(key)] = Json::object();
    one_of.push_back(kind_object(Json{{"const", std::string(s.name)}, {"description", std::string(s.summary)}},
                                 std::move(properties)));
  }
  return Json{{"description", "how executions are chosen (docs/model-checking.md)"}, {"oneOf", one_of}};
}

Json properties_schema() {
  std::vector<std::string_view> names;
  for (const PropertyInfo& p : kProperties) names.push_back(p.name);
  const Json final_condition{
      {"type", "object"},
      {"properties", {{"name", {{"type", "string"}}}, {"forall", Json::object()}, {"exists", Json::object()}}},
      {"required", Json::array({"name"})},
      {"additionalProperties", false}};
  return Json{{"description", "the properties checked (docs/scenarios.md, \"properties\")"},
              {"type", "array"},
              {"items", {{"oneOf", Json::array({Json{{"enum", enum_of(names)}}, final_condition})}}}};
}

Json design_schema() {
  const std::vector<std::string_view> futex = futex_design_names();
  Json properties = Json::object();
  properties["spinlock"] = Json{{"enum", enum_of(kSpinlockNames)}};
  properties["mutex"] = Json{{"enum", enum_of(usync::kMutexNames)}};
  properties["condvar"] = Json{{"enum", enum_of(usync::kCondvarNames)}};
  properties["futex"] = Json{{"description", "a named design, or a map of its fields (docs/futex.md)"},
                             {"anyOf", Json::array({Json{{"enum", enum_of(futex)}}, Json{{"type", "object"}}})}};
  properties["fileio"] = Json{{"type", "object"},
                              {"properties",
                               {{"offset", {{"enum", enum_of(fileio::kOffsetPolicyNames)}}},
                                {"data", {{"enum", enum_of(fileio::kDataPolicyNames)}}},
                                {"word_bits", Json::object()},
                                {"page_size", Json::object()}}},
                              {"additionalProperties", false}};
  return Json{{"type", "object"}, {"properties", properties}, {"additionalProperties", false}};
}

Json machine_schema() {
  Json schema = closed_object(machine_keys(), "the machine simulated (docs/machines.md)");
  schema["properties"]["preset"] = Json{{"enum", enum_of(machine_presets())}};
  return schema;
}

}  // namespace

Json scenario_schema() {
  Json properties = Json::object();
  for (const std::string_view key : scenario_keys()) properties[std::string(key)] = Json::object();
  properties["name"] = Json{{"type", "string"}};
  properties["description"] = Json{{"type", "string"}};
  properties["machine"] = machine_schema();
  properties["memory_model"] = Json{{"enum", Json::array({"sc", "tso"})}};
  properties["design"] = design_schema();
  properties["workload"] = workload_schema();
  properties["properties"] = properties_schema();
  properties["strategy"] = strategy_schema();
  properties["expect"] = Json{{"description", "pass, or what must be found (docs/scenarios.md, \"expect\")"},
                              {"anyOf", Json::array({Json{{"type", "string"}}, Json{{"type", "object"}}})}};
  properties["sweep"] = Json{{"type", "object"}, {"description", "key path -> list of values, one row each"}};
  properties["platform"] = Json{{"enum", Json::array({"sim", "native"})}};
  properties["scheduler"] = Json{{"type", "object"},
                                 {"properties",
                                  {{"idle", {{"enum", enum_of(sim::kIdlePolicyNames)}}},
                                   {"placement", {{"enum", enum_of(sim::kPlacementNames)}}},
                                   {"balance_interval_us", {{"type", "integer"}}}}},
                                 {"additionalProperties", false}};
  return Json{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
              {"title", "lockstep scenario"},
              {"description",
               "A lockstep scenario file (docs/scenarios.md). Generated by `lockstep schema` from the "
               "loaders' tables; the loader remains the judge of values and cross-key rules."},
              {"type", "object"},
              {"properties", properties},
              {"additionalProperties", false}};
}

}  // namespace lockstep::scenario
