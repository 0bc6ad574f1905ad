#include "cli/native_probe.hpp"

namespace lockstep::cli {

void add_native_probes(CLI::App& probe_cmd, driver::NativeProbeOptions& probe) {
  auto add = [&](const char* name, driver::NativeProbeKind kind, const char* what) {
    CLI::App* cmd = probe_cmd.add_subcommand(name, what);
    cmd->add_option("--seconds", probe.seconds, "Time for the whole probe")
        ->capture_default_str()
        ->check(CLI::Range(0.05, 3600.0));
    cmd->add_option("--json", probe.json, "Write the result JSON here (docs/results.md, \"Machine probes\")");
    cmd->add_flag("--quiet,-q", probe.quiet, "Print nothing but errors");
    cmd->callback([&probe, kind] { probe.kind = kind; });
    return cmd;
  };
  CLI::App* memory = add("memory", driver::NativeProbeKind::memory,
                         "Load-to-use latency by buffer size: a dependent pointer chase, per NUMA node");
  memory->add_option("--max-bytes", probe.max_bytes, "Largest buffer (default: 4 x the last-level cache), e.g. 256MiB")
      ->transform(CLI::AsSizeValue(false));
  memory->add_option("--bytes", probe.bytes, "Measure this one size only, e.g. 128MiB")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::uint64_t{64}, std::uint64_t{1} << 40));
  memory->add_option("--node", probe.node, "Only this NUMA node")->check(CLI::NonNegativeNumber);
  memory->add_flag("--no-huge-pages", probe.no_huge_pages, "Do not ask for transparent huge pages");
  add("c2c", driver::NativeProbeKind::c2c, "One-way core-to-core latency: CAS ping-pong between every pair of CPUs")
      ->add_option("--max-cpus", probe.max_cpus, "Above this many allowed CPUs, measure every k-th")
      ->capture_default_str()
      ->check(CLI::Range(2, 4096));
  add("futex", driver::NativeProbeKind::futex,
      "System call, wake-to-running, context switch and atomic wait/notify costs, via futex ping-pongs");
}

}  // namespace lockstep::cli
