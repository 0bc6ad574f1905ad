// The viewer's window: File menu (open, recent files), the timeline, and an event list kept in
// sync with the current step (previous/next) for counterexample stepping. The result and compare
// views, the statistics panel and export live in ViewHost (view_host.hpp).
#pragma once

#include <memory>
#include <optional>

#include <QMainWindow>
#include <QString>

#include "gui/model/trace.hpp"

class QLabel;
class QListWidget;
class QMenu;

namespace lockstep::view {

class TimelineWidget;
class ViewHost;

class MainWindow : public QMainWindow {
 public:
  MainWindow();
  // Opens a trace or a result file (by content); on error shows a dialog and returns false (the
  // previous file stays).
  bool open(const QString& path);
  // Compares the open trace with the one at `path` in the compare view.
  bool compare_with(const QString& path);
  void step_to(std::optional<std::size_t> step);

 private:
  void choose_file();
  void rebuild_recent_menu();
  void remember(const QString& path);

  std::shared_ptr<const Trace> trace_;
  TimelineWidget* timeline_ = nullptr;
  QListWidget* events_ = nullptr;
  QLabel* status_ = nullptr;
  QMenu* recent_ = nullptr;
  ViewHost* views_ = nullptr;
  std::optional<std::size_t> step_;
};

}  // namespace lockstep::view
