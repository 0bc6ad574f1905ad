// Fuzz target: the scenario loader (spec/scenario.hpp, load_scenario_file), with the bytes as
// the contents of a scenario file, then the check every simulating command makes before it
// runs (require_simulable). Any bytes must either load or be refused with a ScenarioError
// (bad input, "file:line:col: ..."); anything else is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "driver/runner.hpp"
#include "spec/scenario.hpp"

namespace {

// One file per process, rewritten for every input (the loader reads a path).
const std::string& scratch_path() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/lockstep-fuzz-XXXXXX.yaml";
    const int fd = mkstemps(pattern.data(), 5);
    if (fd < 0) {
      std::perror("lockstep fuzz: mkstemps");
      std::abort();
    }
    close(fd);
    std::atexit([] { std::remove(scratch_path().c_str()); });
    return pattern;
  }();
  return path;
}

void write_all(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror("lockstep fuzz: writing the scratch file");
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = scratch_path();
  write_all(path, data, size);
  try {
    const lockstep::scenario::ScenarioFile file = lockstep::scenario::load_scenario_file(path);
    for (const lockstep::scenario::Scenario& row : file.rows) (void)lockstep::scenario::exists_conditions(row.workload);
    lockstep::driver::require_simulable(file);
  } catch (const lockstep::scenario::ScenarioError&) {
    // Bad input, refused with a message: fine.
  }
  return 0;
}
