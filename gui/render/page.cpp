#include "gui/render/page.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <QFontMetrics>
#include <QPainter>

namespace lockstep::view {

namespace {

constexpr int kRowPad = 4;    // above and below a table row's text
constexpr int kCellPad = 14;  // between table columns

// Too wide for the page: the widest columns give way first, down to a common cap that makes them
// fit (their cells are elided), so narrow columns of numbers stay readable.
void fit_columns(std::vector<int>& widths, int available) {
  if (std::accumulate(widths.begin(), widths.end(), 0) <= available) return;
  std::vector<int> sorted = widths;
  std::sort(sorted.begin(), sorted.end());
  int below = 0;  // the total of the columns narrower than the cap
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const int wider = static_cast<int>(sorted.size() - i);
    const int cap = (available - below) / wider;
    if (cap <= sorted[i]) {
      for (int& w : widths) w = std::min(w, std::max(cap, 1));
      return;
    }
    below += sorted[i];
  }
}

}  // namespace

QString ns_text(double ns) {
  const double a = std::abs(ns);
  if (a >= 1e9) return QString::number(ns / 1e9, 'g', 4) + " s";
  if (a >= 1e6) return QString::number(ns / 1e6, 'g', 4) + " ms";
  if (a >= 1e4) return QString::number(ns / 1e3, 'g', 4) + " us";
  return QString::number(ns, 'g', 5) + " ns";
}

QString count_text(std::uint64_t n) { return QString::number(static_cast<qulonglong>(n)); }

QFont Page::body_font() {
  QFont f("DejaVu Sans");
  f.setPixelSize(kBodyPx);
  return f;
}

QFont Page::mono_font() {
  QFont f("DejaVu Sans Mono");
  f.setStyleHint(QFont::TypeWriter);
  f.setPixelSize(kBodyPx);
  return f;
}

QFont Page::heading_font() {
  QFont f = body_font();
  f.setPixelSize(kHeadingPx);
  f.setBold(true);
  return f;
}

Page::Page(int width) : width_(std::max(200, width)) {}

void Page::add(int height, std::function<void(QPainter&, QRect)> paint) {
  blocks_.push_back(Block{height_, height, std::move(paint)});
  height_ += height;
}

void Page::heading(const QString& text) {
  gap(10);
  const int h = QFontMetrics(heading_font()).height() + 6;
  add(h, [text](QPainter& p, QRect r) {
    p.setFont(heading_font());
    p.setPen(QColor(33, 33, 33));
    p.drawText(r, Qt::AlignLeft | Qt::AlignTop, text);
    p.setPen(QColor(200, 200, 200));
    p.drawLine(r.bottomLeft(), r.bottomRight());
  });
  gap(4);
}

void Page::paragraph(const QString& text, QColor color) {
  const QFontMetrics fm(body_font());
  const int h = fm.boundingRect(QRect(0, 0, inner_width(), 100000), Qt::TextWordWrap, text).height() + 2;
  add(h, [text, color](QPainter& p, QRect r) {
    p.setFont(body_font());
    p.setPen(color);
    p.drawText(r, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, text);
  });
}

void Page::lines(const QStringList& text, bool monospace) {
  const QFont font = monospace ? mono_font() : body_font();
  const int line_h = QFontMetrics(font).lineSpacing();
  add(line_h * static_cast<int>(text.size()), [text, font, line_h](QPainter& p, QRect r) {
    p.setFont(font);
    p.setPen(Qt::black);
    const QFontMetrics fm(font);
    for (int i = 0; i < text.size(); ++i)
      p.drawText(QRect(r.left(), r.top() + i * line_h, r.width(), line_h), Qt::AlignLeft | Qt::AlignVCenter,
                 fm.elidedText(text[i], Qt::ElideRight, r.width()));
  });
}

void Page::figures(const std::vector<std::pair<QString, QString>>& pairs) {
  if (pairs.empty()) return;
  const QFontMetrics fm(body_font());
  int name_w = 0, value_w = 0;
  for (const auto& [name, value] : pairs) {
    name_w = std::max(name_w, fm.horizontalAdvance(name));
    value_w = std::max(value_w, fm.horizontalAdvance(value));
  }
  const int pair_w = name_w + kCellPad + std::min(value_w, 360) + 2 * kCellPad;
  const int columns = std::clamp(inner_width() / std::max(1, pair_w), 1, 4);
  const int rows = (static_cast<int>(pairs.size()) + columns - 1) / columns;
  const int line_h = fm.lineSpacing() + 2;
  add(rows * line_h, [pairs, columns, rows, name_w, line_h](QPainter& p, QRect r) {
    p.setFont(body_font());
    const QFontMetrics m(body_font());
    const int col_w = r.width() / columns;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const int col = static_cast<int>(i) / rows, row = static_cast<int>(i) % rows;
      const QRect cell(r.left() + col * col_w, r.top() + row * line_h, col_w, line_h);
      p.setPen(QColor(100, 100, 100));
      p.drawText(cell, Qt::AlignLeft | Qt::AlignVCenter, pairs[i].first);
      p.setPen(Qt::black);
      const QRect value = cell.adjusted(name_w + kCellPad, 0, -kCellPad, 0);
      p.drawText(value, Qt::AlignLeft | Qt::AlignVCenter, m.elidedText(pairs[i].second, Qt::ElideRight, value.width()));
    }
  });
}

void Page::table(const QStringList& header, const std::vector<QStringList>& rows, const std::vector<bool>& highlight) {
  const QFontMetrics fm(body_font());
  QFont header_font = body_font();
  header_font.setBold(true);
  std::vector<int> widths(static_cast<std::size_t>(header.size()), 0);
  auto measure = [&](const QStringList& cells, const QFontMetrics& m) {
    for (int c = 0; c < std::min<int>(cells.size(), header.size()); ++c)
      widths[static_cast<std::size_t>(c)] =
          std::max(widths[static_cast<std::size_t>(c)], m.horizontalAdvance(cells[c]) + kCellPad);
  };
  measure(header, QFontMetrics(header_font));
  for (const QStringList& row : rows) measure(row, fm);
  fit_columns(widths, inner_width());
  const int row_h = fm.height() + 2 * kRowPad;
  add(row_h * static_cast<int>(rows.size() + 1), [header, rows, highlight, widths, row_h](QPainter& p, QRect r) {
    const QFontMetrics m(body_font());
    auto draw_row = [&](const QStringList& cells, int y, bool bold) {
      QFont f = body_font();
      f.setBold(bold);
      p.setFont(f);
      int x = r.left();
      for (int c = 0; c < std::min<int>(cells.size(), static_cast<int>(widths.size())); ++c) {
        const int w = widths[static_cast<std::size_t>(c)];
        p.drawText(QRect(x, y, w - kCellPad / 2, row_h), Qt::AlignLeft | Qt::AlignVCenter,
                   m.elidedText(cells[c], Qt::ElideRight, w - kCellPad / 2));
        x += w;
      }
    };
    const int used = std::accumulate(widths.begin(), widths.end(), 0);
    p.fillRect(QRect(r.left(), r.top(), used, row_h), QColor(236, 239, 241));
    p.setPen(Qt::black);
    draw_row(header, r.top(), true);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const int y = r.top() + row_h * static_cast<int>(i + 1);
      if (i < highlight.size() && highlight[i]) p.fillRect(QRect(r.left(), y, used, row_h), QColor(255, 243, 205));
      p.setPen(QColor(230, 230, 230));
      p.drawLine(r.left(), y + row_h - 1, r.left() + used, y + row_h - 1);
      p.setPen(Qt::black);
      draw_row(rows[i], y, false);
    }
  });
}

void Page::paint(QPainter& p, QPoint origin) const {
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setRenderHint(QPainter::TextAntialiasing, true);
  p.fillRect(QRect(origin, QSize(width_, height())), Qt::white);
  for (const Block& b : blocks_) {
    p.save();
    b.paint(p, QRect(origin.x() + kMargin, origin.y() + b.top, inner_width(), b.height));
    p.restore();
  }
  p.restore();
}

}  // namespace lockstep::view
