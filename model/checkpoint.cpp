#include "model/checkpoint.hpp"

#include <chrono>
#include <stdexcept>

namespace lockstep::model {

PeriodicSave::PeriodicSave(double every_s, std::function<void()> save)
    : thread_([this, every_s, save = std::move(save)] {
        const auto period = std::chrono::duration<double>(every_s);
        std::unique_lock lock(mutex_);
        while (!stop_.wait_for(lock, period, [this] { return stopping_; })) {
          lock.unlock();
          try {
            save();
          } catch (...) {
            lock.lock();
            error_ = std::current_exception();
            return;
          }
          lock.lock();
        }
      }) {}

void PeriodicSave::finish() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (error_) std::rethrow_exception(error_);
}

PeriodicSave::~PeriodicSave() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (thread_.joinable()) thread_.join();
}

nlohmann::json encode_checkpoint(const SearchCheckpoint& c) {
  if (c.units) return {{"units", *c.units}, {"split", c.split}};
  const SearchOutcome& o = c.so_far;
  return {{"next", c.next},           {"executions", o.executions}, {"pruned", o.pruned},
          {"max_depth", o.max_depth}, {"sim_ops", o.sim_ops},       {"internal_errors", o.internal_errors},
          {"strategy", c.strategy}};
}

SearchCheckpoint decode_checkpoint(const nlohmann::json& j) {
  try {
    SearchCheckpoint c;
    if (j.contains("units")) {
      c.units = j.at("units");
      c.split = j.at("split").get<unsigned>();
      if (c.split > 64) throw std::runtime_error("its split is out of range");
      return c;
    }
    c.next = j.at("next").get<std::uint64_t>();
    c.so_far.executions = j.at("executions").get<std::uint64_t>();
    c.so_far.pruned = j.at("pruned").get<std::uint64_t>();
    c.so_far.max_depth = j.at("max_depth").get<std::uint64_t>();
    c.so_far.sim_ops = j.at("sim_ops").get<std::uint64_t>();
    c.so_far.internal_errors = j.at("internal_errors").get<std::uint64_t>();
    c.strategy = j.at("strategy");
    if (c.so_far.executions + c.so_far.pruned != c.next)
      throw std::runtime_error("its counts do not add up to its next execution");
    return c;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed: ") + e.what());
  }
}

}  // namespace lockstep::model
