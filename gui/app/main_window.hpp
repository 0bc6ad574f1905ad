// The viewer's window: File menu (open, recent files), the timeline with its flow filter,
// a search box, the event list kept in sync with the current step (previous/next) and the
// state at that step, for counterexample stepping. The result and compare views, the
// statistics panel and export live in ViewHost (view_host.hpp).
#pragma once

#include <memory>
#include <optional>

#include <QMainWindow>
#include <QString>

#include "gui/model/event_filter.hpp"
#include "gui/model/trace.hpp"

class QCheckBox;
class QLabel;
class QLineEdit;
class QListView;
class QMenu;
class QPlainTextEdit;
class QSpinBox;

namespace lockstep::view {

class StepListModel;
class TimelineWidget;
class ViewHost;

class MainWindow : public QMainWindow {
 public:
  MainWindow();
  // Opens a trace or a result file (by content); on error shows a dialog and returns false (the
  // previous file stays).
  bool open(const QString& path);
  // The same without the dialog: the error's text, or nothing when the file opened.
  std::optional<QString> try_open(const QString& path);
  // Compares the open trace with the one at `path` in the compare view.
  bool compare_with(const QString& path);
  void step_to(std::optional<std::size_t> step);
  std::optional<std::size_t> current_step() const { return step_; }
  // Applies a search query (EventFilter syntax); false and a message when it is not valid.
  bool search(const QString& query);
  void find_next(bool backwards);
  TimelineWidget* timeline() const { return timeline_; }
  // The violation's (or witness's) step, else the last one; nullopt for an empty trace.
  std::optional<std::size_t> last_interesting_step() const;
  QString state_text() const;

 private:
  QWidget* make_toolbar();
  QWidget* make_lower_panel();
  void choose_file();
  void rebuild_recent_menu();
  void remember(const QString& path);
  void apply_flow_controls();
  void show_list_rows();
  void update_status();

  std::shared_ptr<const Trace> trace_;
  EventFilter filter_;
  TimelineWidget* timeline_ = nullptr;
  StepListModel* steps_model_ = nullptr;
  QListView* events_ = nullptr;
  QPlainTextEdit* state_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* search_status_ = nullptr;  // a query's error, or "no match"
  QLineEdit* search_ = nullptr;
  QCheckBox* only_matches_ = nullptr;
  QCheckBox* flow_wake_ = nullptr;
  QCheckBox* flow_lock_ = nullptr;
  QCheckBox* flow_line_ = nullptr;
  QCheckBox* flow_cross_ = nullptr;
  QSpinBox* flow_cap_ = nullptr;
  QMenu* recent_ = nullptr;
  ViewHost* views_ = nullptr;
  std::optional<std::size_t> step_;
};

}  // namespace lockstep::view
