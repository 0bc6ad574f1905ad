// Scenario files (docs/scenarios.md): the top-level sections, and the expansion of `sweep`
// into rows. The machine is read by machine_loader.cpp, thread programs by
// program_loader.cpp; the strict field reading that every section shares is in yaml_fields.cpp.
#include <algorithm>
#include <array>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "axiomatic/supported_ops.hpp"
#include "core/properties.hpp"
#include "io/files.hpp"
#include "sim/exec/memory.hpp"
#include "spec/fileio_loader.hpp"
#include "spec/futex_loader.hpp"
#include "spec/machine_loader.hpp"
#include "spec/machine_workloads_loader.hpp"
#include "spec/platform_loader.hpp"
#include "spec/program_loader.hpp"
#include "spec/scenario.hpp"
#include "spec/workload_kinds.hpp"
#include "spec/yaml_document.hpp"
#include "spec/yaml_fields.hpp"

namespace lockstep::scenario {

namespace {

constexpr std::uint64_t kMaxSweepRows = 10'000;
constexpr std::uint64_t kMaxExecutions = 100'000'000;
// dfs and bounded stop here if the space is larger, and say it was not exhausted.
constexpr std::uint64_t kDefaultExhaustiveRuns = 1'000'000;
constexpr std::uint64_t kMaxUnroll = 10'000;  // smt: past this the events would not fit anyway (axiomatic::kMaxEvents)
constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();

using Params = std::vector<std::pair<std::string, std::string>>;

// --- memory model, design

MemoryModel load_memory_model(const yaml::Map& root) {
  const std::optional<YAML::Node> node = root.get("memory_model");
  if (!node) return MemoryModel::sc;
  const std::string name = yaml::scalar(root.source(), *node, "memory_model");
  if (name == "tso") return MemoryModel::tso;
  if (name != "sc") root.source().fail(*node, fmt::format("unknown memory model '{}' (supported: sc, tso)", name));
  return MemoryModel::sc;
}

DesignSpec load_design(const yaml::Map& root) {
  DesignSpec design;
  const std::optional<YAML::Node> node = root.get("design");
  if (!node) return design;
  const yaml::Map m(root.source(), *node, "design", {"spinlock", "futex", "mutex", "condvar", "fileio"});
  if (const auto lock = m.get("spinlock"))
    design.spinlock = static_cast<SpinlockKind>(yaml::choice(root.source(), *lock, "spinlock", kSpinlockNames));
  if (const auto mutex = m.get("mutex")) {
    if (m.has("spinlock"))
      root.source().fail(*m.key_node("mutex"),
                         "design: the locks are spinlocks or futex mutexes: give spinlock or mutex");
    design.mutex = static_cast<usync::MutexKind>(yaml::choice(root.source(), *mutex, "mutex", usync::kMutexNames));
    design.mutex_where = root.source().where(*mutex);
  }
  if (const auto condvar = m.get("condvar")) {
    design.condvar =
        static_cast<usync::CondvarKind>(yaml::choice(root.source(), *condvar, "condvar", usync::kCondvarNames));
    design.condvar_where = root.source().where(*condvar);
  }
  if (const auto futex = m.get("futex")) {
    design.family = "futex";
    design.futex = load_futex_design(root.source(), *futex);
  }
  if (const auto fileio = m.get("fileio")) {
    design.family = "fileio";
    design.fileio = load_fileio_design(root.source(), *fileio);
    design.fileio_where = root.source().where(*m.key_node("fileio"));
  }
  return design;
}

// --- workload

// A scenario runs one built-in workload or thread programs; saying which is required.
bool is_program(const yaml::Map& root) {
  const yaml::Source& src = root.source();
  if (root.has("workload")) {
    for (std::string_view key : {"threads", "variables", "locks", "condvars"}) {
      if (const auto at = root.key_node(key)) {
        src.fail(*at, fmt::format("'{}' belongs to thread programs, but this scenario has a built-in workload: "
                                  "give either `workload` or `threads`",
                                  key));
      }
    }
    return false;
  }
  if (!root.has("threads"))
    src.fail(root.node(), "missing the workload: give `workload: {kind: ...}` or thread programs under `threads`");
  return true;
}

// The built-in workloads, by kind (spec/workload_kinds.cpp); each takes its own keys.
WorkloadSpec load_workload(const yaml::Map& root, const MachineSpec& machine, const DesignSpec& design) {
  const yaml::Source& src = root.source();
  const YAML::Node node = root.required("workload");
  // Every kind's keys, to read `kind` first; the kind's own map then rejects the others'.
  std::vector<std::string_view> every_key{"kind"};
  for (const WorkloadKindInfo& row : workload_kind_table())
    for (const std::string_view key : row.keys)
      if (std::find(every_key.begin(), every_key.end(), key) == every_key.end()) every_key.push_back(key);
  const yaml::Map probe(src, node, "workload", every_key);
  const YAML::Node kind = probe.required("kind");
  const std::string name = yaml::scalar(src, kind, "kind");
  const WorkloadKindInfo* row = find_workload(name);
  if (row == nullptr || row->load == nullptr)
    src.fail(kind, fmt::format("unknown workload kind '{}' (expected one of: {}; thread programs go under `threads`)",
                               name, yaml::join(workload_kinds())));
  std::vector<std::string_view> keys{"kind"};
  keys.insert(keys.end(), row->keys.begin(), row->keys.end());
  const yaml::Map m(src, node, "workload", keys);
  WorkloadSpec w;
  w.kind = row;
  w.params = row->load(m, machine, design);
  return w;
}

// --- properties

bool is_builtin(std::string_view name) { return find_property(name) != nullptr; }

// A workload's own properties (its kind's row) are on by default; any workload may ask for
// those the table scopes to every workload (core/properties.hpp).
bool checked_anywhere(std::string_view name) {
  const PropertyInfo* p = find_property(name);
  return p != nullptr && p->scope == PropertyScope::any_workload;
}

std::string builtin_property(const yaml::Source& src, const YAML::Node& node, const WorkloadKindInfo& kind) {
  std::string name = yaml::scalar(src, node, "property");
  if (!is_builtin(name)) {
    src.fail(node, fmt::format("unknown property '{}' (built in: {}; a final condition is {{name: ..., forall: ...}} "
                               "or {{name: ..., exists: ...}})",
                               name, yaml::join(builtin_properties())));
  }
  if (checked_anywhere(name) ||
      std::find(kind.properties.begin(), kind.properties.end(), name) != kind.properties.end())
    return name;
  std::vector<std::string> owners;
  for (const WorkloadKindInfo& row : workload_kind_table())
    if (std::find(row.properties.begin(), row.properties.end(), name) != row.properties.end())
      owners.emplace_back(row.name == "program" ? "thread programs" : fmt::format("the {} workload", row.name));
  src.fail(node, fmt::format("{} is a property of {} only, not of {} (docs/scenarios.md, \"Properties\")", name,
                             yaml::join(owners), kind.name == "program" ? "thread programs" : kind.name));
}

// {name: N, forall: EXPR} (must hold in every final state) or {name: N, exists: EXPR} (an
// outcome to look for: herd's `exists`).
std::string final_condition(const yaml::Source& src, const YAML::Node& node, program::Program* prog) {
  const yaml::Map m(src, node, "property", {"name", "forall", "exists"});
  if (prog == nullptr) src.fail(node, "final conditions (forall, exists) apply to thread programs only");
  const YAML::Node name_node = m.required("name");
  std::string name = yaml::identifier(src, name_node, "property name");
  // (Another workload's own property, counter-sharing's lost_update, is no program's: free.)
  const std::vector<std::string> reserved = fixed_properties();
  if (std::find(reserved.begin(), reserved.end(), name) != reserved.end())
    src.fail(name_node, fmt::format("'{}' is a built-in property: give the final condition a name of its own", name));
  const std::optional<YAML::Node> forall = m.get("forall");
  const std::optional<YAML::Node> exists = m.get("exists");
  if (forall && exists)
    src.fail(*m.key_node("exists"), fmt::format("property '{}': give forall or exists, not both", name));
  if (forall) {
    prog->forall.push_back(load_final_condition(src, name, *forall, "forall", *prog));
  } else if (exists) {
    prog->exists.push_back(load_final_condition(src, name, *exists, "exists", *prog));
  } else {
    src.fail(node, fmt::format("property '{}': missing its condition (forall: EXPR or exists: EXPR)", name));
  }
  return name;
}

// `prog` is null for built-in workloads; final conditions are added to it.
std::vector<std::string> load_properties(const yaml::Map& root, const WorkloadKindInfo& kind, program::Program* prog) {
  const yaml::Source& src = root.source();
  const std::optional<YAML::Node> node = root.get("properties");
  if (!node) return kind.properties;
  yaml::require_list(src, *node, "properties");
  std::vector<std::string> names;
  for (const auto& entry : *node) {
    std::string name = entry.IsMap() ? final_condition(src, entry, prog) : builtin_property(src, entry, kind);
    if (std::find(names.begin(), names.end(), name) != names.end())
      src.fail(entry, fmt::format("property '{}' is listed twice", name));
    names.push_back(std::move(name));
  }
  return names;
}

// design.fileio goes with the fileio workload, which checks the file properties listed.
void check_fileio(const yaml::Map& root, Scenario& s) {
  if (!s.workload.is("fileio")) {
    if (s.design.fileio)
      root.source().fail_at(s.design.fileio_where, "design.fileio: file policies apply to the fileio workload only");
    return;
  }
  auto spec = std::make_shared<fileio::FileioSpec>(*s.workload.get<std::shared_ptr<const fileio::FileioSpec>>());
  for (const std::string& p : s.properties)
    if (std::find(fileio::kFileProperties.begin(), fileio::kFileProperties.end(), p) != fileio::kFileProperties.end())
      spec->properties.push_back(p);
  s.workload.params = std::shared_ptr<const fileio::FileioSpec>(std::move(spec));
}

// --- strategy, expectation

StrategySpec load_strategy(const yaml::Map& root) {
  StrategySpec s;
  const std::optional<YAML::Node> node = root.get("strategy");
  if (!node) return s;
  const yaml::Source& src = root.source();
  std::vector<std::string_view> keys{"kind", "max_steps"};
  for (const auto& [key, bit] : model::kStrategyKeys) keys.push_back(key);
  const yaml::Map m(src, *node, "strategy", std::move(keys));
  static constexpr auto kKinds = [] {
    std::array<std::string_view, model::kStrategies.size()> names{};
    for (std::size_t i = 0; i < names.size(); ++i) names[i] = model::kStrategies[i].name;
    return names;
  }();
  if (const auto kind = m.get("kind")) s.kind = static_cast<StrategyKind>(yaml::choice(src, *kind, "strategy", kKinds));
  // Which keys go with which kind (model::kStrategies): a key the chosen strategy ignores is a
  // mistake the user should hear of (a seed on dfs, which decides without one).
  for (const auto& [key, bit] : model::kStrategyKeys) {
    if (!m.has(std::string(key)) || (model::info_of(s.kind).keys & bit) != 0) continue;
    std::vector<std::string> takers;
    for (const model::StrategyInfo& i : model::kStrategies)
      if ((i.keys & bit) != 0) takers.emplace_back(i.name);
    const std::string which =
        takers.size() == 1
            ? takers[0] + " strategy"
            : fmt::format("{} and {} strategies", fmt::join(takers.begin(), takers.end() - 1, ", "), takers.back());
    src.fail(*m.key_node(std::string(key)), fmt::format("{} applies to the {} only", key, which));
  }
  s.seed = m.unsigned_or("seed", 0, kNoLimit, s.seed);
  const bool exhaustive =
      s.kind == StrategyKind::dfs || s.kind == StrategyKind::bounded || s.kind == StrategyKind::naive;
  s.executions = m.unsigned_or("executions", 1, kMaxExecutions, exhaustive ? kDefaultExhaustiveRuns : s.executions);
  s.max_steps = m.unsigned_or("max_steps", 1, kNoLimit, s.max_steps);
  if (m.has("preemption_bound"))
    s.preemption_bound = static_cast<unsigned>(m.unsigned_or("preemption_bound", 0, 64, 0));
  if (m.has("delay_bound")) s.delay_bound = static_cast<unsigned>(m.unsigned_or("delay_bound", 0, 64, 0));
  // ^ [0, 64]: a bound past a few is an exhaustive search in all but name.
  if (s.kind == StrategyKind::bounded && s.preemption_bound.has_value() == s.delay_bound.has_value())
    src.fail(*node, "the bounded strategy needs exactly one of preemption_bound and delay_bound");
  s.depth = static_cast<unsigned>(m.unsigned_or("depth", 1, 16, s.depth));
  s.choice_points = m.unsigned_or("choice_points", 1, kNoLimit, s.choice_points);
  s.workers = static_cast<unsigned>(m.unsigned_or("workers", 1, 256, s.workers));
  s.minimize = m.boolean_or("minimize", s.minimize);
  s.unroll = static_cast<unsigned>(m.unsigned_or("unroll", 1, kMaxUnroll, 0));
  s.run_ahead = m.boolean_or("run_ahead", s.run_ahead);
  return s;
}

// The smt strategy decides thread programs of the ops it can encode; anything else is an
// error at its place, never an approximation.
void check_smt(const yaml::Map& root, const Scenario& s) {
  const yaml::Source& src = root.source();
  if (!s.workload.is("program"))
    src.fail(*root.get("strategy"), fmt::format("the smt strategy decides thread programs (`threads:`), not the {} "
                                                "workload",
                                                s.workload.kind->name));
  if (auto u = axiomatic::unsupported_op(*s.workload.get<std::shared_ptr<const program::Program>>()))
    src.fail_at(u->where(), u->message());
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string listed(const std::vector<std::string>& names) {
  return names.empty() ? std::string("none") : yaml::join(names);
}

// `exists` names the scenario's exists conditions: their outcome is reachable or unreachable.
std::vector<FidelityTolerance> load_fidelity(const yaml::Source& src, const YAML::Node& node) {
  yaml::require_map(src, node, "fidelity");
  if (node.size() == 0) src.fail(node, "fidelity: expected at least one metric with its tolerance in percent");
  std::vector<FidelityTolerance> out;
  for (const auto& kv : node) {
    FidelityTolerance t;
    t.metric = yaml::identifier(src, kv.first, "fidelity metric");
    for (const FidelityTolerance& other : out)
      if (other.metric == t.metric) src.fail(kv.first, fmt::format("fidelity: {} is given twice", t.metric));
    t.percent = yaml::real(src, kv.second, "fidelity tolerance (percent)", 0, 1e6);
    t.where = src.where(kv.first);
    out.push_back(std::move(t));
  }
  return out;
}

Expectation load_expect(const yaml::Map& root, const std::vector<std::string>& properties,
                        const std::vector<std::string>& exists) {
  const yaml::Source& src = root.source();
  YAML::Node node = root.required("expect");
  Expectation e;
  // `fidelity` rides beside the outcome; alone it means the outcome `pass`.
  if (node.IsMap()) {
    YAML::Node outcome(YAML::NodeType::Map);
    for (const auto& kv : node) {
      if (kv.first.IsScalar() && kv.first.Scalar() == "fidelity") {
        if (!e.fidelity.empty()) src.fail(kv.first, "expect: fidelity is given twice");
        e.fidelity = load_fidelity(src, kv.second);
      } else {
        outcome.force_insert(kv.first, kv.second);
      }
    }
    if (!e.fidelity.empty()) {
      if (outcome.size() == 0) {
        if (!exists.empty())
          src.fail(node, fmt::format("expect: a scenario with exists conditions ({}) needs its outcome beside "
                                     "fidelity",
                                     yaml::join(exists)));
        return e;
      }
      node.reset(outcome);
    }
  }
  if (node.IsScalar() && node.Scalar() == "pass") {
    if (!exists.empty()) {
      src.fail(node, fmt::format("expect: a scenario with exists conditions ({}) reaches them or not, so it never "
                                 "passes: expect {{reachable: {}}} or {{unreachable: {}}}",
                                 yaml::join(exists), exists.front(), exists.front()));
    }
    return e;
  }
  if (node.IsMap() && node.size() > 1)
    src.fail(std::next(node.begin())->first, "expect: one outcome at a time (violation, reachable or unreachable)");
  if (!node.IsMap() || node.size() != 1) {
    src.fail(node, fmt::format("expect: expected 'pass', {{violation: PROPERTY}}, {{reachable: CONDITION}} or "
                               "{{unreachable: CONDITION}} (and optionally fidelity: {{METRIC: PERCENT}}), got {}",
                               yaml::describe(node)));
  }
  const yaml::Map m(src, node, "expect", {"violation", "reachable", "unreachable"});
  const std::string key = node.begin()->first.Scalar();
  const YAML::Node value = m.required(key);
  e.property = yaml::scalar(src, value, key);
  if (key == "violation") {
    e.kind = Expectation::Kind::violation;
    if (!contains(properties, e.property)) {
      src.fail(value,
               fmt::format("expect: '{}' is not among the checked properties ({})", e.property, listed(properties)));
    }
    if (contains(exists, e.property)) {
      src.fail(value, fmt::format("expect: '{}' is an exists condition, which is reached, not violated: expect "
                                  "{{reachable: {}}} or {{unreachable: {}}}",
                                  e.property, e.property, e.property));
    }
    return e;
  }
  e.kind = key == "reachable" ? Expectation::Kind::reachable : Expectation::Kind::unreachable;
  if (!contains(exists, e.property)) {
    src.fail(value, fmt::format("expect: '{}' is not an exists condition of this scenario (exists conditions: {})",
                                e.property, listed(exists)));
  }
  return e;
}

// --- one scenario

constexpr std::array<std::string_view, 16> kScenarioKeys{
    "name",     "description", "machine",    "memory_model", "design", "workload", "variables", "locks",
    "condvars", "threads",     "properties", "strategy",     "expect", "sweep",    "platform",  "scheduler"};

// `scheduler`: the simulated OS's choices about CPUs (docs/os.md): the idle loop, and where
// threads run. A native run has the host kernel's and cannot choose them.
void load_scheduler(const yaml::Map& root, Scenario& s) {
  const std::optional<YAML::Node> node = root.get("scheduler");
  if (!node) return;
  const yaml::Source& src = root.source();
  const yaml::Map m(src, *node, "scheduler", {"idle", "placement", "balance_interval_us"});
  const auto native_refuses = [&src, &s](const YAML::Node& at, std::string_view what) {
    if (s.platform == PlatformKind::native)
      src.fail(at, fmt::format("scheduler.{}: the host's is its kernel's; a native run cannot choose it (docs/os.md)",
                               what));
  };
  if (const auto idle = m.get("idle")) {
    native_refuses(*idle, "idle");
    s.idle = static_cast<sim::IdlePolicy>(yaml::choice(src, *idle, "scheduler.idle", sim::kIdlePolicyNames));
  }
  if (const auto placement = m.get("placement")) {
    native_refuses(*placement, "placement");
    s.placement =
        static_cast<sim::ThreadPlacement>(yaml::choice(src, *placement, "scheduler.placement", sim::kPlacementNames));
  }
  if (const auto interval = m.get("balance_interval_us")) {
    native_refuses(*interval, "balance_interval_us");
    // At most an hour of virtual time; 0 turns the periodic balancer off.
    constexpr std::uint64_t kMaxUs = 3'600'000'000;
    const std::uint64_t us = yaml::unsigned_integer(src, *interval, "scheduler.balance_interval_us", 0, kMaxUs);
    s.balance_interval_ns = us * 1000;
  }
}

Scenario parse_scenario(const yaml::Source& src, const YAML::Node& doc, const std::string& path) {
  const yaml::Map root(src, doc, "scenario", {kScenarioKeys.begin(), kScenarioKeys.end()});
  Scenario s;
  s.path = path;
  const YAML::Node name = root.required("name");
  s.name = yaml::scalar(src, name, "name");
  if (s.name.empty()) src.fail(name, "name: must not be empty");
  s.description = root.scalar_or("description", "");
  s.platform = load_platform(root, s.platform_where);
  // A native scenario without a machine describes the host it runs on.
  s.machine = s.platform == PlatformKind::native && !root.has("machine") ? host_machine() : load_machine(root);
  s.memory_model = load_memory_model(root);
  load_scheduler(root, s);
  s.design = load_design(root);
  if (is_program(root)) {
    program::Program prog = load_program(root, s.machine, s.design);
    s.properties = load_properties(root, program_workload(), &prog);
    s.workload.kind = &program_workload();
    s.workload.params = std::make_shared<const program::Program>(std::move(prog));
  } else {
    if (s.design.mutex)
      src.fail_at(s.design.mutex_where,
                  "design.mutex: futex mutexes are the locks of thread programs; built-in workloads take "
                  "design.spinlock");
    if (s.design.condvar)
      src.fail_at(s.design.condvar_where, "design.condvar: condvars belong to thread programs (`condvars:`)");
    s.workload = load_workload(root, s.machine, s.design);
    s.properties = load_properties(root, *s.workload.kind, nullptr);
  }
  check_fileio(root, s);
  s.strategy = load_strategy(root);
  if (s.strategy.kind == StrategyKind::smt) check_smt(root, s);
  s.expect = load_expect(root, s.properties, exists_conditions(s.workload));
  return s;
}

// --- sweeps

struct SweepAxis {
  std::string path;                // "workload.threads"
  std::vector<std::string> keys;   // {"workload", "threads"}
  YAML::Node key_node;             // for messages about the path
  std::vector<YAML::Node> values;  // the listed scalars
  bool adds_key = false;           // the scenario does not have the last key itself
};

std::vector<std::string> split_path(const yaml::Source& src, const YAML::Node& key) {
  const std::string path = yaml::scalar(src, key, "sweep path");
  std::vector<std::string> keys;
  std::size_t start = 0;
  for (std::size_t dot = path.find('.');; dot = path.find('.', start)) {
    keys.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (keys.back().empty())
      src.fail(key, fmt::format("sweep: '{}' is not a dotted path such as workload.threads", path));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (keys.front() == "sweep") src.fail(key, "sweep: a sweep cannot sweep itself");
  return keys;
}

// The map that holds the path's last key, or nothing when some step is not a map.
std::optional<YAML::Node> parent_map(const YAML::Node& doc, const std::vector<std::string>& keys) {
  YAML::Node node = doc;
  for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
    // Const lookups: a non-const operator[] would add the key it looks for.
    const YAML::Node child = node.IsMap() ? std::as_const(node)[keys[i]] : YAML::Node();
    if (!node.IsMap() || !child) return std::nullopt;
    node.reset(child);  // reset rebinds; plain assignment would overwrite the node
  }
  if (!node.IsMap()) return std::nullopt;
  return node;
}

std::string not_settable(const SweepAxis& axis) {
  const std::string parent = axis.path.substr(0, axis.path.rfind('.'));
  return fmt::format("cannot sweep '{}': '{}' is not a map in this scenario", axis.path, parent);
}

SweepAxis load_axis(const yaml::Source& src, const YAML::Node& key, const YAML::Node& list, const YAML::Node& doc) {
  SweepAxis axis{yaml::scalar(src, key, "sweep path"), split_path(src, key), key, {}, false};
  const std::optional<YAML::Node> parent = parent_map(doc, axis.keys);
  if (!parent) src.fail(key, not_settable(axis));
  const YAML::Node leaf = std::as_const(*parent)[axis.keys.back()];
  axis.adds_key = !leaf;
  yaml::require_list(src, list, axis.path);
  if (list.size() == 0) src.fail(list, fmt::format("{}: expected at least one value", axis.path));
  for (const auto& value : list) {
    if (!value.IsScalar())
      src.fail(value, fmt::format("{}: a swept value must be a scalar, got {}", axis.path, yaml::describe(value)));
    // Rows share the leaf with a listed value; an alias of the leaf itself would stick.
    if (leaf && value.is(leaf))
      src.fail(value, fmt::format("{}: a swept value cannot be an alias of the value it replaces", axis.path));
    axis.values.push_back(value);
  }
  return axis;
}

std::vector<SweepAxis> load_sweep(const yaml::Source& src, const YAML::Node& sweep, const YAML::Node& doc) {
  yaml::require_map(src, sweep, "sweep");
  if (sweep.size() == 0) src.fail(sweep, "sweep: expected at least one path");
  std::vector<SweepAxis> axes;
  std::uint64_t rows = 1;
  for (const auto& entry : sweep) {
    SweepAxis axis = load_axis(src, entry.first, entry.second, doc);
    for (const SweepAxis& other : axes)
      if (other.path == axis.path) src.fail(entry.first, fmt::format("sweep: '{}' is swept twice", axis.path));
    rows *= axis.values.size();
    if (rows > kMaxSweepRows) src.fail(entry.first, fmt::format("sweep: more than {} rows", kMaxSweepRows));
    axes.push_back(std::move(axis));
  }
  return axes;
}

// Sets `value` at the axis's path in `doc`. yaml-cpp's assignment makes the leaf share the
// listed node, mark included, so an invalid swept value is reported where the sweep lists
// it; and since the value belongs to the same document, no node memory is merged.
void assign(const yaml::Source& src, YAML::Node& doc, const SweepAxis& axis, const YAML::Node& value) {
  std::optional<YAML::Node> parent = parent_map(doc, axis.keys);
  if (!parent) src.fail(axis.key_node, not_settable(axis));  // an earlier axis replaced a map
  (*parent)[axis.keys.back()] = value;
}

using RowFilter = std::function<bool(const Params&)>;

// The rows of the cartesian product, first axis outermost. Every row re-reads the one
// document with the row's values set in place (a copy would lose the marks: yaml-cpp's Clone
// drops them); `sweep` itself is removed first.
std::vector<Scenario> expand_sweep(const yaml::Source& src, YAML::Node& doc, const std::vector<SweepAxis>& axes,
                                   const RowFilter& keep) {
  doc.remove("sweep");
  // A key the sweep added has no mark of its own: errors about it point at the sweep path.
  YAML::Mark unplaced = YAML::Mark::null_mark();
  for (const SweepAxis& axis : axes)
    if (axis.adds_key && unplaced.is_null()) unplaced = axis.key_node.Mark();
  const yaml::Source row_src(src.file(), unplaced);
  std::vector<Scenario> rows;
  std::vector<std::size_t> at(axes.size(), 0);
  for (;;) {
    Params params;
    for (std::size_t i = 0; i < axes.size(); ++i) params.emplace_back(axes[i].path, axes[i].values[at[i]].Scalar());
    if (!keep || keep(params)) {
      for (std::size_t i = 0; i < axes.size(); ++i) assign(src, doc, axes[i], axes[i].values[at[i]]);
      rows.push_back(parse_scenario(row_src, doc, src.file()));
      rows.back().params = std::move(params);
    }
    std::size_t i = axes.size();
    while (i > 0 && ++at[i - 1] == axes[i - 1].values.size()) at[--i] = 0;
    if (i == 0) return rows;
  }
}

// A timed workload's window (`workload.runtime_us`) shortened to `cap_us` (0: as written).
void bound_runtime(YAML::Node& doc, std::uint64_t cap_us, std::uint64_t floor_us) {
  if ((cap_us == 0 && floor_us == 0) || !doc.IsMap()) return;
  YAML::Node workload = doc["workload"];
  if (!workload.IsMap() || !workload["runtime_us"] || !workload["runtime_us"].IsScalar()) return;
  std::uint64_t value = 0;
  if (!YAML::convert<std::uint64_t>::decode(workload["runtime_us"], value)) return;  // the loader says why
  if (cap_us != 0 && value > cap_us) workload["runtime_us"] = cap_us;
  if (value < floor_us) workload["runtime_us"] = floor_us;
}

// `machine`, when not null, replaces the scenario's machine (and makes it a simulation): the
// simulated side of `lockstep compare`.
ScenarioFile load(const std::string& path, const RowFilter& keep, const std::optional<YAML::Node>& machine = {},
                  std::uint64_t runtime_cap_us = 0, std::uint64_t runtime_floor_us = 0) {
  ScenarioFile file;
  file.path = path;
  const std::string text = yaml::read_document_text(path);
  file.sha256 = io::sha256_hex(text);
  const yaml::Source src(path);
  try {
    YAML::Node doc = yaml::parse_document(src, text, "scenario");
    if (machine) {
      doc["machine"] = *machine;
      doc.remove("platform");
    }
    bound_runtime(doc, runtime_cap_us, runtime_floor_us);
    const yaml::Map root(src, doc, "scenario", {kScenarioKeys.begin(), kScenarioKeys.end()});
    const std::optional<YAML::Node> sweep = root.get("sweep");
    if (machine && sweep) {
      for (const auto& axis : *sweep) {
        const std::string swept = axis.first.IsScalar() ? axis.first.Scalar() : std::string();
        if (swept.starts_with("machine") || swept.starts_with("platform"))
          src.fail(axis.first, fmt::format("sweep: '{}' varies the machine; comparing runs the workload on this "
                                           "host and on its model only",
                                           swept));
      }
    }
    file.swept = sweep.has_value();
    if (!sweep) {
      if (!keep || keep({})) file.rows.push_back(parse_scenario(src, doc, path));
      return file;
    }
    const std::vector<SweepAxis> axes = load_sweep(src, *sweep, doc);
    file.rows = expand_sweep(src, doc, axes, keep);
  } catch (const YAML::Exception& e) {
    // yaml-cpp's own errors (a bad alias, a bad conversion) still deserve a place.
    src.fail_at(src.where(e.mark), e.msg);
  }
  return file;
}

std::string show(const Params& params) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : params) parts.push_back(fmt::format("{}={}", key, value));
  return parts.empty() ? std::string("no sweep values") : yaml::join(parts);
}

}  // namespace

std::vector<std::string> workload_kinds() {
  std::vector<std::string> names;
  for (const WorkloadKindInfo& row : workload_kind_table())
    if (row.load != nullptr) names.emplace_back(row.name);
  return names;
}

// The built-in properties no final condition may be named after (core/properties.hpp).
std::vector<std::string> fixed_properties() {
  std::vector<std::string> names;
  for (const PropertyInfo& p : kProperties)
    if (p.reserved) names.emplace_back(p.name);
  return names;
}

// Every property a scenario may name: the table's (core/properties.hpp), in its order.
std::vector<std::string_view> scenario_keys() { return {kScenarioKeys.begin(), kScenarioKeys.end()}; }

std::vector<std::string> builtin_properties() {
  std::vector<std::string> names;
  for (const PropertyInfo& p : kProperties) names.emplace_back(p.name);
  return names;
}

std::vector<std::string> exists_conditions(const WorkloadSpec& w) {
  std::vector<std::string> names;
  if (w.is("program"))
    for (const program::FinalCondition& c : w.get<std::shared_ptr<const program::Program>>()->exists)
      names.push_back(c.property);
  return names;
}

ScenarioFile load_scenario_file(const std::string& path) { return load(path, nullptr); }

ScenarioFile load_scenario_file_on(const std::string& path, const std::string& machine, std::uint64_t runtime_cap_us,
                                   std::uint64_t runtime_floor_us) {
  YAML::Node node;
  try {
    node = YAML::Load(machine);
  } catch (const YAML::Exception& e) {
    throw ScenarioError(fmt::format("machine '{}': {}", machine, e.msg));
  }
  if (!node.IsMap()) throw ScenarioError(fmt::format("machine '{}': expected a map such as {{preset: host}}", machine));
  return load(path, nullptr, std::optional<YAML::Node>(node), runtime_cap_us, runtime_floor_us);
}

Scenario load_scenario_row(const std::string& path, const Params& params) {
  // Order does not matter: a schedule file may list the values in any order.
  Params wanted = params;
  std::sort(wanted.begin(), wanted.end());
  ScenarioFile file = load(path, [&wanted](const Params& row) {
    Params sorted = row;
    std::sort(sorted.begin(), sorted.end());
    return sorted == wanted;
  });
  if (file.rows.empty()) throw ScenarioError(fmt::format("{}: no row of the scenario has {}", path, show(params)));
  return std::move(file.rows.front());
}

}  // namespace lockstep::scenario
