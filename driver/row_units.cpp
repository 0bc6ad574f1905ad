#include "driver/row_units.hpp"

#include <atomic>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "driver/sweep_checkpoint.hpp"
#include "io/files.hpp"
#include "report/row_codec.hpp"

namespace lockstep::driver {

using report::RowReport;
using report::ScenarioReport;

namespace fs = std::filesystem;

namespace {

constexpr const char* kRowKind = "row";

// The report's paths that name files the row wrote, each rewritten from the serving rank's
// scratch directory to rank 0's out_dir.
std::string moved(const std::string& text, const std::string& from, const std::string& to) {
  std::string out = text;
  for (std::size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
    out.replace(at, from.size(), to);
  return out;
}

// A scratch directory of this process's own: ranks of one job may share a host and a /tmp.
fs::path make_scratch_dir() {
  static std::atomic<unsigned> count{0};
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("lockstep-row-{}-{}", static_cast<long>(::getpid()), count.fetch_add(1));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

std::string encode_row_unit(const RunOptions& o) {
  nlohmann::json j;
  j["kind"] = kRowKind;
  j["command"] = name_of(o.command);
  j["seed"] = o.seed ? nlohmann::json(*o.seed) : nlohmann::json();
  j["executions"] = o.executions ? nlohmann::json(*o.executions) : nlohmann::json();
  j["workers"] = o.workers ? nlohmann::json(*o.workers) : nlohmann::json();
  j["save_traces"] = o.save_traces;
  j["save_traces_limit_mib"] = o.save_traces_limit_mib;
  j["all_outcomes"] = o.all_outcomes;
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_msgpack(j);
  return {bytes.begin(), bytes.end()};
}

bool is_row_unit(const std::string& unit) {
  const nlohmann::json j = nlohmann::json::from_msgpack(unit, true, false);
  return j.is_object() && j.value("kind", "") == kRowKind;
}

std::string serve_row_unit(const ScenarioFile& file, std::size_t row, const std::string& unit) {
  const nlohmann::json j = nlohmann::json::from_msgpack(unit);
  RunOptions o;
  const std::string command = j.at("command").get<std::string>();
  if (command != "run" && command != "check") throw std::runtime_error("a row unit of command " + command);
  o.command = command == "run" ? Command::run : Command::check;
  if (!j.at("seed").is_null()) o.seed = j["seed"].get<std::uint64_t>();
  if (!j.at("executions").is_null()) o.executions = j["executions"].get<std::uint64_t>();
  if (!j.at("workers").is_null()) o.workers = j["workers"].get<unsigned>();
  o.save_traces = j.at("save_traces").get<bool>();
  o.save_traces_limit_mib = j.at("save_traces_limit_mib").get<std::uint64_t>();
  o.all_outcomes = j.at("all_outcomes").get<bool>();
  const fs::path scratch = make_scratch_dir();
  o.out_dir = scratch.string();
  nlohmann::json answer;
  try {
    answer["report"] = nlohmann::json::binary_t([&] {
      const std::string bytes = report::encode_row_report(run_scenario_row(file, row, o));
      return std::vector<std::uint8_t>(bytes.begin(), bytes.end());
    }());
    answer["scratch"] = o.out_dir;
    answer["files"] = nlohmann::json::object();
    for (const fs::directory_entry& e : fs::directory_iterator(scratch)) {
      const std::string bytes = io::read_file(e.path().string());
      answer["files"][e.path().filename().string()] =
          nlohmann::json::binary_t(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
    }
  } catch (...) {
    fs::remove_all(scratch);
    throw;
  }
  fs::remove_all(scratch);
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_msgpack(answer);
  return {bytes.begin(), bytes.end()};
}

RowReport accept_row_answer(const std::string& answer, const RunOptions& options) {
  nlohmann::json j;
  try {
    j = nlohmann::json::from_msgpack(answer);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("a row's answer: malformed: ") + e.what());
  }
  const auto& report_bytes = j.at("report").get_binary();
  RowReport report = report::decode_row_report(std::string(report_bytes.begin(), report_bytes.end()));
  const std::string scratch = j.at("scratch").get<std::string>();
  for (const auto& [name, content] : j.at("files").items()) {
    if (name.find('/') != std::string::npos || name == ".." || name == ".")
      throw std::runtime_error("a row's answer names a file outside its directory: " + name);
    const auto& b = content.get_binary();
    io::write_file_atomically((fs::path(options.out_dir) / name).string(),
                              std::string_view(reinterpret_cast<const char*>(b.data()),
                                               b.size()));  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  }
  for (std::string* path :
       {&report.schedule_path, &report.replay_command, &report.trace_path, &report.chrome_trace_path})
    *path = moved(*path, scratch, options.out_dir);
  return report;
}

ScenarioReport run_rows_on_ranks(const ScenarioFile& file, const RunOptions& options, SweepCheckpoint* kept) {
  ScenarioReport report;
  report.scenario = file.path;
  report.name = file.rows.empty() ? "" : file.rows.front().name;
  report.command = name_of(options.command);
  report.swept = file.swept;
  report.rows.resize(file.rows.size());
  std::vector<std::exception_ptr> errors(file.rows.size());
  // The rows left to run: those a checkpoint does not hold already.
  std::vector<std::size_t> todo;
  for (std::size_t row = 0; row < file.rows.size(); ++row) {
    if (auto done = kept != nullptr ? kept->finished(row) : std::nullopt) {
      report.rows[row] = std::move(*done);
    } else {
      todo.push_back(row);
    }
  }
  std::atomic<std::size_t> next{0};
  const std::string unit = encode_row_unit(options);
  auto finish = [&](std::size_t row) {
    if (kept != nullptr) kept->row_done(row, report.rows[row]);
  };
  // Each remote rank's lane on a thread of its own that only waits on MPI; rank 0's thread
  // runs rows itself. A row's error is kept at the row, and the first in row order is thrown.
  std::vector<std::thread> lanes;
  for (std::size_t lane = 0; lane < options.lanes->ranks(); ++lane)
    lanes.emplace_back([&, lane] {
      for (std::size_t i = next++; i < todo.size(); i = next++) {
        const std::size_t row = todo[i];
        try {
          report.rows[row] = accept_row_answer(options.lanes->call(lane, file, row, unit), options);
          finish(row);
        } catch (...) {
          errors[row] = std::current_exception();
          return;  // the lane's rank may be gone: the rows left go to the others
        }
      }
    });
  for (std::size_t i = next++; i < todo.size(); i = next++) {
    const std::size_t row = todo[i];
    try {
      report.rows[row] = run_scenario_row(file, row, options);
      finish(row);
    } catch (...) {
      errors[row] = std::current_exception();
    }
  }
  for (std::thread& t : lanes) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return report;
}

}  // namespace lockstep::driver
