#include "spec/platform_loader.hpp"

#include <array>
#include <string_view>

#include "measure/host_cpus.hpp"

namespace lockstep::scenario {

PlatformKind load_platform(const yaml::Map& root, std::string& where) {
  const std::optional<YAML::Node> node = root.get("platform");
  if (!node) return PlatformKind::sim;
  static constexpr std::array<std::string_view, 2> kNames{"sim", "native"};
  where = root.source().where(*node);
  return static_cast<PlatformKind>(yaml::choice(root.source(), *node, "platform", kNames));
}

MachineSpec host_machine() {
  MachineSpec m;
  m.preset = "native";
  for (const int cpu : measure::allowed_cpus()) m.node_of_cpu.push_back(measure::node_of_cpu(cpu));
  return m;
}

}  // namespace lockstep::scenario
