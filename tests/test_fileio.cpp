// The file-I/O model: the policies give the verdicts docs/sources.md sections 2 and 3
// predict under the model checker, the history checks judge hand-made histories as the
// properties say, the workload runs natively, and bad fileio scenarios fail at their place.
#include <catch2/catch.hpp>

#include <filesystem>

#include <string>
#include <vector>

#include "core/fileio/history_checks.hpp"
#include "core/workloads/fileio_workload.hpp"
#include "driver/runner.hpp"
#include "native/native_platform.hpp"
#include "native/runner.hpp"
#include "scenario_fixtures.hpp"
#include "spec/scenario.hpp"
#include "tests/scratch_dir.hpp"

using namespace lockstep;
using namespace lockstep::testing;

namespace {

fileio::Call read_call(int thread, std::uint64_t position, std::vector<std::uint64_t> data, std::uint64_t begin,
                       std::uint64_t end) {
  fileio::Call c;
  c.kind = fileio::CallKind::pread;
  c.thread = thread;
  c.position = position;
  c.bytes = data.size() * fileio::kWordBytes;
  c.requested = c.bytes;
  c.data = std::move(data);
  c.begin = begin;
  c.end = end;
  return c;
}

fileio::Call write_call(int thread, std::uint64_t id, std::uint64_t position, std::uint64_t bytes, std::uint64_t begin,
                        std::uint64_t end) {
  fileio::Call c;
  c.kind = fileio::CallKind::pwrite;
  c.thread = thread;
  c.id = id;
  c.position = position;
  c.bytes = bytes;
  c.requested = bytes;
  c.begin = begin;
  c.end = end;
  return c;
}

const std::vector<std::string> kThreads{"t0", "t1", "t2"};

}  // namespace

TEST_CASE("reads_atomic: a read that mixes a write with older content is torn", "[fileio]") {
  fileio::History h;
  h.calls.push_back(write_call(0, 1, 0, 16, 0, 3));
  // Concurrent with the write: the first word new, the second old.
  h.calls.push_back(read_call(1, 0, {fileio::tag_of(1, 0), fileio::tag_of(0, 8)}, 1, 2));
  CHECK(fileio::check_reads_atomic(h, kThreads).has_value());
  // All old or all new is atomic.
  h.calls[1].data = {fileio::tag_of(0, 0), fileio::tag_of(0, 8)};
  CHECK_FALSE(fileio::check_reads_atomic(h, kThreads).has_value());
  h.calls[1].data = {fileio::tag_of(1, 0), fileio::tag_of(1, 8)};
  CHECK_FALSE(fileio::check_reads_atomic(h, kThreads).has_value());
}

TEST_CASE("writes_not_interleaved and no_lost_write judge the final content", "[fileio]") {
  fileio::History h;
  h.calls.push_back(write_call(0, 1, 0, 16, 0, 3));
  h.calls.push_back(write_call(1, 2, 0, 16, 1, 2));
  h.final_words = {{0, fileio::tag_of(1, 0)}, {8, fileio::tag_of(2, 8)}};
  CHECK(fileio::check_writes_not_interleaved(h, kThreads).has_value());
  CHECK_FALSE(fileio::check_no_lost_write(h, kThreads).has_value());  // concurrent: either may win a word
  h.final_words = {{0, fileio::tag_of(2, 0)}, {8, fileio::tag_of(2, 8)}};
  CHECK_FALSE(fileio::check_writes_not_interleaved(h, kThreads).has_value());
  // A write that ended before the other began cannot overwrite it.
  h.calls[1].begin = 4;
  h.calls[1].end = 5;
  h.final_words = {{0, fileio::tag_of(1, 0)}, {8, fileio::tag_of(1, 8)}};
  CHECK(fileio::check_no_lost_write(h, kThreads).has_value());
}

TEST_CASE("offset_not_torn accepts every serial offset and rejects a half update", "[fileio]") {
  fileio::History h;
  const std::uint64_t start = (std::uint64_t{1} << 32) - 8;
  h.descriptors.push_back({start, start + 16, false});
  fileio::Call a = write_call(0, 1, start, 8, 0, 3);
  a.kind = fileio::CallKind::write;
  a.fd = 0;
  a.offset_seen = start;
  fileio::Call b = a;
  b.id = 2;
  b.offset_seen = start + 8;
  h.calls = {a, b};
  CHECK_FALSE(fileio::check_offset_not_torn(h, kThreads).has_value());
  h.calls[1].offset_seen = 0;  // the new low half, the old high half
  CHECK(fileio::check_offset_not_torn(h, kThreads).has_value());
}

TEST_CASE("the bundled fileio scenarios give docs/sources.md's verdicts", "[fileio][scenario]") {
  // A few of scenarios/fileio/, one per kind of anomaly and one that passes; the end-to-end
  // test runs them all.
  const char* names[] = {"offset-none-reads-unique.yaml",
                         "offset-vnode-rwlock-reads-unique.yaml",
                         "offset-none-torn-32.yaml",
                         "offset-f-pos-lock-torn-32.yaml",
                         "data-lockless-reads-reads-atomic.yaml",
                         "data-page-locks-writes-interleaved.yaml",
                         "data-range-locks-writes-interleaved.yaml"};
  for (const char* name : names) {
    const std::string path = std::string(LOCKSTEP_SOURCE_DIR) + "/scenarios/fileio/" + name;
    INFO(path);
    const scenario::ScenarioFile file = scenario::load_scenario_file(path);
    driver::RunOptions options;
    options.command = driver::Command::check;
    options.out_dir = (lockstep::testing::scratch_dir() / "fileio").string();
    const report::ScenarioReport report = driver::run_scenario_file(file, options);
    REQUIRE(report.rows.size() == 1);
    CHECK(report.rows[0].matched);
  }
}

TEST_CASE("the fileio workload runs natively and its serial histories pass", "[fileio][native]") {
  auto spec = std::make_shared<fileio::FileioSpec>();
  spec->config = {fileio::OffsetPolicy::f_pos_lock, fileio::DataPolicy::range_locks, 64, 64};
  spec->initial_size = 256;
  spec->descriptors = {{"fd", false, 0, 2}};
  for (int t = 0; t < 2; ++t) {
    fileio::FileThread thread{"t" + std::to_string(t), t, {}};
    for (int k = 0; k < 8; ++k) {
      fileio::FileOp op;
      op.kind = k % 2 == 0 ? fileio::CallKind::write : fileio::CallKind::read;
      op.bytes = 16;
      op.id = op.kind == fileio::CallKind::write ? static_cast<std::uint64_t>(t * 8 + k + 1) : 0;
      thread.ops.push_back(op);
    }
    spec->threads.push_back(thread);
  }
  spec->properties = {"reads_unique", "no_lost_write", "writes_not_interleaved", "reads_atomic", "offset_not_torn"};
  FileioWorkload<native::NativePlatform> w(spec);
  native::NativeRunner runner;
  w.setup([&](std::string n, CpuId c, std::function<void()> b) { runner.spawn(std::move(n), c, std::move(b)); });
  const auto result = runner.run();
  w.check();
  native::NativeViolation v;
  CHECK_FALSE(result.violation);
  CHECK_FALSE(native::take_violation(v));
  CHECK(w.history().calls.size() == 16);
}

TEST_CASE("bad fileio scenarios fail at the line and column of the mistake", "[scenario][fileio]") {
  check_bad_cases({
      {"fileio_policy.yaml", 2, 27, "unknown offset policy 'f_pos_lock'"},
      {"fileio_unaligned.yaml", 5, 27, "bytes: 12 is not a multiple of 8 bytes"},
      {"fileio_unknown_fd.yaml", 5, 43, "unknown descriptor 'b' (declared: a)"},
      {"fileio_property_elsewhere.yaml", 3, 14, "reads_atomic is a property of the fileio workload only"},
      {"fileio_design_elsewhere.yaml", 2, 10, "design.fileio: file policies apply to the fileio workload only"},
      {"fileio_timed_read.yaml", 5, 48, "a timed fileio workload (runtime_us) repeats its calls: use pread and pwrite"},
      {"fileio_word_bits.yaml", 2, 30, "word_bits: expected 32 or 64"},
  });
}
