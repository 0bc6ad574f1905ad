// What `lockstep compare` writes (docs/results.md, "Comparison results"): the terminal table,
// the JSON document, the CSV (one line per figure) and the JUnit report (one testcase per
// figure; a failure where the error is outside its tolerance).
#pragma once

#include <string>

#include "driver/compare.hpp"

namespace lockstep::cli {

std::string compare_table(const driver::CompareReport& report);
std::string compare_json(const driver::CompareReport& report);
std::string compare_csv(const driver::CompareReport& report);
std::string compare_junit(const driver::CompareReport& report);

}  // namespace lockstep::cli
