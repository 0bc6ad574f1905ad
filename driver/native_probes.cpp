#include "driver/native_probes.hpp"

#include <cstdio>
#include <stdexcept>

#include <fmt/format.h>

#include "io/files.hpp"
#include "native/fileio/interrupt.hpp"

namespace lockstep::driver {

namespace {

namespace np = native::probes;

constexpr int kExitInterrupted = 130;  // the shell's code for a process ended by SIGINT

// Writes the JSON, prints the table, and returns the exit status.
int report(const NativeProbeOptions& options, const nlohmann::ordered_json& json, const std::string& table,
           bool interrupted) {
  if (!options.json.empty()) io::write_file_atomically(options.json, json.dump(2) + "\n");
  if (!options.quiet) fmt::print("{}", table);
  std::fflush(stdout);  // the table before the stderr line, when both go to one file
  if (!interrupted) return 0;
  std::fprintf(stderr, "interrupted: the figures above are what was measured before Ctrl-C\n");
  return kExitInterrupted;
}

np::ProbeLimits limits_of(const NativeProbeOptions& options) {
  // The file probe's guard: the first SIGINT, SIGTERM or SIGHUP raises a flag the probes poll.
  return np::ProbeLimits{options.seconds, [] { return native::fileio::interrupted(); }};
}

int run_memory(const NativeProbeOptions& options) {
  np::MemoryProbeOptions o;
  o.limits = limits_of(options);
  if (options.node >= 0) o.node = options.node;
  o.huge_pages = !options.no_huge_pages;
  if (options.bytes != 0) {
    o.sizes_bytes = {options.bytes};
  } else if (options.max_bytes != 0) {
    if (options.max_bytes < np::kMinProbeBytes)
      throw std::invalid_argument(
          fmt::format("--max-bytes {} is below the smallest size, {} bytes", options.max_bytes, np::kMinProbeBytes));
    o.sizes_bytes = np::memory_probe_sizes(options.max_bytes);
  }
  const np::MemoryProbeResult r = np::memory_probe(o);
  return report(options, memory_probe_json(r), memory_probe_table(r), r.interrupted);
}

int run_c2c(const NativeProbeOptions& options) {
  np::C2cProbeOptions o{limits_of(options)};
  o.max_cpus = options.max_cpus;
  const np::C2cProbeResult r = np::c2c_probe(o);
  return report(options, c2c_probe_json(r), c2c_probe_table(r), r.interrupted);
}

int run_futex(const NativeProbeOptions& options) {
  const np::FutexProbeResult r = np::futex_probe(np::FutexProbeOptions{limits_of(options)});
  return report(options, futex_probe_json(r), futex_probe_table(r), r.interrupted);
}

}  // namespace

int run_native_probe(const NativeProbeOptions& options) {
  const native::fileio::InterruptGuard guard;
  switch (options.kind) {
    case NativeProbeKind::memory:
      return run_memory(options);
    case NativeProbeKind::c2c:
      return run_c2c(options);
    case NativeProbeKind::futex:
      return run_futex(options);
    case NativeProbeKind::none:
      break;
  }
  throw std::logic_error("run_native_probe without a probe");
}

}  // namespace lockstep::driver
