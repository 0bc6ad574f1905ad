#include "report/lock_profile_json.hpp"

#include <utility>

namespace lockstep::report {

nlohmann::ordered_json lock_profile_json(const profile::LockProfile& p) {
  nlohmann::ordered_json locks = nlohmann::ordered_json::array();
  for (const profile::LockProfileEntry& e : p.entries) {
    nlohmann::ordered_json j;
    j["file"] = e.file;
    j["line"] = e.line;
    j["lock"] = e.name;
    j["acquisitions"] = e.acquisitions;
    j["contended"] = e.contended;
    j["hold_total_ns"] = e.hold_total_ns;
    j["hold_max_ns"] = e.hold_max_ns;
    j["hold_avg_ns"] = e.hold_avg_ns();
    j["wait_total_ns"] = e.wait_total_ns;
    j["wait_max_ns"] = e.wait_max_ns;
    j["wait_avg_ns"] = e.wait_avg_ns();
    locks.push_back(std::move(j));
  }
  return locks;
}

std::string lock_profile_file_json(const std::vector<ScenarioReport>& reports) {
  nlohmann::ordered_json scenarios = nlohmann::ordered_json::array();
  for (const ScenarioReport& s : reports) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const RowReport& r : s.rows) {
      nlohmann::ordered_json row;
      row["params"] = nlohmann::ordered_json::object();
      for (const auto& [path, value] : r.params) row["params"][path] = value;
      row["unmatched_notes"] = r.lock_profile_unmatched;
      row["locks"] = lock_profile_json(r.lock_profile);
      rows.push_back(std::move(row));
    }
    scenarios.push_back({{"scenario", s.scenario}, {"command", s.command}, {"platform", s.platform}, {"rows", rows}});
  }
  return nlohmann::ordered_json{{"format", "lockstep-lock-profile"}, {"scenarios", scenarios}}.dump(2) + "\n";
}

}  // namespace lockstep::report
