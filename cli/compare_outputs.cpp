#include "cli/compare_outputs.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "cli/junit.hpp"
#include "cli/sweep_csv.hpp"
#include "report/result_json.hpp"
#include "report/si_units.hpp"

namespace lockstep::cli {

namespace {

using Json = nlohmann::ordered_json;
using driver::CompareReport;
using driver::MetricComparison;
using Params = std::vector<std::pair<std::string, std::string>>;

std::string params_text(const Params& params) {
  std::string out;
  for (const auto& [k, v] : params) out += fmt::format("{}{}={}", out.empty() ? "" : " ", k, v);
  return out;
}

// Four significant figures: these are measurements, and more digits would be noise.
double rounded(double v) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, 3 - std::floor(std::log10(std::abs(v))));
  return std::round(v * scale) / scale;
}

std::string error_text(const MetricComparison& m) {
  if (!m.simulated) return "-";
  if (!std::isfinite(m.error_pct)) return "inf";
  return fmt::format("{:+.1f}%", m.error_pct);
}

std::string verdict_text(const MetricComparison& m) {
  if (!m.tolerance_pct) return "";
  return fmt::format("{} (±{:g}%)", m.within ? "ok" : "OUTSIDE", *m.tolerance_pct);
}

// A figure in its unit, from its name: *_ns and *_ns_per_* as a time, *per_s* as a rate,
// others plain.
std::string figure(std::string_view metric, double v) {
  const std::string_view base = metric.substr(0, metric.find('['));
  if (base.ends_with("_ns") || base.find("_ns_per_") != std::string_view::npos) return report::format_si(v * 1e-9, "s");
  if (base.find("per_s") != std::string_view::npos) return report::format_si(v, "/s");
  return report::format_si(v, "");
}

std::string metric_line(const MetricComparison& m) {
  return fmt::format("  {:<30} {:>10} {:>10} {:>10} {:>10} {:>9}  {}\n", m.metric, figure(m.metric, m.native_median),
                     figure(m.metric, m.native_min), figure(m.metric, m.native_max),
                     m.simulated ? figure(m.metric, *m.simulated) : "-", error_text(m), verdict_text(m));
}

Json metric_json(const MetricComparison& m) {
  Json out{{"metric", m.metric}};
  Json runs = Json::array();
  for (double v : m.native) runs.push_back(rounded(v));
  out["native"] = Json{{"median", rounded(m.native_median)},
                       {"min", rounded(m.native_min)},
                       {"max", rounded(m.native_max)},
                       {"runs", std::move(runs)}};
  out["simulated"] = m.simulated ? Json(rounded(*m.simulated)) : Json(nullptr);
  out["error_pct"] =
      m.simulated && std::isfinite(m.error_pct) ? Json(std::round(m.error_pct * 10) / 10) : Json(nullptr);
  out["tolerance_pct"] = m.tolerance_pct ? Json(*m.tolerance_pct) : Json(nullptr);
  out["within"] = m.within;
  return out;
}

Json params_json(const Params& params) {
  Json out = Json::object();
  for (const auto& [k, v] : params) out[k] = v;
  return out;
}

std::string csv_line(const std::string& name, const std::string& row, const std::string& kind,
                     const MetricComparison& m) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(name), csv_field(row), kind, m.metric,
                     rounded(m.native_median), rounded(m.native_min), rounded(m.native_max),
                     m.simulated ? fmt::format("{}", rounded(*m.simulated)) : "",
                     m.simulated && std::isfinite(m.error_pct) ? fmt::format("{:.1f}", m.error_pct) : "",
                     m.tolerance_pct ? fmt::format("{:g}", *m.tolerance_pct) : "", m.within ? "true" : "false");
}

std::string junit_case(const std::string& suite, const std::string& name, const MetricComparison& m) {
  std::string out =
      fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n", xml_escape(suite, true), xml_escape(name, true));
  if (!m.within) {
    out += fmt::format(
        "      <failure message=\"{}\"/>\n",
        xml_escape(fmt::format("{}: simulated {} vs native median {}: error {} outside ±{:g}%", m.metric,
                               m.simulated ? figure(m.metric, *m.simulated) : "-", figure(m.metric, m.native_median),
                               error_text(m), m.tolerance_pct.value_or(0)),
                   true));
  }
  return out + "    </testcase>\n";
}

}  // namespace

std::string compare_table(const CompareReport& report) {
  std::string out = fmt::format("{}: simulated vs native ({} native run{}) {}\n", report.name, report.repetitions,
                                report.repetitions == 1 ? "" : "s", report.passed() ? "" : "  OUTSIDE TOLERANCE");
  if (!report.machine.empty()) out += fmt::format("  simulated on {}\n", machine_source_text(report.machine));
  const std::string header = fmt::format("  {:<30} {:>10} {:>10} {:>10} {:>10} {:>9}\n", "metric", "native", "min",
                                         "max", "simulated", "error");
  for (const driver::CompareRow& row : report.rows) {
    if (report.swept) out += fmt::format("{}\n", params_text(row.params));
    if (!row.note.empty()) out += fmt::format("  note: {}\n", row.note);
    if (row.native_result != "pass") out += fmt::format("  NATIVE RUN FAILED: {}\n", row.native_result);
    out += header;
    for (const MetricComparison& mc : row.metrics) out += metric_line(mc);
  }
  if (!report.ratios.empty()) {
    out += "design ratios (each design over the first with the same other values):\n";
    out += fmt::format("  {:<44} {:>10} {:>10} {:>10} {:>10} {:>9}\n", "row / baseline", "native", "min", "max",
                       "simulated", "error");
    for (const driver::RatioComparison& r : report.ratios) {
      MetricComparison shown = r.ratio;
      shown.metric = fmt::format("{} {}", params_text(r.params), r.ratio.metric);
      out += fmt::format("  {:<44} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>9}  {}\n", shown.metric,
                         r.ratio.native_median, r.ratio.native_min, r.ratio.native_max, r.ratio.simulated.value_or(0),
                         error_text(r.ratio), verdict_text(r.ratio));
    }
  }
  return out;
}

std::string compare_json(const CompareReport& report) {
  Json out;
  out["scenario"] = report.scenario;
  out["name"] = report.name;
  out["command"] = "compare";
  out["repetitions"] = report.repetitions;
  out["sim_runtime_cap_us"] = report.sim_runtime_cap_us;
  out["native_runtime_floor_us"] = report.native_runtime_floor_us;
  out["machine"] = machine_source_json(report.machine);
  out["result"] = report.passed() ? "pass" : "fail";
  Json rows = Json::array();
  for (const driver::CompareRow& row : report.rows) {
    Json r{{"params", params_json(row.params)}, {"native_result", row.native_result}};
    if (!row.note.empty()) r["note"] = row.note;
    Json metrics = Json::array();
    for (const MetricComparison& m : row.metrics) metrics.push_back(metric_json(m));
    r["metrics"] = std::move(metrics);
    rows.push_back(std::move(r));
  }
  out["rows"] = std::move(rows);
  Json ratios = Json::array();
  for (const driver::RatioComparison& r : report.ratios) {
    Json j{{"params", params_json(r.params)}, {"baseline", params_json(r.baseline)}};
    j.update(metric_json(r.ratio));
    ratios.push_back(std::move(j));
  }
  out["ratios"] = std::move(ratios);
  return out.dump(2) + "\n";
}

std::string compare_csv(const CompareReport& report) {
  std::string out =
      "scenario,row,kind,metric,native_median,native_min,native_max,simulated,error_pct,tolerance_pct,within\n";
  for (const driver::CompareRow& row : report.rows)
    for (const MetricComparison& m : row.metrics) out += csv_line(report.name, params_text(row.params), "absolute", m);
  for (const driver::RatioComparison& r : report.ratios)
    out += csv_line(report.name, params_text(r.params), "ratio", r.ratio);
  return out;
}

std::string compare_junit(const CompareReport& report) {
  std::size_t tests = 0;
  std::size_t failures = 0;
  std::string cases;
  for (const driver::CompareRow& row : report.rows) {
    const std::string prefix = row.params.empty() ? std::string() : params_text(row.params) + " ";
    if (row.native_result != "pass") {
      ++tests;
      ++failures;
      cases += fmt::format(
          "    <testcase classname=\"{}\" name=\"{}native run\">\n      <failure message=\"{}\"/>\n    "
          "</testcase>\n",
          xml_escape(report.name, true), xml_escape(prefix, true), xml_escape(row.native_result, true));
    }
    for (const MetricComparison& m : row.metrics) {
      ++tests;
      failures += m.within ? 0 : 1;
      cases += junit_case(report.name, prefix + m.metric, m);
    }
  }
  for (const driver::RatioComparison& r : report.ratios) {
    ++tests;
    failures += r.ratio.within ? 0 : 1;
    cases += junit_case(report.name, params_text(r.params) + " " + r.ratio.metric, r.ratio);
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"{}\" tests=\"{}\" "
      "failures=\"{}\">\n{}  </testsuite>\n</testsuites>\n",
      xml_escape("compare: " + report.name, true), tests, failures, cases);
}

}  // namespace lockstep::cli
