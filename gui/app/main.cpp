// lockstep-view: the Qt viewer of lockstep traces. Reads trace files only.
//   lockstep-view [FILE]                                   the window
//   lockstep-view --screenshot OUT.png [--view NAME] FILE  renders headless and exits
//   lockstep-view --window-shot OUT.png [--step N] [--search Q] FILE
//       opens the real window on the current display (X11, Xvfb), steps to step N (default:
//       the violation, else the last step), captures the screen's window and exits
// Exit codes: 0 done, 2 bad usage or a file that is not a readable trace.
#include <cstdio>
#include <cstdlib>

#include <QApplication>
#include <QCommandLineParser>
#include <QImage>
#include <QPainter>
#include <QPixmap>
#include <QScreen>
#include <QTimer>

#include "gui/app/main_window.hpp"
#include "gui/model/trace.hpp"
#include "gui/render/timeline.hpp"

namespace {

constexpr int kScreenshotWidth = 1600;

int screenshot(const QString& out, const QString& view, const QString& file) {
  using namespace lockstep::view;
  if (view != "timeline") {
    std::fprintf(stderr, "lockstep-view: unknown view '%s' (known: timeline)\n", qPrintable(view));
    return 2;
  }
  Trace trace;
  try {
    trace = load_trace(file.toStdString());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lockstep-view: %s\n", e.what());
    return 2;
  }
  const int height = std::max(200, TimelineLayout::content_height(trace));
  QImage image(kScreenshotWidth, height, QImage::Format_ARGB32);
  image.fill(Qt::white);
  {
    QPainter p(&image);
    paint_timeline(p, trace, image.rect(), full_window(trace));
  }
  if (!image.save(out, "PNG")) {
    std::fprintf(stderr, "lockstep-view: cannot write %s\n", qPrintable(out));
    return 2;
  }
  return 0;
}

// The real window, as a user sees it: opened, stepped, captured from the screen.
int window_shot(const QString& out, const QString& file, const QString& step_text, const QString& query) {
  using namespace lockstep::view;
  MainWindow window;
  window.show();
  if (const auto error = window.try_open(file)) {  // on stderr, not in a dialog
    std::fprintf(stderr, "lockstep-view: %s\n", qPrintable(*error));
    return 2;
  }
  if (!query.isEmpty() && !window.search(query)) {
    std::fprintf(stderr, "lockstep-view: bad --search query\n");
    return 2;
  }
  bool ok = true;
  const std::size_t step = step_text.isEmpty() ? 0 : step_text.toULongLong(&ok);
  if (!ok) {
    std::fprintf(stderr, "lockstep-view: --step needs a step number\n");
    return 2;
  }
  if (!step_text.isEmpty()) {
    window.step_to(step);
  } else if (!query.isEmpty()) {
    window.find_next(false);
  } else {
    window.step_to(window.last_interesting_step());
  }
  // Let the window map and paint, then capture what the display shows.
  QApplication::processEvents();
  int rc = 0;
  QTimer::singleShot(300, [&] {
    QApplication::processEvents();
    QPixmap shot;
    if (QScreen* screen = window.screen()) shot = screen->grabWindow(window.winId());
    if (shot.isNull()) shot = window.grab();
    if (!shot.save(out, "PNG")) {
      std::fprintf(stderr, "lockstep-view: cannot write %s\n", qPrintable(out));
      rc = 2;
    }
    QApplication::quit();
  });
  QApplication::exec();
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  // --screenshot runs without a display unless a platform was asked for.
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--screenshot" && !std::getenv("QT_QPA_PLATFORM"))
      setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  QApplication::setApplicationName("lockstep-view");
  QCommandLineParser parser;
  parser.setApplicationDescription("Viewer of lockstep traces (docs/traces.md)");
  parser.addHelpOption();
  parser.addOption({"screenshot", "Render FILE headless into OUT.png and exit.", "OUT.png"});
  parser.addOption({"view", "The view to render: timeline (default).", "NAME", "timeline"});
  parser.addOption({"window-shot", "Open the window on the display, capture it into OUT.png and exit.", "OUT.png"});
  parser.addOption({"step", "With --window-shot: the step to show (default: the violation, else the last).", "N"});
  parser.addOption({"search", "With --window-shot: a search query; shows its first match.", "QUERY"});
  parser.addPositionalArgument("FILE", "A lockstep trace (.jsonl).");
  if (!parser.parse(QApplication::arguments())) {
    std::fprintf(stderr, "lockstep-view: %s\n", qPrintable(parser.errorText()));
    return 2;
  }
  if (parser.isSet("help")) parser.showHelp(0);
  const QStringList files = parser.positionalArguments();
  if (parser.isSet("screenshot")) {
    if (files.size() != 1) {
      std::fprintf(stderr, "lockstep-view: --screenshot needs exactly one trace file\n");
      return 2;
    }
    return screenshot(parser.value("screenshot"), parser.value("view"), files.front());
  }
  if (parser.isSet("window-shot")) {
    if (files.size() != 1) {
      std::fprintf(stderr, "lockstep-view: --window-shot needs exactly one trace file\n");
      return 2;
    }
    return window_shot(parser.value("window-shot"), files.front(), parser.value("step"), parser.value("search"));
  }
  lockstep::view::MainWindow window;
  window.show();
  if (!files.isEmpty()) window.open(files.front());
  return app.exec();
}
