// `lockstep compare`'s judging (driver/compare.hpp) on fixed figures: errors, tolerances by
// name and by family, design ratios and their baselines, and what makes a comparison fail.
// The figures are a stand-in for measured ones: only the arithmetic and the verdict are tested.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "driver/compare.hpp"

namespace {

using namespace lockstep;
using driver::CompareReport;
using driver::CompareRow;
using driver::MetricComparison;
using scenario::FidelityTolerance;

MetricComparison metric(const std::string& name, std::vector<double> native, std::optional<double> simulated) {
  MetricComparison m;
  m.metric = name;
  m.native = std::move(native);
  std::vector<double> sorted = m.native;
  std::sort(sorted.begin(), sorted.end());
  m.native_median = sorted[sorted.size() / 2];
  m.native_min = sorted.front();
  m.native_max = sorted.back();
  m.simulated = simulated;
  return m;
}

CompareRow row(const std::string& design, double native_ops, double sim_ops) {
  CompareRow r;
  r.params = {{"design.futex", design}, {"workload.threads", "2"}};
  r.native_result = "pass";
  r.metrics.push_back(metric("ops_per_s", {native_ops * 0.9, native_ops, native_ops * 1.1}, sim_ops));
  r.metrics.push_back(metric("per_thread_ops_per_s[0]", {native_ops / 2}, sim_ops / 2 * 1.5));
  return r;
}

}  // namespace

TEST_CASE("compare: the error is in percent of the native median", "[compare]") {
  CompareReport report;
  report.rows.push_back(row("baseline", 100, 110));
  driver::judge_fidelity(report, {});
  const MetricComparison& m = report.rows[0].metrics[0];
  CHECK(m.native_median == 100);
  CHECK(m.error_pct == Approx(10));
  CHECK_FALSE(m.tolerance_pct);
  CHECK(m.within);
  CHECK(report.passed());  // without tolerances nothing fails
}

TEST_CASE("compare: tolerances by name, by family and for ratios decide the verdict", "[compare]") {
  CompareReport report;
  report.swept = true;
  report.rows.push_back(row("baseline", 100, 110));  // +10%
  report.rows.push_back(row("aligned", 200, 180));   // -10%; ratio native 2.0, simulated 180/110 = 1.636
  const FidelityTolerance ops{"ops_per_s", 15, "f.yaml:1:1"};
  const FidelityTolerance per_thread{"per_thread_ops_per_s", 70, "f.yaml:1:2"};
  const FidelityTolerance ratios{"ratios", 15, "f.yaml:1:3"};

  driver::judge_fidelity(report, {ops, per_thread, ratios});
  CHECK(report.rows[0].metrics[0].within);
  CHECK(report.rows[1].metrics[0].within);
  CHECK(report.rows[0].metrics[1].tolerance_pct == 70);      // NAME[i] takes NAME's tolerance
  CHECK(report.rows[0].metrics[1].error_pct == Approx(65));  // 82.5 against 50
  CHECK(report.rows[0].metrics[1].within);
  REQUIRE(report.ratios.size() == 1);
  const driver::RatioComparison& r = report.ratios.front();
  CHECK(r.baseline == report.rows[0].params);
  CHECK(r.ratio.metric == "ops_per_s_ratio");
  CHECK(r.ratio.native_median == Approx(2.0));
  CHECK(*r.ratio.simulated == Approx(180.0 / 110));
  CHECK(r.ratio.error_pct == Approx((180.0 / 110 - 2) / 2 * 100));
  CHECK_FALSE(r.ratio.within);  // -18% is outside 15%
  CHECK_FALSE(report.passed());

  const FidelityTolerance loose{"ops_per_s_ratio", 20, "f.yaml:1:4"};  // its own name beats `ratios`
  driver::judge_fidelity(report, {ops, per_thread, ratios, loose});
  CHECK(report.ratios.front().ratio.within);
  CHECK(report.passed());
}

TEST_CASE("compare: a tolerance for a figure nobody reports is an error at its place", "[compare]") {
  CompareReport report;
  report.rows.push_back(row("baseline", 100, 100));
  const FidelityTolerance typo{"ops_per_sec", 10, "f.yaml:7:20"};
  CHECK_THROWS_WITH(driver::judge_fidelity(report, {typo}),
                    Catch::StartsWith("f.yaml:7:20: fidelity: 'ops_per_sec'") && Catch::Contains("ops_per_s"));
}

TEST_CASE("compare: a failed native run or a figure without a simulated side", "[compare]") {
  CompareReport report;
  report.rows.push_back(row("baseline", 100, 100));
  CompareRow host_only = row("kernel", 50, 0);
  for (MetricComparison& m : host_only.metrics) m.simulated.reset();
  report.rows.push_back(host_only);
  driver::judge_fidelity(report, {{"ops_per_s", 1, "f:1:1"}});
  CHECK(report.rows[1].metrics[0].within);  // nothing to compare is not a failure
  CHECK(report.ratios.empty());             // nor a ratio without both sides
  CHECK(report.passed());
  report.rows[0].native_result = "violation: futex_semantics: lost";
  CHECK_FALSE(report.passed());
}

TEST_CASE("compare: a native median of zero gives an infinite error, outside any tolerance", "[compare]") {
  CompareReport report;
  CompareRow r;
  r.native_result = "pass";
  r.metrics.push_back(metric("ops_per_s", {0, 0, 0}, 5.0));
  report.rows.push_back(r);
  driver::judge_fidelity(report, {{"ops_per_s", 1000, "f:1:1"}});
  CHECK(std::isinf(report.rows[0].metrics[0].error_pct));
  CHECK_FALSE(report.passed());
}
