#include "native/probes/pinned_threads.hpp"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace lockstep::native::probes {

void pin_this_thread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) throw std::runtime_error(fmt::format("cannot pin to CPU {}: out of range", cpu));
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  const int err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  if (err != 0) throw std::runtime_error(fmt::format("cannot pin a thread to CPU {}: {}", cpu, std::strerror(err)));
}

void run_pinned(int cpu, const std::function<void()>& body) {
  std::exception_ptr error;
  std::thread t([&] {
    try {
      pin_this_thread(cpu);
      body();
    } catch (...) {
      error = std::current_exception();
    }
  });
  t.join();
  if (error) std::rethrow_exception(error);
}

void run_pinned_group(const std::vector<PinnedBody>& bodies) {
  const int n = static_cast<int>(bodies.size());
  std::atomic<int> pinned{0};
  std::atomic<bool> failed{false};
  std::vector<std::exception_ptr> errors(bodies.size());
  std::vector<std::thread> threads;
  threads.reserve(bodies.size());
  for (std::size_t index = 0; index < bodies.size(); ++index) {
    threads.emplace_back([&, index] {
      try {
        pin_this_thread(bodies[index].cpu);
      } catch (...) {
        errors[index] = std::current_exception();
        failed.store(true);
      }
      pinned.fetch_add(1);
      // Yield rather than spin: on one CPU the others need this thread's slice to pin themselves.
      while (pinned.load() < n) std::this_thread::yield();
      if (failed.load()) return;
      try {
        bodies[index].body();
      } catch (...) {
        errors[index] = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

void run_pinned_pair(int cpu_a, const std::function<void()>& a, int cpu_b, const std::function<void()>& b) {
  run_pinned_group({{cpu_a, a}, {cpu_b, b}});
}

CpuSample sample_cpus(const std::vector<int>& allowed, std::size_t max_cpus) {
  if (max_cpus == 0) throw std::logic_error("sample_cpus: max_cpus is 0");
  CpuSample s;
  s.allowed = allowed;
  s.step = static_cast<int>((allowed.size() + max_cpus - 1) / max_cpus);
  if (s.step < 1) s.step = 1;
  for (std::size_t i = 0; i < allowed.size(); i += static_cast<std::size_t>(s.step)) s.measured.push_back(allowed[i]);
  if (s.step > 1)
    s.note = fmt::format("{} of the {} allowed CPUs measured: every {}th, from CPU {}", s.measured.size(),
                         allowed.size(), s.step, allowed.front());
  return s;
}

}  // namespace lockstep::native::probes
