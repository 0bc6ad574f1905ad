// The lock profile (profile/lock_profile.hpp, docs/os.md "Lock profiling") as people and
// tools read it: a terminal table, worst locks first; CSV with every row of every scenario;
// the JSON object the result JSON carries per row.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/lock_profile.hpp"
#include "scenario/report.hpp"

namespace lockstep::cli {

// The table, `top` entries at most (0: all); `clock` says what the times are.
std::string lock_profile_table(const profile::LockProfile& p, const std::string& clock, std::size_t top);
// One line per (scenario, row, entry), raw nanoseconds.
std::string lock_profile_csv(const std::vector<scenario::ScenarioReport>& reports);
nlohmann::ordered_json lock_profile_json(const profile::LockProfile& p);
// Every row's profile: {"scenarios": [{"scenario", "rows": [{"params", "locks"}]}]}.
std::string lock_profile_file_json(const std::vector<scenario::ScenarioReport>& reports);

}  // namespace lockstep::cli
