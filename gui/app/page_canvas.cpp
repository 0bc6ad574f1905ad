#include "gui/app/page_canvas.hpp"

#include <QPainter>
#include <QResizeEvent>
#include <QScrollArea>

namespace lockstep::view {

PageCanvas::PageCanvas(QWidget* parent) : QWidget(parent) {
  setAttribute(Qt::WA_OpaquePaintEvent);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void PageCanvas::set_builder(Builder builder) {
  builder_ = std::move(builder);
  rebuild();
}

void PageCanvas::rebuild() {
  built_width_ = width();
  page_ = builder_ ? std::make_shared<const Page>(builder_(width())) : nullptr;
  // The page's height decides the widget's, so the scroll area scrolls over the whole page.
  setFixedHeight(page_ ? page_->height() : 0);
  update();
}

Picture PageCanvas::picture() const {
  if (!page_) return Picture{QSize(width(), 1), [](QPainter&) {}};
  const auto page = page_;
  return Picture{QSize(page->width(), page->height()), [page](QPainter& p) { page->paint(p); }};
}

QScrollArea* PageCanvas::in_scroll_area(PageCanvas* canvas, QWidget* parent) {
  auto* area = new QScrollArea(parent);
  area->setWidgetResizable(true);
  area->setWidget(canvas);
  area->setBackgroundRole(QPalette::Base);
  return area;
}

void PageCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  if (page_) page_->paint(p);
}

void PageCanvas::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (event->size().width() != built_width_) rebuild();
}

}  // namespace lockstep::view
