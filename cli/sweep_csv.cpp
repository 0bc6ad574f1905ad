#include "cli/sweep_csv.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace lockstep::cli {

using report::RowReport;
using report::ScenarioReport;

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

// The workload's labels and figures, by name in order of first appearance (futex-hash:
// design, futex, threads, futexes, buckets, ops_per_s, ...).
std::vector<std::string> metric_names(const ScenarioReport& report) {
  std::vector<std::string> names;
  auto add = [&names](const std::string& n) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  };
  for (const RowReport& r : report.rows) {
    for (const auto& [name, value] : r.workload.labels) add(name);
    for (const auto& [name, value] : r.workload.values) add(name);
  }
  return names;
}

std::string metric_of(const RowReport& r, const std::string& name) {
  for (const auto& [n, value] : r.workload.labels)
    if (n == name) return value;
  for (const auto& [n, value] : r.workload.values)
    if (n == name) return fmt::format("{}", std::round(value * 1000) / 1000);  // as in the JSON
  return {};
}

std::string value_of(const RowReport& r, const std::string& path) {
  for (const auto& [p, value] : r.params)
    if (p == path) return value;
  return {};
}

std::string row_line(const RowReport& r, const std::vector<std::string>& paths,
                     const std::vector<std::string>& metrics) {
  std::string out;
  for (const std::string& path : paths) out += csv_field(value_of(r, path)) + ",";
  for (const std::string& name : metrics) out += csv_field(metric_of(r, name)) + ",";
  out += fmt::format("{},{},{},{},{},{},{},{:.6f},{}\n", csv_field(r.result), csv_field(r.property),
                     r.matched ? "true" : "false", r.executions, r.sim_ops, r.steps, r.virtual_time_ns, r.elapsed_s,
                     csv_field(r.trace_sha256));
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
  const std::vector<std::string> metrics = metric_names(report);
  std::string out;
  for (const std::string& path : paths) out += csv_field(path) + ",";
  for (const std::string& name : metrics) out += csv_field(name) + ",";
  out += kRowColumns;
  out += '\n';
  for (const RowReport& r : report.rows) out += row_line(r, paths, metrics);
  return out;
}

}  // namespace lockstep::cli
