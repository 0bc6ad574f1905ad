#include "gui/app/window_shot.hpp"

#include <cstdio>

#include <QApplication>
#include <QPixmap>
#include <QScreen>
#include <QTimer>

#include "gui/app/main_window.hpp"

namespace lockstep::view {

int window_shot(const QString& out, const QString& file, const QString& step_text, const QString& query) {
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

}  // namespace lockstep::view
