// lockstep-view --screenshot of the stats, compare and result views, in PNG and SVG, and its
// exit code 2 on every kind of wrong input.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include <QFile>
#include <QImage>
#include <QXmlStreamReader>

#include "gui/tests/result_helpers.hpp"

namespace lockstep::view {
namespace {

using testing::quoted;
using testing::run_view;

// Distinct colors, and whether some pixel matches `want`.
struct Colors {
  std::size_t distinct = 0;
  bool found = false;
};

template <typename Want>
Colors colors_of(const std::filesystem::path& png, Want want) {
  const QImage image(QString::fromStdString(png.string()));
  REQUIRE(!image.isNull());
  CHECK(image.width() >= 800);
  std::set<QRgb> seen;
  Colors c;
  for (int y = 0; y < image.height(); y += 2)
    for (int x = 0; x < image.width(); x += 2) {
      seen.insert(image.pixel(x, y));
      c.found = c.found || want(image.pixel(x, y));
    }
  c.distinct = seen.size();
  return c;
}

bool histogram_blue(QRgb c) { return qRed(c) == 66 && qGreen(c) == 133 && qBlue(c) == 244; }
bool dark_red(QRgb c) { return qRed(c) > 150 && qGreen(c) < 80 && qBlue(c) < 80; }

// An SVG whose root element is <svg>, parsed to the end without an XML error.
void check_svg(const std::filesystem::path& path) {
  QFile file(QString::fromStdString(path.string()));
  REQUIRE(file.open(QIODevice::ReadOnly));
  QXmlStreamReader xml(&file);
  QString root;
  int elements = 0;
  while (!xml.atEnd()) {
    if (xml.readNext() == QXmlStreamReader::StartElement) {
      if (root.isEmpty()) root = xml.name().toString();
      ++elements;
    }
  }
  CHECK(!xml.hasError());
  CHECK(root == "svg");
  CHECK(elements > 20);  // drawn things, not an empty document
}

// Nothing but `keep` in the scratch output directory: no temporary file of an atomic write left behind.
void check_no_leftovers(const std::filesystem::path& dir, const std::set<std::string>& keep) {
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    CHECK(keep.count(entry.path().filename().string()) == 1);
}

std::filesystem::path out_dir(const std::string& name) {
  const auto dir = testing::scratch_dir() / name;
  std::filesystem::create_directories(dir);
  return dir;
}

TEST_CASE("view: --screenshot of a latency-probe result: the histogram with its peaks, PNG and SVG") {
  const auto result = testing::record_result("run", "scenarios/machine/nehalem-2s-latency.yaml", "shot-latency");
  REQUIRE(!result.empty());
  const auto dir = out_dir("latency-shots");
  const auto png = dir / "latency.png", svg = dir / "latency.svg";
  REQUIRE(run_view("--screenshot " + quoted(png) + " " + quoted(result)) == 0);  // result: the default view
  const Colors c = colors_of(png, histogram_blue);
  CHECK(c.distinct > 8);
  CHECK(c.found);
  CHECK(colors_of(png, dark_red).found);  // the peaks' dashed lines
  REQUIRE(run_view("--screenshot " + quoted(svg) + " --view result " + quoted(result)) == 0);
  check_svg(svg);
  CHECK(testing::slurp(svg).find("peak") != std::string::npos);  // text stays text in SVG
  check_no_leftovers(dir, {"latency.png", "latency.svg"});
}

TEST_CASE("view: --screenshot of a c2c result shows the heatmap, of a counterexample its interleaving") {
  const auto c2c = testing::record_result("run", "scenarios/machine/nehalem-2s-c2c.yaml", "shot-c2c");
  REQUIRE(!c2c.empty());
  const auto png = testing::scratch_dir() / "c2c.png";
  REQUIRE(run_view("--screenshot " + quoted(png) + " " + quoted(c2c)) == 0);
  CHECK(colors_of(png, dark_red).found);  // the cross-socket cells
  const auto cx = testing::record_result("check", "scenarios/futex/lost-wakeup-missing-barrier.yaml", "shot-cx");
  REQUIRE(!cx.empty());
  const auto svg = testing::scratch_dir() / "cx.svg";
  REQUIRE(run_view("--screenshot " + quoted(svg) + " " + quoted(cx)) == 0);
  check_svg(svg);
  const std::string text = testing::slurp(svg);
  CHECK(text.find("Counterexample") != std::string::npos);
  CHECK(text.find("VIOLATION lost_wakeup") != std::string::npos);
}

TEST_CASE("view: --screenshot of the stats and compare views of real traces, PNG and SVG") {
  const auto bad = testing::record_trace("scenarios/futex/lost-wakeup-missing-barrier.yaml", "shot-bad");
  const auto good = testing::record_trace("scenarios/futex/lost-wakeup-fixed.yaml", "shot-good");
  REQUIRE(!bad.empty());
  REQUIRE(!good.empty());
  const auto dir = out_dir("trace-shots");
  const auto stats_png = dir / "stats.png", stats_svg = dir / "stats.svg";
  REQUIRE(run_view("--screenshot " + quoted(stats_png) + " --view stats " + quoted(bad)) == 0);
  CHECK(colors_of(stats_png, histogram_blue).found);
  REQUIRE(run_view("--screenshot " + quoted(stats_svg) + " --view stats " + quoted(bad)) == 0);
  check_svg(stats_svg);
  CHECK(testing::slurp(stats_svg).find("Operations by kind") != std::string::npos);

  const auto cmp_png = dir / "compare.png", cmp_svg = dir / "compare.svg";
  REQUIRE(run_view("--screenshot " + quoted(cmp_png) + " --view compare " + quoted(bad) + " " + quoted(good)) == 0);
  const Colors c = colors_of(cmp_png, dark_red);  // A's violation marker
  CHECK(c.distinct > 8);
  CHECK(c.found);
  // Two timelines one above the other: taller than one trace's timeline alone.
  const auto timeline = dir / "timeline.png";
  REQUIRE(run_view("--screenshot " + quoted(timeline) + " " + quoted(bad)) == 0);
  CHECK(QImage(QString::fromStdString(cmp_png.string())).height() >
        2 * QImage(QString::fromStdString(timeline.string())).height());
  REQUIRE(run_view("--screenshot " + quoted(cmp_svg) + " " + quoted(bad) + " " + quoted(good)) ==
          0);  // 2 files: compare
  check_svg(cmp_svg);
  CHECK(testing::slurp(cmp_svg).find("First divergence") != std::string::npos);
  check_no_leftovers(dir, {"stats.png", "stats.svg", "compare.png", "compare.svg", "timeline.png"});
}

TEST_CASE("view: --screenshot exits 2 on a wrong view, wrong kind or number of files, a broken result") {
  const auto trace = testing::record_trace("scenarios/futex/lost-wakeup-fixed.yaml", "shot-wrong");
  const auto result = testing::record_result("run", "scenarios/machine/nehalem-2s-c2c.yaml", "shot-wrong");
  REQUIRE(!trace.empty());
  REQUIRE(!result.empty());
  const auto dir = out_dir("never");
  const auto png = dir / "never.png";
  const std::string out = "--screenshot " + quoted(png) + " ";
  CHECK(run_view(out + "--view nosuch " + quoted(result)) == 2);
  CHECK(testing::view_errors().find("unknown view") != std::string::npos);
  CHECK(run_view(out + "--view result " + quoted(trace)) == 2);
  CHECK(testing::view_errors().find("is a trace") != std::string::npos);
  CHECK(run_view(out + "--view stats " + quoted(result)) == 2);
  CHECK(testing::view_errors().find("is a result file") != std::string::npos);
  CHECK(run_view(out + "--view timeline " + quoted(result)) == 2);
  CHECK(run_view(out + "--view compare " + quoted(trace)) == 2);
  CHECK(run_view(out + "--view compare " + quoted(trace) + " " + quoted(result)) == 2);
  CHECK(run_view(out + "--view stats " + quoted(trace) + " " + quoted(trace)) == 2);
  CHECK(run_view(out) == 2);

  const std::string text = testing::slurp(result);
  const auto truncated = testing::scratch_dir() / "cut.json";
  testing::spit(truncated, text.substr(0, text.size() / 2));
  CHECK(run_view(out + quoted(truncated)) == 2);
  CHECK(testing::view_errors().find("truncated") != std::string::npos);
  const auto corrupt = testing::scratch_dir() / "corrupt.json";
  testing::spit(corrupt, "{\"scenario\": \"a.yaml\", \"result\": \"pass\", \"histogram\": 7}\n");
  CHECK(run_view(out + quoted(corrupt)) == 2);
  CHECK(testing::view_errors().find("histogram") != std::string::npos);
  check_no_leftovers(dir, {});  // nothing written, not even a temporary file

  // An output that cannot be written is an error too, not a crash.
  CHECK(run_view("--screenshot /nonexistent-dir/x.svg " + quoted(result)) == 2);
}

}  // namespace
}  // namespace lockstep::view
