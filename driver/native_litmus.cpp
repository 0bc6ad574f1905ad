#include "driver/native_litmus.hpp"

#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/workloads/program_workload.hpp"
#include "driver/litmus_histogram.hpp"
#include "driver/litmus_judge.hpp"
#include "driver/litmus_verdicts.hpp"
#include "native/litmus_harness.hpp"
#include "native/native_platform.hpp"
#include "spec/yaml_fields.hpp"

namespace lockstep::driver {

using report::LitmusCondition;
using report::LitmusReport;
using report::LitmusVerdict;
using report::RowReport;

using namespace lockstep::scenario;  // NOLINT(google-build-using-namespace): the driver runs scenarios

namespace {

using ProgramPtr = std::shared_ptr<const program::Program>;

const char* model_name(MemoryModel m) { return m == MemoryModel::tso ? "tso" : "sc"; }

// The program, its variables and registers, and the states counted so far: what the first
// thread works on between runs. The threads share it (run_litmus keeps it alive for threads
// a stuck run leaves behind).
struct Recorder {
  explicit Recorder(ProgramPtr p) : program(std::move(p)), workload(program) {
    std::size_t n = program->variables.size();
    for (const program::ThreadProgram& t : program->threads) n += t.registers.size();
    values.resize(n);
  }

  // Loads every variable, so that the thread starts the run with their lines in its cache,
  // shared with the other threads'. A store must then wait in the store buffer until the
  // other copies are invalidated, while a load hits at once: the window in which x86's store
  // buffering shows is the time of that invalidation, not the few nanoseconds a store to a
  // line the core already owns takes (docs/model-checking.md, "Native litmus runs", has the
  // rates with and without).
  void preload() const {
    for (std::size_t i = 0; i < program->variables.size(); ++i) static_cast<void>(workload.value_of(i));
  }

  void after_run() {
    native::NativeViolation v;
    const bool violated = native::take_violation(v);
    std::size_t at = 0;
    for (std::size_t i = 0; i < program->variables.size(); ++i)
      values[at++] = static_cast<std::int64_t>(workload.value_of(i));
    for (std::size_t t = 0; t < program->threads.size(); ++t)
      for (std::size_t r = 0; r < program->threads[t].registers.size(); ++r) values[at++] = workload.register_of(t, r);
    states.record(values, violated ? std::string_view(v.property) : std::string_view());
    workload.reset();
  }

  ProgramPtr program;
  ProgramWorkload<native::NativePlatform> workload;
  FinalStates::Values values;
  FinalStates states;
};

native::LitmusLimits limits_of(const Scenario& s, const NativeLitmusOptions& o) {
  native::LitmusLimits l;
  l.max_runs = o.runs.value_or(0);
  l.seconds = o.seconds ? *o.seconds : o.runs ? std::numeric_limits<double>::infinity() : l.seconds;
  l.seed = o.seed.value_or(s.strategy.seed);
  l.max_skew = o.max_skew.value_or(l.max_skew);
  l.watchdog_s = o.watchdog_s.value_or(l.watchdog_s);
  return l;
}

native::LitmusRunStats run(const std::shared_ptr<Recorder>& rec, const native::LitmusLimits& limits) {
  std::vector<native::LitmusThread> threads;
  rec->workload.setup([&](std::string name, CpuId cpu, std::function<void()> body) {
    threads.push_back({std::move(name), cpu, [rec, body = std::move(body)] { body(); }, [rec] { rec->preload(); }});
  });
  native::NativeViolation stale;
  native::take_violation(stale);  // an earlier native run's, not this one's
  return native::run_litmus(
      std::move(threads), [rec] { rec->after_run(); }, limits);
}

void count_conditions(const Scenario& s, const FinalStates& states, LitmusReport& r) {
  const program::Program& prog = *s.workload.get<ProgramPtr>();
  r.conditions = litmus_conditions(s);
  for (LitmusCondition& c : r.conditions) {
    if (c.kind == "property") {
      c.observed = states.violations(c.property);
      continue;
    }
    if (c.kind == "hang") {
      c.observed = r.stuck.empty() ? 0 : 1;
      continue;
    }
    const auto& list = c.kind == "exists" ? prog.exists : prog.forall;
    for (const program::FinalCondition& f : list)
      if (f.property == c.property) c.observed = states.count(prog, f, c.kind == "forall");
  }
}

void add_verdicts(const Scenario& s, LitmusReport& r) {
  const std::optional<MemoryModel> host = host_memory_model();
  if (!host) return;
  const std::vector<LitmusVerdict> on_host = check_conditions(s, r.conditions, *host);
  for (std::size_t i = 0; i < r.conditions.size(); ++i) r.conditions[i].host = on_host[i];
  if (s.memory_model == *host) return;
  const std::vector<LitmusVerdict> own = check_conditions(s, r.conditions, s.memory_model);
  for (std::size_t i = 0; i < r.conditions.size(); ++i) r.conditions[i].scenario = own[i];
}

// An outcome in the words of results (spec/outcome.hpp): the first property violated,
// else the first exists condition reached, else none reached, else pass. `shown` says
// whether a condition's outcome happened (on hardware, or in the checker's search).
template <class Shown>
std::pair<std::string, std::string> outcome(const std::vector<LitmusCondition>& conditions, Shown&& shown) {
  std::vector<std::string> exists;
  for (const LitmusCondition& c : conditions)
    if (c.kind != "exists" && shown(c)) return {"violation", c.property};
  for (const LitmusCondition& c : conditions) {
    if (c.kind != "exists") continue;
    if (shown(c)) return {"reachable", c.property};
    exists.push_back(c.property);
  }
  if (!exists.empty()) return {"unreachable", yaml::join(exists)};
  return {"pass", ""};
}

}  // namespace

RowReport litmus_row(LitmusReport litmus) {
  RowReport row;
  row.strategy = "native";
  row.seed = litmus.seed;
  row.executions = litmus.runs;
  row.elapsed_s = litmus.elapsed_s;
  std::tie(row.result, row.property) =
      outcome(litmus.conditions, [](const LitmusCondition& c) { return c.observed > 0; });
  if (litmus.host_model.empty()) {
    row.expected = fmt::format("no verdict (no model of {})", litmus.host_arch);
  } else {
    const auto [result, property] = outcome(litmus.conditions, [](const LitmusCondition& c) {
      return c.host && (c.host->result == "reachable" || c.host->result == "violation");
    });
    row.expected = property.empty() ? result : result + ": " + property;
  }
  row.matched = litmus.model_bugs.empty() && (litmus.stuck.empty() || litmus.hang_explained);
  const std::vector<std::string>& said = !litmus.model_bugs.empty() ? litmus.model_bugs : litmus.notes;
  row.message =
      said.empty() ? fmt::format("{} runs on real threads, consistent with the checker", litmus.runs) : said.front();
  row.litmus = std::move(litmus);
  return row;
}

std::optional<MemoryModel> host_memory_model() {
#if defined(__x86_64__) || defined(__i386__)
  return MemoryModel::tso;  // x86-TSO: Owens, Sarkar and Sewell, 2009 (docs/sources.md section 5)
#else
  return std::nullopt;
#endif
}

std::string host_architecture() {
#if defined(__x86_64__)
  return "x86-64";
#elif defined(__i386__)
  return "x86";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__riscv)
  return "riscv";
#elif defined(__powerpc64__)
  return "ppc64";
#else
  return "unknown";
#endif
}

RowReport run_native_litmus(const Scenario& s, const NativeLitmusOptions& options) {
  const native::LitmusLimits limits = limits_of(s, options);
  auto rec = std::make_shared<Recorder>(s.workload.get<ProgramPtr>());
  const native::LitmusRunStats stats = run(rec, limits);

  LitmusReport r;
  r.runs = stats.runs;
  r.elapsed_s = stats.elapsed_s;
  r.runs_per_s = stats.elapsed_s > 0 ? static_cast<double>(stats.runs) / stats.elapsed_s : 0;
  r.max_runs = limits.max_runs;
  r.seconds = options.seconds.value_or(options.runs ? 0 : limits.seconds);
  r.seed = limits.seed;
  r.max_skew = limits.max_skew;
  for (const program::ThreadProgram& t : rec->program->threads) r.threads.push_back(t.name);
  r.host_cpus.assign(stats.host_cpus.begin(), stats.host_cpus.end());
  r.host_arch = host_architecture();
  if (const auto host = host_memory_model()) r.host_model = model_name(*host);
  r.scenario_model = model_name(s.memory_model);
  r.interrupted = stats.interrupted;
  r.stuck = stats.stuck;
  r.watchdog_s = limits.watchdog_s;
  r.histogram = rec->states.histogram(*rec->program);
  count_conditions(s, rec->states, r);
  add_verdicts(s, r);
  judge_litmus(r);
  return litmus_row(std::move(r));
}

}  // namespace lockstep::driver
