#include "cli/lock_profile_output.hpp"

#include <fmt/format.h>

#include "cli/sweep_csv.hpp"
#include "report/si_units.hpp"

namespace lockstep::cli {

namespace {

std::string site_of(const profile::LockProfileEntry& e) { return fmt::format("{}:{}", e.file, e.line); }

std::string ns(double v) { return report::format_si(v * 1e-9, "s"); }

}  // namespace

std::string lock_profile_table(const profile::LockProfile& p, const std::string& clock, std::size_t top) {
  if (p.empty()) return "  lock profile: no lock was taken\n";
  const std::size_t n = top == 0 ? p.entries.size() : std::min(top, p.entries.size());
  std::string out = fmt::format("  lock profile ({}), worst first{}:\n", clock,
                                n < p.entries.size() ? fmt::format(", {} of {}", n, p.entries.size()) : "");
  out += fmt::format("  {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9}  {}\n", "wait_total", "wait_max",
                     "wait_avg", "hold_total", "hold_max", "hold_avg", "acquired", "contended", "lock  (site)");
  for (std::size_t i = 0; i < n; ++i) {
    const profile::LockProfileEntry& e = p.entries[i];
    out += fmt::format(
        "  {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9}  {}  ({})\n", ns(static_cast<double>(e.wait_total_ns)),
        ns(static_cast<double>(e.wait_max_ns)), ns(e.wait_avg_ns()), ns(static_cast<double>(e.hold_total_ns)),
        ns(static_cast<double>(e.hold_max_ns)), ns(e.hold_avg_ns()), e.acquisitions, e.contended, e.name, site_of(e));
  }
  return out;
}

std::string lock_profile_csv(const std::vector<report::ScenarioReport>& reports) {
  std::string out =
      "scenario,platform,row,params,file,line,lock,acquisitions,contended,hold_total_ns,hold_max_ns,hold_avg_ns,wait_"
      "total_ns,"
      "wait_max_ns,wait_avg_ns\n";
  for (const report::ScenarioReport& s : reports) {
    for (std::size_t i = 0; i < s.rows.size(); ++i) {
      const report::RowReport& r = s.rows[i];
      std::string params;
      for (const auto& [path, value] : r.params)
        params += fmt::format("{}{}={}", params.empty() ? "" : " ", path, value);
      for (const profile::LockProfileEntry& e : r.lock_profile.entries)
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{:.1f},{},{},{:.1f}\n", csv_field(s.scenario), s.platform,
                           i + 1, csv_field(params), csv_field(e.file), e.line, csv_field(e.name), e.acquisitions,
                           e.contended, e.hold_total_ns, e.hold_max_ns, e.hold_avg_ns(), e.wait_total_ns, e.wait_max_ns,
                           e.wait_avg_ns());
    }
  }
  return out;
}

}  // namespace lockstep::cli
