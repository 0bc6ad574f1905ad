// Checkpoint files (docs/distributed.md, "Checkpoints"): a dfs or bounded search's state,
// written atomically every --checkpoint-every seconds (a crash mid-write leaves the last
// one whole), and read back by --resume. A file names the scenario's bytes (sha256), the
// row and the search's cap, so that it resumes only the search it came from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "model/checkpoint.hpp"
#include "spec/scenario.hpp"

namespace lockstep::driver {

struct CheckpointFiles {
  std::string write_path;   // --checkpoint
  double every_s = 60;      // --checkpoint-every
  std::string resume_path;  // --resume
  bool any() const { return !write_path.empty() || !resume_path.empty(); }
};

// A checkpoint file's JSON, read with a bound (`max_bytes`) and checked to be `format` of
// `version`, whole (its digest), written for the bytes of `file`. Throws std::runtime_error, naming the path and
// saying what is wrong: "PATH: cannot resume from it: ..." (exit 2).
nlohmann::json read_checkpoint_json(const std::string& path, std::uintmax_t max_bytes, const char* format, int version,
                                    const scenario::ScenarioFile& file);
// A checkpoint's text: `j` with a `digest` member added, the SHA-256 of `j`'s own dump
// (members in key order, so the dump is canonical). read_checkpoint_json recomputes it: a
// file edited or damaged anywhere in its body is refused instead of resumed into a false
// verdict (a dfs checkpoint whose stack was emptied by hand used to resume as "pass,
// exhaustive", a proof of nothing).
std::string checkpoint_text(nlohmann::json j);
// The error read_checkpoint_json throws, for what its caller checks after it.
std::runtime_error cannot_resume(const std::string& path, const std::string& why);

// The policy for row `row` of `file`. Throws std::runtime_error, naming the file, when the
// one to resume is not a checkpoint of this search (exit 2).
model::CheckpointPolicy checkpoint_policy(const CheckpointFiles& files, const scenario::ScenarioFile& file,
                                          std::size_t row, std::uint64_t max_runs);

}  // namespace lockstep::driver
