// Figures for people: SI prefixes (report/si_units.hpp), the headline figures of a workload
// (report/headline_figures.hpp) and the sweep table that shows them (cli/sweep_table.hpp).
#include <catch2/catch.hpp>

#include <limits>

#include "cli/sweep_table.hpp"
#include "report/headline_figures.hpp"
#include "report/si_units.hpp"

using namespace lockstep;
using lockstep::report::RowReport;
using lockstep::report::ScenarioReport;
using namespace lockstep::cli;

TEST_CASE("report::format_si gives three significant digits and the prefix that fits", "[si]") {
  CHECK(report::format_si(1002666666.667, "ops/s") == "1.00 G ops/s");
  CHECK(report::format_si(12.34e-6, "s") == "12.3 us");
  CHECK(report::format_si(850e-9, "s") == "850 ns");
  CHECK(report::format_si(1, "s") == "1.00 s");
  CHECK(report::format_si(999, "") == "999");
  CHECK(report::format_si(1234, "") == "1.23 k");
  CHECK(report::format_si(45678, "B") == "45.7 kB");  // a unit symbol joins its prefix
  CHECK(report::format_si(2.5e9, "Hz") == "2.50 GHz");
  CHECK(report::format_si(3.5e6, "trips/s") == "3.50 M trips/s");
  CHECK(report::format_si(2.5e12, "ops/s") == "2.50 T ops/s");
  CHECK(report::format_si(0.0125, "s") == "12.5 ms");
  CHECK(report::format_si(0.5, "") == "500 m");
}

TEST_CASE("report::format_si carries a value that rounds to 1000 to the next prefix", "[si]") {
  CHECK(report::format_si(999.6, "") == "1.00 k");
  CHECK(report::format_si(999.96e-9, "s") == "1.00 us");
  CHECK(report::format_si(9.996, "s") == "10.0 s");
  CHECK(report::format_si(99.96e3, "ops/s") == "100 k ops/s");
  CHECK(report::format_si(0.9996e-9, "s") == "1.00 ns");
  CHECK(report::format_si(1e-6, "s") == "1.00 us");
  CHECK(report::format_si(1e9, "ops/s") == "1.00 G ops/s");
}

TEST_CASE("report::format_si keeps the last prefix beyond the range", "[si]") {
  CHECK(report::format_si(1.234e15, "ops/s") == "1230 T ops/s");
  CHECK(report::format_si(1.2e-12, "s") == "0.00120 ns");
  CHECK(report::format_si(1e18, "") == "1000000 T");
}

TEST_CASE("report::format_si handles negatives, zero, NaN and infinities", "[si]") {
  CHECK(report::format_si(-12.34e-6, "s") == "-12.3 us");
  CHECK(report::format_si(-1002666666.667, "ops/s") == "-1.00 G ops/s");
  CHECK(report::format_si(0, "ops/s") == "0 ops/s");
  CHECK(report::format_si(-0.0, "s") == "0 s");
  CHECK(report::format_si(0, "") == "0");
  CHECK(report::format_si(std::numeric_limits<double>::quiet_NaN(), "s") == "NaN");
  CHECK(report::format_si(std::numeric_limits<double>::infinity(), "ops/s") == "inf ops/s");
  CHECK(report::format_si(-std::numeric_limits<double>::infinity(), "s") == "-inf s");
}

TEST_CASE("report::format_si styles: the micro symbol, digits, trimmed zeros", "[si]") {
  CHECK(report::format_si(12.34e-6, "s", report::SiStyle{"\u00b5"}) == "12.3 \u00b5s");
  CHECK(report::format_si(1.5e9, "", report::SiStyle{"u", 3, true}) == "1.5 G");
  CHECK(report::format_si(2e6, "ops/s", report::SiStyle{"u", 3, true}) == "2 M ops/s");
  CHECK(report::format_si(250e6, "", report::SiStyle{"u", 3, true}) == "250 M");
  CHECK(report::format_si(123456, "", report::SiStyle{"u", 5, false}) == "123.46 k");
  CHECK(report::format_si(123456, "", report::SiStyle{"u", 1, false}) == "100 k");
  CHECK(report::format_si(123456, "", report::SiStyle{"u", 0, false}) == "100 k");  // clamped to 1
}

TEST_CASE("headline figures: the known ones, most telling first, with their units", "[si]") {
  const auto hash =
      report::headline_figures({"threads", "futexes", "ops_per_s_per_thread", "release_skew_ns", "ops_per_s"});
  REQUIRE(hash.size() == 2);
  CHECK(hash[0].name == "ops_per_s");
  CHECK(hash[1].name == "ops_per_s_per_thread");
  CHECK(report::format_figure(hash[0], 1002666666.667) == "1.00 G ops/s");
  const auto wake =
      report::headline_figures({"sleepers", "batch", "wake_ns_per_round", "calls_per_round", "wakeup_latency_ns"});
  REQUIRE(wake.size() == 3);
  CHECK(wake[0].name == "wake_ns_per_round");
  CHECK(report::format_figure(wake[0], 850.4) == "850 ns");
  CHECK(report::format_figure(wake[1], 12345) == "12.3 us");
  CHECK(report::format_figure(wake[2], 2) == "2.00");
  CHECK(report::headline_figures({"threads", "pairs"}).empty());
}

namespace {

RowReport hash_row(std::string futexes, std::string design, double ops_per_s) {
  RowReport r;
  r.params = {{"workload.futexes", std::move(futexes)}, {"design.futex", std::move(design)}};
  r.result = r.expected = "pass";
  r.matched = true;
  r.workload.labels = {{"design", "x"}};
  r.workload.values = {
      {"threads", 8}, {"futexes", 1}, {"ops_per_s", ops_per_s}, {"ops_per_s_per_thread", ops_per_s / 8}};
  return r;
}

}  // namespace

TEST_CASE("sweep table: a column per varying parameter, headline figures with prefixes, the verdict", "[si]") {
  ScenarioReport s;
  s.scenario = "scenarios/futex/hash-futexes.yaml";
  s.name = "futex hash";
  s.swept = true;
  s.rows = {hash_row("1", "baseline", 2.5e6), hash_row("4096", "baseline", 1002666666.667),
            hash_row("1", "both", 123.4)};
  s.rows[2].result = "violation";
  s.rows[2].property = "lost_wakeup";
  s.rows[2].matched = false;
  const std::string expected =
      "\nfutex hash: 3 rows\n"
      "  workload.futexes  design.futex     ops_per_s  ops_per_s_per_thread  result\n"
      "                 1  baseline      2.50 M ops/s           313 k ops/s  pass\n"
      "              4096  baseline      1.00 G ops/s           125 M ops/s  pass\n"
      "                 1  both             123 ops/s            15.4 ops/s  violation: lost_wakeup  MISMATCH "
      "(expected pass)\n";
  CHECK(sweep_table(s) == expected);
}

TEST_CASE("sweep table: only parameters that vary; nothing without figures or a sweep", "[si]") {
  ScenarioReport s;
  s.name = "one design";
  s.swept = true;
  s.rows = {hash_row("1", "baseline", 1e6), hash_row("64", "baseline", 2e6)};
  const std::string table = sweep_table(s);
  CHECK(table.find("design.futex") == std::string::npos);
  CHECK(table.find("workload.futexes") != std::string::npos);
  s.rows.pop_back();  // one row: nothing varies, so every parameter is shown
  CHECK(sweep_table(s).find("design.futex") != std::string::npos);
  ScenarioReport plain = s;
  plain.swept = false;
  CHECK(sweep_table(plain).empty());
  for (RowReport& r : s.rows) r.workload = {};
  CHECK(sweep_table(s).empty());
}
