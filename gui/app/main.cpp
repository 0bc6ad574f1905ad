// lockstep-view: the Qt viewer of lockstep traces. Reads trace files only.
//   lockstep-view [FILE]                                   the window
//   lockstep-view --screenshot OUT.png [--view NAME] FILE  renders headless and exits
// Exit codes: 0 done, 2 bad usage or a file that is not a readable trace.
#include <cstdio>
#include <cstdlib>

#include <QApplication>
#include <QCommandLineParser>
#include <QImage>
#include <QPainter>

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
  lockstep::view::MainWindow window;
  window.show();
  if (!files.isEmpty()) window.open(files.front());
  return app.exec();
}
