// The lock profile (profile/lock_profile.hpp, docs/os.md "Lock profiling") as JSON: the
// object each row of the result JSON carries, and the file `--lock-profile X.json` writes
// with every row of every scenario. The terminal table and the CSV are cli/'s.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/lock_profile.hpp"
#include "report/row_report.hpp"

namespace lockstep::report {

nlohmann::ordered_json lock_profile_json(const profile::LockProfile& p);
// Every row's profile: {"scenarios": [{"scenario", "rows": [{"params", "locks"}]}]}.
std::string lock_profile_file_json(const std::vector<ScenarioReport>& reports);

}  // namespace lockstep::report
