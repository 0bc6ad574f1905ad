#include "native/runner.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <thread>

#include "measure/host_cpus.hpp"

namespace lockstep::native {

std::vector<CpuId> allowed_cpus() { return measure::allowed_cpus(); }

void NativeRunner::spawn(std::string name, CpuId cpu, std::function<void()> body) {
  specs_.push_back(Spec{std::move(name), cpu, std::move(body)});
}

NativeRunResult NativeRunner::run() {
  const std::vector<CpuId> cpus = allowed_cpus();
  // A trace is wanted (native/native_trace.hpp): each thread records into a buffer of its own.
  TraceSession* trace = TraceSession::active();
  if (trace != nullptr) trace->prepare(specs_.size());
  std::deque<Parker> parkers(specs_.size());  // stable addresses, alive until every thread joined
  std::atomic<std::size_t> ready{0};
  std::atomic<bool> go{false};
  std::deque<std::atomic<bool>> finished(specs_.size());
  // Each thread's own end time, read after the joins: the watchdog's loop below wakes every
  // 2 ms, so timing the run from there would round it up to a multiple of about 2.08 ms (it
  // did: a run of 0.5 ms measured 2.09).
  std::vector<std::chrono::steady_clock::time_point> ended(specs_.size());
  std::vector<std::thread> threads;
  threads.reserve(specs_.size());
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    threads.emplace_back([&, i] {
      const CpuId host_cpu = cpus[static_cast<std::size_t>(specs_[i].cpu) % cpus.size()];
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(host_cpu, &set);
      const bool pinned = pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
      parkers[i].set_index(static_cast<int>(i));
      set_current_parker(&parkers[i]);
      if (trace != nullptr) trace->attach(i, specs_[i].name, pinned ? host_cpu : -1);
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      if (trace != nullptr) trace->running();
      specs_[i].body();
      if (trace != nullptr) trace->detach();
      ended[i] = std::chrono::steady_clock::now();
      set_current_parker(nullptr);
      finished[i].store(true, std::memory_order_release);
    });
  }
  while (ready.load() != specs_.size()) std::this_thread::yield();
  if (trace != nullptr) trace->started();
  const auto start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  // The watchdog: a native deadlock or lost wakeup must not hang the run (threads cannot be
  // interrupted, so past the limit the process reports the stuck threads and exits 1).
  const auto deadline = start + std::chrono::duration<double>(watchdog_s_);
  for (;;) {
    bool all = true;
    for (const auto& f : finished) all = all && f.load(std::memory_order_acquire);
    if (all) break;
    if (std::chrono::steady_clock::now() > deadline) {
      std::string stuck;
      for (std::size_t i = 0; i < specs_.size(); ++i)
        if (!finished[i].load()) stuck += (stuck.empty() ? "" : ", ") + specs_[i].name;
      const std::string run = label_.empty() ? std::string() : " of " + label_;
      std::fprintf(stderr,
                   "lockstep: native run%s: thread(s) %s did not finish within %.0f s (a deadlock or a lost wakeup); "
                   "exiting\n",
                   run.c_str(), stuck.c_str(), watchdog_s_);
      std::fflush(stderr);
      std::_Exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (auto& t : threads) t.join();
  NativeRunResult result;
  auto last = start;
  for (const auto& end : ended) last = std::max(last, end);
  result.elapsed_s = std::chrono::duration<double>(last - start).count();
  if (trace != nullptr) trace->ended();
  NativeViolation v;
  if (take_violation(v)) result.violation = std::move(v);
  specs_.clear();
  return result;
}

}  // namespace lockstep::native
