// The idle loop of a simulated CPU (docs/os.md, "Adaptive idle"): what an idle CPU does
// while it waits for work, and so what waking a thread onto it costs both sides.
//
// The seed (docs/sources.md, section 8; FreeBSD's adaptive idle of 2008): waking a CPU that
// sleeps in `hlt` takes an inter-processor interrupt, "very expensive for the sender and
// receiver"; `monitor`/`mwait` lets the sleeper wake on a write to a watched line, with no
// IPI; so the idle loop first spins a while, then mwaits (kept in C0 for a quick wake-up),
// then halts, "depending on load". Policies:
//
//   none      the engine's flat wake_ns (what every scenario without `scheduler: {idle: ...}`
//             gets, calibrated as a whole against native wakeups)
//   hlt       always halt; every wake-up of an idle CPU is an IPI (the old FreeBSD loop)
//   mwait     always mwait in C0; a wake-up is the waker's store to the watched line
//   adaptive  FreeBSD's loop of 2008 (sys/kern/sched_ule.c, sched_idletd): with the CPU's
//             recent switches (tdq_switchcnt + tdq_oldswitchcnt) above sched_idlespinthresh,
//             and the CPU not a hardware thread of an SMT core ("don't do any busy loops
//             while on SMT machines as this simply steals cycles from cores doing useful
//             work"), spin sched_idlespins times; then cpu_idle(switches > 1): mwait when
//             busy, hlt when not
//
// The decisions are pure functions of the CPU's recent switches, whether it has an SMT
// sibling and how long it has been idle, so tests check them by hand
// (tests/test_idle_model.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

namespace lockstep::sim {

enum class IdlePolicy : std::uint8_t { none, hlt, mwait, adaptive };
inline constexpr std::array<std::string_view, 4> kIdlePolicyNames{"none", "hlt", "mwait", "adaptive"};

// Where an idle CPU is when a wake-up reaches it.
enum class IdleState : std::uint8_t { spin, mwait, hlt };

// A machine's idle costs (presets set them per machine, with sources or [guess]).
struct IdleCosts {
  std::uint64_t ipi_send_ns = 600;        // [guess] the waker: the APIC's ICR write and the kernel's path to it
  std::uint64_t hlt_exit_ns = 4000;       // C1's exit latency (Linux intel_idle, Nehalem: 3 us) and the
                                          // interrupt's delivery and handler ([guess] 1 us)
  std::uint64_t mwait_exit_ns = 200;      // [guess] mwait with a C0 hint: the watched line's
                                          // invalidation restarts the core, no C-state to leave
  std::uint64_t spin_detect_ns = 60;      // [guess] a spinning idle loop sees the run queue's line
                                          // change: one transfer of the line within a package
  std::uint32_t spin_iterations = 10000;  // FreeBSD sched_ule.c: sched_idlespins = 10000
                                          // iterations of cpu_spinwait (pause)
  std::uint32_t spin_switches = 4;        // FreeBSD sched_ule.c of 2008: sched_idlespinthresh = 4
                                          // (spin above this many recent switches)
  std::uint32_t mwait_switches = 1;       // the same: cpu_idle(switchcnt > 1), mwait above it
  std::uint64_t tick_ns = 1'000'000;      // [guess] a 1 ms tick (FreeBSD's default hz = 1000)
};

// A CPU's context switches per tick: the current tick's and the last one's (FreeBSD's
// tdq_switchcnt and tdq_oldswitchcnt, rolled at each tick).
struct SwitchCounter {
  std::uint64_t tick = 0;
  std::uint32_t now = 0;
  std::uint32_t last = 0;

  void roll(std::uint64_t at_ns, std::uint64_t tick_ns) {
    const std::uint64_t t = at_ns / tick_ns;
    if (t == tick) return;
    last = t == tick + 1 ? now : 0;
    now = 0;
    tick = t;
  }
  void count(std::uint64_t at_ns, std::uint64_t tick_ns) {
    roll(at_ns, tick_ns);
    ++now;
  }
  // The current tick's and the last one's, at `at_ns`.
  std::uint32_t recent(std::uint64_t at_ns, std::uint64_t tick_ns) {
    roll(at_ns, tick_ns);
    return now + last;
  }
};

// What a wake-up onto an idle CPU costs.
struct IdleWake {
  IdleState state = IdleState::hlt;
  std::uint64_t wakee_ns = 0;  // from the waker's unpark to the woken CPU looking for work
  std::uint64_t waker_ns = 0;  // extra work of the waker (the IPI)
};

// How long an adaptive CPU spins before it sleeps.
inline std::uint64_t spin_window_ns(const IdleCosts& c, std::uint64_t pause_ns) {
  return static_cast<std::uint64_t>(c.spin_iterations) * pause_ns;
}

// Whether an adaptive CPU with `switches` recent switches spins when it goes idle.
inline bool adaptive_spins(const IdleCosts& c, std::uint32_t switches, bool smt) {
  return !smt && switches > c.spin_switches;
}

// The wake-up, under `policy` (not none), of a CPU idle for `idle_ns` that had `switches`
// recent switches when it went idle and `smt` siblings or not, `path_ns` away from the waker
// (the interconnect between their packages).
inline IdleWake idle_wake(IdlePolicy policy, const IdleCosts& c, std::uint32_t switches, bool smt,
                          std::uint64_t idle_ns, std::uint64_t pause_ns, std::uint64_t path_ns) {
  IdleState state = IdleState::hlt;
  if (policy == IdlePolicy::mwait) state = IdleState::mwait;
  if (policy == IdlePolicy::adaptive) {
    if (adaptive_spins(c, switches, smt) && idle_ns < spin_window_ns(c, pause_ns)) {
      state = IdleState::spin;
    } else if (switches > c.mwait_switches) {
      state = IdleState::mwait;
    }
  }
  switch (state) {
    case IdleState::spin:
      return {state, c.spin_detect_ns + path_ns, 0};
    case IdleState::mwait:
      return {state, c.mwait_exit_ns + path_ns, 0};
    case IdleState::hlt:
      break;
  }
  return {state, c.ipi_send_ns + path_ns + c.hlt_exit_ns, c.ipi_send_ns};
}

// Where a CPU idle for `idle_ns` before a wake-up spent that time, by IdleState (spin,
// mwait, hlt), under `policy` (not none), as idle_wake decides the state it is found in:
// adaptive spins first (if it spins at all), then sleeps in mwait when busy, else hlt.
inline std::array<std::uint64_t, 3> idle_residency(IdlePolicy policy, const IdleCosts& c, std::uint32_t switches,
                                                   bool smt, std::uint64_t idle_ns, std::uint64_t pause_ns) {
  std::array<std::uint64_t, 3> ns{};
  auto at = [&ns](IdleState s) -> std::uint64_t& { return ns[static_cast<std::size_t>(s)]; };
  switch (policy) {
    case IdlePolicy::hlt:
      at(IdleState::hlt) = idle_ns;
      break;
    case IdlePolicy::mwait:
      at(IdleState::mwait) = idle_ns;
      break;
    case IdlePolicy::adaptive: {
      const std::uint64_t spin = adaptive_spins(c, switches, smt) ? std::min(idle_ns, spin_window_ns(c, pause_ns)) : 0;
      at(IdleState::spin) = spin;
      at(switches > c.mwait_switches ? IdleState::mwait : IdleState::hlt) = idle_ns - spin;
      break;
    }
    case IdlePolicy::none:
      break;
  }
  return ns;
}

}  // namespace lockstep::sim
