// `lockstep keys --design NAME --count K [--range LO:HI]`: worst-case futex keys for a table
// design (driver/colliding_keys.hpp, axiomatic/futex_keys.hpp): K distinct aligned addresses whose keys land in one
// bucket, found by Z3 and checked with the table's own hash. Exit 0 when every answer is
// verified, 1 when one is not (a bug of the encoding), 2 for bad arguments or a range that
// holds too few.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace lockstep::cli {

struct KeysCommand {
  std::string design = "linux-3.14";
  std::string key = "private";  // or shared
  std::uint64_t count = 16;
  std::string range = "0x7f0000000000:0x7f0000100000";
  int cpus = 16;
  int nodes = 2;
  int threads = 0;  // 0: as many as cpus
  std::string json;
  bool quiet = false;
};

CLI::App* add_keys(CLI::App& app, KeysCommand& command);
int run_keys(const KeysCommand& command);

}  // namespace lockstep::cli
