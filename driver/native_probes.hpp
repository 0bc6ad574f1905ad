// `lockstep native probe memory|c2c|futex`: runs a machine probe (native/probes/), prints a
// table and writes its JSON (docs/results.md, "Machine probes"): the simulator's result
// shape, with `"platform": "native"`. The command line's options (cli/native_probe.hpp) fill
// NativeProbeOptions.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "native/probes/c2c_probe.hpp"
#include "native/probes/futex_probe.hpp"
#include "native/probes/memory_probe.hpp"

namespace lockstep::driver {

enum class NativeProbeKind { none, memory, c2c, futex };

struct NativeProbeOptions {
  NativeProbeKind kind = NativeProbeKind::none;
  double seconds = 3;  // the whole probe's budget
  std::string json;    // where to write the JSON; empty: nowhere
  bool quiet = false;
  // memory
  std::uint64_t max_bytes = 0;  // the largest size; 0: 4 x the last-level cache
  std::uint64_t bytes = 0;      // one size only; 0: the sweep
  int node = -1;                // only this NUMA node; -1: every node
  bool no_huge_pages = false;
  // c2c
  std::size_t max_cpus = native::probes::kMaxC2cCpus;
};

nlohmann::ordered_json memory_probe_json(const native::probes::MemoryProbeResult& r);
nlohmann::ordered_json c2c_probe_json(const native::probes::C2cProbeResult& r);
nlohmann::ordered_json futex_probe_json(const native::probes::FutexProbeResult& r);

std::string memory_probe_table(const native::probes::MemoryProbeResult& r);
std::string c2c_probe_table(const native::probes::C2cProbeResult& r);
std::string futex_probe_table(const native::probes::FutexProbeResult& r);

// Exit status: 0 measured; 130 interrupted by Ctrl-C (what was measured is printed and
// written, marked "interrupted"). Bad options throw std::invalid_argument.
int run_native_probe(const NativeProbeOptions& options);

}  // namespace lockstep::driver
