#include "cli/sweep_csv.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace lockstep::cli {

namespace {

constexpr std::string_view kRowColumns =
    "result,property,matched,executions,sim_ops,steps,virtual_time_ns,elapsed_s,trace_sha256";

// Every parameter path, in order of first appearance; rows of one sweep normally share one
// list, but a row that lacks a path gets an empty field rather than a shifted line.
std::vector<std::string> param_paths(const ScenarioReport& report) {
  std::vector<std::string> paths;
  for (const RowReport& r : report.rows)
    for (const auto& [path, value] : r.params)
      if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
  return paths;
}

std::string value_of(const RowReport& r, const std::string& path) {
  for (const auto& [p, value] : r.params)
    if (p == path) return value;
  return {};
}

std::string row_line(const RowReport& r, const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& path : paths) out += csv_field(value_of(r, path)) + ",";
  out += fmt::format("{},{},{},{},{},{},{},{:.6f},{}\n", csv_field(r.result), csv_field(r.property),
                     r.matched ? "true" : "false", r.executions, r.sim_ops, r.steps, r.virtual_time_ns,
                     r.elapsed_s, csv_field(r.trace_sha256));
  return out;
}

}  // namespace

std::string csv_field(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string sweep_csv(const ScenarioReport& report) {
  const std::vector<std::string> paths = param_paths(report);
  std::string out;
  for (const std::string& path : paths) out += csv_field(path) + ",";
  out += kRowColumns;
  out += '\n';
  for (const RowReport& r : report.rows) out += row_line(r, paths);
  return out;
}

}  // namespace lockstep::cli
