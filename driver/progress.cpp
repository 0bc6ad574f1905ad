#include "driver/progress.hpp"

#include <utility>

namespace lockstep::driver {

ProgressMeter::ProgressMeter(ProgressReporter reporter, ProgressSnapshot base, const sim::Engine* engine)
    : reporter_(std::move(reporter)), base_(std::move(base)), engine_(engine) {
  if (reporter_) thread_ = std::thread([this] { loop(); });
}

ProgressMeter::~ProgressMeter() { stop(); }

void ProgressMeter::set_estimate(double executions, double half_width) {
  estimate_ = executions;
  estimate_half_width_ = half_width;
  search_start_ = std::chrono::steady_clock::now();
  estimated_.store(true, std::memory_order_release);
}

ProgressSnapshot ProgressMeter::sample() const {
  ProgressSnapshot s = base_;
  s.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  s.executions = executions_.load(std::memory_order_relaxed);
  s.phase = phase_.load(std::memory_order_relaxed);
  if (estimated_.load(std::memory_order_acquire)) {
    s.estimate = estimate_;
    s.estimate_half_width = estimate_half_width_;
    s.search_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - search_start_).count();
  }
  if (engine_ != nullptr) {
    const sim::Engine::Progress p = engine_->progress();
    s.steps = p.steps;
    s.virtual_ns = p.virtual_ns;
  }
  return s;
}

void ProgressMeter::loop() {
  std::unique_lock lock(mutex_);
  if (wake_.wait_for(lock, kQuietFor, [this] { return stopping_; })) return;
  do {
    reported_ = true;
    reporter_(sample(), false);
  } while (!wake_.wait_for(lock, kProgressPeriod, [this] { return stopping_; }));
}

void ProgressMeter::stop() {
  if (!thread_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (reported_) reporter_(sample(), true);
}

}  // namespace lockstep::driver
