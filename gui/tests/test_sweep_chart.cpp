// The sweep chart (gui/model/sweep_chart.hpp): which parameter goes on x, which figure on y,
// the series and their points, on made-up results and on a real futex-hash sweep; and
// `lockstep-view --screenshot --view sweep` writing it as PNG and SVG.
#include <catch2/catch.hpp>

#include <string>

#include <QImage>

#include <nlohmann/json.hpp>

#include "gui/model/document.hpp"
#include "gui/model/sweep_chart.hpp"
#include "gui/tests/result_helpers.hpp"

namespace lockstep::view {
namespace {

using Json = nlohmann::ordered_json;

// A swept result as lockstep writes it: one row per (params, figures).
std::string sweep_json(const std::vector<std::pair<Json, Json>>& rows) {
  Json out = {{"scenario", "s.yaml"}, {"name", "made up"}, {"command", "run"}, {"swept", true}, {"result", "pass"}};
  Json list = Json::array();
  for (const auto& [params, figures] : rows) {
    Json row = {{"params", params}, {"result", "pass"}, {"executions", 1}};
    for (const auto& [k, v] : figures.items()) row[k] = v;
    list.push_back(row);
  }
  out["rows"] = list;
  return out.dump();
}

std::optional<SweepChart> chart_of(const std::string& json) { return sweep_chart(parse_result(json).scenarios.at(0)); }

TEST_CASE("sweep chart: futexes on a log x, ops/s on y, one series per design") {
  std::vector<std::pair<Json, Json>> rows;
  for (int futexes : {1, 4, 16, 64, 1024, 4096})
    for (const char* design : {"baseline", "both"}) {
      const double ops = (design == std::string("both") ? 2e6 : 1e6) * futexes;
      rows.push_back({{{"workload.futexes", futexes}, {"design.futex", design}},
                      {{"design", design}, {"threads", 128}, {"ops_per_s", ops}, {"ops_per_s_per_thread", ops / 128}}});
    }
  const std::optional<SweepChart> chart = chart_of(sweep_json(rows));
  REQUIRE(chart);
  CHECK(chart->x_name == "workload.futexes");
  CHECK(chart->y_name == "ops_per_s");
  CHECK(chart->y_unit == "ops/s");
  CHECK(chart->y_scale == 1);
  CHECK(chart->series_name == "design.futex");
  CHECK(chart->log_x);  // 1 to 4096: more than two decades
  CHECK(chart->log_y);
  REQUIRE(chart->series.size() == 2);
  CHECK(chart->series[0].label == "baseline");
  CHECK(chart->series[1].label == "both");
  for (const SweepSeries& s : chart->series) {
    REQUIRE(s.points.size() == 6);
    CHECK(s.points.front().x == 1);
    CHECK(s.points.back().x == 4096);
    CHECK(s.points.back().x_text == "4096");
  }
  CHECK(chart->series[1].points[2].y == 32e6);  // both, 16 futexes
}

TEST_CASE("sweep chart: one numeric parameter alone is one series; nanoseconds are seconds") {
  const auto chart = chart_of(sweep_json({{{{"workload.batch", 15}}, {{"wake_ns_per_round", 5000.5}}},
                                          {{{"workload.batch", 1}}, {{"wake_ns_per_round", 20000}}}}));
  REQUIRE(chart);
  CHECK(chart->y_name == "wake_ns_per_round");
  CHECK(chart->y_unit == "s");
  CHECK(chart->y_scale == 1e-9);
  CHECK(chart->series_name.empty());
  CHECK(!chart->log_x);
  CHECK(!chart->log_y);
  REQUIRE(chart->series.size() == 1);
  CHECK(chart->series[0].label.empty());
  REQUIRE(chart->series[0].points.size() == 2);
  CHECK(chart->series[0].points[0].x == 1);  // sorted by x, not by row
  CHECK(chart->series[0].points[1].y == 5000.5);
}

TEST_CASE("sweep chart: x is the numeric parameter with most values; several others label the series") {
  std::vector<std::pair<Json, Json>> rows;
  for (int threads : {32, 64, 128})
    for (int words : {1, 2})
      for (const char* design : {"a", "b"})
        rows.push_back({{{"design.futex", design}, {"workload.words", words}, {"workload.threads", threads}},
                        {{"round_trips_per_s", threads * words}}});
  const auto chart = chart_of(sweep_json(rows));
  REQUIRE(chart);
  CHECK(chart->x_name == "workload.threads");
  CHECK(chart->y_name == "round_trips_per_s");
  CHECK(chart->series_name == "design.futex, workload.words");
  REQUIRE(chart->series.size() == 4);
  CHECK(chart->series[0].label == "design.futex=a, workload.words=1");
  CHECK(chart->series[0].points.size() == 3);
}

TEST_CASE("sweep chart: none without a numeric parameter, a headline figure, or a sweep") {
  CHECK(!chart_of(
      sweep_json({{{{"design.futex", "a"}}, {{"ops_per_s", 1}}}, {{{"design.futex", "b"}}, {{"ops_per_s", 2}}}})));
  CHECK(!chart_of(
      sweep_json({{{{"workload.threads", 2}}, {{"threads", 2}}}, {{{"workload.threads", 4}}, {{"threads", 4}}}})));
  CHECK(!chart_of(sweep_json({{{{"workload.threads", 2}}, {{"ops_per_s", 1}}}})));  // one value: no axis
  CHECK(!sweep_chart(parse_result(R"({"scenario":"a.yaml","result":"pass","ops_per_s":5})").scenarios.at(0)));
}

// A futex-hash sweep small enough for a test: 4 threads on nehalem-2s, three futex counts, two designs.
std::filesystem::path small_hash_sweep() {
  const auto yaml = testing::scratch_dir() / "small-hash.yaml";
  testing::spit(yaml,
                "name: small futex hash sweep\n"
                "machine: {preset: nehalem-2s}\n"
                "design: {futex: baseline}\n"
                "workload: {kind: futex-hash, threads: 4, futexes: 1, runtime_us: 5}\n"
                "strategy: {kind: timed, seed: 1}\n"
                "expect: pass\n"
                "sweep:\n"
                "  workload.futexes: [1, 16, 256]\n"
                "  design.futex: [baseline, both]\n");
  return testing::record_result("run", testing::quoted(yaml), "small-hash");
}

TEST_CASE("view: a real futex-hash sweep charts ops/s by futexes, a line per design, as PNG and SVG") {
  const auto result = small_hash_sweep();
  REQUIRE(!result.empty());
  const ResultFile file = load_result(result);
  const auto chart = sweep_chart(file.scenarios.at(0));
  REQUIRE(chart);
  CHECK(chart->x_name == "workload.futexes");
  CHECK(chart->y_name == "ops_per_s");
  CHECK(chart->log_x);  // 1 to 256
  REQUIRE(chart->series.size() == 2);
  CHECK(chart->series[0].label == "baseline");
  CHECK(chart->series[1].label == "both");
  for (const SweepSeries& s : chart->series) {
    REQUIRE(s.points.size() == 3);
    for (const SweepPoint& p : s.points) CHECK(p.y > 0);
  }

  const auto png = testing::scratch_dir() / "sweep.png", svg = testing::scratch_dir() / "sweep.svg";
  REQUIRE(testing::run_view("--screenshot " + testing::quoted(png) + " --view sweep " + testing::quoted(result)) == 0);
  REQUIRE(testing::run_view("--screenshot " + testing::quoted(svg) + " --view sweep " + testing::quoted(result)) == 0);
  CHECK(std::filesystem::file_size(png) > 1000);
  const QImage image(QString::fromStdString(png.string()));
  REQUIRE(!image.isNull());
  CHECK(image.width() == 900);
  bool blue = false;  // the first series' color
  for (int y = 0; y < image.height() && !blue; ++y)
    for (int x = 0; x < image.width() && !blue; ++x) {
      const QRgb c = image.pixel(x, y);
      blue = qRed(c) == 33 && qGreen(c) == 102 && qBlue(c) == 172;
    }
  CHECK(blue);
  const std::string text = testing::slurp(svg);
  CHECK(text.find("<svg") != std::string::npos);
  for (const char* shown :
       {"baseline", "both", "design.futex", "workload.futexes (log scale)", "ops_per_s (ops/s)", "256"})
    CHECK(text.find(shown) != std::string::npos);

  // The result view shows the chart above the rows; a result without a sweep has no sweep view.
  const auto page = testing::scratch_dir() / "sweep-page.svg";
  REQUIRE(testing::run_view("--screenshot " + testing::quoted(page) + " " + testing::quoted(result)) == 0);
  CHECK(testing::slurp(page).find("ops_per_s by workload.futexes and design.futex") != std::string::npos);
  const auto c2c = testing::record_result("run", "scenarios/machine/nehalem-2s-c2c.yaml", "no-sweep");
  REQUIRE(!c2c.empty());
  CHECK(testing::run_view("--screenshot " + testing::quoted(png) + " --view sweep " + testing::quoted(c2c)) == 2);
  CHECK(testing::view_errors().find("no sweep") != std::string::npos);
}

}  // namespace
}  // namespace lockstep::view
