#include "gui/app/main_window.hpp"

#include <QAction>
#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include "gui/app/stats_widget.hpp"
#include "gui/app/step_list_model.hpp"
#include "gui/app/timeline_widget.hpp"
#include "gui/app/view_host.hpp"
#include "gui/model/document.hpp"
#include "gui/model/step_state.hpp"

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
  view->addAction("&Zoom to selection", this, [this] {
    if (const auto s = timeline_->selection()) timeline_->set_window(*s);
  });
  view->addAction("Clear &selection", this, [this] { timeline_->set_selection(std::nullopt); });

  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->addWidget(make_toolbar());
  auto* splitter = new QSplitter(Qt::Vertical, central);
  timeline_ = new TimelineWidget;
  auto* scroll = new QScrollArea(splitter);
  scroll->setWidgetResizable(true);
  scroll->setWidget(timeline_);
  splitter->addWidget(scroll);
  splitter->addWidget(make_lower_panel());
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  splitter->setSizes({460, 300});
  layout->addWidget(splitter, 1);
  setCentralWidget(central);
  views_ = new ViewHost(
      this, file, view,
      [this] {
        return Picture{timeline_->size(), [this](QPainter& p) { timeline_->render(&p); }};
      },
      [this](const QString& path) { open(path); });
  timeline_->on_painted = [this](const PaintSummary&) { update_status(); };
  // Shift-drag on the timeline chooses the statistics panel's range; a click clears it.
  timeline_->on_selection = [this](std::optional<TimeWindow> range) {
    if (range) {
      views_->statistics()->set_range(static_cast<std::uint64_t>(std::max(0.0, range->t0)),
                                      static_cast<std::uint64_t>(std::max(0.0, range->t1)));
    } else {
      views_->statistics()->show_whole_trace();
    }
    update_status();
  };
  rebuild_recent_menu();
  resize(1300, 800);
}

QWidget* MainWindow::make_toolbar() {
  auto* bar = new QWidget(this);
  auto* row = new QHBoxLayout(bar);
  row->setContentsMargins(0, 0, 0, 0);
  search_ = new QLineEdit(bar);
  search_->setPlaceholderText("search: thread:N cpu:N addr:0x.. or addr:NAME op:KIND text");
  search_->setClearButtonEnabled(true);
  search_->setMinimumWidth(260);
  auto* find_prev = new QPushButton("Find <", bar);
  auto* find_next_button = new QPushButton("Find >", bar);
  only_matches_ = new QCheckBox("list matches only", bar);
  search_status_ = new QLabel(bar);
  row->addWidget(search_, 3);
  row->addWidget(find_prev);
  row->addWidget(find_next_button);
  row->addWidget(only_matches_);
  row->addWidget(search_status_);
  row->addSpacing(16);
  row->addWidget(new QLabel("arrows:", bar));
  flow_wake_ = new QCheckBox("wakes", bar);
  flow_lock_ = new QCheckBox("lock hand-offs", bar);
  flow_line_ = new QCheckBox("cache lines", bar);
  flow_cross_ = new QCheckBox("between sockets only", bar);
  for (QCheckBox* c : {flow_wake_, flow_lock_, flow_line_}) c->setChecked(true);
  flow_cap_ = new QSpinBox(bar);
  flow_cap_->setRange(0, 100000);
  flow_cap_->setValue(static_cast<int>(FlowFilter{}.cap));
  flow_cap_->setPrefix("at most ");
  for (QCheckBox* c : {flow_wake_, flow_lock_, flow_line_, flow_cross_}) {
    row->addWidget(c);
    connect(c, &QCheckBox::toggled, this, [this] { apply_flow_controls(); });
  }
  row->addWidget(flow_cap_);
  connect(flow_cap_, &QSpinBox::valueChanged, this, [this] { apply_flow_controls(); });
  connect(search_, &QLineEdit::returnPressed, this, [this] {
    if (search(search_->text())) find_next(false);
  });
  connect(search_, &QLineEdit::textChanged, this, [this](const QString& text) {
    if (text.isEmpty()) search(text);
  });
  connect(find_prev, &QPushButton::clicked, this, [this] {
    if (search(search_->text())) find_next(true);
  });
  connect(find_next_button, &QPushButton::clicked, this, [this] {
    if (search(search_->text())) find_next(false);
  });
  connect(only_matches_, &QCheckBox::toggled, this, [this] { show_list_rows(); });
  return bar;
}

QWidget* MainWindow::make_lower_panel() {
  auto* lower = new QSplitter(Qt::Horizontal, this);
  auto* left = new QWidget(lower);
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(0, 0, 0, 0);
  auto* buttons = new QHBoxLayout;
  auto* prev = new QPushButton("< Previous", left);
  auto* next = new QPushButton("Next >", left);
  status_ = new QLabel(left);
  buttons->addWidget(prev);
  buttons->addWidget(next);
  buttons->addWidget(status_, 1);
  left_layout->addLayout(buttons);
  steps_model_ = new StepListModel(this);
  events_ = new QListView(left);
  events_->setModel(steps_model_);
  events_->setUniformItemSizes(true);  // lets a million rows scroll without measuring each
  left_layout->addWidget(events_);
  state_ = new QPlainTextEdit(lower);
  state_->setReadOnly(true);
  state_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  state_->setPlaceholderText("The state at the current step: threads, memory, store buffers, locks, futex queues.");
  lower->addWidget(left);
  lower->addWidget(state_);
  lower->setStretchFactor(0, 3);
  lower->setStretchFactor(1, 2);

  connect(prev, &QPushButton::clicked, this, [this] {
    if (trace_ && !trace_->steps.empty()) step_to(step_ && *step_ > 0 ? *step_ - 1 : 0);
  });
  connect(next, &QPushButton::clicked, this, [this] {
    if (trace_ && !trace_->steps.empty()) step_to(step_ ? std::min(*step_ + 1, trace_->steps.size() - 1) : 0);
  });
  connect(events_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current, const QModelIndex&) {
            if (!current.isValid()) return;
            const std::size_t step = steps_model_->step_of_row(current.row());
            if (!step_ || *step_ != step) step_to(step);
          });
  return lower;
}

bool MainWindow::open(const QString& path) {
  const std::optional<QString> error = try_open(path);
  if (error) QMessageBox::critical(this, "lockstep-view: cannot open the file", *error);
  return !error;
}

std::optional<QString> MainWindow::try_open(const QString& path) {
  Document doc;
  try {
    doc = load_document(path.toStdString());
  } catch (const std::exception& e) {  // TraceError, ResultError, and bad_alloc on an absurd file
    return QString::fromStdString(e.what());
  }
  remember(path);
  if (auto* result = std::get_if<ResultFile>(&doc)) {
    views_->show_result(std::make_shared<const ResultFile>(std::move(*result)), path);
    return std::nullopt;
  }
  trace_ = std::make_shared<const Trace>(std::move(std::get<Trace>(doc)));
  views_->show_trace(trace_, path);
  timeline_->set_trace(trace_);
  steps_model_->set_trace(trace_);
  filter_ = EventFilter{};
  search_->clear();
  apply_flow_controls();
  step_.reset();
  step_to(std::nullopt);
  return std::nullopt;
}

void MainWindow::step_to(std::optional<std::size_t> step) {
  if (step && trace_ && *step >= trace_->steps.size()) step.reset();
  step_ = step;
  timeline_->set_current_step(step);
  if (step) {
    const int row = steps_model_->row_of_step(*step);
    if (row >= 0 && steps_model_->step_of_row(row) == *step) {
      const QModelIndex index = steps_model_->index(row);
      events_->setCurrentIndex(index);
      events_->scrollTo(index);
    }
    state_->setPlainText(QString::fromStdString(describe(*trace_, state_at(*trace_, *step))));
  } else {
    state_->clear();
  }
  update_status();
}

std::optional<std::size_t> MainWindow::last_interesting_step() const {
  if (!trace_ || trace_->steps.empty()) return std::nullopt;
  for (std::size_t i = 0; i < trace_->steps.size(); ++i)
    if (trace_->steps[i].kind != Step::Kind::op) return i;
  return trace_->steps.size() - 1;
}

QString MainWindow::state_text() const { return state_->toPlainText(); }

bool MainWindow::search(const QString& query) {
  try {
    filter_ = EventFilter::parse(query.toStdString());
  } catch (const std::invalid_argument& e) {
    search_status_->setText(QString("search: %1").arg(e.what()));
    return false;
  }
  search_status_->clear();
  if (!trace_) return false;
  if (filter_.empty()) {
    timeline_->set_highlighted(std::nullopt);
  } else {
    std::vector<LaneOps> hits(trace_->threads.size());
    for (std::size_t t = 0; t < trace_->ops_by_thread.size(); ++t)
      for (std::uint32_t i : trace_->ops_by_thread[t])
        if (filter_.matches(*trace_, trace_->ops[i])) {
          hits[t].indices.push_back(i);
          hits[t].times.push_back(trace_->ops[i].t);
          hits[t].ends.push_back(trace_->ops[i].t + trace_->ops[i].lat);
        }
    timeline_->set_highlighted(std::move(hits));
  }
  show_list_rows();
  return true;
}

void MainWindow::find_next(bool backwards) {
  if (!trace_) return;
  if (const auto hit = filter_.next_match(*trace_, step_, backwards)) {
    step_to(*hit);
  } else {
    search_status_->setText("search: no match");
  }
}

void MainWindow::show_list_rows() {
  if (!trace_) return;
  if (only_matches_->isChecked() && !filter_.empty()) {
    steps_model_->set_rows(filter_.matching_steps(*trace_));
  } else {
    steps_model_->set_rows(std::nullopt);
  }
  step_to(step_);
}

void MainWindow::apply_flow_controls() {
  FlowFilter f;
  f.wake = flow_wake_->isChecked();
  f.lock_handoff = flow_lock_->isChecked();
  f.line_transfer = flow_line_->isChecked();
  f.cross_node_only = flow_cross_->isChecked();
  f.cap = static_cast<std::size_t>(flow_cap_->value());
  timeline_->set_flow_filter(f);
}

void MainWindow::update_status() {
  const std::size_t total = trace_ ? trace_->steps.size() : 0;
  QString text = step_ ? QString("step %1 of %2").arg(*step_ + 1).arg(total) : QString("%1 steps").arg(total);
  const PaintSummary& painted = timeline_->last_paint();
  text += QString(" | arrows %1 of %2").arg(painted.flows_shown).arg(painted.flows_matching);
  if (const auto s = timeline_->selection())
    text += QString(" | selected %1 .. %2 ns").arg(s->t0, 0, 'f', 1).arg(s->t1, 0, 'f', 1);
  status_->setText(text);
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
