// `lockstep native probe fileio`: what this OS and file system guarantee when threads race
// on one file, measured with real threads in a temporary directory that is always removed.
#pragma once

#include <string>

#include "native/fileio/probe_result.hpp"

namespace lockstep::native::fileio {

// The torn-read sizes: one sector, one page, many pages, many folios.
inline constexpr std::size_t kTornReadSizes[] = {512, 4 * 1024, 64 * 1024, 1024 * 1024};

struct ProbeOptions {
  std::string path;    // an existing directory; the probe works in a fresh subdirectory
  double seconds = 3;  // the whole probe's time, shared among the experiments
};

// Runs every experiment in turn, each for its share of options.seconds. On Ctrl-C the
// experiments stop early, the files are removed and the result says `interrupted`.
// Throws std::system_error or std::runtime_error when a file operation fails.
ProbeResult run_probe(const ProbeOptions& options);

}  // namespace lockstep::native::fileio
