// The window's views beside the trace page: the result view, the compare view and the
// statistics panel (a dock), with the File menu's Compare with... and Export PNG/SVG... and
// the View menu's panel toggle. Kept apart from MainWindow so the trace page (timeline,
// stepping) and these views can change independently.
#pragma once

#include <functional>
#include <memory>

#include <QObject>
#include <QString>

#include "gui/model/result.hpp"
#include "gui/model/trace.hpp"
#include "gui/render/export.hpp"

class QDockWidget;
class QMainWindow;
class QMenu;
class QStackedWidget;
class QWidget;

namespace lockstep::view {

class CompareWidget;
class ResultWidget;
class StatsWidget;

class ViewHost : public QObject {
 public:
  // Takes `window`'s central widget (the trace page) into a stack with the other views, and adds
  // the menu entries. `trace_page_picture` paints the trace page for export; `open_file` opens a
  // file in the window (a result's trace).
  ViewHost(QMainWindow* window, QMenu* file_menu, QMenu* view_menu, std::function<Picture()> trace_page_picture,
           std::function<void(const QString&)> open_file);

  void show_trace(std::shared_ptr<const Trace> trace, const QString& path);
  void show_result(std::shared_ptr<const ResultFile> result, const QString& path);
  // Compares the shown trace with the trace at `path`; a dialog when there is no trace shown or
  // `path` is not a readable trace.
  bool compare_with(const QString& path);
  StatsWidget* statistics() const { return stats_; }

 private:
  void choose_compare();
  // File > Compare two traces...: opens the first trace chosen and compares it with the second.
  void choose_two();
  void export_view(PictureFormat format);
  void show_page(QWidget* page, const QString& title);

  QMainWindow* window_;
  std::function<Picture()> trace_page_picture_;
  std::function<void(const QString&)> open_file_;
  QStackedWidget* stack_ = nullptr;
  QWidget* trace_page_ = nullptr;
  ResultWidget* result_ = nullptr;
  CompareWidget* compare_ = nullptr;
  QDockWidget* stats_dock_ = nullptr;
  StatsWidget* stats_ = nullptr;
  std::shared_ptr<const Trace> trace_;
  QString trace_path_;
};

}  // namespace lockstep::view
