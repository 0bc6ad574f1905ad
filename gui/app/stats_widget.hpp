// The statistics panel: statistics (model/statistics.hpp) over a time range of the open trace
// and a choice of threads, painted by render/stats_page. set_range is the slot for the
// timeline's selection; until something calls it, the panel shows the whole trace.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <QWidget>

#include "gui/model/statistics.hpp"
#include "gui/model/trace.hpp"
#include "gui/render/export.hpp"

class QCheckBox;
class QComboBox;
class QLabel;

namespace lockstep::view {

class PageCanvas;

class StatsWidget : public QWidget {
 public:
  explicit StatsWidget(QWidget* parent = nullptr);

  // A new trace: the whole of it, every thread.
  void set_trace(std::shared_ptr<const Trace> trace);
  // The statistics of [t0, t1) in virtual ns; t1 <= t0 shows the whole trace.
  void set_range(std::uint64_t t0, std::uint64_t t1);
  // Only these threads (empty: all).
  void set_threads(std::vector<int> threads);
  void show_whole_trace();
  const Statistics& statistics() const { return stats_; }
  Picture picture() const;

 private:
  void recompute();

  std::shared_ptr<const Trace> trace_;
  Selection selection_;
  Statistics stats_;
  QComboBox* threads_ = nullptr;
  QCheckBox* log_count_ = nullptr;
  QLabel* range_ = nullptr;
  PageCanvas* canvas_ = nullptr;
};

}  // namespace lockstep::view
