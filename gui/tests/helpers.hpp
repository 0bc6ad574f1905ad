// Helpers of the viewer's tests: a scratch directory and real traces made by `lockstep check`.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <QApplication>

#include "tests/scratch_dir.hpp"

namespace lockstep::view::testing {

// The one Qt application of the test process (an inline function: one static for every
// file that asks, whichever asks first).
inline QApplication& qt_app() {
  static int argc = 1;
  static char name[] = "lockstep_view_tests";
  static char* argv[] = {name, nullptr};
  static QApplication instance(argc, argv);
  return instance;
}

inline const std::filesystem::path& scratch_dir() {
  static const lockstep::testing::ScratchDir dir("lockstep_view_tests");
  return dir.path();
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void spit(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// Runs `lockstep check SCENARIO --trace OUT` from the source dir; returns the trace path,
// or an empty path when the command did not write one.
inline std::filesystem::path record_trace(const std::string& scenario, const std::string& stem) {
  const auto out = scratch_dir() / (stem + ".trace.jsonl");
  const std::string cmd = std::string("cd '") + LOCKSTEP_SOURCE_DIR + "' && '" + LOCKSTEP_BIN + "' check -q '" +
                          scenario + "' --out-dir '" + scratch_dir().string() + "' --trace '" + out.string() +
                          "' >/dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  (void)rc;  // the exit code says whether the outcome matched `expect`; the trace is what matters here
  return std::filesystem::exists(out) ? out : std::filesystem::path();
}

}  // namespace lockstep::view::testing
