// A page of the viewer's report views (result, statistics, compare): blocks stacked top to
// bottom, each as tall as it needs at the page's width, so the window, --screenshot and the
// PNG/SVG export lay out and paint the same picture. QtGui only.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <QColor>
#include <QFont>
#include <QRect>
#include <QString>
#include <QStringList>

class QPainter;

namespace lockstep::view {

// Numbers as the pages write them: "12.5 us", "85 ns", "12345".
QString ns_text(double ns);
QString count_text(std::uint64_t n);

class Page {
 public:
  static constexpr int kMargin = 12;
  static constexpr int kBodyPx = 12;
  static constexpr int kHeadingPx = 15;

  explicit Page(int width);

  int width() const { return width_; }
  int inner_width() const { return width_ - 2 * kMargin; }
  int height() const { return height_ + kMargin; }

  // A block `height` pixels tall; `paint` gets its rectangle (inside the margins).
  void add(int height, std::function<void(QPainter&, QRect)> paint);
  void gap(int px) { height_ += px; }
  void heading(const QString& text);
  // Word-wrapped text.
  void paragraph(const QString& text, QColor color = Qt::black);
  // One line each, not wrapped (elided at the right); monospace for program text.
  void lines(const QStringList& lines, bool monospace = false);
  // Name/value pairs in as many column pairs as fit.
  void figures(const std::vector<std::pair<QString, QString>>& pairs);
  // A table with a header row; rows marked in `highlight` get a tinted background.
  void table(const QStringList& header, const std::vector<QStringList>& rows, const std::vector<bool>& highlight = {});

  void paint(QPainter& painter, QPoint origin = QPoint(0, 0)) const;

  static QFont body_font();
  static QFont mono_font();
  static QFont heading_font();

 private:
  struct Block {
    int top = 0;
    int height = 0;
    std::function<void(QPainter&, QRect)> paint;
  };
  int width_;
  int height_ = kMargin;
  std::vector<Block> blocks_;
};

}  // namespace lockstep::view
