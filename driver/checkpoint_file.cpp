#include "driver/checkpoint_file.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "io/files.hpp"
#include "model/work_units.hpp"

namespace lockstep::driver {

namespace {

constexpr const char* kFormat = "lockstep checkpoint";
// 2: a parallel dfs checkpoint holds running units' states (4-member entries), and a dfs unit
// is encoded as its root path's choices and its root's sleep set. A version-1 file would
// resume correctly but meet none of its units, so it is refused instead of silently re-run.
// 3: per-run figures are packed in groups of equal runs (model/work_units.hpp).
// 4: a digest over the whole content (checkpoint_text).
constexpr int kVersion = 4;
// A one-worker checkpoint holds one branch of the search: kilobytes. A parallel one holds its
// finished units' per-run figures, a few bytes for each group of equal runs in a row.
// Anything this large is not one.
constexpr std::uintmax_t kMaxCheckpointBytes = 256ULL << 20;

model::SearchCheckpoint read_checkpoint(const std::string& path, const scenario::ScenarioFile& file, std::size_t row,
                                        std::uint64_t max_runs) {
  auto fail = [&path](const std::string& why) { return cannot_resume(path, why); };
  const nlohmann::json j = read_checkpoint_json(path, kMaxCheckpointBytes, kFormat, kVersion, file);
  if (j.value("row", std::size_t{0}) != row)
    throw fail(fmt::format("it is row {}'s, not row {}'s", j.value("row", 0), row));
  if (j.value("max_runs", std::uint64_t{0}) != max_runs)
    throw fail(fmt::format("its search was capped at {} executions, this one at {}: give the same --executions",
                           j.value("max_runs", std::uint64_t{0}), max_runs));
  try {
    model::SearchCheckpoint c = model::decode_checkpoint(j.at("search"));
    // A one-worker dfs's stack is checked entry by entry now, not when the search meets it.
    if (c.strategy.is_object() && c.strategy.value("kind", "") == "dfs") {
      const model::DporStrategy::Subtree stack = model::decode_dpor_subtree(c.strategy.at("stack"));
      if (stack.nodes.empty() && c.next > 0)
        throw std::runtime_error("its dfs stack is empty after executions were run");
    }
    return c;
  } catch (const std::exception& e) {
    throw fail(e.what());
  }
}

}  // namespace

std::string checkpoint_text(nlohmann::json j) {
  j["digest"] = io::sha256_hex(j.dump());
  return j.dump() + "\n";
}

std::runtime_error cannot_resume(const std::string& path, const std::string& why) {
  return std::runtime_error(fmt::format("{}: cannot resume from it: {}", path, why));
}

nlohmann::json read_checkpoint_json(const std::string& path, std::uintmax_t max_bytes, const char* format, int version,
                                    const scenario::ScenarioFile& file) {
  std::string text;
  try {
    text = io::read_file(path, max_bytes);  // a regular file, within the bound
  } catch (const std::runtime_error& e) {
    // read_file's message names the path already.
    throw std::runtime_error(fmt::format("{} (cannot resume from it: not a {})", e.what(), format));
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw cannot_resume(path, fmt::format("not a {} (not JSON: {})", format, e.what()));
  }
  if (!j.is_object() || j.value("format", "") != format) throw cannot_resume(path, fmt::format("not a {}", format));
  if (j.value("version", 0) != version)
    throw cannot_resume(path, fmt::format("version {}, this lockstep reads {}", j.value("version", 0), version));
  const auto digest = j.find("digest");
  if (digest == j.end() || !digest->is_string()) throw cannot_resume(path, "it has no digest of its content");
  nlohmann::json body = j;
  body.erase("digest");
  if (io::sha256_hex(body.dump()) != digest->get<std::string>())
    throw cannot_resume(path, "its content does not match its digest: it was edited or damaged after it was written");
  if (j.value("sha256", "") != file.sha256)
    throw cannot_resume(path, fmt::format("it was written for other bytes of a scenario ({}), not {}",
                                          j.value("scenario", "?"), file.path));
  return j;
}

model::CheckpointPolicy checkpoint_policy(const CheckpointFiles& files, const scenario::ScenarioFile& file,
                                          std::size_t row, std::uint64_t max_runs) {
  model::CheckpointPolicy policy;
  if (!files.resume_path.empty()) policy.resume = read_checkpoint(files.resume_path, file, row, max_runs);
  if (files.write_path.empty()) return policy;
  policy.every_s = files.every_s;
  policy.save = [path = files.write_path, scenario = file.path, sha = file.sha256, row,
                 max_runs](const model::SearchCheckpoint& c) {
    const nlohmann::json j = {{"format", kFormat},
                              {"version", kVersion},
                              {"scenario", scenario},
                              {"sha256", sha},
                              {"row", row},
                              {"max_runs", max_runs},
                              {"search", model::encode_checkpoint(c)}};
    io::write_file_atomically(path, checkpoint_text(j));
  };
  return policy;
}

}  // namespace lockstep::driver
