#include "driver/unit_server.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "scenario/outcome.hpp"

namespace lockstep::driver {

std::string UnitServer::serve(const std::string& path, const std::string& sha256, std::size_t row,
                              const std::string& unit) {
  if (!file_ || path != path_ || row != row_) {
    context_ = {};
    executors_.clear();
    file_ = std::make_unique<scenario::ScenarioFile>(scenario::load_scenario_file(path));
    if (file_->sha256 != sha256)
      throw std::runtime_error(fmt::format("{}: this rank reads other bytes than rank 0 (sha256 {} here, {} there): "
                                           "every rank must see the same file",
                                           path, file_->sha256, sha256));
    if (row >= file_->rows.size()) throw std::runtime_error(fmt::format("{}: no row {}", path, row));
    path_ = path;
    row_ = row;
    const scenario::Scenario& s = file_->rows[row];
    for (unsigned w = 0; w < workers_; ++w) {
      executors_.push_back(std::make_unique<OwnedSimExecutor>(s));
      context_.executors.push_back(executors_.back().get());
    }
    context_.verdict = [&s](const sim::ExecutionResult& r) { return scenario::checked_violation(s, r); };
  }
  return model::serve_unit(unit, context_);
}

}  // namespace lockstep::driver
