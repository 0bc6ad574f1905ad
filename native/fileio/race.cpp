#include "native/fileio/race.hpp"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "native/fileio/interrupt.hpp"

namespace lockstep::native::fileio {

void race(const std::vector<std::function<void()>>& bodies) {
  std::atomic<std::size_t> ready{0};
  std::atomic<bool> go{false};
  std::mutex error_mutex;
  std::exception_ptr error;
  std::vector<std::thread> threads;
  threads.reserve(bodies.size());
  try {
    for (const auto& body : bodies) {
      threads.emplace_back([&] {
        ready.fetch_add(1);
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        try {
          body();
        } catch (...) {
          const std::lock_guard lock(error_mutex);
          if (!error) error = std::current_exception();
        }
      });
    }
    while (ready.load() != bodies.size()) std::this_thread::yield();
  } catch (...) {
    // A thread that could not be created: release and join the ones that were, so none
    // is left waiting on `go` or destroyed joinable, then report the failure.
    go.store(true, std::memory_order_release);
    for (auto& t : threads) t.join();
    throw;
  }
  go.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

bool Deadline::passed() const { return interrupted() || Clock::now() >= at; }

}  // namespace lockstep::native::fileio
