#include "gui/app/stats_widget.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "gui/app/page_canvas.hpp"
#include "gui/render/stats_page.hpp"

namespace lockstep::view {

StatsWidget::StatsWidget(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  threads_ = new QComboBox(this);
  log_count_ = new QCheckBox("log count", this);
  auto* whole = new QPushButton("Whole trace", this);
  range_ = new QLabel(this);
  bar->addWidget(threads_);
  bar->addWidget(log_count_);
  bar->addWidget(whole);
  bar->addWidget(range_, 1);
  layout->addLayout(bar);
  canvas_ = new PageCanvas;
  layout->addWidget(PageCanvas::in_scroll_area(canvas_, this), 1);

  connect(threads_, &QComboBox::currentIndexChanged, this, [this](int i) {
    // Item 0 is "all threads"; item k is thread k - 1.
    set_threads(i <= 0 ? std::vector<int>{} : std::vector<int>{i - 1});
  });
  connect(log_count_, &QCheckBox::toggled, this, [this] { recompute(); });
  connect(whole, &QPushButton::clicked, this, [this] { show_whole_trace(); });
}

void StatsWidget::set_trace(std::shared_ptr<const Trace> trace) {
  trace_ = std::move(trace);
  const QSignalBlocker block(threads_);
  threads_->clear();
  threads_->addItem("all threads");
  if (trace_)
    for (const Thread& th : trace_->threads) threads_->addItem(QString::fromStdString(th.name));
  show_whole_trace();
}

void StatsWidget::set_range(std::uint64_t t0, std::uint64_t t1) {
  if (!trace_) return;
  const Selection whole = whole_trace(*trace_);
  selection_.t0 = t1 > t0 ? t0 : whole.t0;
  selection_.t1 = t1 > t0 ? t1 : whole.t1;
  recompute();
}

void StatsWidget::set_threads(std::vector<int> threads) {
  selection_.threads = std::move(threads);
  // The combo shows all threads or one; a set of several (from a caller) shows as all.
  const QSignalBlocker block(threads_);
  threads_->setCurrentIndex(selection_.threads.size() == 1 ? selection_.threads[0] + 1 : 0);
  recompute();
}

void StatsWidget::show_whole_trace() {
  selection_ = trace_ ? whole_trace(*trace_) : Selection{};
  const QSignalBlocker block(threads_);
  threads_->setCurrentIndex(0);
  recompute();
}

void StatsWidget::recompute() {
  if (!trace_) {
    range_->clear();
    return canvas_->set_builder({});
  }
  stats_ = compute_statistics(*trace_, selection_);
  range_->setText(QString("[%1, %2) ns").arg(selection_.t0).arg(selection_.t1));
  const auto trace = trace_;
  const auto stats = std::make_shared<const Statistics>(stats_);
  const StatsPageOptions options{log_count_->isChecked()};
  canvas_->set_builder([trace, stats, options](int width) { return stats_page(*trace, *stats, width, options); });
}

Picture StatsWidget::picture() const { return canvas_->picture(); }

}  // namespace lockstep::view
