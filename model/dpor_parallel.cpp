#include "model/dpor_parallel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

#include "model/dpor_first_step.hpp"
#include "model/dpor_pool.hpp"
#include "model/dpor_strategy.hpp"
#include "model/dpor_wire.hpp"
#include "model/run_groups.hpp"
#include "model/unit_cache.hpp"
#include "model/work_units.hpp"

namespace lockstep::model {

namespace {

// The pool, the first-step probe and the wire codec live in files of their own.
using namespace parallel;

struct Frame;

// A search's branches handed out early and not merged yet: by node, in the order handed out.
using EarlyBranches = std::vector<std::pair<std::size_t, std::vector<DporStrategy::Subtree>>>;

// A subtree's task as its parent's frame sees it. Guarded by that frame's mutex.
struct ChildTask {
  std::shared_ptr<Pool::Job> job;
  std::string unit;  // its unit's encoding, with a unit cache (a running parent's state names it)
  std::vector<DporStrategy::Request> published;  // its requests so far: a prefix of result.requests
  std::size_t applied = 0;                       // of them, merged into the parent
  bool finished = false;
  std::exception_ptr error;
  TaskResult result;              // once finished
  DporStrategy::Subtree subtree;  // what it searches, to search again where the cap cuts its runs
  // Runs made so far in its subtree, at any depth (added 64 at a time, runs_before).
  std::atomic<std::uint64_t> total{0};
};

// How a subtree's search reaches its parent: the parent's frame, its own entry there, and
// how many of its requests it has handed up. The root search has no parent. With a unit
// cache, `unit` is the subtree's unit (its key there; null for the root).
struct Upward {
  Upward() = default;
  Upward(Frame* f, ChildTask* s, const std::string* u) : frame(f), self(s), unit(u) {}
  Frame* frame = nullptr;
  ChildTask* self = nullptr;
  std::size_t published = 0;
  const std::string* unit = nullptr;
  // The search's runs so far, its subtrees' merged ones included: all of them come before
  // its unmerged subtrees in depth-first order (read by those, runs_before).
  std::atomic<std::uint64_t> runs{0};
  std::uint64_t unreported = 0;  // its own runs not yet added to its ancestors' totals
  // Its spawn nodes' frames, by node, for its subtrees' runs_before: registered before a
  // frame is used and unregistered before it is destroyed, under the mutex.
  std::mutex frames_mutex;
  std::map<std::size_t, Frame*> frames;
};

// A spawn node being explored: its owner's strategy and result, its children in the order
// the sequential search meets them. Whoever holds the mutex may merge (pump): the owner's
// thread, or a child's thread when the child publishes requests or finishes.
struct Frame {
  Frame(std::size_t n, DporStrategy& s, TaskResult& o, Upward& u) : node(n), strategy(s), out(o), up(u) {}
  std::size_t node;
  std::mutex mutex;
  DporStrategy& strategy;
  TaskResult& out;
  Upward& up;
  std::deque<std::shared_ptr<ChildTask>> children;
  // Whether the owner's search has backtracked to the node: before, its children are early
  // ones (DporStrategy::take_early), which run but are not merged yet.
  bool open = false;
  bool stopped = false;  // a violation, the cap or an error ended the search in here
  std::exception_ptr error;
  Pool::Waiter* waiter = nullptr;  // the owner's, while it waits here (explore_spawn_node)
};

class ParallelDfs {
 public:
  // With `cache`, finished subtrees' answers are kept there, and a subtree already answered
  // there is not run again (a checkpoint's, model/unit_cache.hpp). With `remote_every_s`
  // above 0 too, subtrees on remote lanes report their progress into it that often.
  ParallelDfs(Pool& pool, const Verdict& verdict, std::uint64_t max_runs, unsigned split_branchings,
              std::size_t spawn_above = 0, UnitCache* cache = nullptr, double remote_every_s = 0,
              std::uint64_t min_piece_runs = SearchLimits{}.min_piece_runs)
      : pool_(pool),
        verdict_(verdict),
        max_runs_(max_runs),
        split_branchings_(split_branchings),
        spawn_above_(spawn_above),
        cache_(cache),
        remote_every_s_(cache != nullptr ? remote_every_s : 0),
        min_piece_runs_(min_piece_runs) {}

  // It searches a unit for another rank, whose place in the whole search is not known here:
  // where the cap falls inside it, that rank's caller searches it again (pump).
  void serving_a_unit() { whole_search_ = false; }

  // The root call passes spawn_above = 0 and has it set from its first execution; subtrees
  // inherit the absolute depth.
  // `so_far`: what a running unit had done when its state was saved (resumed from there).
  // Before a checkpoint, on the saving thread: every search waiting at a spawn node leaves its
  // state (explore_spawn_node).
  void leave_waiting_states() {
    const std::lock_guard lock(waiting_mutex_);
    for (const auto& [frame, leave] : waiting_) leave();
  }

  // First-step probes run, their thread-seconds, and branches split on demand
  // (SearchOutcome::Parallel).
  std::uint64_t probes() const { return probes_.load(std::memory_order_relaxed); }
  double probe_s() const { return static_cast<double>(probe_ns_.load(std::memory_order_relaxed)) * 1e-9; }
  std::uint64_t on_demand() const { return on_demand_.load(std::memory_order_relaxed); }

  // The whole search. With a unit cache, the root leaves its state as running units do, and
  // goes on from a state found there (a checkpoint's).
  TaskResult explore_root(Executor& ex) {
    Upward root;
    if (cache_ == nullptr) return explore(DporStrategy(), ex, 0, root);
    root.unit = &root_key_;
    if (const std::optional<std::string> state = cache_->find_running(root_key_)) return go_on(*state, ex, root, true);
    return explore(DporStrategy(), ex, 0, root);
  }

  // Goes on with a unit (or the `root`) from its running state (a checkpoint's, or one sent
  // with the unit).
  TaskResult go_on(const std::string& state, Executor& ex, Upward& up, bool root = false) {
    Resumed r = resume_state(from_bytes(state));
    // The root's is set here, before any subtree reads it; a unit's is its search's already
    // (and other threads read it meanwhile).
    if (root) spawn_above_ = r.spawn_above;
    return explore(std::move(r.strategy), ex, r.spawn_above, up, std::move(r.so_far), &r.early, r.at_spawn_node);
  }

  // `early`: its branches handed out early then, by node, to hand out again first.
  // `at_spawn_node`: it was merging its last node's subtrees, and goes on doing so.
  TaskResult explore(DporStrategy strategy, Executor& ex, std::size_t spawn_above, Upward& up, TaskResult so_far = {},
                     const EarlyBranches* early = nullptr, bool at_spawn_node = false) {
    TaskResult out = search_subtree(strategy, ex, spawn_above, up, std::move(so_far), early, at_spawn_node);
    out.internal_errors += strategy.internal_errors();
    return out;
  }

 private:
  using Frames = std::map<std::size_t, std::unique_ptr<Frame>>;  // by node

  TaskResult search_subtree(DporStrategy& strategy, Executor& ex, std::size_t spawn_above, Upward& up,
                            TaskResult so_far, const EarlyBranches* early, bool at_spawn_node) {
    TaskResult out = std::move(so_far);
    note_runs(up, out.runs.size());
    Frames frames;
    // Whatever way the search ends, its frames leave the registry before they are destroyed,
    // and its last runs count in its ancestors' totals.
    struct Unregister {
      Upward& up;
      ~Unregister() {
        report_runs(up);
        const std::lock_guard lock(up.frames_mutex);
        up.frames.clear();
      }
    } unregister{up};
    std::uint64_t generation = cache_ != nullptr ? cache_->generation() : 0;
    // Leaves this search's state for the checkpoint when a save has been made since the last
    // time (while it waits at a spawn node, the saving thread does, explore_spawn_node).
    const auto leave_if_due = [&] {
      if (up.unit == nullptr || cache_->generation() == generation) return;
      generation = cache_->generation();
      leave_state(strategy, out, up, frames, spawn_above, nullptr);
    };
    if (early != nullptr) {  // in the order they were handed out: merged in that order
      for (const auto& [node, subtrees] : *early) {
        Frame& f = frame_at(frames, node, strategy, out, up);
        const std::lock_guard lock(f.mutex);
        for (const DporStrategy::Subtree& t : subtrees) submit(f, t);
      }
    }
    const bool root = spawn_above == 0;
    strategy.spawn_above(spawn_above);
    if (at_spawn_node) {
      // Backtracking reads what each step of the current branch touched, from the log of the
      // last execution: none ran in this process yet, so the branch runs once to log them.
      const DporStrategy::Subtree branch = strategy.branch();
      FirstStepProbe replay(branch, *strategy.event_log(), 0);
      ex.run(replay, 0);
    }
    for (std::uint64_t index = 0;; ++index) {
      // A search resumed at a spawn node goes on merging there, before any execution.
      DporStrategy::Next next = std::exchange(at_spawn_node, false)
                                    ? DporStrategy::Next::spawn
                                    : run_one(strategy, ex, index, out, frames, up, root, spawn_above);
      if (next == DporStrategy::Next::done && out.violation) return out;
      while (next == DporStrategy::Next::spawn) {
        Frame& f = frame_at(frames, strategy.spawn_node(), strategy, out, up);
        std::function<void()> leave;
        if (up.unit != nullptr) leave = [&, open = &f] { leave_state(strategy, out, up, frames, spawn_above, open); };
        if (!explore_spawn_node(f, ex, std::move(leave))) {
          drain(frames, up, ex);
          return out;
        }
        drop_frames(frames, up, strategy.spawn_node());
        strategy.leave_spawn_node();
        next = strategy.backtrack();
      }
      if (next == DporStrategy::Next::done) {
        out.requests = std::move(strategy.requests());
        return out;
      }
      // The cap counts runs in depth-first order: this subtree stops once its own runs and
      // those known to come before it reach it (the merge reads no further). Checked every
      // 64 runs: without it, every subtree of a capped search ran to the cap on its own (a
      // capped search of mc-four-threads-7 under TSO, 300,000 runs, took 6 times the CPU of
      // one worker on 2).
      if (out.runs.size() >= max_runs_ || (index % 64 == 63 && runs_before(up) + out.runs.size() >= max_runs_)) {
        out.capped = true;
        drain(frames, up, ex);
        return out;
      }
      leave_if_due();
    }
  }

  // Runs that come before a search's next one in depth-first order, at least: up the chain
  // of its ancestors, each one's runs so far (its own and its merged subtrees' come before
  // its unmerged ones) and those of the siblings handed out before it at the same node.
  // Locks each frame of the chain in turn; the caller holds none.
  //
  // And the subtrees of the ancestor's frames at deeper nodes: they lie below the branch it
  // explores through this frame's node, which comes before the branches handed out there.
  // The owner's runs are read first: a merge moves a child's runs to its owner and then drops
  // the child, so read in this order a run may be missed, never counted twice (a count too
  // high would stop a subtree the merge needs).
  static std::uint64_t runs_before(const Upward& up) {
    std::uint64_t n = 0;
    for (const Upward* u = &up; u->frame != nullptr; u = &u->frame->up) {
      Frame& mine = *u->frame;
      Upward& owner = mine.up;
      const std::lock_guard registry(owner.frames_mutex);
      n += owner.runs.load(std::memory_order_relaxed);
      for (auto it = owner.frames.upper_bound(mine.node); it != owner.frames.end(); ++it) {
        const std::lock_guard lock(it->second->mutex);
        for (const auto& c : it->second->children) n += c->total.load(std::memory_order_relaxed);
      }
      const std::lock_guard lock(mine.mutex);
      for (const auto& c : mine.children) {
        if (c.get() == u->self) break;
        n += c->total.load(std::memory_order_relaxed);
      }
    }
    return n;
  }

  // The first `n` runs of subtree `t`, as one worker searches them: where the cap falls
  // inside a subtree whose runs were folded (pump).
  Runs first_runs(const DporStrategy::Subtree& t, std::uint64_t n, Executor& ex) const {
    DporStrategy strategy(t);
    SearchLimits limits;
    limits.max_runs = n;
    const SearchOutcome o = search(strategy, ex, verdict_, limits);
    if (o.executions + o.pruned != n || o.violation)
      throw std::logic_error("dfs: a subtree searched again ran differently");
    Runs runs;
    runs.assign_folded(o.executions, o.pruned, o.max_depth, o.sim_ops);
    return runs;
  }

  static void note_runs(Upward& up, std::uint64_t n) { up.runs.store(n, std::memory_order_relaxed); }

  // Adds a search's own runs since the last call to the totals of its subtree and of every
  // subtree it lies in (up to the root, which keeps none).
  static void report_runs(Upward& up) {
    for (Upward* u = &up; u->self != nullptr; u = &u->frame->up)
      u->self->total.fetch_add(up.unreported, std::memory_order_relaxed);
    up.unreported = 0;
  }

  // One execution of a search and its analysis: what to do next. A violation ends the search
  // (`done`, with out.violation set, every subtree it started finished).
  DporStrategy::Next run_one(DporStrategy& strategy, Executor& ex, std::uint64_t index, TaskResult& out, Frames& frames,
                             Upward& up, bool root, std::size_t& spawn_above) {
    {
      sim::ExecutionResult r = ex.run(strategy, index);
      out.runs.push(RunRecord{r.steps, r.memory_ops, r.abandoned});
      out.runs.fold_all();
      note_runs(up, out.runs.size());
      if (++up.unreported == 64) report_runs(up);
      if (auto v = verdict_(r)) {
        out.violation = std::move(v);
        out.schedule = std::move(r.schedule);
        drain(frames, up, ex);
        return DporStrategy::Next::done;
      }
    }
    strategy.analyse();
    if (root && index == 0) {
      // Nodes above the split depth spawn: with split levels, the first ones with a branch
      // left after the first execution, but not below half its length (a program whose first
      // execution raced only near its end, fib_bench's, would otherwise hand out subtrees of
      // a few executions each, costing more than they run). Without, the root node only:
      // the rest is split on demand.
      spawn_above =
          split_branchings_ == 0 ? 1 : std::min(strategy.pending_depth(split_branchings_), strategy.depth() / 2) + 1;
      spawn_above_ = spawn_above;
    }
    strategy.spawn_above(spawn_above);
    spawn_early(strategy, frames, out, up, ex);
    split_on_demand(strategy, frames, out, up, ex);
    const DporStrategy::Next next = strategy.backtrack();
    publish(up, strategy, ex);
    return next;
  }

  // A running unit's (or the root's) state for the checkpoint, between two executions: its
  // search's, ready for the next one; its runs so far; and the branches it has handed out
  // early (DporStrategy::take_early) and not merged yet, by node, which a resumed search hands
  // out again before it goes on (they are units: finished ones are answered from the cache).
  // Left by the search's own thread between executions (no frame open), or by the saving
  // thread while the search waits at the spawn node of `open`: then that frame's unmerged
  // subtrees are listed with the early ones, and the resumed search merges there first.
  void leave_state(const DporStrategy& strategy, const TaskResult& out, const Upward& up, Frames& frames,
                   std::size_t spawn_above, const Frame* open) {
    // Every frame of this search is locked, in the map's order (whoever takes more than one
    // of them takes them in that order): their children would merge into `out` and `strategy`
    // meanwhile. `open`: the frame of the spawn node the search waits at (explore_spawn_node),
    // whose search may have stopped or merged everything since it asked.
    std::vector<std::unique_lock<std::mutex>> locks;
    for (auto& [node, f] : frames) locks.emplace_back(f->mutex);
    if (open != nullptr && (open->stopped || open->children.empty())) return;
    nlohmann::json early = nlohmann::json::array();
    std::set<std::string> unmerged;
    for (auto& [node, f] : frames) {
      nlohmann::json units = nlohmann::json::array();
      for (const auto& c : f->children) {
        units.push_back(nlohmann::json::binary(std::vector<std::uint8_t>(c->unit.begin(), c->unit.end())));
        unmerged.insert(c->unit);
      }
      early.push_back({node, std::move(units)});
    }
    const nlohmann::json state = {{"strategy", strategy.save_subtree_state()},
                                  {"runs", pack(out.runs)},
                                  {"internal_errors", out.internal_errors},
                                  {"spawn_above", spawn_above},
                                  {"early", std::move(early)},
                                  {"at_spawn_node", open != nullptr}};
    cache_->put_running(*up.unit, to_bytes(state), up.frame != nullptr ? up.frame->up.unit : nullptr, unmerged);
  }

  struct Resumed {
    DporStrategy strategy;
    TaskResult so_far;
    EarlyBranches early;
    std::size_t spawn_above = 0;
    bool at_spawn_node = false;  // its last node spawns, and its frame was being merged
  };
  // A running unit resumed: its search, what it had done, its early branches.
  static Resumed resume_state(const nlohmann::json& state) {
    Resumed r{
        DporStrategy::restore_subtree_state(state.at("strategy")), {}, {}, state.at("spawn_above").get<std::size_t>()};
    r.so_far.runs = unpack(state.at("runs"));
    r.so_far.internal_errors = state.at("internal_errors").get<std::uint64_t>();
    r.at_spawn_node = state.at("at_spawn_node").get<bool>();
    for (const auto& e : state.at("early")) {
      auto& subtrees = r.early.emplace_back(e.at(0).get<std::size_t>(), std::vector<DporStrategy::Subtree>{}).second;
      for (const auto& u : e.at(1)) {
        const std::vector<std::uint8_t>& bytes = u.get_binary();
        subtrees.push_back(decode_dpor_subtree(from_bytes(std::string(bytes.begin(), bytes.end())).at("subtree")));
      }
    }
    return r;
  }

  static Frame& frame_at(Frames& frames, std::size_t node, DporStrategy& strategy, TaskResult& out, Upward& up) {
    std::unique_ptr<Frame>& f = frames[node];
    if (!f) {
      f = std::make_unique<Frame>(node, strategy, out, up);
      const std::lock_guard lock(up.frames_mutex);
      up.frames[node] = f.get();
    }
    return *f;
  }

  // Removes the frame at `node` (every frame, with none), unregistered first.
  static void drop_frames(Frames& frames, Upward& up, std::optional<std::size_t> node = std::nullopt) {
    {
      const std::lock_guard lock(up.frames_mutex);
      if (node) {
        up.frames.erase(*node);
      } else {
        up.frames.clear();
      }
    }
    if (node) {
      frames.erase(*node);
    } else {
      frames.clear();
    }
  }

  // Every branch the last execution's races added above the spawn depth starts now, as a
  // subtree, while this search goes on below (DporStrategy::take_early); it is merged when
  // the search backtracks to its node.
  void spawn_early(DporStrategy& strategy, Frames& frames, TaskResult& out, Upward& up, Executor& ex) {
    const std::size_t end = std::min(strategy.depth(), strategy.spawn_depth());
    const DporStrategy::FirstStep probe = first_step(ex);
    for (std::size_t i = strategy.frozen_depth(); i < end; ++i) {
      while (auto subtree = strategy.take_early(i, probe)) {
        Frame& f = frame_at(frames, i, strategy, out, up);
        const std::lock_guard lock(f.mutex);
        submit(f, std::move(*subtree));
      }
    }
  }

  // When a thread of this process waits with nothing to run (and no other search has claimed
  // it), the search hands it the next branch at its shallowest node with one left below the
  // spawn depth: the largest piece of what it has left. The split levels alone leave threads
  // idle once the branches above them are out and their subtrees run, most when those are
  // small: fib_bench's 2,190 subtrees of about 100 executions each kept one of 2 workers
  // idle 18% of the time. Whichever search splits, the node merges as the spawn depth's
  // nodes do (take_early), so the results do not depend on when or where this happens.
  //
  // Only a piece that looks worth its cost is handed out: one at a node whose branch has run
  // min_piece_runs_ executions already (its siblings are likely as large). A subtree costs about
  // 70 us of CPU to hand out, start and merge (the probe, a fresh search and its first
  // execution's analysis, the wake-ups; 16 workers on this 2-vCPU VM), tens of executions.
  // Without the floor, 16 workers (on 2 vCPUs) cut mc-four-threads-7-tso into 177,551
  // subtrees of 12 executions on average (fib_bench: 58,293 of 4) and spent 2.4 times one
  // worker's CPU; with 64, 6,498 subtrees and 1.4 times. 2 and 4 workers: no change in time
  // or idle share.
  // [guess] 64 (SearchLimits::min_piece_runs) is the value from those runs, not tuned on a
  // machine with many cores.
  void split_on_demand(DporStrategy& strategy, Frames& frames, TaskResult& out, Upward& up, Executor& ex) {
    if (!pool_.idle()) return;
    const std::optional<std::size_t> node = strategy.shallowest_untaken(strategy.spawn_depth(), min_piece_runs_);
    if (!node || !pool_.claim()) return;
    struct Release {
      Pool& pool;
      ~Release() { pool.release(); }
    } release{pool_};
    if (auto subtree = strategy.take_at(*node, first_step(ex))) {
      Frame& f = frame_at(frames, *node, strategy, out, up);
      const std::lock_guard lock(f.mutex);
      submit(f, std::move(*subtree));
      on_demand_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  // Waits for every subtree started in `frames` (a violation or the cap ended the search).
  void drain(Frames& frames, Upward& up, Executor& ex) {
    for (auto& [node, f] : frames) {
      std::vector<std::shared_ptr<Pool::Job>> running;
      {
        const std::lock_guard lock(f->mutex);
        f->stopped = true;
        for (const auto& c : f->children) running.push_back(c->job);
      }
      for (const auto& job : running) pool_.wait(*job, ex);
    }
    drop_frames(frames, up);
  }

  DporStrategy::FirstStep first_step(Executor& ex) {
    return [this, &ex](const DporStrategy::Subtree& t) {
      // One log per thread, kept from probe to probe: a fresh one grew its vectors from
      // nothing on each of a search's tens of thousands of probes.
      thread_local sim::EventLog log;
      const auto since = std::chrono::steady_clock::now();
      FirstStepProbe probe(t, log, kProbeTail);
      ex.run(probe, 0);
      probe_ns_.fetch_add(
          static_cast<std::uint64_t>(
              std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - since).count()),
          std::memory_order_relaxed);
      probes_.fetch_add(1, std::memory_order_relaxed);
      return probe.accesses();
    };
  }

  // Hands the requests `strategy` found since the last call to the parent's frame, and
  // merges there what can be merged. The caller is between executions (its executor is free
  // for the parent's first-step probes) and holds no lock but, perhaps, frames below.
  void publish(Upward& up, DporStrategy& strategy, Executor& ex) {
    const std::vector<DporStrategy::Request>& all = strategy.requests();
    if (up.frame == nullptr || up.published == all.size()) return;
    const std::lock_guard lock(up.frame->mutex);
    up.self->published.insert(up.self->published.end(), all.begin() + static_cast<std::ptrdiff_t>(up.published),
                              all.end());
    up.published = all.size();
    pump(*up.frame, ex);
  }

  // The spawn node's remaining branches as parallel subtrees, merged in order. False when
  // the search ends inside them (a violation, or the cap).
  //
  // Merging does not wait for a subtree to finish. The first child (every sibling before it
  // merged) is merged as it runs: the requests it has published go to this node at once (or
  // up, to the frames above), so the branches they add start while it still runs, on
  // whichever worker is free. That is the order the sequential search applies requests in
  // (a child's in its order, children in order), and a branch taken early gets the sleep set
  // the sequential search gives it: every branch taken here before it and no later one
  // (backtrack sets only grow at their end, and whether a request is covered depends on the
  // backtrack set, which taking a branch early does not change).
  //
  // Meanwhile this thread helps: it may run other units for a long time. So while it waits
  // here, with a unit cache, the saving thread leaves this search's state (`leave`, under its
  // frames' locks) before each checkpoint: nothing but merging, under f.mutex, changes the
  // search until it leaves (waiting_ registers it; unregistering waits for a leave under way).
  bool explore_spawn_node(Frame& f, Executor& ex, std::function<void()> leave) {
    Pool::Waiter waiter;  // signalled when a child finishes
    {
      const std::lock_guard lock(f.mutex);
      f.open = true;
      f.waiter = &waiter;
    }
    if (leave) {
      const std::lock_guard lock(waiting_mutex_);
      waiting_.emplace(&f, std::move(leave));
    }
    for (;;) {
      {
        const std::lock_guard lock(f.mutex);
        pump(f, ex);
        if (f.stopped || f.children.empty()) {
          f.waiter = nullptr;
          break;
        }
      }
      pool_.help(ex, waiter);
    }
    {
      const std::lock_guard lock(waiting_mutex_);
      waiting_.erase(&f);
    }
    // Children past the end of the search still run (they were started): wait for them, so
    // nothing outlives the frame they merge into.
    std::vector<std::shared_ptr<Pool::Job>> running;
    {
      const std::lock_guard lock(f.mutex);
      for (const auto& c : f.children) running.push_back(c->job);
    }
    for (const auto& job : running) pool_.wait(*job, ex);
    if (f.error) std::rethrow_exception(f.error);
    return !f.stopped;
  }

  // Under f.mutex: merges the first children as far as they go (all of a finished one, what
  // an unfinished one has published), hands forwarded requests up, starts new branches.
  void pump(Frame& f, Executor& ex) {
    if (!f.open) return;  // early subtrees wait for their node's own search below them
    bool merged = false;
    while (!f.stopped && !f.children.empty()) {
      ChildTask& c = *f.children.front();
      if (c.error) {
        f.error = c.error;
        f.stopped = true;
        break;
      }
      const std::vector<DporStrategy::Request>& requests = c.finished ? c.result.requests : c.published;
      if (c.finished && c.applied > requests.size() && !c.result.violation && !c.result.capped)
        throw std::logic_error("dfs: a subtree published requests it did not report");
      for (std::size_t i = c.applied; i < requests.size(); ++i) {
        const DporStrategy::Request& req = requests[i];
        if (req.node >= f.strategy.frozen()) {
          f.strategy.apply(req);
        } else {
          f.strategy.forward(req);
        }
        merged = true;
      }
      c.applied = std::max(c.applied, requests.size());
      if (!c.finished) break;
      TaskResult& r = c.result;
      // The root's runs have their final places: where the cap falls inside a child's runs,
      // which are folded (Runs::fold_all), that child's first runs up to it are searched
      // again to count them exactly, as one worker would have.
      // Runs past the cap are counted, never read, and never folded with those before it.
      const bool root = f.up.frame == nullptr && whole_search_;
      const std::uint64_t room = max_runs_ - std::min(max_runs_, f.out.runs.size());
      if (root && r.runs.size() > room && room > 0) {
        const std::uint64_t beyond = r.runs.size() - room;
        r.runs = first_runs(c.subtree, room, ex);
        r.runs.push(RunRecord{0, 0, false}, beyond);
      }
      f.out.runs.append(std::move(r.runs));
      if (!root || f.out.runs.size() <= max_runs_) f.out.runs.fold_all();
      note_runs(f.up, f.out.runs.size());
      f.out.internal_errors += r.internal_errors;
      if (r.violation) {
        f.out.violation = std::move(r.violation);
        f.out.schedule = std::move(r.schedule);
        f.stopped = true;
      } else if (r.capped || f.out.runs.size() > max_runs_) {
        // Past the cap, work was left. At the cap exactly, the search goes on: its next run
        // (or none, when it is done: then exhaustive, as one worker says) decides.
        f.out.capped = true;
        f.stopped = true;
      }
      f.children.pop_front();
    }
    if (f.stopped) return;
    if (merged) publish(f.up, f.strategy, ex);
    spawn_more(f, ex);
  }

  // Under f.mutex: every branch now known at the spawn node becomes a task.
  void spawn_more(Frame& f, Executor& ex) {
    while (auto subtree = f.strategy.take_branch(first_step(ex))) submit(f, std::move(*subtree));
  }

  // Under f.mutex: `t` as a task, the last of f's children.
  void submit(Frame& f, DporStrategy::Subtree t) {
    auto child = std::make_shared<ChildTask>();
    child->subtree = t;
    if (cache_ != nullptr) child->unit = to_bytes(encode_unit(t));
    f.children.push_back(child);
    // A resumed unit with subtrees of its own in the cache goes on here, not on a remote
    // lane: resumed here, it hands those subtrees out again to every thread and lane, where
    // on a lane its rank would run them all.
    const bool local_only = cache_ != nullptr && cache_->is_running(child->unit) && cache_->has_children(child->unit);
    child->job = pool_.submit(
        [this, &f, child, t = std::move(t)](Executor& e, const Pool::Remote* remote) mutable {
          TaskResult r;
          std::exception_ptr error;
          try {
            // Without a cache (whose keys must not depend on timing), a unit for a lane carries the
            // cap less the runs known to come before it, so that the lane stops where this
            // process would (search_subtree).
            std::string unit;
            Upward up(&f, child.get(), cache_ != nullptr ? &unit : nullptr);
            if (cache_ != nullptr) {
              unit = child->unit;
            } else if (remote != nullptr) {
              const std::uint64_t before = runs_before(up);
              unit = to_bytes(encode_unit(t, before >= max_runs_ ? 1 : max_runs_ - before));
            }
            const std::optional<std::string> known = cache_ != nullptr ? cache_->find(unit) : std::nullopt;
            const bool running = cache_ != nullptr && !known && cache_->is_running(unit);
            // What a remote lane reports of the unit while it runs there.
            RemoteLanes::Progress progress{remote_every_s_, {}};
            if (remote != nullptr && remote_every_s_ > 0)
              progress.receive = [this, &unit, parent = f.up.unit](const std::string& units) {
                cache_->merge_remote(unit, parent, from_bytes(units));
              };
            const RemoteLanes::Progress* reporting = progress.receive ? &progress : nullptr;
            const RemoteLanes::Lending lending = lend_here();
            // On a remote lane, or from the cache, the subtree's requests come with its result,
            // not as it runs: merged in the same order, only later (the frame waits for its
            // first child anyway).
            if (known) {
              r = decode_result(from_bytes(*known));
            } else if (running && remote != nullptr) {
              // Goes on from its state on the lane's rank, which gets the state and everything
              // known below the unit (its subtrees' answers and states), so that rank stays busy.
              const nlohmann::json resumed = {{"kind", "dfs-resumed"},
                                              {"unit", nlohmann::json::binary({unit.begin(), unit.end()})},
                                              {"below", cache_->save_from(unit)}};
              r = decode_result(from_bytes((*remote)(to_bytes(resumed), reporting, &lending)));
            } else if (running) {
              r = go_on(*cache_->find_running(unit), e, up);
            } else if (remote != nullptr) {
              r = decode_result(from_bytes((*remote)(unit, reporting, &lending)));
            } else {
              r = explore(DporStrategy(std::move(t)), e, spawn_above_, up);
            }
            if (cache_ != nullptr && !known) cache_->put(unit, to_bytes(encode_result(r)), f.up.unit);
          } catch (...) {
            error = std::current_exception();
          }
          const std::lock_guard lock(f.mutex);
          child->result = std::move(r);
          child->error = error;
          child->finished = true;
          pump(f, e);
          if (f.waiter != nullptr) pool_.signal(*f.waiter);
        },
        local_only);
  }

  // What a remote lane lends back runs on whichever thread here is idle: a worker serves it
  // as a unit here; a lane's thread sends it to its rank, which may lend from it in turn. So
  // a rank left without work (the queue here is empty once a few big units are out) gets
  // part of another rank's unit. When only rank 0's workers took lent work, 16 ranks of one
  // worker each took 8.4 s on mc-four-threads-7-tso against 13.8 s on one: 10 units went
  // out, and all 1,299 lent subtrees ran on rank 0's one worker (bench/README.md).
  RemoteLanes::Lending lend_here() {
    return {[this] { return pool_.idle(); }, [this] { return pool_.claim(); }, [this] { pool_.release(); },
            [this](std::string unit) -> std::function<std::optional<std::string>()> {
              auto answer = std::make_shared<std::string>();
              auto job = pool_.submit([this, unit = std::move(unit), answer](Executor& e, const Pool::Remote* remote) {
                if (remote != nullptr) {
                  const RemoteLanes::Lending lending = lend_here();
                  *answer = (*remote)(unit, nullptr, &lending);
                } else {
                  UnitContext context{{&e}, verdict_, nullptr};
                  context.min_piece_runs = min_piece_runs_;
                  *answer = serve_unit(unit, context);
                }
              });
              return [job, answer]() -> std::optional<std::string> {
                if (!job->done.load(std::memory_order_acquire)) return std::nullopt;
                if (job->error) std::rethrow_exception(job->error);
                return *answer;
              };
            }};
  }

  nlohmann::json encode_unit(const DporStrategy::Subtree& t) const { return encode_unit(t, max_runs_); }
  nlohmann::json encode_unit(const DporStrategy::Subtree& t, std::uint64_t max_runs) const {
    return {{"kind", "dfs"},
            {"subtree", encode_subtree(t)},
            {"spawn_above", spawn_above_},
            {"max_runs", max_runs},
            {"split", split_branchings_}};
  }

  Pool& pool_;
  const Verdict& verdict_;
  std::uint64_t max_runs_;
  unsigned split_branchings_;
  std::size_t spawn_above_ = 0;
  UnitCache* cache_ = nullptr;
  double remote_every_s_ = 0;
  std::uint64_t min_piece_runs_;  // split_on_demand
  bool whole_search_ = true;      // false: a unit served for another rank (serving_a_unit)
  std::mutex waiting_mutex_;
  std::map<const Frame*, std::function<void()>> waiting_;  // searches waiting at a spawn node
  std::atomic<std::uint64_t> probes_{0};
  std::atomic<std::uint64_t> on_demand_{0};
  std::atomic<std::uint64_t> probe_ns_{0};
  const std::string root_key_ = to_bytes(nlohmann::json{{"kind", "dfs"}, {"root", true}});  // a MessagePack map
};

}  // namespace

namespace {

// Runs a dfs unit for another rank: fresh, or from its state when `cache` holds one. With
// progress asked for (and a cache), the unit runs as a checkpointed search whose root is the
// unit as its caller names it (`key`), and what each save would write is reported instead.
nlohmann::json serve_dfs(const nlohmann::json& unit, const std::string& key, UnitCache* cache,
                         const UnitContext& context) {
  Pool pool(context.executors, nullptr, {}, context.lend_back, context.lend_executor);
  const unsigned split = unit.at("split").get<unsigned>();
  const std::size_t spawn_above = unit.at("spawn_above").get<std::size_t>();
  const RemoteLanes::Progress* progress =
      cache != nullptr && context.progress != nullptr && context.progress->every_s > 0 ? context.progress : nullptr;
  ParallelDfs dfs(pool, context.verdict, unit.at("max_runs").get<std::uint64_t>(), split, spawn_above, cache, 0,
                  context.min_piece_runs);
  dfs.serving_a_unit();
  Upward up;
  if (cache != nullptr) up.unit = &key;
  CheckpointPolicy reporting;
  if (progress != nullptr) {
    reporting.every_s = progress->every_s;
    reporting.save = [progress](const SearchCheckpoint& c) { progress->receive(to_bytes(*c.units)); };
  }
  std::unique_ptr<PeriodicSave> reporter;
  if (progress != nullptr)
    reporter = save_periodically(&reporting, *cache, split, [&dfs] { dfs.leave_waiting_states(); });
  Executor& ex = *context.executors.front();
  const std::optional<std::string> state = cache != nullptr ? cache->find_running(key) : std::nullopt;
  std::optional<TaskResult> r = state ? std::optional(dfs.go_on(*state, ex, up)) : std::nullopt;
  if (!r) r = dfs.explore(DporStrategy(decode_dpor_subtree(unit.at("subtree"))), ex, spawn_above, up);
  if (reporter) reporter->finish();  // nothing is reported after the answer
  return encode_result(*r);
}

}  // namespace

nlohmann::json serve_dfs_unit(const nlohmann::json& unit, const std::string& key, const UnitContext& context) {
  UnitCache cache;
  const bool reporting = context.progress != nullptr && context.progress->every_s > 0;
  return serve_dfs(unit, key, reporting ? &cache : nullptr, context);
}

nlohmann::json serve_resumed_dfs_unit(const nlohmann::json& resumed, const UnitContext& context) {
  const std::vector<std::uint8_t>& bytes = resumed.at("unit").get_binary();
  const std::string key(bytes.begin(), bytes.end());
  UnitCache cache;
  UnitCache::load(resumed.at("below"), cache);
  if (!cache.is_running(key)) throw std::runtime_error("work unit: a resumed dfs unit without its state");
  return serve_dfs(from_bytes(key), key, &cache, context);
}

SearchOutcome search_dfs(const std::vector<Executor*>& executors, const Verdict& verdict, const SearchLimits& limits,
                         RemoteLanes* lanes, const std::vector<Executor*>& lane_executors,
                         const CheckpointPolicy* checkpoint) {
  const std::size_t remote = lanes == nullptr ? 0 : lanes->size();
  const SearchCheckpoint* resume = checkpoint != nullptr && checkpoint->resume ? &*checkpoint->resume : nullptr;
  if (resume != nullptr && !resume->units)
    throw std::invalid_argument("search_dfs: a one-worker checkpoint resumes a one-worker search");
  if (executors.size() <= 1 && remote == 0 && checkpoint == nullptr) {
    DporStrategy strategy;
    return search(strategy, *executors.front(), verdict, limits);
  }
  // Branching levels whose branches become tasks as soon as they are known (take_early): none
  // by default, the rest being split on demand, when a thread or lane is idle
  // (split_on_demand). Split levels fixed in advance (1 + log2 N of them kept N workers
  // busy) left threads idle wherever the work below them was uneven, and cost a task per
  // branch where it was not: fib_bench on 2 workers, 2,190 tasks and 18% of the threads'
  // time idle; on demand, about 600 and 3% (docs/model-checking.md, "Parallel search").
  // `--split` (SearchLimits::split_levels) sets levels, to compare on other machines.
  // A resumed search keeps the split it was checkpointed with, to meet the same units.
  const auto split = resume != nullptr ? resume->split : limits.split_levels;
  UnitCache cache;
  if (resume != nullptr) UnitCache::load(*resume->units, cache);
  TaskResult root;
  SearchOutcome::Parallel figures;
  {
    Pool pool(executors, lanes, lane_executors);
    // Remote lanes report their units' progress as often as this process saves.
    const double remote_every_s = checkpoint != nullptr && checkpoint->save ? checkpoint->every_s : 0;
    ParallelDfs dfs(pool, verdict, limits.max_runs, split, 0, checkpoint != nullptr ? &cache : nullptr, remote_every_s,
                    limits.min_piece_runs);
    const std::unique_ptr<PeriodicSave> saver =
        save_periodically(checkpoint, cache, split, [&dfs] { dfs.leave_waiting_states(); });
    if (limits.start_when_workers_wait) pool.await_waiting(executors.size() - 1);
    root = dfs.explore_root(*executors.front());
    if (saver) saver->finish();  // no checkpoint is written after the search ends
    pool.close();                // its threads' last waits counted
    figures = {pool.submitted(), dfs.on_demand(), dfs.probes(), pool.idle_s(), dfs.probe_s()};
  }

  SearchOutcome o;
  const std::size_t n = std::min<std::size_t>(root.runs.size(), limits.max_runs);
  root.runs.for_first(n, [&o](const RunRecord& r, std::uint64_t count) {
    (r.abandoned ? o.pruned : o.executions) += count;
    o.max_depth = std::max(o.max_depth, r.steps);
    o.sim_ops += r.memory_ops * count;
  });
  if (root.violation && root.runs.size() <= limits.max_runs) {
    o.violation = std::move(root.violation);
    o.schedule = std::move(root.schedule);
    o.violating_index = root.runs.size() - 1;
    o.violating_steps = root.runs.back().steps;
  }
  o.exhaustive = !root.violation && !root.capped && root.runs.size() <= limits.max_runs;
  o.internal_errors = root.internal_errors;
  o.parallel = figures;
  return o;
}

}  // namespace lockstep::model
