#include "driver/native_runner.hpp"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "driver/native_ccbench.hpp"
#include "driver/native_litmus.hpp"
#include "driver/native_trace.hpp"
#include "driver/runner.hpp"
#include "driver/trace_output.hpp"
#include "driver/workload_bindings.hpp"
#include "spec/yaml_fields.hpp"
#include "trace/address_names.hpp"

namespace lockstep::driver {

using report::RowReport;
using report::ScenarioReport;

using namespace lockstep::scenario;  // NOLINT(google-build-using-namespace): the driver runs scenarios

namespace {

// Thread programs run natively as litmus tests, many times (driver/native_litmus.hpp).
bool is_litmus(const Scenario& s) { return s.workload.kind == &program_workload(); }

// ccbench runs natively as a probe (driver/native_ccbench.hpp), on the CPUs it names.
bool is_ccbench(const Scenario& s) { return s.workload.is("ccbench"); }

void check_row(const Scenario& s) {
  const WorkloadBinding& row = binding_of(s.workload);
  if (is_litmus(s) || is_ccbench(s)) return;
  if (row.native == nullptr) {
    std::vector<std::string> native;
    for (const WorkloadBinding& r : workload_bindings())
      if (r.native != nullptr) native.emplace_back(r.kind->name);
    native.emplace_back("ccbench");
    native.emplace_back("thread programs");
    throw ScenarioError(fmt::format("{}: the {} workload runs in the simulator only (native runs: {})", s.path,
                                    s.workload.name(), yaml::join(native)));
  }
  if (row.check_native != nullptr) row.check_native(s);
}

}  // namespace

void require_native(const ScenarioFile& file) {
  for (const Scenario& s : file.rows) check_row(s);
}

namespace {

struct RowTraceFiles {
  std::string trace, chrome;
  bool wanted() const { return !trace.empty() || !chrome.empty(); }
};

RowTraceFiles row_trace_files(const ScenarioFile& file, std::size_t row, const NativeOptions& o) {
  RowTraceFiles f{o.trace_path, o.chrome_trace_path};
  if (file.swept) {
    if (!f.trace.empty()) f.trace = row_file(f.trace, row);
    if (!f.chrome.empty()) f.chrome = row_file(f.chrome, row);
  }
  if (o.save_traces) {
    std::string stem = std::filesystem::path(file.path).stem().string();
    if (file.swept) stem += fmt::format("-row{}", row + 1);
    if (f.trace.empty()) f.trace = fmt::format("{}/{}.trace.jsonl", o.out_dir, stem);
    if (f.chrome.empty()) f.chrome = fmt::format("{}/{}.chrome.json", o.out_dir, stem);
  }
  return f;
}

// Writes the row's trace from what its run recorded, and says where in the row.
void record_native_trace(const native::TraceSession& session, const Scenario& s, const RowTraceFiles& files,
                         RowReport& row) {
  trace::Writer writer(native_trace_header(session, s));
  TraceOutput output(files.trace, files.chrome);
  output.attach(writer);
  const NativeTraceCounts counts = write_native_trace(session, row, writer);
  const TraceOutput::Written written = output.finish(writer);
  row.trace_sha256 = written.sha256;
  row.trace_path = written.trace_path;
  row.chrome_trace_path = written.chrome_trace_path;
  if (counts.dropped > 0)
    std::fprintf(stderr,
                 "note: %s: %llu of %llu events dropped once threads' buffers of %zu events were full "
                 "(--trace-buffer)\n",
                 files.trace.empty() ? files.chrome.c_str() : files.trace.c_str(),
                 static_cast<unsigned long long>(counts.dropped),
                 static_cast<unsigned long long>(counts.dropped + counts.events), session.events_per_thread());
  if (session.labels_dropped() > 0)
    std::fprintf(stderr, "note: %s: %llu labels dropped once the trace held %zu (their addresses show unnamed)\n",
                 files.trace.empty() ? files.chrome.c_str() : files.trace.c_str(),
                 static_cast<unsigned long long>(session.labels_dropped()), native::kMaxLabels);
}

// The session's lock profile, its locks named by the workload's labels as in a trace
// (trace/address_names.hpp).
void record_lock_profile(const native::TraceSession& session, RowReport& row) {
  trace::AddressNames names;
  for (const native::TraceLabel& l : session.labels()) {
    trace::NamedRegion r{l.addr, l.bytes, l.name, l.stride, l.first, {}};
    for (const auto& f : l.fields) r.fields.push_back({f.offset, f.bytes, f.name});
    names.add(std::move(r));
  }
  row.lock_profile = session.lock_profile([&names](std::uint64_t addr) { return names.name_of(addr); });
  row.lock_profile_unmatched = session.lock_profile_unmatched();
}

}  // namespace

RowReport run_native_row_profiled(const Scenario& s) {
  native::TraceOptions recording;
  recording.events = false;
  recording.profile_locks = true;
  native::TraceSession session(recording);
  RowReport row = binding_of(s.workload).native(s);
  row.params = s.params;
  judge(row, s);
  record_lock_profile(session, row);
  return row;
}

ScenarioReport run_native_file(const ScenarioFile& file, const NativeOptions& options) {
  ScenarioReport report;
  report.scenario = file.path;
  report.name = file.rows.empty() ? "" : file.rows.front().name;
  report.command = "native";
  report.platform = "native";
  report.swept = file.swept;
  for (std::size_t i = 0; i < file.rows.size(); ++i) {
    const Scenario& s = file.rows[i];
    const RowTraceFiles files = row_trace_files(file, i, options);
    if (is_litmus(s)) {  // judged against the checker under the host's model, not against `expect`
      // Thousands of runs of a few operations each: a trace of one would say little.
      if (files.wanted())
        std::fprintf(stderr, "note: %s: thread programs run natively as litmus tests write no trace\n", s.path.c_str());
      RowReport row = run_native_litmus(s, options.litmus);
      row.params = s.params;
      report.rows.push_back(std::move(row));
      continue;
    }
    if (is_ccbench(s)) {  // a probe: no Platform, so nothing to trace or profile
      if (files.wanted() || options.lock_profile)
        std::fprintf(stderr, "note: %s: ccbench runs natively as a probe, with no trace or lock profile\n",
                     s.path.c_str());
      RowReport row = run_native_ccbench(s);
      row.params = s.params;
      judge(row, s);
      report.rows.push_back(std::move(row));
      continue;
    }
    // Alive from before the workload is set up (its labels) until its threads have joined.
    std::optional<native::TraceSession> session;
    if (files.wanted() || options.lock_profile) {
      native::TraceOptions recording = options.trace;
      recording.events = files.wanted();
      recording.profile_locks = options.lock_profile;
      session.emplace(recording);
    }
    RowReport row = binding_of(s.workload).native(s);
    row.params = s.params;
    judge(row, s);
    if (session && files.wanted()) record_native_trace(*session, s, files, row);
    if (options.lock_profile) record_lock_profile(*session, row);
    report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace lockstep::driver
