#include "driver/checkpoint_file.hpp"

#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "io/files.hpp"

namespace lockstep::driver {

namespace {

constexpr const char* kFormat = "lockstep checkpoint";
constexpr int kVersion = 1;
// A one-worker checkpoint holds one branch of the search: kilobytes. A parallel one holds its
// finished units' per-run figures, two or three bytes a run: some 30 MB at ten million runs.
// Anything this large is not one.
constexpr std::uintmax_t kMaxCheckpointBytes = 256ULL << 20;

model::SearchCheckpoint read_checkpoint(const std::string& path, const scenario::ScenarioFile& file, std::size_t row,
                                        std::uint64_t max_runs) {
  auto fail = [&path](const std::string& why) {
    return std::runtime_error(fmt::format("{}: cannot resume from it: {}", path, why));
  };
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec) throw fail(ec.message());
  if (bytes > kMaxCheckpointBytes) throw fail(fmt::format("{} bytes: larger than any checkpoint", bytes));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(io::read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw fail(fmt::format("not a lockstep checkpoint (not JSON: {})", e.what()));
  }
  if (!j.is_object() || j.value("format", "") != kFormat) throw fail("not a lockstep checkpoint");
  if (j.value("version", 0) != kVersion) throw fail(fmt::format("version {}, this lockstep reads {}", j.value("version", 0), kVersion));
  if (j.value("sha256", "") != file.sha256)
    throw fail(fmt::format("it was written for other bytes of a scenario ({}), not {}", j.value("scenario", "?"), file.path));
  if (j.value("row", std::size_t{0}) != row) throw fail(fmt::format("it is row {}'s, not row {}'s", j.value("row", 0), row));
  if (j.value("max_runs", std::uint64_t{0}) != max_runs)
    throw fail(fmt::format("its search was capped at {} executions, this one at {}: give the same --executions",
                           j.value("max_runs", std::uint64_t{0}), max_runs));
  try {
    return model::decode_checkpoint(j.at("search"));
  } catch (const std::exception& e) {
    throw fail(e.what());
  }
}

}  // namespace

model::CheckpointPolicy checkpoint_policy(const CheckpointFiles& files, const scenario::ScenarioFile& file,
                                          std::size_t row, std::uint64_t max_runs) {
  model::CheckpointPolicy policy;
  if (!files.resume_path.empty()) policy.resume = read_checkpoint(files.resume_path, file, row, max_runs);
  if (files.write_path.empty()) return policy;
  policy.every_s = files.every_s;
  policy.save = [path = files.write_path, scenario = file.path, sha = file.sha256, row, max_runs](const model::SearchCheckpoint& c) {
    const nlohmann::json j = {{"format", kFormat}, {"version", kVersion}, {"scenario", scenario}, {"sha256", sha},
                              {"row", row}, {"max_runs", max_runs}, {"search", model::encode_checkpoint(c)}};
    io::write_file_atomically(path, j.dump() + "\n");
  };
  return policy;
}

}  // namespace lockstep::driver
