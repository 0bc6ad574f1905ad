// The result view: a result file's page (render/result_page.hpp) with a choice of row (a
// sweep's rows, or each scenario of a multi-scenario file), the histogram's log-count switch,
// and buttons that open the trace the row names, when it exists.
#pragma once

#include <functional>
#include <memory>

#include <QString>
#include <QWidget>

#include "gui/model/result.hpp"
#include "gui/render/export.hpp"

class QCheckBox;
class QComboBox;
class QPushButton;

namespace lockstep::view {

class PageCanvas;

class ResultWidget : public QWidget {
 public:
  // `open_file` opens a file the result names (its trace) in the window.
  ResultWidget(QWidget* parent, std::function<void(const QString&)> open_file);

  void set_result(std::shared_ptr<const ResultFile> result, const QString& path);
  void show_row(int index);  // index into result_rows()
  Picture picture() const;

 private:
  void rebuild();
  // The path of a file the row names, as given or else beside the result file; empty if neither exists.
  QString existing(const std::string& named) const;

  std::function<void(const QString&)> open_file_;
  std::shared_ptr<const ResultFile> result_;
  QString path_;
  int row_ = 0;
  QComboBox* rows_ = nullptr;
  QCheckBox* log_count_ = nullptr;
  QPushButton* open_trace_ = nullptr;
  PageCanvas* canvas_ = nullptr;
};

}  // namespace lockstep::view
