// lockstep_difftest: random thread programs checked by three engines, under SC and x86-TSO:
// the reference enumerator (tests/differential/reference_machine.hpp), the explorer (dfs
// with 1, 2 and 3 workers, and naive on programs with few enough interleavings), and the
// axiomatic checker (Z3, axiomatic/), which shares no code with either. The sets of
// reachable outcomes must be equal, TSO's must contain SC's, naive must run exactly the
// reference's number of interleavings, no search may report an internal error, and the
// engine must follow every smt witness (one per reachable outcome) to its outcome. A
// program that breaks any of these is written to --out as a scenario file, with its seed
// and the outcomes in question; the run then exits 1.
//
//   lockstep_difftest --seed 1 --programs 300          (what `make test` runs)
//   bench/differential.sh                               (the long run)
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "axiomatic/checker.hpp"
#include "spec/scenario.hpp"
#include "tests/differential/engine_outcomes.hpp"
#include "tests/differential/program_generator.hpp"
#include "tests/differential/reference_machine.hpp"

namespace fs = std::filesystem;
using namespace lockstep;
using namespace lockstep::difftest;

namespace {

struct Options {
  std::uint64_t seed = 1;
  std::uint64_t programs = 100;
  std::vector<unsigned> workers{1, 2, 3};
  double naive_cap = 20'000;             // naive runs when the reference counts at most this many interleavings
  std::uint64_t max_runs = 2'000'000;    // per dfs search
  std::uint64_t max_states = 2'000'000;  // the reference's, per program (and again for its classes)
  std::string out = "out/difftest";
  bool classes = true;
  bool smt = true;
  std::uint64_t smt_programs = ~std::uint64_t{0};  // smt on the first this many programs only
  GeneratorShape shape;
  bool exact_shape = false;
  bool verbose = false;
  bool keep = false;
  bool generate_only = false;
  std::vector<std::string> files;
};

struct Tally {
  std::uint64_t programs = 0, outcomes = 0, states = 0, dfs_runs = 0, dfs_executions = 0, naive_runs = 0;
  std::uint64_t assertion_programs = 0, mismatches = 0, skipped = 0, over_cap = 0;
  // dfs's complete executions against the reference's reads-from/coherence classes.
  std::uint64_t classes_compared = 0, classes_equal = 0, classes_more = 0, classes_fewer = 0;
  std::uint64_t executions_sum = 0, classes_sum = 0;
  // ... and against the classes of dfs's own dependence relation (ReferenceResult).
  std::uint64_t dependence_compared = 0, dependence_equal = 0, dependence_sum = 0;
  // The estimator (model/search_estimate.hpp) against dfs's count: exact on programs whose
  // control flow and footprints do not depend on values; on the others, how far off and
  // how often the 95% interval held the count.
  std::uint64_t estimate_exact_programs = 0, estimate_exact_equal = 0;
  std::uint64_t estimate_sampled = 0, estimate_within = 0;
  double estimate_error_sum = 0;
  // The axiomatic checker: programs, witnesses the engine followed, solver time.
  std::uint64_t smt_programs = 0, smt_witnesses = 0;
  double smt_seconds = 0;
  // Host time per engine: the reference, dfs with the first worker count, smt with every
  // outcome listed (its witnesses' replays not counted).
  double reference_s = 0, dfs_s = 0, smt_s = 0;
};

const char* name_of(Model m) { return m == Model::sc ? "sc" : "tso"; }

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string scenario_text(std::uint64_t seed, Model model, const std::string& program, const std::string& header,
                          const std::string& extra) {
  return fmt::format(
      "{}name: difftest seed {} under {}\n"
      "machine: {{preset: flat, cpus: 4}}\n"
      "memory_model: {}\n"
      "{}"
      "{}"
      "strategy: {{kind: dfs}}\n",
      header, seed, name_of(model), name_of(model), program, extra);
}

// "x=1 y=2 t0.r0=1" -> "x == 1 && y == 2 && t0.r0 == 1"
std::string condition_of(const std::string& outcome) {
  std::string out;
  std::size_t i = 0;
  while (i < outcome.size()) {
    const std::size_t sp = outcome.find(' ', i);
    const std::string item = outcome.substr(i, sp == std::string::npos ? std::string::npos : sp - i);
    const std::size_t eq = item.find('=');
    out += fmt::format("{}{} == {}", out.empty() ? "" : " && ", item.substr(0, eq), item.substr(eq + 1));
    if (sp == std::string::npos) break;
    i = sp + 1;
  }
  return out;
}

std::string join(const std::set<std::string>& s, const std::string& sep) {
  std::string out;
  for (const std::string& x : s) out += (out.empty() ? "" : sep) + x;
  return out;
}

std::set<std::string> minus(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::set<std::string> r;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(r, r.begin()));
  return r;
}

void write_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, path);
}

class Run {
 public:
  explicit Run(const Options& o) : o_(o) { fs::create_directories(o_.out); }

  // A scenario file's thread program, under the file's memory model (a mismatch found
  // earlier, or a program of one's own); true when everything agreed.
  bool file(const std::string& path) {
    const scenario::ScenarioFile f = scenario::load_scenario_file(path);
    const Model model = f.rows.front().memory_model == scenario::MemoryModel::tso ? Model::tso : Model::sc;
    const auto before = tally_[model].mismatches;
    check(0, model, f, path, "");
    return tally_[model].mismatches == before;
  }

  void program(std::uint64_t seed) {
    const std::string text = generate_program(seed, o_.shape);
    for (const Model model : {Model::sc, Model::tso}) {
      const fs::path path = fs::path(o_.out) / fmt::format("seed-{}-{}.yaml", seed, name_of(model));
      write_atomically(path, scenario_text(seed, model, text, "", "properties: [assertion]\nexpect: pass\n"));
      if (o_.generate_only) continue;
      if (check(seed, model, scenario::load_scenario_file(path.string()), path, text) && !o_.keep) fs::remove(path);
    }
  }

 private:
  // The estimator on a generated program, against dfs's count; true on a mismatch. Without
  // an `if`, an `assert` (a failed one stops its thread), a compare-and-swap or an exchange,
  // nothing a program does depends on the values it reads (every other read-modify-write
  // here writes a value it did not read; difftest seed 95 had an assert), so the
  // probes' strata merge only nodes with equal subtrees: with no bound on strata the
  // estimate must be the count itself.
  bool estimate(const std::shared_ptr<const lockstep::program::Program>& prog, Model model, const std::string& text,
                std::uint64_t executions, Tally& t, std::string& report) {
    model::EstimateOptions eo;
    eo.probes = 8;
    eo.seed = 1;
    const bool value_free = text.find("if:") == std::string::npos && text.find("cas:") == std::string::npos &&
                            text.find("exchange:") == std::string::npos && text.find("assert:") == std::string::npos;
    if (value_free) eo.strata = 1 << 20;
    const model::SearchEstimate e = estimate_engine(prog, model, eo);
    if (value_free) {
      ++t.estimate_exact_programs;
      if (e.executions == static_cast<double>(executions) && e.half_width == 0) {
        ++t.estimate_exact_equal;
        return false;
      }
      report += fmt::format("# the estimator gave {} (+-{}) for dfs's {} executions, with strata unbounded\n",
                            e.executions, e.half_width, executions);
      return true;
    }
    ++t.estimate_sampled;
    const double truth = static_cast<double>(executions);
    t.estimate_error_sum += truth > 0 ? std::abs(e.executions - truth) / truth : 0;
    if (std::abs(e.executions - truth) <= e.half_width) ++t.estimate_within;
    return false;
  }

  // True when it agreed; a mismatch is reported and, for a generated program, written.
  bool check(std::uint64_t seed, Model model, const scenario::ScenarioFile& file, const fs::path& path,
             const std::string& text) {
    const auto prog = file.rows.front().workload.get<std::shared_ptr<const lockstep::program::Program>>();
    ReferenceLimits rl;
    rl.count_classes = o_.classes;
    rl.max_states = o_.max_states;
    rl.max_class_states = o_.max_states;
    ReferenceResult ref;
    const auto ref_start = std::chrono::steady_clock::now();
    try {
      ref = enumerate(*prog, model, rl);
    } catch (const std::length_error&) {
      ++tally_[model].skipped;
      return true;
    }
    Tally& t = tally_[model];
    t.reference_s += seconds_since(ref_start);
    ++t.programs;
    t.outcomes += ref.outcomes.size();
    t.states += ref.states;
    const bool asserts = std::any_of(ref.outcomes.begin(), ref.outcomes.end(),
                                     [](const std::string& x) { return x.rfind("assertion", 0) == 0; });
    t.assertion_programs += asserts ? 1 : 0;
    bool bad = false;
    std::string report;
    for (const unsigned w : o_.workers) {
      const auto dfs_start = std::chrono::steady_clock::now();
      const EngineOutcomes e = explore_engine(prog, model, Explorer::dfs, w, o_.max_runs);
      if (w == o_.workers.front()) t.dfs_s += seconds_since(dfs_start);
      if (w == o_.workers.front() && !e.exhaustive && e.internal_errors == 0) {
        // More executions than the cap: nothing to compare (the long run takes these).
        ++t.over_cap;
        --t.programs;
        t.outcomes -= ref.outcomes.size();
        t.states -= ref.states;
        t.assertion_programs -= asserts ? 1 : 0;
        return true;
      }
      ++t.dfs_runs;
      if (w == o_.workers.front()) {
        t.dfs_executions += e.executions;
        if (ref.rf_co_classes) {
          ++t.classes_compared;
          t.executions_sum += e.executions;
          t.classes_sum += *ref.rf_co_classes;
          if (e.executions == *ref.rf_co_classes) ++t.classes_equal;
          if (e.executions > *ref.rf_co_classes) ++t.classes_more;
          if (ref.dependence_classes) {
            ++t.dependence_compared;
            t.dependence_sum += *ref.dependence_classes;
            if (e.executions == *ref.dependence_classes) {
              ++t.dependence_equal;
            } else {
              // One complete execution per class is what the search promises: any other count
              // is a bug (an extra class explored twice, or a class missed that the outcomes
              // happened not to show).
              bad = true;
              report +=
                  fmt::format("# dfs ran {} complete executions; the reference counts {} classes of its dependence\n",
                              e.executions, *ref.dependence_classes);
              if (o_.verbose)
                fmt::print("seed {} {}: dfs {} executions, {} classes of its dependence\n", seed, name_of(model),
                           e.executions, *ref.dependence_classes);
            }
          }
          if (e.executions < *ref.rf_co_classes) {
            ++t.classes_fewer;
            if (o_.verbose)
              fmt::print("seed {} {}: dfs {} executions < {} classes\n", seed, name_of(model), e.executions,
                         *ref.rf_co_classes);
          }
        }
      }
      if (w == o_.workers.front() && !text.empty()) bad |= estimate(prog, model, text, e.executions, t, report);
      bad |= compare(fmt::format("dfs, {} worker{}", w, w == 1 ? "" : "s"), ref, e, report);
    }
    if (ref.interleavings <= o_.naive_cap) {
      const EngineOutcomes e = explore_engine(prog, model, Explorer::naive, 1, o_.max_runs);
      ++t.naive_runs;
      bad |= compare("naive", ref, e, report);
      if (static_cast<double>(e.executions) != ref.interleavings) {
        bad = true;
        report += fmt::format("# naive ran {} executions; the reference counts {} interleavings\n", e.executions,
                              ref.interleavings);
      }
    }
    if (o_.smt && (text.empty() || seed - o_.seed < o_.smt_programs)) bad |= smt(prog, model, ref, t, report);
    // The same program's SC outcomes, checked just before (generated programs only).
    if (model == Model::sc) sc_outcomes_ = ref.outcomes;
    if (model == Model::tso && !text.empty()) {
      const auto sc_only = minus(sc_outcomes_, ref.outcomes);
      if (!sc_only.empty()) {
        bad = true;
        report += "# the reference reaches these under sc but not under tso: " + join(sc_only, "; ") + "\n";
      }
    }
    if (!bad) return true;
    ++t.mismatches;
    if (text.empty()) {
      fmt::print("MISMATCH: {}\n{}", path.string(), report);
    } else {
      write_mismatch(path, seed, model, text, report);
    }
    return false;
  }

 public:
  int summary(double seconds) const {
    std::uint64_t mismatches = 0;
    for (const auto& [model, t] : tally_) {
      mismatches += t.mismatches;
      fmt::print(
          "{:>3}: {} programs compared (skipped: {} past the reference's state cap, {} past dfs's run cap), {} "
          "outcomes, "
          "{} reference states, {} with a reachable failed assert; {} dfs searches ({} executions with 1 worker), {} "
          "naive searches; mismatches: {}\n",
          name_of(model), t.programs, t.skipped, t.over_cap, t.outcomes, t.states, t.assertion_programs, t.dfs_runs,
          t.dfs_executions, t.naive_runs, t.mismatches);
      if (t.classes_compared > 0)
        fmt::print(
            "     dfs executions vs reads-from/coherence classes ({} programs without a failing assert): equal {}, "
            "more {}, fewer {}; {} executions for {} classes in all\n",
            t.classes_compared, t.classes_equal, t.classes_more, t.classes_fewer, t.executions_sum, t.classes_sum);
      if (t.dependence_compared > 0)
        fmt::print(
            "     dfs executions vs classes of dfs's dependence relation: equal in {} of {} programs; {} classes in "
            "all\n",
            t.dependence_equal, t.dependence_compared, t.dependence_sum);
      if (t.estimate_exact_programs + t.estimate_sampled > 0)
        fmt::print(
            "     estimator: exact on {} of {} programs that values do not steer; on the {} others, {:.1f}% off on "
            "average, dfs's count within the 95% interval in {}\n",
            t.estimate_exact_equal, t.estimate_exact_programs, t.estimate_sampled,
            t.estimate_sampled > 0 ? 100 * t.estimate_error_sum / static_cast<double>(t.estimate_sampled) : 0.0,
            t.estimate_within);
      if (t.smt_programs > 0)
        fmt::print(
            "     smt: {} programs, {} witnesses followed by the engine to their outcome, {:.2f} s in the solver\n",
            t.smt_programs, t.smt_witnesses, t.smt_seconds);
      fmt::print("     host time: reference {:.2f} s, dfs ({} worker{}) {:.2f} s, smt with every outcome {:.2f} s\n",
                 t.reference_s, o_.workers.front(), o_.workers.front() == 1 ? "" : "s", t.dfs_s, t.smt_s);
    }
    fmt::print(
        "{:.1f} s; {}\n", seconds,
        mismatches == 0 ? "every outcome set agreed" : fmt::format("{} mismatches, written to {}", mismatches, o_.out));
    return mismatches == 0 ? 0 : 1;
  }

 private:
  static bool compare(const std::string& who, const ReferenceResult& ref, const EngineOutcomes& e,
                      std::string& report) {
    bool bad = false;
    if (!e.exhaustive) {
      report += fmt::format("# {}: not exhaustive within the run cap ({} executions)\n", who, e.executions);
      bad = true;
    }
    if (e.internal_errors > 0) {
      report += fmt::format("# {}: {} internal errors\n", who, e.internal_errors);
      bad = true;
    }
    const auto missed = minus(ref.outcomes, e.outcomes);
    const auto extra = minus(e.outcomes, ref.outcomes);
    for (const std::string& m : missed) report += fmt::format("# {} misses: {}\n", who, m);
    for (const std::string& x : extra) report += fmt::format("# {} reaches what the reference does not: {}\n", who, x);
    return bad || !missed.empty() || !extra.empty();
  }

  // The axiomatic checker's outcomes against the reference's, and the engine following the
  // solver's model of each to the same outcome.
  static bool smt(const std::shared_ptr<const lockstep::program::Program>& prog, Model model,
                  const ReferenceResult& ref, Tally& t, std::string& report) {
    axiomatic::SmtOptions so;
    so.model = model == Model::tso ? axiomatic::Model::tso : axiomatic::Model::sc;
    so.all_outcomes = true;
    const auto start = std::chrono::steady_clock::now();
    const axiomatic::SmtResult r = axiomatic::check_program(*prog, so);
    t.smt_s += seconds_since(start);
    ++t.smt_programs;
    t.smt_seconds += r.seconds;
    std::vector<std::string> texts;
    for (const axiomatic::Outcome& o : r.outcomes)
      texts.push_back(o.failed.empty() ? final_state_text(*prog, o.variables, o.registers) : assertions_text(o.failed));
    const std::set<std::string> outcomes(texts.begin(), texts.end());
    bool bad = !r.outcomes_complete;
    if (bad) report += "# smt: stopped at its outcome cap\n";
    for (const std::string& m : minus(ref.outcomes, outcomes)) report += fmt::format("# smt misses: {}\n", m);
    for (const std::string& x : minus(outcomes, ref.outcomes))
      report += fmt::format("# smt reaches what the reference does not: {}\n", x);
    bad |= outcomes != ref.outcomes;
    const std::vector<FollowedPlan> followed = follow_plans(prog, model, r.outcome_plans);
    for (std::size_t i = 0; i < followed.size(); ++i) {
      const FollowedPlan& f = followed[i];
      if (f.failure.empty() && f.outcome == texts[i]) {
        ++t.smt_witnesses;
        continue;
      }
      bad = true;
      report += fmt::format("# smt witness of {}: the engine {}\n", texts[i],
                            f.failure.empty() ? "reached " + f.outcome : "could not follow it: " + f.failure);
    }
    return bad;
  }

  void write_mismatch(const fs::path& path, std::uint64_t seed, Model model, const std::string& text,
                      const std::string& report) {
    // A missed final state becomes the scenario's `exists` condition, so `lockstep check`
    // on the file shows the miss directly.
    std::string extra = "properties: [assertion]\nexpect: pass\n";
    const std::size_t at = report.find("misses: ");
    if (at != std::string::npos) {
      const std::string outcome = report.substr(at + 8, report.find('\n', at) - at - 8);
      if (outcome.rfind("assertion", 0) == 0) {
        extra = "properties: [assertion]\nexpect: {violation: assertion}\n";
      } else {
        extra = fmt::format(
            "properties:\n  - assertion\n  - {{name: missed, exists: \"{}\"}}\nexpect: {{reachable: missed}}\n",
            condition_of(outcome));
      }
    }
    const std::string header = fmt::format("# lockstep_difftest --seed {} --programs 1: a mismatch under {}\n{}", seed,
                                           name_of(model), report);
    write_atomically(path, scenario_text(seed, model, text, header, extra));
    fmt::print("MISMATCH: {}\n{}", path.string(), report);
  }

  const Options& o_;
  std::map<Model, Tally> tally_;
  std::set<std::string> sc_outcomes_;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Differential testing of the model checker against a reference enumerator"};
  app.add_option("--seed", o.seed, "The first program's seed; program i has seed + i");
  app.add_option("--programs", o.programs, "How many programs");
  app.add_option("--workers", o.workers, "dfs worker counts to run each program with");
  app.add_option("--naive-cap", o.naive_cap, "Run naive when the reference counts at most this many interleavings");
  app.add_option("--max-runs", o.max_runs, "Executions cap per dfs search");
  app.add_option("--max-states", o.max_states, "The reference's state cap per program");
  app.add_option("--out", o.out, "Where mismatching programs are written");
  app.add_flag("!--no-classes", o.classes, "Do not count reads-from/coherence classes");
  app.add_flag("!--no-smt", o.smt, "Do not run the axiomatic checker (Z3)");
  app.add_option("--smt-programs", o.smt_programs, "Run the axiomatic checker on the first this many programs only");
  app.add_option("--threads", o.shape.max_threads, "Most threads per program (at least 2)")->check(CLI::Range(2, 8));
  app.add_option("--ops", o.shape.max_ops, "Most visible operations per thread")->check(CLI::Range(1, 32));
  app.add_flag("--exact-shape", o.exact_shape, "Every program has exactly --threads threads of --ops operations");
  app.add_flag("--verbose", o.verbose, "Name the programs whose counts differ from the classes");
  app.add_flag("--keep", o.keep, "Keep every program's scenario file in --out, not only the mismatches");
  app.add_flag("--generate-only", o.generate_only,
               "Write every program's scenario files to --out and check nothing (benchmarks)");
  app.add_option("--file", o.files, "Check these scenario files' thread programs instead of random ones");
  CLI11_PARSE(app, argc, argv);
  if (o.exact_shape) {
    o.shape.min_threads = o.shape.max_threads;
    o.shape.min_ops = o.shape.max_ops;
  }
  const auto start = std::chrono::steady_clock::now();
  Run run(o);
  try {
    if (!o.files.empty()) {
      for (const std::string& f : o.files) run.file(f);
    } else {
      for (std::uint64_t i = 0; i < o.programs; ++i) run.program(o.seed + i);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "lockstep_difftest: {}\n", e.what());
    return 2;
  }
  return run.summary(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}
