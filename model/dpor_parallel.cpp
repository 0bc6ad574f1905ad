#include "model/dpor_parallel.hpp"

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "model/dpor_strategy.hpp"

namespace lockstep::model {

namespace {

// A pool whose waiting threads help: a task that waits for a subtask runs queued tasks on
// its own executor meanwhile (it is between executions, so the executor is free).
class Pool {
 public:
  struct Job {
    std::function<void(Executor&)> fn;
    std::atomic<bool> done{false};
    std::exception_ptr error;
  };

  explicit Pool(const std::vector<Executor*>& executors) {
    for (std::size_t w = 1; w < executors.size(); ++w) threads_.emplace_back([this, ex = executors[w]] { serve(*ex); });
  }
  ~Pool() {
    {
      const std::lock_guard lock(mutex_);
      closing_ = true;
    }
    ready_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  std::shared_ptr<Job> submit(std::function<void(Executor&)> fn) {
    auto job = std::make_shared<Job>();
    job->fn = std::move(fn);
    {
      const std::lock_guard lock(mutex_);
      queue_.push_back(job);
    }
    ready_.notify_one();
    return job;
  }

  void wait(Job& job, Executor& mine) {
    while (!job.done.load(std::memory_order_acquire)) {
      if (const auto other = try_pop()) {
        run(*other, mine);
      } else {
        std::this_thread::yield();
      }
    }
    if (job.error) std::rethrow_exception(job.error);
  }

 private:
  std::shared_ptr<Job> try_pop() {
    const std::lock_guard lock(mutex_);
    if (queue_.empty()) return nullptr;
    auto job = std::move(queue_.front());
    queue_.pop_front();
    return job;
  }
  static void run(Job& job, Executor& ex) {
    try {
      job.fn(ex);
    } catch (...) {
      job.error = std::current_exception();
    }
    job.done.store(true, std::memory_order_release);
  }
  void serve(Executor& ex) {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return closing_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      run(*job, ex);
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool closing_ = false;
  std::vector<std::thread> threads_;
};

// Runs a subtree's root path and its first step, then stops: what that step touched.
class FirstStepProbe final : public sim::Scheduler {
 public:
  explicit FirstStepProbe(const DporStrategy::Subtree& t) : t_(t) {}
  sim::EngineMode mode() const override { return sim::EngineMode::explore; }
  sim::EventLog* event_log() override { return &log_; }
  void begin_execution(std::uint64_t) override { depth_ = 0; }
  std::size_t pick(std::span<const sim::Candidate> candidates) override {
    const std::size_t i = depth_++;
    if (i >= t_.nodes.size()) return kAbandon;
    for (std::size_t k = 0; k < candidates.size(); ++k)
      if (candidates[k].choice == t_.nodes[i].chosen) return k;
    throw std::logic_error("dfs: a subtree's root path does not replay: the scenario is not deterministic");
  }
  std::string name() const override { return "dfs"; }
  // The root path was found by a search that went on past violations: so must its re-run.
  bool continue_after_violation() const override { return true; }
  std::vector<sim::StepAccess> accesses() const {
    const auto a = log_.accesses_of(log_.steps.at(t_.nodes.size() - 1));
    return {a.begin(), a.end()};
  }

 private:
  const DporStrategy::Subtree& t_;
  sim::EventLog log_;
  std::size_t depth_ = 0;
};

struct RunRecord {
  std::uint64_t steps = 0;
  std::uint64_t memory_ops = 0;
  bool abandoned = false;
};

// What a subtree's search found, in the order the sequential search would have.
struct TaskResult {
  std::vector<RunRecord> runs;
  std::optional<sim::Violation> violation;  // found by the last run
  sim::Schedule schedule;
  std::vector<DporStrategy::Request> requests;
  bool capped = false;  // stopped at the run cap with work left
  std::uint64_t internal_errors = 0;  // of this subtree's strategy and its children's
};

class ParallelDfs {
 public:
  ParallelDfs(Pool& pool, const Verdict& verdict, std::uint64_t max_runs, unsigned split_branchings)
      : pool_(pool), verdict_(verdict), max_runs_(max_runs), split_branchings_(split_branchings) {}

  // The root call passes spawn_above = 0 and has it set from its first execution; subtrees
  // inherit the absolute depth.
  TaskResult explore(DporStrategy strategy, Executor& ex, std::size_t spawn_above) {
    TaskResult out = search_subtree(strategy, ex, spawn_above);
    out.internal_errors += strategy.internal_errors();
    return out;
  }

 private:
  TaskResult search_subtree(DporStrategy& strategy, Executor& ex, std::size_t spawn_above) {
    TaskResult out;
    const bool root = spawn_above == 0;
    for (std::uint64_t index = 0;; ++index) {
      sim::ExecutionResult r = ex.run(strategy, index);
      out.runs.push_back(RunRecord{r.steps, r.memory_ops, r.abandoned});
      if (auto v = verdict_(r)) {
        out.violation = std::move(v);
        out.schedule = std::move(r.schedule);
        return out;
      }
      if (root && index == 0) {
        spawn_above = strategy.branching_depth(split_branchings_) + 1;
        spawn_above_ = spawn_above;
      }
      strategy.spawn_above(spawn_above);
      DporStrategy::Next next = strategy.advance();
      while (next == DporStrategy::Next::spawn) {
        if (!explore_spawn_node(strategy, ex, out)) return out;
        strategy.leave_spawn_node();
        next = strategy.backtrack();
      }
      if (next == DporStrategy::Next::done) {
        out.requests = std::move(strategy.requests());
        return out;
      }
      if (out.runs.size() >= max_runs_) {
        out.capped = true;
        return out;
      }
    }
  }

  // The spawn node's remaining branches as parallel subtrees, merged in order. False when
  // the search ends inside them (a violation, or the cap).
  bool explore_spawn_node(DporStrategy& strategy, Executor& ex, TaskResult& out) {
    struct Child {
      std::shared_ptr<Pool::Job> job;
      std::shared_ptr<TaskResult> result;
    };
    std::deque<Child> children;
    const auto first_step = [&ex](const DporStrategy::Subtree& t) {
      FirstStepProbe probe(t);
      ex.run(probe, 0);
      return probe.accesses();
    };
    auto spawn_more = [&] {
      while (auto subtree = strategy.take_branch(first_step)) {
        auto result = std::make_shared<TaskResult>();
        auto job = pool_.submit([this, result, t = std::move(*subtree)](Executor& e) mutable {
          *result = explore(DporStrategy(std::move(t)), e, spawn_above_);
        });
        children.push_back(Child{std::move(job), std::move(result)});
      }
    };
    spawn_more();
    while (!children.empty()) {
      pool_.wait(*children.front().job, ex);
      TaskResult& c = *children.front().result;
      out.runs.insert(out.runs.end(), c.runs.begin(), c.runs.end());
      out.internal_errors += c.internal_errors;
      if (c.violation) {
        out.violation = std::move(c.violation);
        out.schedule = std::move(c.schedule);
        drain(children, ex);
        return false;
      }
      if (c.capped || out.runs.size() >= max_runs_) {
        out.capped = true;
        drain(children, ex);
        return false;
      }
      for (DporStrategy::Request& req : c.requests) {
        if (req.node >= strategy.frozen()) {
          strategy.apply(req);
        } else {
          strategy.requests().push_back(std::move(req));
        }
      }
      children.pop_front();
      spawn_more();  // branches that the merged requests added here
    }
    return true;
  }

  // Subtrees past the end of the search still run (they were started); wait for them so
  // nothing outlives the search.
  template <typename Children>
  void drain(Children& children, Executor& ex) {
    for (auto& c : children) pool_.wait(*c.job, ex);
  }

  Pool& pool_;
  const Verdict& verdict_;
  std::uint64_t max_runs_;
  unsigned split_branchings_;
  std::size_t spawn_above_ = 0;
};

}  // namespace

SearchOutcome search_dfs(const std::vector<Executor*>& executors, const Verdict& verdict, const SearchLimits& limits) {
  if (executors.size() <= 1) {
    DporStrategy strategy;
    return search(strategy, *executors.front(), verdict, limits);
  }
  // Branching nodes whose branches become tasks: enough for every worker to stay busy.
  const auto split = 2 + static_cast<unsigned>(std::ceil(std::log2(static_cast<double>(executors.size()))));
  Pool pool(executors);
  ParallelDfs dfs(pool, verdict, limits.max_runs, split);
  TaskResult root = dfs.explore(DporStrategy(), *executors.front(), 0);

  SearchOutcome o;
  const std::size_t n = std::min<std::size_t>(root.runs.size(), limits.max_runs);
  for (std::size_t i = 0; i < n; ++i) {
    const RunRecord& r = root.runs[i];
    (r.abandoned ? o.pruned : o.executions) += 1;
    o.max_depth = std::max(o.max_depth, r.steps);
    o.sim_ops += r.memory_ops;
  }
  if (root.violation && root.runs.size() <= limits.max_runs) {
    o.violation = std::move(root.violation);
    o.schedule = std::move(root.schedule);
    o.violating_index = root.runs.size() - 1;
    o.violating_steps = root.runs.back().steps;
  }
  o.exhaustive = !root.violation && !root.capped && root.runs.size() <= limits.max_runs;
  o.internal_errors = root.internal_errors;
  return o;
}

}  // namespace lockstep::model
