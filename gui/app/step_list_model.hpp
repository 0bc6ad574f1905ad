// The event list's rows: a trace's steps, or those a search matches, described lazily so a
// trace of a million events lists at once (a QListWidget item per step would take seconds
// and hundreds of megabytes).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include <QAbstractListModel>

#include "gui/model/trace.hpp"

namespace lockstep::view {

class StepListModel : public QAbstractListModel {
 public:
  explicit StepListModel(QObject* parent = nullptr) : QAbstractListModel(parent) {}

  void set_trace(std::shared_ptr<const Trace> trace);
  // Shows only these steps (sorted indices into Trace::steps); nullopt shows them all.
  void set_rows(std::optional<std::vector<std::size_t>> rows);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;

  std::size_t step_of_row(int row) const;
  // The row showing `step`, or the nearest row after it (the last row past the end); -1 if none.
  int row_of_step(std::size_t step) const;

 private:
  std::shared_ptr<const Trace> trace_;
  std::optional<std::vector<std::size_t>> rows_;
};

}  // namespace lockstep::view
