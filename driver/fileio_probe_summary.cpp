#include <string>

#include <fmt/format.h>

#include "driver/fileio_probe.hpp"

namespace lockstep::driver {

namespace {

namespace nf = native::fileio;

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = kKiB * kKiB;

std::string size_name(std::size_t bytes) {
  if (bytes >= kMiB && bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  if (bytes >= kKiB && bytes % kKiB == 0) return fmt::format("{} KiB", bytes / kKiB);
  return fmt::format("{} B", bytes);
}

std::string torn_line(const nf::ProbeResult& r) {
  std::string line = "  torn reads (pread racing pwrite), torn/trials:";
  for (const nf::TornReadSize& s : r.torn_reads)
    line += fmt::format("  {} {}/{}", size_name(s.bytes), s.torn, s.trials);
  return line + "\n";
}

std::string policies_lines(const nf::Classification& c) {
  std::string consistent;
  for (const std::string_view p : c.consistent) consistent += fmt::format("{}{}", consistent.empty() ? "" : ", ", p);
  std::string inconsistent;
  for (const nf::RuledOut& r : c.inconsistent)
    inconsistent += fmt::format("{}{} ({})", inconsistent.empty() ? "" : ", ", r.policy, r.because);
  return fmt::format("consistent policies:   {}\ninconsistent policies: {}\n{}\n",
                     consistent.empty() ? "-" : consistent, inconsistent.empty() ? "-" : inconsistent, c.note);
}

}  // namespace

std::string fileio_probe_summary(const nf::ProbeResult& r, const nf::Classification& c) {
  const nf::InterleavedWrites& w = r.interleaved;
  std::string out =
      fmt::format("fileio probe of {} ({}): {} trials in {:.2f} s\n", r.path, r.filesystem, r.trials(), r.elapsed_s);
  out += torn_line(r);
  out +=
      fmt::format("  interleaved writes ({} each): same range {}/{}, O_APPEND {}/{} ({} lost)\n", size_name(w.bytes),
                  w.same_range_interleaved, w.same_range_trials, w.append_interleaved, w.append_trials, w.append_lost);
  out += fmt::format("  shared-descriptor read() ({} records): {} duplicates, {} skipped in {} reads\n",
                     size_name(r.shared_reads.record_bytes), r.shared_reads.duplicates, r.shared_reads.skipped,
                     r.shared_reads.trials);
  out += fmt::format("  shared-descriptor write() ({} records): {} lost of {} writes\n",
                     size_name(r.shared_writes.record_bytes), r.shared_writes.lost, r.shared_writes.trials);
  out += fmt::format("  O_APPEND on own descriptors ({} records): {} lost, {} overwritten of {} appends\n",
                     size_name(r.appends.record_bytes), r.appends.lost, r.appends.overwritten, r.appends.trials);
  return out + policies_lines(c);
}

}  // namespace lockstep::driver
