#include "spec/fileio_loader.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "sim/exec/memory.hpp"

namespace lockstep::scenario {

namespace {

using fileio::CallKind;
using fileio::kWordBytes;

constexpr std::uint64_t kMaxPageBytes = std::uint64_t{1} << 20;
constexpr std::uint64_t kMaxIoBytes = std::uint64_t{1} << 24;
constexpr std::uint64_t kMaxPosition = std::uint64_t{1} << 40;  // the tag keeps 40 bits of word position
constexpr std::size_t kMaxOpsPerThread = 64;
constexpr std::uint64_t kMaxWrites = std::uint64_t{1} << 23;  // the tag keeps 24 bits of write id
constexpr std::uint64_t kMaxRuntimeUs = 1'000'000'000;
constexpr std::array<std::string_view, 3> kWhenceNames{"set", "cur", "end"};

std::uint64_t word_multiple(const yaml::Source& src, const YAML::Node& node, std::string_view what, std::uint64_t lo,
                            std::uint64_t hi) {
  const std::uint64_t v = yaml::unsigned_integer(src, node, what, lo, hi);
  if (v % kWordBytes != 0)
    src.fail(node,
             fmt::format("{}: {} is not a multiple of {} bytes (the model copies 64-bit words)", what, v, kWordBytes));
  return v;
}

std::vector<fileio::Descriptor> load_descriptors(const yaml::Map& w) {
  const yaml::Source& src = w.source();
  std::vector<fileio::Descriptor> fds;
  const std::optional<YAML::Node> node = w.get("descriptors");
  if (!node) return {fileio::Descriptor{"fd", false, 0, 0}};
  yaml::require_list(src, *node, "descriptors");
  if (node->size() == 0) src.fail(*node, "descriptors: expected at least one");
  for (const auto& entry : *node) {
    const yaml::Map m(src, entry, "descriptor", {"name", "append", "offset"});
    fileio::Descriptor d;
    const YAML::Node name = m.required("name");
    d.name = yaml::identifier(src, name, "descriptor name");
    for (const fileio::Descriptor& other : fds)
      if (other.name == d.name) src.fail(name, fmt::format("descriptor '{}' is declared twice", d.name));
    d.append = m.boolean_or("append", false);
    d.offset = m.unsigned_or("offset", 0, kMaxPosition, 0);
    if (d.offset % kWordBytes != 0)
      src.fail(*m.get("offset"), fmt::format("offset: {} is not a multiple of {} bytes", d.offset, kWordBytes));
    fds.push_back(std::move(d));
  }
  return fds;
}

int descriptor(const yaml::Source& src, const yaml::Map& m, std::vector<fileio::Descriptor>& fds) {
  const std::optional<YAML::Node> node = m.get("fd");
  if (!node) return 0;
  const std::string name = yaml::identifier(src, *node, "fd");
  for (std::size_t i = 0; i < fds.size(); ++i)
    if (fds[i].name == name) return static_cast<int>(i);
  std::vector<std::string> names;
  for (const fileio::Descriptor& d : fds) names.push_back(d.name);
  src.fail(*node, fmt::format("unknown descriptor '{}' (declared: {})", name, yaml::join(names)));
}

// One call: {read: N}, {read: {bytes: N, fd: NAME}}, the same for write; {pread: {at: P,
// bytes: N}}, the same for pwrite; {lseek: {offset: O, whence: set|cur|end, fd: NAME}}.
fileio::FileOp load_op(const yaml::Source& src, const YAML::Node& node, std::vector<fileio::Descriptor>& fds) {
  static constexpr std::array<std::string_view, 5> kOps{"read", "write", "pread", "pwrite", "lseek"};
  if (!node.IsMap() || node.size() != 1)
    src.fail(node, fmt::format("a file op is a map of one key ({}), got {}", yaml::join(kOps), yaml::describe(node)));
  const YAML::Node key = node.begin()->first;
  const YAML::Node body = node.begin()->second;
  fileio::FileOp op;
  op.kind = static_cast<CallKind>(yaml::choice(src, key, "file op", kOps));
  op.where = src.where(key);
  const bool positional = op.kind == CallKind::pread || op.kind == CallKind::pwrite;
  if ((op.kind == CallKind::read || op.kind == CallKind::write) && body.IsScalar()) {
    op.bytes = word_multiple(src, body, "bytes", kWordBytes, kMaxIoBytes);
  } else if (op.kind == CallKind::lseek) {
    const yaml::Map m(src, body, "lseek", {"offset", "whence", "fd"});
    op.offset =
        m.integer_or("offset", -static_cast<std::int64_t>(kMaxPosition), static_cast<std::int64_t>(kMaxPosition), 0);
    if (op.offset % static_cast<std::int64_t>(kWordBytes) != 0)
      src.fail(*m.get("offset"), fmt::format("offset: {} is not a multiple of {} bytes", op.offset, kWordBytes));
    if (const auto whence = m.get("whence"))
      op.whence = static_cast<fileio::Whence>(yaml::choice(src, *whence, "whence", kWhenceNames));
    if (op.whence == fileio::Whence::set && op.offset < 0)
      src.fail(*m.get("offset"), "offset: lseek with whence set takes a position, which cannot be negative");
    op.fd = descriptor(src, m, fds);
  } else {
    const yaml::Map m(
        src, body, std::string(kOps[static_cast<std::size_t>(op.kind)]),
        positional ? std::vector<std::string_view>{"at", "bytes"} : std::vector<std::string_view>{"bytes", "fd"});
    op.bytes = word_multiple(src, m.required("bytes"), "bytes", kWordBytes, kMaxIoBytes);
    if (positional) {
      op.position = word_multiple(src, m.required("at"), "at", 0, kMaxPosition);
    } else {
      op.fd = descriptor(src, m, fds);
    }
  }
  return op;
}

fileio::FileThread load_thread(const yaml::Source& src, const YAML::Node& node, const MachineSpec& machine,
                               std::vector<fileio::Descriptor>& fds, std::size_t index) {
  const yaml::Map m(src, node, "thread", {"name", "cpu", "ops"});
  fileio::FileThread t;
  t.name = m.has("name") ? yaml::identifier(src, *m.get("name"), "thread name") : fmt::format("t{}", index);
  t.cpu = static_cast<CpuId>(m.unsigned_or("cpu", 0, static_cast<std::uint64_t>(machine.cpus() - 1),
                                           index % static_cast<std::uint64_t>(machine.cpus())));
  const YAML::Node ops = m.required("ops");
  yaml::require_list(src, ops, "ops");
  if (ops.size() == 0 || ops.size() > kMaxOpsPerThread)
    src.fail(ops, fmt::format("ops: expected 1 to {} file ops", kMaxOpsPerThread));
  std::vector<bool> uses(fds.size(), false);
  for (const auto& entry : ops) {
    t.ops.push_back(load_op(src, entry, fds));
    const fileio::FileOp& op = t.ops.back();
    if (op.kind == CallKind::read || op.kind == CallKind::write || op.kind == CallKind::lseek)
      uses[static_cast<std::size_t>(op.fd)] = true;
  }
  // A descriptor's file count is the number of threads that use it (each holds a reference
  // while in a call, which is what f_pos_lock's "count > 1" sees).
  for (std::size_t d = 0; d < fds.size(); ++d) fds[d].users += uses[d] ? 1 : 0;
  return t;
}

}  // namespace

fileio::FileioConfig load_fileio_design(const yaml::Source& src, const YAML::Node& node) {
  const yaml::Map m(src, node, "fileio", {"offset", "data", "word_bits", "page_size"});
  fileio::FileioConfig c;
  if (const auto offset = m.get("offset"))
    c.offset =
        static_cast<fileio::OffsetPolicy>(yaml::choice(src, *offset, "offset policy", fileio::kOffsetPolicyNames));
  if (const auto data = m.get("data"))
    c.data = static_cast<fileio::DataPolicy>(yaml::choice(src, *data, "data policy", fileio::kDataPolicyNames));
  if (const auto bits = m.get("word_bits")) {
    c.word_bits = static_cast<unsigned>(yaml::unsigned_integer(src, *bits, "word_bits", 32, 64));
    if (c.word_bits != 32 && c.word_bits != 64) src.fail(*bits, "word_bits: expected 32 or 64");
  }
  if (const auto page = m.get("page_size"))
    c.page_size = word_multiple(src, *page, "page_size", kWordBytes, kMaxPageBytes);
  return c;
}

std::shared_ptr<fileio::FileioSpec> load_fileio_workload(const yaml::Map& w, const MachineSpec& machine,
                                                         const DesignSpec& design) {
  const yaml::Source& src = w.source();
  auto spec = std::make_shared<fileio::FileioSpec>();
  spec->config = design.fileio.value_or(fileio::FileioConfig{});
  spec->design = fmt::format("{}/{}", fileio::name_of(spec->config.offset), fileio::name_of(spec->config.data));
  if (spec->config.word_bits == 32) spec->design += "/32-bit";
  if (const auto size = w.get("size")) spec->initial_size = word_multiple(src, *size, "size", 0, kMaxPosition);
  spec->descriptors = load_descriptors(w);
  if (w.has("runtime_us")) spec->runtime_ns = w.unsigned_or("runtime_us", 1, kMaxRuntimeUs, 1) * 1000;
  const YAML::Node threads = w.required("threads");
  yaml::require_list(src, threads, "threads");
  if (threads.size() == 0 || threads.size() >= sim::kMaxThreads)
    src.fail(threads, fmt::format("threads: expected 1 to {} threads", sim::kMaxThreads - 1));
  std::uint64_t writes = 0;
  for (const auto& entry : threads) {
    spec->threads.push_back(load_thread(src, entry, machine, spec->descriptors, spec->threads.size()));
    for (std::size_t i = 0; i < spec->threads.back().ops.size(); ++i) {
      fileio::FileOp& op = spec->threads.back().ops[i];
      if (op.kind == CallKind::write || op.kind == CallKind::pwrite) op.id = ++writes;
      // A timed run repeats each thread's calls: read() and write() would walk off the pages
      // a serial run can reach, so throughput is measured with pread and pwrite.
      if (spec->runtime_ns != 0 && op.kind != CallKind::pread && op.kind != CallKind::pwrite)
        src.fail(entry["ops"][i], "a timed fileio workload (runtime_us) repeats its calls: use pread and pwrite");
    }
    for (std::size_t i = 0; i + 1 < spec->threads.size(); ++i)
      if (spec->threads[i].name == spec->threads.back().name)
        src.fail(entry, fmt::format("thread name '{}' is used twice", spec->threads.back().name));
  }
  if (writes > kMaxWrites) src.fail(threads, fmt::format("threads: more than {} writes", kMaxWrites));
  return spec;
}

}  // namespace lockstep::scenario
