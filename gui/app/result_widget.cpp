#include "gui/app/result_widget.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "gui/app/page_canvas.hpp"
#include "gui/render/result_page.hpp"

namespace lockstep::view {

ResultWidget::ResultWidget(QWidget* parent, std::function<void(const QString&)> open_file)
    : QWidget(parent), open_file_(std::move(open_file)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  rows_ = new QComboBox(this);
  rows_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  log_count_ = new QCheckBox("log count", this);
  log_count_->setToolTip("The histogram's count axis on a log scale, so rare latencies show");
  open_trace_ = new QPushButton("Open trace", this);
  bar->addWidget(new QLabel("row:", this));
  bar->addWidget(rows_);
  bar->addWidget(log_count_);
  bar->addStretch(1);
  bar->addWidget(open_trace_);
  layout->addLayout(bar);
  canvas_ = new PageCanvas;
  layout->addWidget(PageCanvas::in_scroll_area(canvas_, this), 1);

  connect(rows_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0) show_row(i);
  });
  connect(log_count_, &QCheckBox::toggled, this, [this] { rebuild(); });
  connect(open_trace_, &QPushButton::clicked, this, [this] {
    const auto rows = result_rows(*result_);
    const auto [s, r] = rows[static_cast<std::size_t>(row_)];
    const QString trace = existing(result_->scenarios[s].rows[r].trace);
    if (!trace.isEmpty()) open_file_(trace);
  });
}

void ResultWidget::set_result(std::shared_ptr<const ResultFile> result, const QString& path) {
  result_ = std::move(result);
  path_ = path;
  row_ = 0;
  const QSignalBlocker block(rows_);
  rows_->clear();
  for (const auto& [s, r] : result_rows(*result_)) {
    const ScenarioResult& scenario = result_->scenarios[s];
    const ResultRow& row = scenario.rows[r];
    const std::string what = row.params.empty() ? scenario.name : row.params_text();
    rows_->addItem(QString::fromStdString(what + "  (" + row.verdict() + ")"));
  }
  rows_->setEnabled(rows_->count() > 1);
  show_row(0);
}

void ResultWidget::show_row(int index) {
  if (!result_ || index < 0 || index >= rows_->count()) return;
  row_ = index;
  if (rows_->currentIndex() != index) rows_->setCurrentIndex(index);
  rebuild();
}

void ResultWidget::rebuild() {
  if (!result_) return canvas_->set_builder({});
  const auto [s, r] = result_rows(*result_)[static_cast<std::size_t>(row_)];
  const QString trace = existing(result_->scenarios[s].rows[r].trace);
  open_trace_->setEnabled(!trace.isEmpty());
  open_trace_->setToolTip(trace.isEmpty() ? "The row names no trace, or it is not there any more" : trace);
  const ResultPageOptions options{s, r, log_count_->isChecked(), path_};
  const auto result = result_;
  canvas_->set_builder([result, options](int width) { return result_page(*result, options, width); });
}

QString ResultWidget::existing(const std::string& named) const {
  if (named.empty()) return {};
  // lockstep writes paths relative to where it ran; that is often the result file's directory's parent
  // (out/x.json naming out/x.trace.jsonl), so try the working directory first, then beside the result.
  const QString name = QString::fromStdString(named);
  if (QFileInfo::exists(name)) return name;
  const QString beside = QFileInfo(path_).dir().filePath(QFileInfo(name).fileName());
  return QFileInfo::exists(beside) ? beside : QString();
}

Picture ResultWidget::picture() const { return canvas_->picture(); }

}  // namespace lockstep::view
