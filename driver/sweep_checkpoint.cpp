#include "driver/sweep_checkpoint.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "driver/checkpoint_file.hpp"
#include "io/base64.hpp"
#include "io/files.hpp"
#include "report/row_codec.hpp"

namespace lockstep::driver {

using report::RowReport;

namespace {

constexpr const char* kFormat = "lockstep sweep checkpoint";
constexpr int kVersion = 2;  // 2: a digest over the whole content (checkpoint_text)
// Reports are kilobytes (a lock profile or a histogram, tens); a sweep has at most
// scenario::kMaxSweepRows rows. Anything this large is not one of these files.
constexpr std::uintmax_t kMaxBytes = 256ULL << 20;

// The options a row's result depends on: a checkpoint resumes only a run with the same.
std::string options_of(const RunOptions& o) {
  const nlohmann::json j = {{"command", name_of(o.command)},
                            {"seed", o.seed ? nlohmann::json(*o.seed) : nlohmann::json()},
                            {"executions", o.executions ? nlohmann::json(*o.executions) : nlohmann::json()},
                            {"save_traces", o.save_traces},
                            {"save_traces_limit_mib", o.save_traces_limit_mib},
                            {"lock_profile", o.lock_profile},
                            {"out_dir", o.out_dir}};
  return j.dump();
}

}  // namespace

SweepCheckpoint::SweepCheckpoint(const ScenarioFile& file, const RunOptions& options)
    : write_path_(options.checkpoints.write_path),
      scenario_(file.path),
      sha256_(file.sha256),
      options_(options_of(options)) {
  const std::string& path = options.checkpoints.resume_path;
  if (path.empty()) return;
  auto fail = [&path](const std::string& why) { return cannot_resume(path, why); };
  const nlohmann::json j = read_checkpoint_json(path, kMaxBytes, kFormat, kVersion, file);
  if (j.value("options", "") != options_)
    throw fail(fmt::format("it was written with other options ({}), not {}", j.value("options", "?"), options_));
  try {
    for (const auto& [key, value] : j.at("rows").items()) {
      const std::size_t row = std::stoul(key);
      if (row >= file.rows.size())
        throw std::out_of_range(fmt::format("row {} is past the sweep's {} rows", row, file.rows.size()));
      std::string report = io::base64_decode(value.get<std::string>());
      (void)report::decode_row_report(report);  // refused here, not half way through the sweep
      rows_[row] = std::move(report);
    }
  } catch (const std::exception& e) {
    throw fail(fmt::format("malformed: {}", e.what()));
  }
}

std::optional<RowReport> SweepCheckpoint::finished(std::size_t row) const {
  const std::lock_guard lock(mutex_);
  const auto it = rows_.find(row);
  if (it == rows_.end()) return std::nullopt;
  return report::decode_row_report(it->second);
}

void SweepCheckpoint::row_done(std::size_t row, const RowReport& report) {
  const std::lock_guard lock(mutex_);
  rows_[row] = report::encode_row_report(report);
  if (!write_path_.empty()) write();
}

void SweepCheckpoint::write() const {
  nlohmann::json rows = nlohmann::json::object();
  for (const auto& [row, report] : rows_) rows[std::to_string(row)] = io::base64_encode(report);
  const nlohmann::json j = {{"format", kFormat}, {"version", kVersion}, {"scenario", scenario_},
                            {"sha256", sha256_}, {"options", options_}, {"rows", std::move(rows)}};
  io::write_file_atomically(write_path_, checkpoint_text(j));
}

}  // namespace lockstep::driver
