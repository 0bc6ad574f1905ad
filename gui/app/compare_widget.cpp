#include "gui/app/compare_widget.hpp"

#include <algorithm>

#include <QHBoxLayout>
#include <QMouseEvent>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "gui/app/page_canvas.hpp"
#include "gui/render/compare.hpp"

namespace lockstep::view {

namespace {
constexpr double kMinSpanNs = 2;  // as the timeline: the narrowest window
constexpr double kZoomPerNotch = 1.25;
}  // namespace

CompareWidget::CompareWidget(QWidget* parent, std::function<void()> close) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  auto* reset = new QPushButton("Reset zoom", this);
  auto* done = new QPushButton("Close compare", this);
  bar->addWidget(reset);
  bar->addStretch(1);
  bar->addWidget(done);
  layout->addLayout(bar);
  canvas_ = new PageCanvas;
  canvas_->installEventFilter(this);
  layout->addWidget(PageCanvas::in_scroll_area(canvas_, this), 1);
  connect(reset, &QPushButton::clicked, this, [this] { reset_zoom(); });
  connect(done, &QPushButton::clicked, this, [close = std::move(close)] { close(); });
}

void CompareWidget::set_traces(std::shared_ptr<const Trace> a, const QString& name_a, std::shared_ptr<const Trace> b,
                               const QString& name_b) {
  a_ = std::move(a);
  b_ = std::move(b);
  name_a_ = name_a;
  name_b_ = name_b;
  comparison_ = a_ && b_ ? std::make_shared<const Comparison>(compare_traces(*a_, *b_)) : nullptr;
  reset_zoom();
}

void CompareWidget::reset_zoom() {
  if (a_ && b_) window_ = compare_window(*a_, *b_);
  rebuild();
}

void CompareWidget::rebuild() {
  if (!a_ || !b_) return canvas_->set_builder({});
  // The page keeps pointers to the traces; the builder holds them alive for as long as it is shown.
  const auto a = a_, b = b_;
  const auto comparison = comparison_;
  const ComparePageOptions options = compare_options(*a, *b, window_, "A " + name_a_, "B " + name_b_);
  canvas_->set_builder(
      [a, b, comparison, options](int width) { return compare_page(*a, *b, *comparison, width, options); });
}

TimelineLayout CompareWidget::layout(TimeWindow window) const {
  return TimelineLayout(*a_, QRect(Page::kMargin, 0, canvas_->width() - 2 * Page::kMargin, 1), window);
}

bool CompareWidget::over_timelines(QPoint p) const {
  return a_ && b_ && p.y() < compare_timelines_height(*a_, *b_) && p.x() >= Page::kMargin + TimelineLayout::kLabelWidth;
}

bool CompareWidget::eventFilter(QObject* watched, QEvent* event) {
  if (watched != canvas_ || !a_ || !b_) return QWidget::eventFilter(watched, event);
  switch (event->type()) {
    case QEvent::Wheel: {
      auto* e = static_cast<QWheelEvent*>(event);
      if (!over_timelines(e->position().toPoint())) return false;  // the scroll area scrolls the page
      const double at = layout(window_).t_of(e->position().x());
      const double factor = e->angleDelta().y() > 0 ? 1 / kZoomPerNotch : kZoomPerNotch;
      const double span = std::max(kMinSpanNs, (window_.t1 - window_.t0) * factor);
      const double left = (at - window_.t0) / (window_.t1 - window_.t0);
      window_ = TimeWindow{at - left * span, at - left * span + span};
      rebuild();
      return true;
    }
    case QEvent::MouseButtonPress: {
      auto* e = static_cast<QMouseEvent*>(event);
      if (e->button() != Qt::LeftButton || !over_timelines(e->position().toPoint())) return false;
      drag_from_ = e->position().toPoint();
      drag_window_ = window_;
      return true;
    }
    case QEvent::MouseMove: {
      if (!drag_from_) return false;
      auto* e = static_cast<QMouseEvent*>(event);
      const TimelineLayout L = layout(drag_window_);
      const double shift = L.t_of(drag_from_->x()) - L.t_of(e->position().x());
      window_ = TimeWindow{drag_window_.t0 + shift, drag_window_.t1 + shift};
      rebuild();
      return true;
    }
    case QEvent::MouseButtonRelease:
      drag_from_.reset();
      return false;
    default:
      return false;
  }
}

Picture CompareWidget::picture() const { return canvas_->picture(); }

}  // namespace lockstep::view
