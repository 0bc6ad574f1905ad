// fileio: threads calling read, write, pread, pwrite and lseek on one file through shared or
// private open file descriptions, under the design's offset and data policies (docs/fileio.md).
//
// Checking mode (runtime 0): each thread makes its calls once; every call is recorded in a
// History (host memory, not a step) and, after the run, the scenario's file properties are
// decided from it (core/fileio/history_checks.hpp). Timed mode: each thread repeats its
// calls for `runtime` of (virtual) time after a common start, as futex-hash does, and the
// workload reports throughput.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/fileio/file_io.hpp"
#include "core/fileio/history.hpp"
#include "core/fileio/history_checks.hpp"
#include "core/fileio/inode.hpp"
#include "core/fileio/open_file.hpp"
#include "core/platform.hpp"
#include "core/workloads/fileio_spec.hpp"
#include "core/workloads/metrics.hpp"
#include "core/workloads/spawn.hpp"
#include "core/workloads/workload.hpp"

namespace lockstep {

// The pages a write can reach in a serial execution: from every place calls start from (0,
// each descriptor's initial offset, the end of the initial content, each lseek target) as far
// as all the calls together move, and each pwrite's range. Reads of pages not allocated
// return the initial content (a hole), so a large initial file costs nothing.
inline std::vector<std::uint64_t> reachable_pages(const fileio::FileioSpec& s) {
  std::uint64_t span = 0;
  std::set<std::uint64_t> starts{0, s.initial_size};
  for (const fileio::Descriptor& d : s.descriptors) starts.insert(d.offset);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (const fileio::FileThread& t : s.threads) {
    for (const fileio::FileOp& op : t.ops) {
      span += op.bytes;
      if (op.kind == fileio::CallKind::pwrite) ranges.emplace_back(op.position, op.bytes);
      if (op.kind == fileio::CallKind::lseek) {
        const auto magnitude = static_cast<std::uint64_t>(op.offset < 0 ? -op.offset : op.offset);
        if (op.whence == fileio::Whence::set) starts.insert(magnitude);
        span += magnitude;
      }
    }
  }
  for (const std::uint64_t b : starts) ranges.emplace_back(b, span);
  const std::uint64_t page = s.config.page_size;
  std::vector<std::uint64_t> pages;
  for (const auto& [start, bytes] : ranges)
    for (std::uint64_t p = start / page; p * page < start + bytes; ++p) pages.push_back(p);
  return pages;
}

template <Platform P>
class FileioWorkload {
 public:
  static constexpr WorkloadHooks kHooks{.metrics = true};

  explicit FileioWorkload(std::shared_ptr<const fileio::FileioSpec> spec)
      : spec_(std::move(spec)),
        calls_(spec_->threads.size()),
        ops_(spec_->threads.size(), 0),
        reads_(spec_->threads.size(), 0),
        scratch_(spec_->threads.size()) {}
  ~FileioWorkload() {
    for (fileio::OpenFile<P>* f : files_) destroy_on<P>(f);
    if (start_ns_ != nullptr) destroy_on<P>(start_ns_);
    if (ready_ != nullptr) destroy_on<P>(ready_);
    if (finished_ != nullptr) destroy_on<P>(finished_);
  }
  FileioWorkload(const FileioWorkload&) = delete;
  FileioWorkload& operator=(const FileioWorkload&) = delete;

  void setup(const SpawnFn& spawn) {
    const fileio::FileioSpec& s = *spec_;
    inode_.emplace(s.config, reachable_pages(s), s.initial_size);
    for (const fileio::Descriptor& d : s.descriptors) {
      files_.push_back(
          make_on<P, fileio::OpenFile<P>>(0, kCacheLineBytes, s.config.word_bits, d.append, d.offset, d.users));
      files_.back()->label("file." + d.name);
    }
    io_.emplace(s.config, *inode_);
    if (s.runtime_ns != 0) {
      ready_ = make_on<P, typename P::template Atomic<std::uint32_t>>(0, kCacheLineBytes, 0U);
      finished_ = make_on<P, typename P::template Atomic<std::uint32_t>>(0, kCacheLineBytes, 0U);
      start_ns_ = make_on<P, typename P::template Atomic<std::uint64_t>>(0, kCacheLineBytes, std::uint64_t{0});
    }
    for (std::size_t t = 0; t < s.threads.size(); ++t)
      spawn(s.threads[t].name, s.threads[t].cpu, [this, t] { spec_->runtime_ns == 0 ? run_once(t) : run_timed(t); });
  }

  void check() const {
    if (spec_->runtime_ns != 0) return;
    const fileio::History h = history();
    std::vector<std::string> names;
    for (const fileio::FileThread& t : spec_->threads) names.push_back(t.name);
    for (const std::string& property : spec_->properties) {
      if (const std::optional<std::string> why = judge(property, h, names)) {
        P::violation(property, *why);
        return;
      }
    }
  }

  // Every call made, with the final state, in completion order (checking mode).
  fileio::History history() const {
    fileio::History h;
    for (const auto& calls : calls_) h.calls.insert(h.calls.end(), calls.begin(), calls.end());
    std::sort(h.calls.begin(), h.calls.end(),
              [](const fileio::Call& a, const fileio::Call& b) { return a.end < b.end; });
    for (std::size_t d = 0; d < files_.size(); ++d)
      h.descriptors.push_back({spec_->descriptors[d].offset, files_[d]->load_offset(), spec_->descriptors[d].append});
    h.initial_size = spec_->initial_size;
    h.final_size = inode_->size();
    for (const fileio::Call& c : h.calls)
      if (c.is_write())
        for (std::uint64_t p = c.position; p < c.position + c.bytes; p += fileio::kWordBytes)
          h.final_words[p] = inode_->word_at(p);
    return h;
  }

  WorkloadMetrics metrics() const {
    WorkloadMetrics m;
    m.labels.emplace_back("design", spec_->design);
    m.labels.emplace_back("offset", std::string(fileio::name_of(spec_->config.offset)));
    m.labels.emplace_back("data", std::string(fileio::name_of(spec_->config.data)));
    if (spec_->runtime_ns == 0) return m;
    const double seconds = static_cast<double>(spec_->runtime_ns) * 1e-9;
    std::uint64_t ops = 0;
    std::uint64_t reads = 0;
    m.per_thread_name = "per_thread_ops_per_s";
    for (std::size_t t = 0; t < ops_.size(); ++t) {
      ops += ops_[t];
      reads += reads_[t];
      m.per_thread.push_back(static_cast<double>(ops_[t]) / seconds);
    }
    m.values.emplace_back("threads", static_cast<double>(ops_.size()));
    m.values.emplace_back("ops_per_s", static_cast<double>(ops) / seconds);
    m.values.emplace_back("read_ops_per_s", static_cast<double>(reads) / seconds);
    m.values.emplace_back("write_ops_per_s", static_cast<double>(ops - reads) / seconds);
    return m;
  }

 private:
  static std::optional<std::string> judge(const std::string& property, const fileio::History& h,
                                          const std::vector<std::string>& names) {
    if (property == "offset_not_torn") return fileio::check_offset_not_torn(h, names);
    if (property == "reads_unique") return fileio::check_reads_unique(h, names);
    if (property == "no_lost_write") return fileio::check_no_lost_write(h, names);
    if (property == "writes_not_interleaved") return fileio::check_writes_not_interleaved(h, names);
    if (property == "reads_atomic") return fileio::check_reads_atomic(h, names);
    return std::nullopt;
  }

  // One call; returns what the history records of it (stamps aside).
  fileio::Call call(const fileio::FileOp& op, int thread) {
    fileio::Call c;
    c.kind = op.kind;
    c.thread = thread;
    c.requested = op.bytes;
    c.where = op.where;
    fileio::IoResult r;
    switch (op.kind) {
      case fileio::CallKind::read:
        r = io_->read(*files_[static_cast<std::size_t>(op.fd)], op.bytes, c.data);
        break;
      case fileio::CallKind::write:
        r = io_->write(*files_[static_cast<std::size_t>(op.fd)], op.bytes, op.id);
        break;
      case fileio::CallKind::pread:
        r = io_->pread(op.position, op.bytes, c.data);
        break;
      case fileio::CallKind::pwrite:
        r = io_->pwrite(op.position, op.bytes, op.id);
        break;
      case fileio::CallKind::lseek:
        r = io_->lseek(*files_[static_cast<std::size_t>(op.fd)], op.offset, op.whence);
        break;
    }
    const bool via_fd =
        op.kind == fileio::CallKind::read || op.kind == fileio::CallKind::write || op.kind == fileio::CallKind::lseek;
    c.fd = via_fd ? op.fd : -1;
    c.id = op.id;
    c.bytes = r.bytes;
    c.position = r.position;
    c.offset_seen = r.offset_seen;
    c.seek_set = op.kind == fileio::CallKind::lseek && op.whence == fileio::Whence::set;
    c.seek_from_end = op.kind == fileio::CallKind::lseek && op.whence == fileio::Whence::end;
    c.append = op.kind == fileio::CallKind::write && spec_->descriptors[static_cast<std::size_t>(op.fd)].append;
    return c;
  }

  void run_once(std::size_t t) {
    for (const fileio::FileOp& op : spec_->threads[t].ops) {
      // Stamps come from a host counter: in the simulator only one fiber runs at a time and
      // switches only inside platform calls, so they follow the execution's order exactly.
      const std::uint64_t begin = clock_.fetch_add(1);
      fileio::Call c = call(op, static_cast<int>(t));
      c.begin = begin;
      c.end = clock_.fetch_add(1);
      calls_[t].push_back(std::move(c));
    }
  }

  void run_timed(std::size_t t) {
    const auto everyone = static_cast<std::uint32_t>(spec_->threads.size());
    if (ready_->fetch_add(1, std::memory_order_acq_rel) + 1 == everyone)
      start_ns_->store(P::now(), std::memory_order_release);
    while (ready_->load(std::memory_order_acquire) != everyone) P::cpu_relax();
    const std::uint64_t deadline = P::now() + spec_->runtime_ns;
    const std::vector<fileio::FileOp>& ops = spec_->threads[t].ops;
    std::uint64_t done = 0;
    std::uint64_t reads = 0;
    for (std::size_t i = 0; P::now() < deadline; i = i + 1 == ops.size() ? 0 : i + 1) {
      reads += ops[i].kind == fileio::CallKind::pread || ops[i].kind == fileio::CallKind::read ? 1 : 0;
      timed_call(ops[i], t);
      ++done;
    }
    ops_[t] = done;
    reads_[t] = reads;
    // Keep the others company until every window has closed, so each saw full contention.
    finished_->fetch_add(1, std::memory_order_acq_rel);
    for (std::size_t i = 0; finished_->load(std::memory_order_acquire) != everyone; i = i + 1 == ops.size() ? 0 : i + 1)
      timed_call(ops[i], t);
  }

  void timed_call(const fileio::FileOp& op, std::size_t t) {
    std::vector<std::uint64_t>& scratch = scratch_[t];
    scratch.clear();
    switch (op.kind) {
      case fileio::CallKind::pread:
        io_->pread(op.position, op.bytes, scratch);
        return;
      case fileio::CallKind::pwrite:
        io_->pwrite(op.position, op.bytes, op.id);
        return;
      default:
        call(op, static_cast<int>(t));
        return;  // the loader allows only positional calls in timed runs
    }
  }

  std::shared_ptr<const fileio::FileioSpec> spec_;
  std::optional<fileio::Inode<P>> inode_;
  std::vector<fileio::OpenFile<P>*> files_;
  std::optional<fileio::FileIo<P>> io_;
  std::vector<std::vector<fileio::Call>> calls_;  // per thread
  std::atomic<std::uint64_t> clock_{0};
  std::vector<std::uint64_t> ops_;
  std::vector<std::uint64_t> reads_;
  std::vector<std::vector<std::uint64_t>> scratch_;  // per thread: what timed reads return, discarded
  typename P::template Atomic<std::uint32_t>* ready_ = nullptr;
  typename P::template Atomic<std::uint32_t>* finished_ = nullptr;
  typename P::template Atomic<std::uint64_t>* start_ns_ = nullptr;
};

}  // namespace lockstep
