#include "cli/keys_command.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "core/futex/futex_designs.hpp"
#include "driver/colliding_keys.hpp"
#include "io/files.hpp"

namespace lockstep::cli {

namespace {

std::uint64_t parse_address(const std::string& text) {
  std::size_t used = 0;
  const std::uint64_t v = std::stoull(text, &used, 0);
  if (used != text.size()) throw std::invalid_argument("not a number: " + text);
  return v;
}

}  // namespace

CLI::App* add_keys(CLI::App& app, KeysCommand& c) {
  CLI::App* cmd = app.add_subcommand("keys", "Worst-case futex keys: addresses whose keys share one bucket (Z3)");
  std::vector<std::string> designs;
  for (const auto& d : futex::kNamedDesigns) designs.emplace_back(d.name);
  cmd->add_option("--design", c.design, "The table design")->capture_default_str()->check(CLI::IsMember(designs));
  cmd->add_option("--key", c.key, "Private or shared futexes")
      ->capture_default_str()
      ->check(CLI::IsMember({"private", "shared"}));
  cmd->add_option("--count", c.count, "How many addresses")->capture_default_str()->check(CLI::Range(1, 1024));
  cmd->add_option("--range", c.range, "Addresses in [LO, HI), hexadecimal or decimal")->capture_default_str();
  cmd->add_option("--cpus", c.cpus, "CPUs of the machine (the table's size)")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--nodes", c.nodes, "NUMA nodes (per-node tables)")->capture_default_str()->check(CLI::Range(1, 64));
  cmd->add_option("--threads", c.threads, "Threads of the process (the private table's size; 0: cpus)")
      ->check(CLI::Range(0, 65536));
  cmd->add_option("--json", c.json, "Write the answer as JSON here");
  cmd->add_flag("--quiet,-q", c.quiet, "Print nothing but errors");
  return cmd;
}

int run_keys(const KeysCommand& c) {
  driver::CollidingKeysRequest q;
  try {
    const std::size_t colon = c.range.find(':');
    if (colon == std::string::npos) throw std::invalid_argument("expected LO:HI");
    q.lo = parse_address(c.range.substr(0, colon));
    q.hi = parse_address(c.range.substr(colon + 1));
  } catch (const std::exception& e) {
    fmt::print(stderr, "lockstep keys: --range {}: {}\n", c.range, e.what());
    return 2;
  }
  q.design = c.design;
  q.shared = c.key == "shared";
  q.count = c.count;
  q.cpus = c.cpus;
  q.nodes = c.nodes;
  q.threads = c.threads;
  driver::CollidingKeys a;
  try {
    a = driver::find_colliding_keys(q);
  } catch (const std::exception& e) {
    fmt::print(stderr, "lockstep keys: {}\n", e.what());
    return 2;
  }
  if (!c.quiet) {
    fmt::print(
        "{} futex keys of design {} ({}), {} CPUs, {} nodes: {} addresses in [{:#x}, {:#x}) share bucket {} of "
        "table {} ({} tables of {} buckets)\n",
        c.key, c.design, a.design_text, q.cpus, q.nodes, a.addresses.size(), q.lo, q.hi, a.bucket_index, a.bucket_table,
        a.tables, a.buckets_per_table);
    for (std::uint64_t addr : a.addresses) fmt::print("  {:#x}\n", addr);
    fmt::print("{}; {:.3f} s in Z3\n",
               a.verified ? "every address checked with the table's own hash: all in that bucket"
                          : "NOT VERIFIED: the table's own hash puts some address elsewhere (an encoding bug)",
               a.solver_s);
  }
  if (!c.json.empty()) io::write_file_atomically(c.json, driver::colliding_keys_json(q, a).dump(2) + "\n");
  return a.verified ? 0 : 1;
}

}  // namespace lockstep::cli
