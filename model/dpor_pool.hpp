// The parallel dfs's pool of workers (model/dpor_parallel.cpp): a queue of jobs that this
// process's threads, and threads serving remote lanes, take; a thread that waits for a
// subtask runs queued jobs meanwhile.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "model/remote_lanes.hpp"
#include "model/search.hpp"

namespace lockstep::model::parallel {

// A pool whose waiting threads help: a task that waits for a subtask runs queued tasks on
// its own executor meanwhile (it is between executions, so the executor is free).
//
// Remote lanes (MPI ranks, model/remote_lanes.hpp) are served by threads of their own here,
// each with a local executor for the merging it does between units (first-step probes): they
// take jobs from the same queue and run each on their lane. On a rank serving a unit, a
// lending thread likewise sends jobs back to the caller's rank when it asks (LendBack).
class Pool {
 public:
  using Clock = std::chrono::steady_clock;
  // How a job reaches a remote lane: sends a unit, returns the answer, reports progress
  // meanwhile when asked and runs what the lane lends back (RemoteLanes::call). Null: run it
  // here.
  using Remote =
      std::function<std::string(const std::string&, const RemoteLanes::Progress*, const RemoteLanes::Lending*)>;
  // A thread waiting for something in particular (a spawn node's subtrees, a job): what it
  // waits for signals it alone. Guarded by the pool's mutex; `signalled` stays set until the
  // waiter sees it, so a signal sent before it sleeps is not slept through.
  struct Waiter {
    std::condition_variable cv;
    bool signalled = false;
  };
  struct Job {
    std::function<void(Executor&, const Remote*)> fn;
    bool local_only = false;  // remote lanes' threads leave it to this process's
    std::atomic<bool> done{false};
    std::exception_ptr error;
    Waiter* waiter = nullptr;  // whoever waits for it (wait), under the pool's mutex
  };

  Pool(const std::vector<Executor*>& executors, RemoteLanes* lanes = nullptr,
       const std::vector<Executor*>& lane_executors = {}, const LendBack* lend_back = nullptr,
       Executor* lend_executor = nullptr) {
    for (std::size_t w = 1; w < executors.size(); ++w)
      threads_.emplace_back([this, ex = executors[w]] { serve(*ex, nullptr); });
    for (std::size_t l = 0; lanes != nullptr && l < lanes->size(); ++l)
      threads_.emplace_back([this, lanes, l, ex = lane_executors.at(l)] {
        const Remote remote = [lanes, l](const std::string& unit, const RemoteLanes::Progress* progress,
                                         const RemoteLanes::Lending* lending) {
          return lanes->call(l, unit, progress, lending);
        };
        serve(*ex, &remote);
      });
    if (lend_back != nullptr && lend_executor != nullptr)
      threads_.emplace_back([this, lend_back, lend_executor] { lend(*lend_executor, *lend_back); });
  }
  ~Pool() { close(); }
  // Ends its threads (once each has finished its job).
  void close() {
    {
      const std::lock_guard lock(mutex_);
      closing_ = true;
      for (Waiter* w : helpers_) w->cv.notify_one();
    }
    ready_.notify_all();
    closed_.notify_all();
    waiting_changed_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  std::shared_ptr<Job> submit(std::function<void(Executor&, const Remote*)> fn, bool local_only = false) {
    auto job = std::make_shared<Job>();
    job->fn = std::move(fn);
    job->local_only = local_only;
    const std::lock_guard lock(mutex_);
    ++submitted_;
    queue_.push_back(job);
    changed();
    // One thread is woken: one waiting for a job if there is one, else one waiting at a spawn
    // node (help runs any job). While the queue holds jobs that lanes leave, one woken thread
    // may be the wrong kind: a lane's thread woken for a local job, or a worker that takes a
    // local job and leaves this one to a lane's thread still asleep. Wake them all then.
    // Under the lock: a helper's Waiter lives until it has left helpers_, which takes it.
    if (std::any_of(queue_.begin(), queue_.end(), [](const auto& j) { return j->local_only; })) {
      ready_.notify_all();
      for (Waiter* w : helpers_) w->cv.notify_one();
    } else if (waiting_for_jobs_ == 0 && !helpers_.empty()) {
      helpers_.back()->cv.notify_one();
    } else {
      ready_.notify_one();
    }
    return job;
  }

  // Whether a thread of this process (a worker, a lane's thread for its rank, or a lending
  // thread asked for work) waits with nothing to run, more of them than jobs queued and asks
  // claimed: a lane may lend it work (RemoteLanes::Lending), a search may split for it
  // (split_on_demand). Read without the lock, as of the last change, so that a search can ask
  // between any two executions; `claim` decides under the lock, and claims one until `release`.
  bool idle() const { return spare_hint_.load(std::memory_order_relaxed); }
  bool claim() {
    const std::lock_guard lock(mutex_);
    if (!spare()) return false;
    ++asking_;
    changed();
    return true;
  }
  void release() {
    const std::lock_guard lock(mutex_);
    --asking_;
    changed();
  }

  // Registered under the lock that run() marks the job done under: a job not done by then
  // signals `w` when it is.
  void wait(Job& job, Executor& mine) {
    Waiter w;
    {
      const std::lock_guard lock(mutex_);
      if (!job.done.load(std::memory_order_acquire)) job.waiter = &w;
    }
    while (!job.done.load(std::memory_order_acquire)) help(mine, w);
    {
      const std::lock_guard lock(mutex_);
      job.waiter = nullptr;
    }
    if (job.error) std::rethrow_exception(job.error);
  }

  // Wakes `w` (its thread is in help, or will see the signal when it gets there).
  void signal(Waiter& w) {
    const std::lock_guard lock(mutex_);
    w.signalled = true;
    w.cv.notify_one();
  }

  // Runs one queued job on `mine`, or, when there is none, sleeps until one is queued, `w` is
  // signalled (what the caller waits for may be done), or a millisecond passes: spinning
  // would take the core from a worker on a machine with fewer cores than threads, or from the
  // other hyperthread of the same core; and each wake-up costs, most on a VM (a 2-rank search
  // of mc-four-threads-7-tso spent 5.6% of its perf samples in the VM's interrupt handling
  // while waiters woke every 50 us, 2.8% with this). Only the waiter's own signal wakes it:
  // when every finished job woke every waiting thread, 16 workers of a search making small
  // subtrees spent more time in the kernel than in the search (fib_bench, 2 vCPUs).
  void help(Executor& mine, Waiter& w) {
    if (const auto other = try_pop()) {
      run(*other, mine, nullptr);
      return;
    }
    std::unique_lock lock(mutex_);
    if (!std::exchange(w.signalled, false)) {
      set_idle(+1);
      helpers_.push_back(&w);
      const auto since = Clock::now();
      w.cv.wait_for(lock, std::chrono::milliseconds(1),
                    [this, &w] { return closing_ || !queue_.empty() || w.signalled; });
      idle_time_ += Clock::now() - since;
      helpers_.erase(std::find(helpers_.begin(), helpers_.end(), &w));
      w.signalled = false;
      set_idle(-1);
    }
  }

  // Returns once `threads` of the pool's threads wait for a job (serve), or the pool closes:
  // a search that starts after this finds every worker idle at its first execution, so its
  // first split on demand does not depend on how fast the threads started (SearchLimits::
  // start_when_workers_wait; the tests' hook, where the host's load must not decide).
  void await_waiting(std::size_t threads) {
    std::unique_lock lock(mutex_);
    waiting_changed_.wait(lock, [this, threads] { return closing_ || waiting_for_jobs_ >= threads; });
  }

  // Jobs submitted, and how long this process's threads waited with nothing to run (a lane's
  // thread waits for its rank: not counted). Read once closed.
  std::uint64_t submitted() {
    const std::lock_guard lock(mutex_);
    return submitted_;
  }
  double idle_s() {
    const std::lock_guard lock(mutex_);
    return std::chrono::duration<double>(idle_time_).count();
  }

 private:
  // Under mutex_: idle threads that neither a queued job nor a claimed ask will take.
  bool spare() const { return idle_ > queue_.size() + asking_; }
  void set_idle(int change) {
    idle_ = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(idle_) + change);
    changed();
  }
  // Under mutex_, after idle_, queue_ or asking_ changed.
  void changed() { spare_hint_.store(spare(), std::memory_order_relaxed); }
  std::shared_ptr<Job> try_pop() {
    const std::lock_guard lock(mutex_);
    if (queue_.empty()) return nullptr;
    auto job = std::move(queue_.front());
    queue_.pop_front();
    changed();
    return job;
  }
  void run(Job& job, Executor& ex, const Remote* remote) {
    try {
      job.fn(ex, remote);
    } catch (...) {
      job.error = std::current_exception();
    }
    // The function may own what owns the job (a ChildTask holds its job, whose function holds
    // the ChildTask): dropped once run, or the pair would keep each other alive, leaking every
    // task of a parallel dfs (LeakSanitizer, the asan stage of CI). The thread running it
    // holds the job itself, so the job outlives this.
    job.fn = nullptr;
    const std::lock_guard lock(mutex_);
    job.done.store(true, std::memory_order_release);
    if (job.waiter != nullptr) {
      job.waiter->signalled = true;
      job.waiter->cv.notify_one();
    }
  }

  void serve(Executor& ex, const Remote* remote) {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock lock(mutex_);
        // A lane's thread takes the first job it may take; a worker's, the first. Either
        // waiting counts as idle: what a lane lends back may run on another lane's rank.
        auto mine = queue_.end();
        set_idle(+1);
        ++waiting_for_jobs_;
        waiting_changed_.notify_all();
        const auto since = Clock::now();
        ready_.wait(lock, [&] {
          mine = remote == nullptr ? queue_.begin() : first_remote();
          return closing_ || mine != queue_.end();
        });
        if (remote == nullptr) idle_time_ += Clock::now() - since;
        --waiting_for_jobs_;
        set_idle(-1);
        if (mine == queue_.end()) return;
        job = std::move(*mine);
        queue_.erase(mine);
        changed();
      }
      run(*job, ex, remote);
    }
  }

  // The first queued job a remote lane may take.
  std::deque<std::shared_ptr<Job>>::iterator first_remote() {
    return std::find_if(queue_.begin(), queue_.end(), [](const auto& j) { return !j->local_only; });
  }

  // The lending thread of a rank serving a unit: each time the caller asks, it sends the
  // first queued job back (its subtree runs there, its answer merges here as a lane's would),
  // or declines. Polled: the ask comes over MPI, which has no way to wake a thread here.
  void lend(Executor& ex, const LendBack& back) {
    const Remote remote = [&back](const std::string& unit, const RemoteLanes::Progress*, const RemoteLanes::Lending*) {
      return back.call(unit);
    };
    // The caller asks after its worker has been idle for milliseconds (mpi/mpi_session.cpp):
    // answering within one costs little, and polling more often would cost this rank's worker.
    constexpr auto kFirstPoll = std::chrono::microseconds(50);
    constexpr auto kLongestPoll = std::chrono::milliseconds(1);
    for (std::chrono::microseconds wait = kFirstPoll;;
         wait = std::min<std::chrono::microseconds>(wait * 2, kLongestPoll)) {
      {
        std::unique_lock lock(mutex_);
        if (closed_.wait_for(lock, wait, [this] { return closing_; })) return;
      }
      if (!back.asked()) continue;
      wait = kFirstPoll;
      std::shared_ptr<Job> job;
      {
        // With nothing queued, this thread counts as idle for a while: a search here splits
        // for it between two executions (ParallelDfs::split_on_demand), unless none can.
        constexpr auto kSplitWait = std::chrono::milliseconds(2);
        std::unique_lock lock(mutex_);
        auto mine = first_remote();
        if (mine == queue_.end()) {
          set_idle(+1);
          ++waiting_for_jobs_;
          ready_.wait_for(lock, kSplitWait, [&] {
            mine = first_remote();
            return closing_ || mine != queue_.end();
          });
          --waiting_for_jobs_;
          set_idle(-1);
        }
        if (mine != queue_.end()) {
          job = std::move(*mine);
          queue_.erase(mine);
          changed();
        }
      }
      if (!job) {
        back.decline();
        continue;
      }
      run(*job, ex, &remote);
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;            // a job queued (serve, lend), or closing
  std::condition_variable closed_;           // closing (the lending thread's polls sleep on it)
  std::condition_variable waiting_changed_;  // a thread began waiting for a job (await_waiting)
  std::deque<std::shared_ptr<Job>> queue_;
  bool closing_ = false;
  std::size_t idle_ = 0;                 // this process's threads waiting for a job
  std::atomic<bool> spare_hint_{false};  // spare(), for idle()
  std::size_t asking_ = 0;               // lanes' asks for work not answered yet (claim)
  std::size_t waiting_for_jobs_ = 0;     // threads waiting on ready_ for a job (serve, lend)
  std::vector<Waiter*> helpers_;         // threads waiting in help, in the order they came
  std::uint64_t submitted_ = 0;
  Clock::duration idle_time_{};
  std::vector<std::thread> threads_;
};

}  // namespace lockstep::model::parallel
