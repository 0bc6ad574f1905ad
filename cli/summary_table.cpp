#include "cli/summary_table.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include <fmt/format.h>

namespace lockstep::cli {

using report::RowReport;
using report::ScenarioReport;

namespace {

enum Column : std::size_t { kScenario, kExpected, kResult, kExecutions, kTime, kMark, kColumns };
using Line = std::array<std::string, kColumns>;

constexpr std::array<bool, kColumns> kRightAligned = {false, false, false, true, true, false};
constexpr std::string_view kGap = "  ";

std::string seconds(double s) { return s < 1 ? fmt::format("{:.3f}s", s) : fmt::format("{:.2f}s", s); }

std::string params_text(const RowReport& r) {
  std::string out;
  for (std::size_t i = 0; i < r.params.size(); ++i)
    out += fmt::format("{}{}={}", i == 0 ? "" : ", ", r.params[i].first, r.params[i].second);
  return out;
}

Line row_line(std::string label, const RowReport& r) {
  return {std::move(label),     r.expected,
          r.outcome(),          fmt::format("{}", r.executions),
          seconds(r.elapsed_s), r.matched ? "ok" : "MISMATCH"};
}

// A sweep's own line: the first row with the scenario's result (ScenarioReport::result),
// the expectation if all rows share one, and executions and time summed over the rows.
Line sweep_line(const ScenarioReport& s) {
  std::string expected = s.rows.empty() ? "" : s.rows.front().expected;
  const std::string outcome = s.result();
  std::string result = "pass";
  std::uint64_t executions = 0;
  double elapsed_s = 0;
  for (const RowReport& r : s.rows) {
    if (r.expected != expected) expected = "(per row)";
    if (result == "pass" && r.result == outcome) result = r.outcome();
    executions += r.executions;
    elapsed_s += r.elapsed_s;
  }
  return {
      s.scenario, expected, result, fmt::format("{}", executions), seconds(elapsed_s), s.matched() ? "ok" : "MISMATCH"};
}

std::vector<Line> table_lines(const std::vector<ScenarioReport>& reports) {
  std::vector<Line> lines{{"scenario", "expected", "result", "executions", "time", ""}};
  for (const ScenarioReport& s : reports) {
    if (!s.swept && s.rows.size() == 1) {
      const RowReport& r = s.rows.front();
      lines.push_back(row_line(r.params.empty() ? s.scenario : fmt::format("{} [{}]", s.scenario, params_text(r)), r));
      continue;
    }
    lines.push_back(sweep_line(s));
    for (const RowReport& r : s.rows) lines.push_back(row_line("  " + params_text(r), r));
  }
  return lines;
}

std::string colored(const std::string& mark, bool color) {
  if (!color || mark.empty()) return mark;
  return fmt::format("\x1b[{}m{}\x1b[0m", mark == "ok" ? 32 : 31, mark);
}

std::string render(const Line& line, const std::array<std::size_t, kColumns>& widths, bool color) {
  std::string out;
  for (std::size_t c = 0; c < kMark; ++c) {
    out += kRightAligned[c] ? fmt::format("{:>{}}", line[c], widths[c]) : fmt::format("{:<{}}", line[c], widths[c]);
    out += kGap;
  }
  out += colored(line[kMark], color);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "\n";
}

std::string totals(const std::vector<ScenarioReport>& reports) {
  std::size_t matched = 0;
  for (const ScenarioReport& s : reports) matched += s.matched() ? 1 : 0;
  return fmt::format("{} scenario{}, {} matched, {} mismatched\n", reports.size(), reports.size() == 1 ? "" : "s",
                     matched, reports.size() - matched);
}

}  // namespace

std::string summary_table(const std::vector<ScenarioReport>& reports, bool color) {
  const std::vector<Line> lines = table_lines(reports);
  std::array<std::size_t, kColumns> widths{};
  for (const Line& line : lines)
    for (std::size_t c = 0; c < kColumns; ++c) widths[c] = std::max(widths[c], line[c].size());
  std::string out;
  for (const Line& line : lines) out += render(line, widths, color);
  return out + totals(reports);
}

}  // namespace lockstep::cli
