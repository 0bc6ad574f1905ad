#include "spec/host_calibration.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "sim/machine/host_topology.hpp"
#include "spec/machine_loader.hpp"

namespace lockstep::scenario {

namespace {

namespace fs = std::filesystem;

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("model name")) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    const std::size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string("unknown") : line.substr(start);
  }
  return "unknown";
}

// A host name as a file name: letters, digits, '-', '.' and '_' kept, anything else '_'.
std::string file_safe(const std::string& name) {
  std::string out = name.empty() ? std::string("unnamed") : name;
  for (char& ch : out) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                      ch == '.' || ch == '_';
    if (!keep) ch = '_';
  }
  if (out.front() == '.') out.front() = '_';
  return out;
}

std::optional<std::string> mismatch(const CalibrationInfo& c, const HostIdentity& host) {
  if (c.host != host.host) return fmt::format("it measured host '{}', this is '{}'", c.host, host.host);
  if (c.cpu != host.cpu) return fmt::format("it measured a {}, this host has a {}", c.cpu, host.cpu);
  if (c.cpus != host.cpus) return fmt::format("it measured {} CPUs online, this host has {}", c.cpus, host.cpus);
  return std::nullopt;
}

}  // namespace

HostIdentity this_host() {
  HostIdentity id;
  utsname names{};
  id.host = uname(&names) == 0 ? std::string(names.nodename) : std::string("unknown");
  id.cpu = cpu_model();
  id.cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  return id;
}

std::string calibration_dir() {
  if (std::string dir = env_or_empty("LOCKSTEP_CALIBRATION_DIR"); !dir.empty()) return dir;
  if (std::string state = env_or_empty("XDG_STATE_HOME"); !state.empty())
    return (fs::path(state) / "lockstep").string();
  if (std::string home = env_or_empty("HOME"); !home.empty())
    return (fs::path(home) / ".local/state/lockstep").string();
  return "lockstep-calibration";  // no home: the working directory
}

std::string host_calibration_path(const HostIdentity& host) {
  return (fs::path(calibration_dir()) / fmt::format("calibration-{}.yaml", file_safe(host.host))).string();
}

HostMachine calibrated_host_machine() {
  const HostIdentity host = this_host();
  const std::string path = host_calibration_path(host);
  HostMachine out;
  std::error_code ec;
  if (fs::exists(path, ec)) {
    MachineFile file = load_machine_file(path);
    if (!file.machine.calibration) {
      throw ScenarioError(
          fmt::format("{}: the host's calibration has no `calibration:` section: run `lockstep "
                      "calibrate` again or remove the file",
                      path));
    }
    const std::optional<std::string> why = mismatch(*file.machine.calibration, host);
    if (!why) {
      out.config = std::move(*file.machine.model);
      out.calibration = std::move(file.machine.calibration);
      return out;
    }
    out.note = fmt::format("{} is not used: {}", path, *why);
  } else {
    out.note = fmt::format("no calibration of this host in {}", calibration_dir());
  }
  out.note += "; latencies are nehalem-2s's [guess]: run `lockstep calibrate`";
  out.config = sim::machine::host_machine();
  return out;
}

CalibrationInfo load_calibration_info(const yaml::Source& src, const YAML::Node& node) {
  const yaml::Map m(src, node, "calibration", {"host", "cpu", "cpus", "when", "clock", "lockstep", "sources", "notes"});
  CalibrationInfo c;
  c.host = yaml::scalar(src, m.required("host"), "host");
  c.cpu = m.scalar_or("cpu", "unknown");
  c.cpus = static_cast<int>(m.integer_or("cpus", 0, 1'000'000, 0));
  c.when = yaml::scalar(src, m.required("when"), "when");
  c.clock = m.scalar_or("clock", "");
  if (const auto sources = m.get("sources")) {
    yaml::require_map(src, *sources, "sources");
    for (const auto& kv : *sources)
      c.sources.emplace_back(yaml::scalar(src, kv.first, "sources"), yaml::scalar(src, kv.second, "sources"));
  }
  if (const auto notes = m.get("notes")) {
    yaml::require_list(src, *notes, "notes");
    for (const auto& n : *notes) c.notes.push_back(yaml::scalar(src, n, "notes"));
  }
  return c;
}

}  // namespace lockstep::scenario
