#include "spec/machine_workloads_loader.hpp"

#include <algorithm>

#include <charconv>

#include <fmt/format.h>

namespace lockstep::scenario {

namespace {

constexpr std::uint64_t kMaxProbeBytes = std::uint64_t{1} << 40;
constexpr std::uint64_t kMaxSamples = 100'000'000;
constexpr std::int64_t kMaxRounds = 1'000'000;

// A size: an integer number of bytes, or a number with a KiB, MiB or GiB suffix ("128MiB").
std::uint64_t byte_size(const yaml::Source& src, const YAML::Node& node, std::string_view what) {
  const std::string text = yaml::scalar(src, node, what);
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr == text.data())
    src.fail(node, fmt::format("{}: '{}' is not a size (bytes, or a number with KiB, MiB or GiB)", what, text));
  std::string_view suffix(ptr, static_cast<std::size_t>(end - ptr));
  while (!suffix.empty() && suffix.front() == ' ') suffix.remove_prefix(1);
  int shift = -1;
  if (suffix.empty()) shift = 0;
  if (suffix == "KiB") shift = 10;
  if (suffix == "MiB") shift = 20;
  if (suffix == "GiB") shift = 30;
  if (shift < 0) src.fail(node, fmt::format("{}: unknown unit '{}' (KiB, MiB or GiB)", what, suffix));
  if (value == 0 || value > (kMaxProbeBytes >> shift))
    src.fail(node, fmt::format("{}: must be between 1 byte and 1 TiB", what));
  return value << shift;
}

// A list of distinct CPUs of the machine (`key`), at least `least` of them.
std::vector<CpuId> cpu_list(const yaml::Map& m, std::string_view key, const MachineSpec& machine, std::size_t least) {
  std::vector<CpuId> out;
  const std::optional<YAML::Node> node = m.get(key);
  if (!node) return out;
  const yaml::Source& src = m.source();
  yaml::require_list(src, *node, key);
  if (node->size() < least)
    src.fail(*node, fmt::format("{}: expected at least {} CPU{}", key, least, least == 1 ? "" : "s"));
  for (const auto& entry : *node) {
    const auto cpu =
        static_cast<CpuId>(yaml::unsigned_integer(src, entry, key, 0, static_cast<std::uint64_t>(machine.cpus() - 1)));
    if (std::find(out.begin(), out.end(), cpu) != out.end())
      src.fail(entry, fmt::format("{}: CPU {} is listed twice", key, cpu));
    out.push_back(cpu);
  }
  return out;
}

}  // namespace

sim::machine::LatencyProbeParams load_latency_probe(const yaml::Map& m, const MachineSpec& machine) {
  const yaml::Source& src = m.source();
  sim::machine::LatencyProbeParams p;
  if (const auto bytes = m.get("bytes")) p.bytes = byte_size(src, *bytes, "bytes");
  if (const auto placement = m.get("placement")) {
    const std::string text = yaml::scalar(src, *placement, "placement");
    if (text == "interleave") {
      p.placement = sim::Placement{true, 0};
    } else {
      p.placement = sim::Placement{
          false, static_cast<NodeId>(yaml::unsigned_integer(src, *placement, "placement (interleave, or a node number)",
                                                            0, static_cast<std::uint64_t>(machine.nodes() - 1)))};
    }
  }
  p.cpu = static_cast<CpuId>(m.unsigned_or("cpu", 0, static_cast<std::uint64_t>(machine.cpus() - 1), 0));
  p.samples = m.unsigned_or("samples", 1, kMaxSamples, p.samples);
  p.seed = m.unsigned_or("seed", 0, ~std::uint64_t{0}, p.seed);
  return p;
}

sim::machine::C2cParams load_c2c(const yaml::Map& m, const MachineSpec& machine) {
  sim::machine::C2cParams p;
  p.cpus = cpu_list(m, "cpus", machine, 2);  // each pair of them is measured
  p.rounds = static_cast<int>(m.unsigned_or("rounds", 1, kMaxRounds, static_cast<std::uint64_t>(p.rounds)));
  p.warmup_rounds =
      static_cast<int>(m.unsigned_or("warmup_rounds", 0, kMaxRounds, static_cast<std::uint64_t>(p.warmup_rounds)));
  p.smt = m.boolean_or("smt", p.smt);
  if (const std::optional<YAML::Node> node = m.get("home")) {
    p.home = static_cast<NodeId>(
        yaml::unsigned_integer(m.source(), *node, "home", 0, static_cast<std::uint64_t>(machine.nodes() - 1)));
  }
  return p;
}

sim::machine::CcbenchParams load_ccbench(const yaml::Map& m, const MachineSpec& machine) {
  namespace mc = sim::machine;
  const yaml::Source& src = m.source();
  mc::CcbenchParams p;
  if (const std::optional<YAML::Node> node = m.get("state")) {
    const std::string text = yaml::scalar(src, *node, "state");
    const std::optional<mc::LineState> state = mc::parse_line_state(text);
    if (!state) src.fail(*node, fmt::format("state: '{}' is not modified, exclusive, shared, owned or invalid", text));
    p.state = *state;
  }
  if (const std::optional<YAML::Node> node = m.get("op")) {
    const std::string text = yaml::scalar(src, *node, "op");
    const std::optional<mc::CcOp> op = mc::parse_cc_op(text);
    if (!op) src.fail(*node, fmt::format("op: '{}' is not load, store, cas, fai, tas or swap", text));
    p.op = *op;
  }
  if (m.has("holders")) p.holders = cpu_list(m, "holders", machine, 0);
  // How many holders each state takes (ccbench.hpp says what each one does).
  const std::size_t holders = p.holders.size();
  const YAML::Node at = m.has("holders") ? *m.get("holders") : m.node();
  switch (p.state) {
    case mc::LineState::modified:
    case mc::LineState::exclusive:
      if (holders != 1) src.fail(at, fmt::format("holders: a line {} is held by one CPU", mc::name_of(p.state)));
      break;
    case mc::LineState::shared:
    case mc::LineState::owned:
      if (holders < 2) src.fail(at, fmt::format("holders: a line {} takes two CPUs at least", mc::name_of(p.state)));
      break;
    case mc::LineState::invalid:
      break;
  }
  if (p.state == mc::LineState::owned && (!machine.model || machine.model->line_states != mc::LineStates::moesi))
    src.fail(m.has("state") ? *m.get("state") : m.node(),
             "state: owned needs a machine whose protocol is MOESI (an AMD preset)");
  p.cpus = cpu_list(m, "cpus", machine, 1);
  if (p.cpus.empty()) src.fail(m.node(), "cpus: the CPUs that time the operation are required");
  for (const CpuId cpu : p.cpus)
    if (std::find(p.holders.begin(), p.holders.end(), cpu) != p.holders.end())
      src.fail(*m.get("cpus"),
               fmt::format("cpus: CPU {} holds the line; the operation is timed from another CPU", cpu));
  p.repetitions = static_cast<std::uint32_t>(m.unsigned_or("repetitions", 1, kMaxRounds, p.repetitions));
  if (const std::optional<YAML::Node> node = m.get("home")) {
    p.home = static_cast<NodeId>(
        yaml::unsigned_integer(src, *node, "home", 0, static_cast<std::uint64_t>(machine.nodes() - 1)));
  }
  if (p.state == mc::LineState::invalid && p.holders.empty() && !p.home)
    src.fail(m.node(), "home: a line no one holds needs its home node (or a holder, whose node it is)");
  return p;
}

}  // namespace lockstep::scenario
