// Engine: the data_race property's hooks. Each visible operation that matters to
// happens-before is forwarded to the RaceDetector (race_detector.hpp), which the engine
// calls only when a scenario checks data_race (EngineLimits::detect_races).
#include <fmt/format.h>

#include "core/properties.hpp"
#include "sim/exec/engine.hpp"
#include "sim/exec/engine_state.hpp"

namespace lockstep::sim {

namespace {
const char* access_name(OpKind kind) { return kind == OpKind::plain_store ? "plain store" : "plain load"; }
}  // namespace

void Engine::race_load(bool plain, std::uint64_t addr, std::memory_order order) {
  if (!plain) return races_.atomic_load(exec_.current, addr, order);
  if (const auto race = races_.plain_load(exec_.current, addr)) report_race(*race);
}

void Engine::race_store(bool plain, std::uint64_t addr, std::memory_order order, bool buffered) {
  if (!plain) return races_.atomic_store(exec_.current, addr, order, buffered);
  if (const auto race = races_.plain_store(exec_.current, addr, buffered)) report_race(*race);
}

void Engine::race_rmw(std::uint64_t addr, std::memory_order order) { races_.rmw(exec_.current, addr, order); }
void Engine::race_fence(std::memory_order order) { races_.fence(exec_.current, order); }
void Engine::race_unpark(ThreadId target, bool parked) { races_.unpark(exec_.current, target, parked); }
void Engine::race_parking() { races_.parking(exec_.current); }
void Engine::race_drained(ThreadId id, std::uint64_t addr) { races_.drained(id, addr); }

// Ends the execution: the later access is the current thread's.
void Engine::report_race(const Race& race) {
  violation(property::data_race,
            fmt::format("data race on {}: {} by thread '{}' and the earlier {} by thread '{}' are not ordered by "
                        "happens-before",
                        memory_.describe(race.addr), access_name(race.later.kind), threads_[race.later.thread].name,
                        access_name(race.earlier.kind), threads_[race.earlier.thread].name));
}

}  // namespace lockstep::sim
