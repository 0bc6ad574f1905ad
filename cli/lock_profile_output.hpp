// The lock profile (profile/lock_profile.hpp, docs/os.md "Lock profiling") as people and
// tools read it: a terminal table, worst locks first; CSV with every row of every scenario.
// Its JSON is report/'s (report/lock_profile_json.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "profile/lock_profile.hpp"
#include "report/row_report.hpp"

namespace lockstep::cli {

// The table, `top` entries at most (0: all); `clock` says what the times are.
std::string lock_profile_table(const profile::LockProfile& p, const std::string& clock, std::size_t top);
// One line per (scenario, row, entry), raw nanoseconds.
std::string lock_profile_csv(const std::vector<report::ScenarioReport>& reports);

}  // namespace lockstep::cli
