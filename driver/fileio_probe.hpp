// `lockstep native probe fileio`: runs the file probe (native/fileio/probe.hpp), classifies
// what it saw against the modeled policies, and reports it as JSON (docs/results.md,
// "File probe") and as a summary on the terminal.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "native/fileio/policy_classification.hpp"
#include "native/fileio/probe.hpp"

namespace lockstep::driver {

struct FileioProbeOptions {
  native::fileio::ProbeOptions probe;
  std::string json;  // where to write the result JSON; empty: nowhere
  bool quiet = false;
};

// Fields in the documented order.
nlohmann::ordered_json fileio_probe_json(const native::fileio::ProbeResult& result, std::size_t page_bytes,
                                         const native::fileio::Classification& classification);

// A few lines for a person: each experiment's anomalies over its trials, then the policies.
std::string fileio_probe_summary(const native::fileio::ProbeResult& result,
                                 const native::fileio::Classification& classification);

// Exit status: 0 measured (anomalies are findings, not failures); 130 interrupted, with
// no JSON written. File errors throw.
int run_fileio_probe(const FileioProbeOptions& options);

}  // namespace lockstep::driver
