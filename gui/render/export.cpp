#include "gui/render/export.hpp"

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace lockstep::view {

namespace {

// SVG and PNG alike are limited to this many pixels a side: a larger one is a layout bug.
constexpr int kMaxSide = 32000;

bool paint_png(QSaveFile& out, QSize size, const std::function<void(QPainter&)>& paint) {
  QImage image(size, QImage::Format_ARGB32);
  image.fill(Qt::white);
  {
    QPainter p(&image);
    paint(p);
  }
  return image.save(&out, "PNG");
}

bool paint_svg(QSaveFile& out, QSize size, const std::function<void(QPainter&)>& paint) {
  QSvgGenerator svg;
  svg.setOutputDevice(&out);
  svg.setSize(size);
  svg.setViewBox(QRect(QPoint(0, 0), size));
  svg.setResolution(96);  // one pixel of the view is one CSS pixel, so browsers show it at its size
  svg.setTitle("lockstep-view");
  QPainter p;
  if (!p.begin(&svg)) return false;
  p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  paint(p);
  return p.end();
}

}  // namespace

PictureFormat picture_format(const QString& path) {
  return QFileInfo(path).suffix().compare("svg", Qt::CaseInsensitive) == 0 ? PictureFormat::svg : PictureFormat::png;
}

QString write_picture(const QString& path, const Picture& picture) {
  const QSize size = picture.size;
  const auto& paint = picture.paint;
  if (size.width() < 1 || size.height() < 1 || size.width() > kMaxSide || size.height() > kMaxSide)
    return QString("cannot write %1: a picture of %2x%3 pixels").arg(path).arg(size.width()).arg(size.height());
  QSaveFile out(path);
  if (!out.open(QIODevice::WriteOnly)) return QString("cannot write %1: %2").arg(path, out.errorString());
  const bool painted =
      picture_format(path) == PictureFormat::svg ? paint_svg(out, size, paint) : paint_png(out, size, paint);
  if (!painted) {
    out.cancelWriting();
    return QString("cannot write %1: painting failed").arg(path);
  }
  if (!out.commit()) return QString("cannot write %1: %2").arg(path, out.errorString());
  return {};
}

}  // namespace lockstep::view
