// Writes a picture of a view to a file: PNG, or SVG when the name ends in .svg. The file is
// written atomically (a temporary file in the same directory, renamed over the target), so a
// reader never sees half a picture and a failed export leaves no file. QtGui and QtSvg only.
#pragma once

#include <functional>

#include <QSize>
#include <QString>

class QPainter;

namespace lockstep::view {

enum class PictureFormat { png, svg };

// A view's picture, ready to be written: its size and how to paint it.
struct Picture {
  QSize size;
  std::function<void(QPainter&)> paint;
};

PictureFormat picture_format(const QString& path);

// Paints the picture on white and writes it. Returns an empty string, or what went wrong.
QString write_picture(const QString& path, const Picture& picture);

}  // namespace lockstep::view
