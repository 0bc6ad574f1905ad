// The JUnit XML report of a command (docs/results.md, "JUnit"), for CI systems: one
// testcase per scenario row, a failure wherever the outcome did not match `expect`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/row_report.hpp"

namespace lockstep::cli {

using report::MachineMeasurements;
using report::RowReport;
using report::ScenarioReport;

std::string junit_xml(const std::vector<ScenarioReport>& reports);

// Text escaped for XML 1.0 element content and attribute values: markup characters become
// entities, and what XML 1.0 cannot hold (control characters other than tab, newline and
// carriage return; U+FFFE, U+FFFF; bytes that are not UTF-8) becomes U+FFFD.
// `attribute` also escapes tab, newline and carriage return, which a parser would
// otherwise normalize to spaces.
std::string xml_escape(std::string_view text, bool attribute = false);

}  // namespace lockstep::cli
