#include "gui/app/main_window.hpp"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QVBoxLayout>

#include "gui/app/timeline_widget.hpp"
#include "gui/app/view_host.hpp"
#include "gui/model/document.hpp"

namespace lockstep::view {

namespace {
constexpr int kMaxRecent = 8;
const char* const kRecentKey = "recent_files";
}  // namespace

MainWindow::MainWindow() {
  setWindowTitle("lockstep-view");
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open...", QKeySequence::Open, this, [this] { choose_file(); });
  recent_ = file->addMenu("Open &Recent");
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, [this] { close(); });
  QMenu* view = menuBar()->addMenu("&View");
  view->addAction("&Reset zoom", this, [this] { timeline_->reset_zoom(); });

  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  auto* splitter = new QSplitter(Qt::Vertical, central);
  timeline_ = new TimelineWidget(splitter);
  auto* lower = new QWidget(splitter);
  auto* lower_layout = new QVBoxLayout(lower);
  lower_layout->setContentsMargins(0, 0, 0, 0);
  auto* buttons = new QHBoxLayout;
  auto* prev = new QPushButton("< Previous", lower);
  auto* next = new QPushButton("Next >", lower);
  status_ = new QLabel(lower);
  buttons->addWidget(prev);
  buttons->addWidget(next);
  buttons->addWidget(status_, 1);
  lower_layout->addLayout(buttons);
  events_ = new QListWidget(lower);
  lower_layout->addWidget(events_);
  splitter->addWidget(timeline_);
  splitter->addWidget(lower);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  layout->addWidget(splitter);
  setCentralWidget(central);
  views_ = new ViewHost(
      this, file, view,
      [this] { return Picture{timeline_->size(), [this](QPainter& p) { timeline_->render(&p); }}; },
      [this](const QString& path) { open(path); });

  connect(prev, &QPushButton::clicked, this, [this] {
    if (trace_ && !trace_->steps.empty()) step_to(step_ && *step_ > 0 ? *step_ - 1 : 0);
  });
  connect(next, &QPushButton::clicked, this, [this] {
    if (trace_ && !trace_->steps.empty())
      step_to(step_ ? std::min(*step_ + 1, trace_->steps.size() - 1) : 0);
  });
  connect(events_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row >= 0 && (!step_ || *step_ != static_cast<std::size_t>(row))) step_to(static_cast<std::size_t>(row));
  });
  rebuild_recent_menu();
  resize(1200, 700);
}

bool MainWindow::open(const QString& path) {
  Document doc;
  try {
    doc = load_document(path.toStdString());
  } catch (const std::exception& e) {  // TraceError, ResultError, and bad_alloc on an absurd file
    QMessageBox::critical(this, "lockstep-view: cannot open the file", QString::fromStdString(e.what()));
    return false;
  }
  remember(path);
  if (auto* result = std::get_if<ResultFile>(&doc)) {
    views_->show_result(std::make_shared<const ResultFile>(std::move(*result)), path);
    return true;
  }
  trace_ = std::make_shared<const Trace>(std::move(std::get<Trace>(doc)));
  views_->show_trace(trace_, path);
  timeline_->set_trace(trace_);
  events_->clear();
  for (const Step& s : trace_->steps) events_->addItem(QString::fromStdString(trace_->describe(s)));
  step_.reset();
  step_to(std::nullopt);
  return true;
}

void MainWindow::step_to(std::optional<std::size_t> step) {
  step_ = step;
  timeline_->set_current_step(step);
  if (step) events_->setCurrentRow(static_cast<int>(*step));
  const std::size_t total = trace_ ? trace_->steps.size() : 0;
  status_->setText(step ? QString("step %1 of %2").arg(*step + 1).arg(total) : QString("%1 steps").arg(total));
}

void MainWindow::choose_file() {
  const QString path = QFileDialog::getOpenFileName(this, "Open a lockstep trace or result", QString(),
                                                    "lockstep traces and results (*.jsonl *.json);;All files (*)");
  if (!path.isEmpty()) open(path);
}

bool MainWindow::compare_with(const QString& path) { return views_->compare_with(path); }

void MainWindow::remember(const QString& path) {
  QSettings settings("lockstep", "lockstep-view");
  QStringList files = settings.value(kRecentKey).toStringList();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecent) files.removeLast();
  settings.setValue(kRecentKey, files);
  rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
  recent_->clear();
  const QStringList files = QSettings("lockstep", "lockstep-view").value(kRecentKey).toStringList();
  for (const QString& f : files) recent_->addAction(f, this, [this, f] { open(f); });
  recent_->setEnabled(!files.isEmpty());
}

}  // namespace lockstep::view
