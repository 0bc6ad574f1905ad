#include "gui/app/view_host.hpp"

#include <variant>

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QStackedWidget>

#include "gui/app/compare_widget.hpp"
#include "gui/app/result_widget.hpp"
#include "gui/app/stats_widget.hpp"
#include "gui/model/document.hpp"

namespace lockstep::view {

namespace {

// Where the File menu's entries go: before its last separator (the one above Quit).
QAction* last_separator(QMenu* menu) {
  QAction* found = nullptr;
  for (QAction* a : menu->actions())
    if (a->isSeparator()) found = a;
  return found;
}

QAction* add_before(QMenu* menu, QAction* before, const QString& text, QObject* context, std::function<void()> fn) {
  auto* action = new QAction(text, menu);
  QObject::connect(action, &QAction::triggered, context, [fn = std::move(fn)] { fn(); });
  menu->insertAction(before, action);
  return action;
}

}  // namespace

ViewHost::ViewHost(QMainWindow* window, QMenu* file_menu, QMenu* view_menu, std::function<Picture()> trace_page_picture,
                   std::function<void(const QString&)> open_file)
    : QObject(window), window_(window), trace_page_picture_(std::move(trace_page_picture)), open_file_(open_file) {
  stack_ = new QStackedWidget(window);
  trace_page_ = window->takeCentralWidget();
  stack_->addWidget(trace_page_);
  result_ = new ResultWidget(stack_, std::move(open_file));
  stack_->addWidget(result_);
  compare_ = new CompareWidget(stack_, [this] { show_page(trace_page_, QFileInfo(trace_path_).fileName()); });
  stack_->addWidget(compare_);
  window->setCentralWidget(stack_);

  stats_ = new StatsWidget;
  stats_dock_ = new QDockWidget("Statistics", window);
  stats_dock_->setObjectName("statistics");
  stats_dock_->setWidget(stats_);
  window->addDockWidget(Qt::RightDockWidgetArea, stats_dock_);
  window->resizeDocks({stats_dock_}, {560}, Qt::Horizontal);
  stats_dock_->hide();  // until a trace is open

  QAction* before = last_separator(file_menu);
  add_before(file_menu, before, "&Compare with...", this, [this] { choose_compare(); });
  add_before(file_menu, before, "Compare &two traces...", this, [this] { choose_two(); });
  add_before(file_menu, before, "Export &PNG...", this, [this] { export_view(PictureFormat::png); });
  add_before(file_menu, before, "Export &SVG...", this, [this] { export_view(PictureFormat::svg); });
  QAction* toggle = stats_dock_->toggleViewAction();
  toggle->setText("&Statistics panel");
  view_menu->addAction(toggle);
}

void ViewHost::show_page(QWidget* page, const QString& title) {
  stack_->setCurrentWidget(page);
  window_->setWindowTitle("lockstep-view: " + title);
  stats_dock_->setVisible(page == trace_page_ && trace_);
}

void ViewHost::show_trace(std::shared_ptr<const Trace> trace, const QString& path) {
  trace_ = std::move(trace);
  trace_path_ = path;
  stats_->set_trace(trace_);
  show_page(trace_page_, QFileInfo(path).fileName());
}

void ViewHost::show_result(std::shared_ptr<const ResultFile> result, const QString& path) {
  result_->set_result(std::move(result), path);
  show_page(result_, QFileInfo(path).fileName());
}

bool ViewHost::compare_with(const QString& path) {
  if (!trace_) {
    QMessageBox::information(window_, "lockstep-view", "Open a trace first, then compare it with another.");
    return false;
  }
  std::shared_ptr<const Trace> other;
  try {
    Document doc = load_document(path.toStdString());
    if (!std::holds_alternative<Trace>(doc))
      throw ResultError(0, path.toStdString() + " is a result file, not a trace");
    other = std::make_shared<const Trace>(std::move(std::get<Trace>(doc)));
  } catch (const std::exception& e) {
    QMessageBox::critical(window_, "lockstep-view: cannot compare", QString::fromStdString(e.what()));
    return false;
  }
  const QString a = QFileInfo(trace_path_).fileName(), b = QFileInfo(path).fileName();
  compare_->set_traces(trace_, a, other, b);
  show_page(compare_, QString("%1 vs %2").arg(a, b));
  return true;
}

void ViewHost::choose_compare() {
  const QString path = QFileDialog::getOpenFileName(window_, "Compare with a second trace", QString(),
                                                    "lockstep traces (*.jsonl);;All files (*)");
  if (!path.isEmpty()) compare_with(path);
}

void ViewHost::choose_two() {
  const QStringList paths = QFileDialog::getOpenFileNames(
      window_, "Choose two traces to compare (A, then B: say a native and a simulated one)", QString(),
      "lockstep traces (*.jsonl);;All files (*)");
  if (paths.isEmpty()) return;
  if (paths.size() != 2) {
    QMessageBox::information(window_, "lockstep-view", QString("Choose two traces, not %1.").arg(paths.size()));
    return;
  }
  open_file_(paths[0]);
  if (trace_ && QFileInfo(trace_path_) == QFileInfo(paths[0])) compare_with(paths[1]);
}

void ViewHost::export_view(PictureFormat format) {
  const bool svg = format == PictureFormat::svg;
  QString path =
      QFileDialog::getSaveFileName(window_, "Export the view", QString(), svg ? "SVG (*.svg)" : "PNG (*.png)");
  if (path.isEmpty()) return;
  if (picture_format(path) != format) path += svg ? ".svg" : ".png";
  QWidget* page = stack_->currentWidget();
  const Picture picture = page == result_    ? result_->picture()
                          : page == compare_ ? compare_->picture()
                                             : trace_page_picture_();
  const QString error = write_picture(path, picture);
  if (!error.isEmpty()) QMessageBox::critical(window_, "lockstep-view", error);
}

}  // namespace lockstep::view
