// `lockstep native probe memory|c2c|futex`: the options of the machine probes, which the
// driver runs (driver/native_probes.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include "driver/native_probes.hpp"

namespace lockstep::cli {

// `memory`, `c2c` and `futex` under `lockstep native probe` (beside `fileio`); the one
// given sets options.kind.
void add_native_probes(CLI::App& probe_cmd, driver::NativeProbeOptions& options);

}  // namespace lockstep::cli
