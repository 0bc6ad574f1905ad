#include "gui/app/step_list_model.hpp"

#include <algorithm>

#include <QBrush>
#include <QColor>

namespace lockstep::view {

void StepListModel::set_trace(std::shared_ptr<const Trace> trace) {
  beginResetModel();
  trace_ = std::move(trace);
  rows_.reset();
  endResetModel();
}

void StepListModel::set_rows(std::optional<std::vector<std::size_t>> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int StepListModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !trace_) return 0;
  return static_cast<int>(rows_ ? rows_->size() : trace_->steps.size());
}

std::size_t StepListModel::step_of_row(int row) const {
  return rows_ ? (*rows_)[static_cast<std::size_t>(row)] : static_cast<std::size_t>(row);
}

int StepListModel::row_of_step(std::size_t step) const {
  if (!trace_ || rowCount() == 0) return -1;
  if (!rows_) return static_cast<int>(std::min(step, trace_->steps.size() - 1));
  const auto it = std::lower_bound(rows_->begin(), rows_->end(), step);
  return static_cast<int>(it == rows_->end() ? rows_->size() - 1 : it - rows_->begin());
}

QVariant StepListModel::data(const QModelIndex& index, int role) const {
  if (!trace_ || !index.isValid() || index.row() >= rowCount()) return {};
  const Step& step = trace_->steps[step_of_row(index.row())];
  if (role == Qt::DisplayRole) return QString::fromStdString(trace_->describe(step));
  if (role == Qt::ForegroundRole && step.kind == Step::Kind::violation) return QBrush(QColor(211, 47, 47));
  if (role == Qt::ForegroundRole && step.kind == Step::Kind::witness) return QBrush(QColor(46, 125, 50));
  return {};
}

}  // namespace lockstep::view
