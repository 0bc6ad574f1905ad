// `lockstep compare FILE`: options, and the run that prints and writes the comparison
// (driver/compare.hpp). Exit 0 when every figure is within its tolerance, 1 otherwise.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "driver/compare.hpp"

namespace lockstep::cli {

struct CompareCommand {
  std::string file;
  driver::CompareOptions options;
  std::string json;
  std::string csv;
  std::string junit;
  std::string lock_profile;  // --lock-profile: both sides' locks (docs/os.md)
  bool quiet = false;
};

CLI::App* add_compare(CLI::App& app, CompareCommand& command);
int run_compare(CompareCommand command);

}  // namespace lockstep::cli
