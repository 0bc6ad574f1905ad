// lockstep-view --screenshot, run as a process on real and broken traces.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <set>
#include <string>

#include <QColor>
#include <QImage>

#include "gui/tests/helpers.hpp"

namespace lockstep::view {
namespace {

int run_view(const std::string& args) {
  const std::string cmd = std::string("QT_QPA_PLATFORM=offscreen '") + LOCKSTEP_VIEW_BIN + "' " + args + " >'" +
                          (testing::scratch_dir() / "view.err").string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_CASE("view: --screenshot of the futex lost-wakeup counterexample is a picture, not a blank") {
  const auto trace = testing::record_trace("scenarios/futex/lost-wakeup-missing-barrier.yaml", "shot");
  REQUIRE(!trace.empty());
  const auto png = testing::scratch_dir() / "lost-wakeup.png";
  REQUIRE(run_view("--screenshot '" + png.string() + "' '" + trace.string() + "'") == 0);
  REQUIRE(std::filesystem::exists(png));
  const QImage image(QString::fromStdString(png.string()));
  REQUIRE(!image.isNull());
  CHECK(image.width() >= 800);
  // Not blank: many distinct colors, and the violation's red is there.
  std::set<QRgb> colors;
  bool red = false;
  for (int y = 0; y < image.height(); y += 2)
    for (int x = 0; x < image.width(); x += 2) {
      const QRgb c = image.pixel(x, y);
      colors.insert(c);
      red = red || (qRed(c) > 200 && qGreen(c) < 70 && qBlue(c) < 70);
    }
  CHECK(colors.size() > 8);
  CHECK(red);
  CHECK(run_view("--screenshot '" + png.string() + "' --view timeline '" + trace.string() + "'") == 0);
}

TEST_CASE("view: --screenshot exits 2 with a message on a truncated, corrupt or missing trace") {
  const auto trace = testing::record_trace("scenarios/futex/lost-wakeup-missing-barrier.yaml", "cut");
  REQUIRE(!trace.empty());
  const std::string text = testing::slurp(trace);
  const auto png = testing::scratch_dir() / "never.png";
  const auto truncated = testing::scratch_dir() / "truncated.jsonl";
  testing::spit(truncated, text.substr(0, text.size() * 2 / 3));
  CHECK(run_view("--screenshot '" + png.string() + "' '" + truncated.string() + "'") == 2);
  CHECK(testing::slurp(testing::scratch_dir() / "view.err").find("line ") != std::string::npos);
  CHECK(!std::filesystem::exists(png));
  const auto corrupt = testing::scratch_dir() / "corrupt.jsonl";
  testing::spit(corrupt, "\x89PNG not a trace\n");
  CHECK(run_view("--screenshot '" + png.string() + "' '" + corrupt.string() + "'") == 2);
  CHECK(run_view("--screenshot '" + png.string() + "' /nonexistent.jsonl") == 2);
  CHECK(run_view("--screenshot '" + png.string() + "' --view nosuch '" + trace.string() + "'") == 2);
  CHECK(!std::filesystem::exists(png));
}

}  // namespace
}  // namespace lockstep::view
