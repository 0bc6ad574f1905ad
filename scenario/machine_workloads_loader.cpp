#include "scenario/machine_workloads_loader.hpp"

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
      const int nodes = machine.node_of_cpu.empty() ? 1 : *std::max_element(machine.node_of_cpu.begin(), machine.node_of_cpu.end()) + 1;
      p.placement = sim::Placement{false, static_cast<NodeId>(yaml::unsigned_integer(
                                              src, *placement, "placement (interleave, or a node number)", 0,
                                              static_cast<std::uint64_t>(nodes - 1)))};
    }
  }
  p.cpu = static_cast<CpuId>(m.unsigned_or("cpu", 0, static_cast<std::uint64_t>(machine.cpus() - 1), 0));
  p.samples = m.unsigned_or("samples", 1, kMaxSamples, p.samples);
  p.seed = m.unsigned_or("seed", 0, ~std::uint64_t{0}, p.seed);
  return p;
}

sim::machine::C2cParams load_c2c(const yaml::Map& m) {
  sim::machine::C2cParams p;
  p.rounds = static_cast<int>(m.unsigned_or("rounds", 1, kMaxRounds, static_cast<std::uint64_t>(p.rounds)));
  p.warmup_rounds = static_cast<int>(m.unsigned_or("warmup_rounds", 0, kMaxRounds, static_cast<std::uint64_t>(p.warmup_rounds)));
  p.smt = m.boolean_or("smt", p.smt);
  return p;
}

}  // namespace lockstep::scenario
