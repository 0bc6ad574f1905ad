// `lockstep import litmus FILE... --out DIR [--kinds FILE]`: herd x86 litmus tests to scenario
// files (spec/litmus_import.hpp, docs/litmus.md). Every file is tried; a refused one is
// reported as FILE:LINE:COL: message. Exit 0 when every file was imported, 2 when any was
// refused (or the arguments are bad).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace lockstep::cli {

struct ImportCommand {
  std::vector<std::string> files;
  std::string out;
  std::string kinds;
  bool quiet = false;
};

// Adds `import` with its `litmus` subcommand; returns the `litmus` one.
CLI::App* add_import(CLI::App& app, ImportCommand& command);
int run_import(const ImportCommand& command);

}  // namespace lockstep::cli
