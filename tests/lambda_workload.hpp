// A simulated workload given as lambdas, for tests that drive the engine directly.
#pragma once

#include <functional>

#include "sim/exec/engine.hpp"

namespace lockstep::testing {

struct LambdaWorkload final : sim::SimWorkload {
  std::function<void(sim::Engine&)> on_setup;
  std::function<void(sim::Engine&)> on_check = [](sim::Engine&) {};
  void setup(sim::Engine& e) override { on_setup(e); }
  void check(sim::Engine& e) override { on_check(e); }
};

}  // namespace lockstep::testing
