#include "driver/unit_server.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "driver/row_units.hpp"
#include "spec/outcome.hpp"

namespace lockstep::driver {

std::string UnitServer::serve(const std::string& path, const std::string& sha256, std::size_t row,
                              const std::string& unit, const model::RemoteLanes::Progress* progress,
                              const model::LendBack* lend_back) {
  if (!file_ || path != path_ || sha256 != file_->sha256) {
    executors_.clear();
    context_ = {};
    file_ = std::make_unique<scenario::ScenarioFile>(scenario::load_scenario_file(path));
    if (file_->sha256 != sha256) {
      const std::string here = file_->sha256;
      file_.reset();
      throw std::runtime_error(
          fmt::format("{}: this rank reads other bytes than rank 0 (sha256 {} here, {} there): "
                      "every rank must see the same file",
                      path, here, sha256));
    }
    path_ = path;
  }
  if (row >= file_->rows.size()) throw std::runtime_error(fmt::format("{}: no row {}", path, row));
  // A sweep's row runs whole; a search's unit runs on executors built once per row.
  if (is_row_unit(unit)) return serve_row_unit(*file_, row, unit);
  if (executors_.empty() || row != row_) {
    executors_.clear();
    context_ = {};
    row_ = row;
    const scenario::Scenario& s = file_->rows[row];
    for (unsigned w = 0; w <= workers_; ++w) executors_.push_back(std::make_unique<OwnedSimExecutor>(s));
    for (unsigned w = 0; w < workers_; ++w) context_.executors.push_back(executors_[w].get());
    context_.lend_executor = executors_.back().get();
    context_.verdict = [&s](const sim::ExecutionResult& r) { return scenario::checked_violation(s, r); };
  }
  model::UnitContext context = context_;
  context.min_piece_runs = min_piece_runs_;
  context.progress = progress;
  context.lend_back = lend_back;
  return model::serve_unit(unit, context);
}

}  // namespace lockstep::driver
