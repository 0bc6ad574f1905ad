#include "driver/fileio_probe.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "io/files.hpp"

namespace lockstep::driver {

namespace {

constexpr int kExitInterrupted = 130;  // the shell's code for a process ended by SIGINT

}  // namespace

int run_fileio_probe(const FileioProbeOptions& options) {
  const native::fileio::ProbeResult result = native::fileio::run_probe(options.probe);
  if (result.interrupted) {
    std::fprintf(stderr, "interrupted: the probe's files are removed and no result was written\n");
    return kExitInterrupted;
  }
  const auto page_bytes = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const native::fileio::Classification c =
      native::fileio::classify(native::fileio::observations_of(result, page_bytes));
  if (!options.json.empty()) {
    // A path need not be UTF-8; JSON must be, so stray bytes become U+FFFD as in results_json.
    const auto text =
        fileio_probe_json(result, page_bytes, c).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    io::write_file_atomically(options.json, text + "\n");
  }
  if (!options.quiet) fmt::print("{}", fileio_probe_summary(result, c));
  return 0;
}

}  // namespace lockstep::driver
