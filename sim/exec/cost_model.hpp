// What each simulated operation costs in virtual time.
//
// The foundation's model is flat: one latency per access kind, whatever the address or the
// CPU. The machine-model issue replaces it with caches, coherence, links and DRAM behind
// the same interface, which is why an access carries its CPU, address and start time.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "core/platform.hpp"
#include "sim/exec/idle_model.hpp"
#include "sim/scheduler.hpp"

namespace lockstep::sim {

struct Access {
  OpKind kind = OpKind::load;
  CpuId cpu = 0;
  std::uint64_t addr = 0;
  std::uint8_t size = 0;
  std::uint64_t start_ns = 0;
  NodeId home = 0;  // the node whose memory holds addr
};

// Where a costed access was answered from, as a model with caches knows it: the trace's
// `src` and `peer` members (docs/traces.md), which let a viewer draw lines moving between
// sockets. A flat model has no such thing to say.
struct AccessDetail {
  const char* source = "";  // the model's name for it (the machine model's: l1 ... upgrade)
  CpuId peer = -1;          // the CPU whose cache supplied the line; -1 when none did
  char state = 0;           // the line's state in this core's caches after the access: M, O, E,
                            // S or F (the model's line_states); 0 when the model has none
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  // Whether the last access_ns() needed another core's copy of its line, or waited behind the
  // line's transaction in flight: the timed engine then lets the access take effect (read or
  // write its value) only when the line arrives, after what other threads do before then.
  // A model without coherence in time never sets it.
  bool last_in_flight() const { return last_in_flight_; }

  // Forgets per-execution state (cache contents, queues).
  virtual void reset() = 0;
  // Latency of a load, store or read-modify-write.
  virtual std::uint64_t access_ns(const Access& access) = 0;
  virtual std::uint64_t fence_ns(CpuId cpu) = 0;
  // What a locked read-modify-write spends before it reaches its line, once its store buffer
  // has drained: the timed engine lets other CPUs' earlier accesses go first, then calls
  // access_ns, which prices the rest. 0 where access_ns prices the whole instruction.
  virtual std::uint64_t locked_prelude_ns(CpuId) { return 0; }
  virtual std::uint64_t pause_ns(CpuId cpu) = 0;
  // Latency from an unpark on `from` to the parked thread being runnable on `to` (an IPI).
  virtual std::uint64_t wake_ns(CpuId from, CpuId to) = 0;
  // What the waker itself spends to make a thread runnable (try_to_wake_up).
  virtual std::uint64_t unpark_ns(CpuId cpu) = 0;
  virtual std::uint64_t context_switch_ns() = 0;
  virtual std::uint64_t time_slice_ns() = 0;
  virtual std::uint64_t work_ns(Work kind, std::uint32_t units) = 0;
  // Where the last access_ns() was answered from. Asked only by a traced execution, right
  // after the access, so a model pays nothing for it when no trace is written.
  virtual std::optional<AccessDetail> last_detail() const { return std::nullopt; }
  // A hint that `cpu` will access `addr` soon: the engine gives it when a thread stops at a
  // memory operation, which runs after the other threads' earlier ones. A model may start
  // loading its host-side state for that access (it pays the host cache misses early, in
  // parallel with other work) but must change nothing a result or trace can see.
  virtual void prefetch(CpuId, std::uint64_t) {}
  // A hint given once per execution, after the workload's setup: its threads will touch
  // about `lines` distinct cachelines (its heap, plus a few lines of stack per thread). A
  // model may size its tables for them up front rather than grow them during the run; it
  // must change nothing a result or trace can see.
  virtual void expect_lines(std::uint64_t) {}
  // The idle loop's costs (sim/exec/idle_model.hpp), and what a signal from `from` to `to`
  // adds for the path between their packages (0 within one, or on a flat machine).
  virtual const IdleCosts& idle_costs() const = 0;
  virtual std::uint64_t path_ns(CpuId, CpuId) { return 0; }
  // When `cpu`'s copy of the line holding `addr` goes, if the last access took it (an
  // invalidation or a request on its way to that core), in virtual ns; negative when it did
  // not, or the model has no coherence in time.
  virtual double copy_lost_at(CpuId, std::uint64_t) const { return -1; }
  // Running ahead (docs/architecture.md, "Running ahead"): the least virtual time between
  // any CPU's access and its first effect on another core's copy of a line (0: none can be
  // promised, and no thread runs ahead). Fixed for the model's life.
  virtual std::uint64_t lookahead_ns() const { return 0; }
  // If an access of `kind` from `cpu` to `addr` at `start` hits that core's L1 and changes no
  // state another core can see (so running it before other CPUs' accesses that start up to
  // lookahead_ns() earlier cannot change its cost or theirs), makes it as access_ns would and
  // returns its latency; otherwise changes nothing and returns kNotQuiet. A model that makes
  // one must also check, from then on, that no copy of that core's leaves sooner than the
  // lookahead promised.
  static constexpr std::uint64_t kNotQuiet = ~std::uint64_t{0};
  virtual std::uint64_t quiet_hit_ns(CpuId, std::uint64_t /*addr*/, OpKind, std::uint64_t /*start*/) {
    return kNotQuiet;
  }

 protected:
  bool last_in_flight_ = false;
};

// Flat costs. Defaults are guesses of the order of a ~2.7 GHz x86 core (docs/sources.md
// section 4 gives L1 hits of 3-4 cycles); each is overridable in a scenario's machine.
struct FlatCosts {
  std::uint64_t load_ns = 2;                                     // [guess] an L1 hit
  std::uint64_t store_ns = 2;                                    // [guess] into the store buffer
  std::uint64_t rmw_ns = 8;                                      // [guess] a locked instruction, ~20 cycles
  std::uint64_t plain_ns = 2;                                    // [guess] as load/store
  std::uint64_t fence_ns = 12;                                   // [guess] mfence, ~30 cycles
  std::uint64_t pause_ns = 4;                                    // [guess] pause on Nehalem, ~10 cycles
  std::uint64_t wake_ns = 2000;                                  // [guess] IPI and wakeup of an idle CPU
  std::uint64_t unpark_ns = 300;                                 // [guess] the waker's share of a wakeup
  std::uint64_t context_switch_ns = 1500;                        // [guess] a Linux context switch
  std::uint64_t time_slice_ns = 3'000'000;                       // [guess] CFS's slice at a few runnable tasks
  std::array<std::uint64_t, kWorkKinds> work_ns{20, 50, 50, 1};  // [guess] hash, entry, exit, compute
  IdleCosts idle{};                                              // the idle loop (used with `scheduler: {idle: ...}`)
};

class FlatCostModel final : public CostModel {
 public:
  explicit FlatCostModel(const FlatCosts& costs) : costs_(costs) {}
  void reset() override {}
  std::uint64_t access_ns(const Access& access) override;
  std::uint64_t fence_ns(CpuId) override { return costs_.fence_ns; }
  std::uint64_t pause_ns(CpuId) override { return costs_.pause_ns; }
  std::uint64_t wake_ns(CpuId, CpuId) override { return costs_.wake_ns; }
  std::uint64_t unpark_ns(CpuId) override { return costs_.unpark_ns; }
  std::uint64_t context_switch_ns() override { return costs_.context_switch_ns; }
  std::uint64_t time_slice_ns() override { return costs_.time_slice_ns; }
  std::uint64_t work_ns(Work kind, std::uint32_t units) override {
    return costs_.work_ns[static_cast<std::size_t>(kind)] * units;
  }
  const FlatCosts& costs() const { return costs_; }
  const IdleCosts& idle_costs() const override { return costs_.idle; }

 private:
  FlatCosts costs_;
};

}  // namespace lockstep::sim
