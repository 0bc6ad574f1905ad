// The result JSON of a command (docs/results.md): one object per scenario, each row's
// outcome with its counts, virtual time, trace digest and the paths of what was written.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/row_report.hpp"

namespace lockstep::report {

// A row's machine measurements (docs/results.md, "Machine measurements"): `histogram` and
// `peaks_ns` (latency-probe), `c2c_cpus` and `c2c_ns` (c2c), `sources`; the native probes'
// JSON writes its rows with it too, so both have one shape.
void put_machine(nlohmann::ordered_json& out, const MachineMeasurements& m);

// Where a row's machine came from (docs/results.md, "Where the machine came from"): `name`,
// `file`, `calibration` {host, when} and `note`, as far as each is known. `compare`'s JSON
// writes it too.
nlohmann::ordered_json machine_source_json(const report::MachineProvenance& m);
// The same in words for the terminal: "NAME, calibrated on HOST at WHEN (FILE)", "NAME (FILE)"
// or "NAME, uncalibrated: WHY".
std::string machine_source_text(const report::MachineProvenance& m);

// Fields in the documented order. Throws std::invalid_argument for an unswept report
// that does not hold exactly one row.
nlohmann::ordered_json to_json(const ScenarioReport& report);

// One object when exactly one report is given, a list otherwise; 2-space indent, trailing
// newline. Bytes that are not UTF-8 are replaced by U+FFFD rather than rejected.
std::string results_json(const std::vector<ScenarioReport>& reports);

}  // namespace lockstep::report
