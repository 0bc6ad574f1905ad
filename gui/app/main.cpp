// lockstep-view: the Qt viewer of lockstep traces and results. Reads those files only.
//   lockstep-view [FILE [FILE2]]                                    the window (two traces: compared)
//   lockstep-view --compare A B                                     the compare view of two traces
//                                                                   (with --screenshot: --view compare)
//   lockstep-view --screenshot OUT.png|OUT.svg [--view NAME] FILE [FILE2]  renders headless and exits
//   lockstep-view --window-shot OUT.png [--step N] [--search Q] FILE   the real window, captured
// Exit codes: 0 done, 2 bad usage or a file that is not a readable trace or result.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <QApplication>
#include <QCommandLineParser>

#include "gui/app/main_window.hpp"
#include "gui/app/screenshot.hpp"
#include "gui/app/window_shot.hpp"

int main(int argc, char** argv) {
  // --screenshot, --help and --version run without a display unless a platform was asked for.
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    const bool headless = arg == "--screenshot" || arg == "--help" || arg == "-h" || arg == "--version";
    if (headless && !std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName("lockstep-view");
  QApplication::setApplicationVersion(LOCKSTEP_VERSION);
  QCommandLineParser parser;
  parser.setApplicationDescription("Viewer of lockstep traces (docs/traces.md) and results (docs/results.md)");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addOption({"screenshot", "Render headless into OUT.png (OUT.svg: SVG) and exit.", "OUT"});
  parser.addOption({"view",
                    "The view to render: timeline or stats (a trace), compare (two traces), result (a result "
                    "file), sweep (a result's sweep chart alone). Default: the file's own.",
                    "NAME"});
  parser.addOption({"compare",
                    "Compare the two trace FILEs side by side (a native and a simulated trace of one scenario): "
                    "two timelines and each figure's difference in percent. With --screenshot: --view compare."});
  parser.addOption({"window-shot", "Open the window on the display, capture it into OUT.png and exit.", "OUT.png"});
  parser.addOption({"step", "With --window-shot: the step to show (default: the violation, else the last).", "N"});
  parser.addOption({"search", "With --window-shot: a search query; shows its first match.", "QUERY"});
  parser.addPositionalArgument("FILE", "A lockstep trace (.jsonl) or result (.json); a second trace to compare.");
  if (!parser.parse(QApplication::arguments())) {
    std::fprintf(stderr, "lockstep-view: %s\n", qPrintable(parser.errorText()));
    return 2;
  }
  if (parser.isSet("help")) parser.showHelp(0);
  if (parser.isSet("version")) parser.showVersion();
  const QStringList files = parser.positionalArguments();
  const bool compare = parser.isSet("compare");
  if (compare && (files.size() != 2 || (parser.isSet("view") && parser.value("view") != "compare"))) {
    std::fprintf(stderr, "lockstep-view: --compare takes two trace files and no other --view\n");
    return 2;
  }
  if (parser.isSet("screenshot"))
    return lockstep::view::screenshot(parser.value("screenshot"), compare ? "compare" : parser.value("view"), files);
  if (parser.isSet("window-shot")) {
    if (files.size() != 1) {
      std::fprintf(stderr, "lockstep-view: --window-shot needs exactly one trace file\n");
      return 2;
    }
    return lockstep::view::window_shot(parser.value("window-shot"), files.front(), parser.value("step"),
                                       parser.value("search"));
  }
  lockstep::view::MainWindow window;
  window.show();
  if (!files.isEmpty() && window.open(files.front()) && files.size() > 1) window.compare_with(files[1]);
  return app.exec();
}
