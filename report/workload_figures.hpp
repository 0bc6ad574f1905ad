// Each workload's figures, declared once (core/workloads/*.hpp's metrics(), docs/results.md
// "Workload results"): the name in the result JSON and CSV, what it is (a measured figure, an
// echoed parameter, a label, a per-thread list, a numbered family), its unit, whether it is a
// headline (the sweep table's columns, the viewer's sweep chart), whether `lockstep compare`
// holds it against a native run, and whether a design sweep's ratios are taken of it. The
// sweep table, the viewer, compare and `fidelity:` read this table; a test holds what the
// workloads report to it. Plain C++.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace lockstep::report {

enum class FigureKind : std::uint8_t {
  measured,    // what the run measured: a rate, a latency, a share
  parameter,   // a parameter the workload echoes (threads, rounds): never compared
  label,       // a text: the design, the policy
  per_thread,  // a list, one value per thread or pair
  numbered,    // a family NAME0, NAME1, ... (one per process)
};

struct FigureInfo {
  std::string_view workloads;  // who report it: registry names, or "timed rows" (the engine's)
  std::string_view name;       // for `numbered`, the prefix the index follows
  FigureKind kind;
  std::string_view unit = "";  // shown in: "ops/s", "s", "" (a plain number)
  double scale = 1;            // multiplies the raw value into `unit` (1e-9: ns shown as s)
  int headline = 0;            // 0: not a headline; else its rank, 1 most telling
  bool compared = false;       // lockstep compare holds it, native against simulated
  bool ratio = false;          // a design sweep's rows are also compared as ratios of it
};

// The figure `name` denotes (a numbered family's member too), or null.
const FigureInfo* find_figure(std::string_view name);
// Every declared figure, in declaration order.
const std::vector<FigureInfo>& workload_figures();

}  // namespace lockstep::report
