// The window's logic in-process on the offscreen platform (stepping, search, the state
// panel, flow controls), and the real window on an X server (Xvfb) captured from the screen.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <set>
#include <string>

#include <QApplication>
#include <QImage>
#include <QTimer>

#include "gui/app/main_window.hpp"
#include "gui/app/timeline_widget.hpp"
#include "gui/tests/helpers.hpp"

namespace lockstep::view {
namespace {

QApplication& app() { return testing::qt_app(); }

TEST_CASE("view: the window steps through the lost-wakeup counterexample with the state panel in sync") {
  app();
  const auto trace = testing::record_trace("scenarios/futex/lost-wakeup-missing-barrier.yaml", "window");
  REQUIRE(!trace.empty());
  MainWindow window;
  REQUIRE(window.open(QString::fromStdString(trace.string())));
  const auto last = window.last_interesting_step();
  REQUIRE(last);
  window.step_to(last);
  CHECK(window.current_step() == last);
  const std::string at_violation = window.state_text().toStdString();
  CHECK(at_violation.find("(the violation)") != std::string::npos);
  CHECK(at_violation.find("waiter: parked") != std::string::npos);
  window.step_to(0);
  const std::string first = window.state_text().toStdString();
  CHECK(first.find("(the violation)") == std::string::npos);
  CHECK(first != at_violation);

  SECTION("search moves to the matches, in order, and a bad query changes nothing") {
    REQUIRE(window.search("thread:waiter op:park"));
    window.find_next(false);
    REQUIRE(window.current_step());
    const std::size_t park = *window.current_step();
    // The state panel names the operation in the design's protocol step (P::note_step).
    CHECK(window.state_text().toStdString().find("last: waiter: futex_wait > sleep until woken: park") !=
          std::string::npos);
    window.find_next(false);
    CHECK(window.current_step() == park);  // the only park: wraps to itself
    CHECK(!window.search("cpu:nope"));
    CHECK(window.current_step() == park);
  }
  SECTION("the flow controls reach the timeline") {
    CHECK(window.timeline()->flow_filter().wake);
    CHECK(window.timeline()->flow_filter().cap > 0);
  }
}

TEST_CASE("view: opening a corrupt trace keeps the window's trace and says why (no crash)") {
  app();
  const auto bad = testing::scratch_dir() / "bad-window.jsonl";
  testing::spit(bad, "{\"format\":\"lockstep-trace\",\"version\":1}\n{\"t\":0,\"ev\":");
  // The error dialog is modal; close it as soon as it shows.
  QTimer::singleShot(0, [] {
    for (QWidget* w : QApplication::topLevelWidgets())
      if (w->inherits("QMessageBox")) w->close();
  });
  MainWindow window;
  CHECK(!window.open(QString::fromStdString(bad.string())));
}

int run(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_CASE("view: the real window opens on an X server (Xvfb) and is captured from the screen") {
  REQUIRE(run("command -v xvfb-run >/dev/null") == 0);  // scripts/debian-packages.txt installs xvfb
  const auto trace = testing::record_trace("scenarios/futex/lost-wakeup-missing-barrier.yaml", "xvfb");
  REQUIRE(!trace.empty());
  const auto png = testing::scratch_dir() / "window.png";
  const std::string cmd = "xvfb-run -a -s '-screen 0 1400x900x24' env QT_QPA_PLATFORM=xcb '" +
                          std::string(LOCKSTEP_VIEW_BIN) + "' --window-shot '" + png.string() + "' '" + trace.string() +
                          "' >'" + (testing::scratch_dir() / "xvfb.err").string() + "' 2>&1";
  REQUIRE(run(cmd) == 0);
  const QImage image(QString::fromStdString(png.string()));
  REQUIRE(!image.isNull());
  CHECK(image.width() >= 1000);
  CHECK(image.height() >= 600);
  std::set<QRgb> colors;
  bool red = false;
  for (int y = 0; y < image.height(); y += 3)
    for (int x = 0; x < image.width(); x += 3) {
      const QRgb c = image.pixel(x, y);
      colors.insert(c);
      red = red || (qRed(c) > 180 && qGreen(c) < 80 && qBlue(c) < 80);
    }
  CHECK(colors.size() > 20);  // widgets, text and lanes, not an empty or black screen
  CHECK(red);                 // the violation marker and its highlighted row
}

}  // namespace
}  // namespace lockstep::view
