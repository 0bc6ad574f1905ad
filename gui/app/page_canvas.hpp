// A widget that shows a report page (render/page.hpp): it rebuilds the page at its own width and
// takes the page's height, so inside a QScrollArea the page scrolls. The result, statistics and
// compare views are each one of these with their own page builder.
#pragma once

#include <functional>
#include <memory>

#include <QWidget>

#include "gui/render/export.hpp"
#include "gui/render/page.hpp"

class QScrollArea;

namespace lockstep::view {

class PageCanvas : public QWidget {
 public:
  using Builder = std::function<Page(int width)>;

  explicit PageCanvas(QWidget* parent = nullptr);

  // Builds the page now and on every change of width; an empty builder shows nothing.
  void set_builder(Builder builder);
  void rebuild();
  // The page as shown, for export.
  Picture picture() const;
  // A scroll area holding `canvas`, resizing it to the viewport's width.
  static QScrollArea* in_scroll_area(PageCanvas* canvas, QWidget* parent);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  Builder builder_;
  std::shared_ptr<const Page> page_;
  int built_width_ = -1;
};

}  // namespace lockstep::view
