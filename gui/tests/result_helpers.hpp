// Helpers of the viewer's tests that need real result files and a lockstep-view process.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include <sys/wait.h>

#include "gui/tests/helpers.hpp"

namespace lockstep::view::testing {

// Runs `lockstep COMMAND SCENARIOS --json OUT EXTRA` from the source dir (SCENARIOS: one or
// more paths separated by spaces); returns the result's path, or an empty path when the
// command wrote none.
inline std::filesystem::path record_result(const std::string& command, const std::string& scenarios,
                                           const std::string& stem, const std::string& extra = "") {
  const auto out = scratch_dir() / (stem + ".json");
  const std::string cmd = std::string("cd '") + LOCKSTEP_SOURCE_DIR + "' && '" + LOCKSTEP_BIN + "' " + command +
                          " -q " + scenarios + " --out-dir '" + scratch_dir().string() + "' --json '" + out.string() +
                          "' " + extra + " >/dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  (void)rc;  // the exit code says whether outcomes matched `expect`; the result file is what matters here
  return std::filesystem::exists(out) ? out : std::filesystem::path();
}

// Runs lockstep-view with ARGS (already quoted); its output goes to view.err in the scratch dir.
inline int run_view(const std::string& args) {
  const std::string cmd = std::string("QT_QPA_PLATFORM=offscreen '") + LOCKSTEP_VIEW_BIN + "' " + args + " >'" +
                          (scratch_dir() / "view.err").string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline std::string view_errors() { return slurp(scratch_dir() / "view.err"); }

inline std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

}  // namespace lockstep::view::testing
