#include "cli/progress_line.hpp"

#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "report/si_units.hpp"

namespace lockstep::cli {

namespace {

std::string seconds(double s) { return s < 10 ? fmt::format("{:.1f} s", s) : fmt::format("{:.0f} s", s); }

// Counts below a thousand exactly ("14", not "14.0"), larger ones with a prefix ("12.3 k").
std::string count(std::uint64_t n) {
  return n < 1000 ? fmt::format("{}", n) : report::format_si(static_cast<double>(n), "");
}

// "/s" directly after the prefix: "8.21 k/s".
std::string rate(double per_s, std::string_view unit) {
  return unit == "/s" ? report::format_si(per_s, "") + "/s" : report::format_si(per_s, unit);
}

}  // namespace

std::string progress_line(const driver::ProgressSnapshot& s) {
  std::string out = s.scenario;
  if (s.rows > 1) out += fmt::format(" [row {}/{}]", s.row + 1, s.rows);
  out += fmt::format(": {} ", s.strategy);
  if (!s.phase.empty()) out += fmt::format("({}) ", s.phase);
  const double elapsed = s.elapsed_s > 0 ? s.elapsed_s : 1e-9;
  if (s.strategy == "timed") {
    out += fmt::format("{} steps, {} virtual, {}, {}", count(s.steps),
                       report::format_si(static_cast<double>(s.virtual_ns) * 1e-9, "s"),
                       rate(static_cast<double>(s.steps) / elapsed, "steps/s"), seconds(s.elapsed_s));
    return out;
  }
  const double per_s = static_cast<double>(s.executions) / elapsed;
  if (s.planned != 0) {
    out += fmt::format("{}/{} executions, {}", count(s.executions), count(s.planned), rate(per_s, "/s"));
    if (per_s > 0 && s.executions < s.planned)
      out += fmt::format(", {} left", seconds(static_cast<double>(s.planned - s.executions) / per_s));
    else
      out += fmt::format(", {}", seconds(s.elapsed_s));
    return out;
  }
  if (s.estimate > 0) {
    // "dfs 1.2 M of ~5.0 M executions (+-15%), ~18 s left": the estimate made before the
    // search (model/search_estimate.hpp); once the search passes it, the count alone.
    const double search_per_s = s.search_s > 0 ? static_cast<double>(s.executions) / s.search_s : 0;
    const auto done = static_cast<double>(s.executions);
    if (done < s.estimate) {
      out += fmt::format("{} of ~{} executions (+-{:.0f}%)", count(s.executions),
                         count(static_cast<std::uint64_t>(std::llround(s.estimate))),
                         100 * s.estimate_half_width / s.estimate);
      if (search_per_s > 0) out += fmt::format(", ~{} left", seconds((s.estimate - done) / search_per_s));
      return out;
    }
  }
  out += fmt::format("{} executions", count(s.executions));
  if (s.cap != 0) out += fmt::format(" (cap {})", count(s.cap));
  out += fmt::format(", {}, {}", rate(per_s, "/s"), seconds(s.elapsed_s));
  return out;
}

void print_progress(const driver::ProgressSnapshot& s, bool final) {
  std::fprintf(stderr, "\r%s\x1b[K%s", progress_line(s).c_str(), final ? "\n" : "");
  std::fflush(stderr);
}

}  // namespace lockstep::cli
