// Schedule files: the oracle's answers for one execution, as stable, diffable, pasteable
// text (docs/traces.md, "Schedules"). Example:
//
//   # lockstep schedule v1
//   scenario: scenarios/basics/racy-counter.yaml
//   scenario_sha256: 3f5a...
//   seed: 1
//   mode: explore
//   strategy: random
//   execution: 12
//   property: lost_update
//   choices: 0*3 1 0 1*2
//
// `choices` lists, for every scheduling point with more than one candidate, the thread that
// went next (`T`) or the thread whose oldest buffered store reached memory (`dT`, x86-TSO);
// `T*N` is N answers of T in a row. A timed run needs no choices: its seed
// reproduces it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scheduler.hpp"

namespace lockstep::model {

inline constexpr int kScheduleVersion = 1;

struct ScheduleFile {
  std::string scenario;                                     // path of the scenario file, as given to the command
  std::string scenario_sha256;                              // of the scenario file's bytes
  std::vector<std::pair<std::string, std::string>> params;  // sweep values of this row
  std::uint64_t seed = 0;
  sim::EngineMode mode = sim::EngineMode::explore;
  std::string strategy;
  std::uint64_t execution = 0;
  std::string property;  // the violated property, empty when none
  sim::Schedule choices;
  // Where each part was read (parse_schedule; 0 when made in memory), so that a replay's
  // errors name the line: the scenario, each param, the choices.
  std::size_t scenario_line = 0;
  std::vector<std::size_t> param_lines;
  std::size_t choices_line = 0;
};

// The most choices a schedule may expand to (run lengths included): 128 MiB of choices.
inline constexpr std::size_t kMaxScheduleChoices = std::size_t{1} << 24;

class ScheduleParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string format_schedule(const ScheduleFile& schedule);
// Throws ScheduleParseError naming `path`, line and column.
ScheduleFile parse_schedule(std::string_view text, std::string_view path);

}  // namespace lockstep::model
