// glibc's condition variable as rewritten for 2.25 (Torvald Riegel, 2016), modelled from the
// design its source describes (nptl/pthread_cond_wait.c, pthread_cond_common.c; docs/bugs.md
// has the algorithm in words and the sources), and the lost signal it had until 2.41:
// sourceware bug 25847.
//
// Waiters take a position in a 64-bit waiter sequence, __wseq, whose low bit says which of two
// group slots is G2, where new waiters go. G1 holds older waiters, all eligible for signals;
// each slot has a signal count (the futex word its waiters block on; its low bit closes the
// group), a count of waiters not yet signalled, and a count of the waiters blocked on its
// futex. A signal adds to G1's signals until G1 is all signalled; then the next one closes
// G1, waits until no waiter of it is blocked on its futex, and makes G2 the new G1
// (quiesce_and_switch_g1). __g1_start, the position where G1 begins, tells a waiter that its
// group was closed; its low bit repeats which slot is G2.
//
// A waiter takes a signal with a CAS on its slot's signal count without holding a reference
// on the group, so it can take one from a newer group that reuses its slot ("stealing"). When
// it then finds its own group closed, it gives one back to the slot if the slot is G1 again.
// The bug: the waiter may not have stolen at all (it took its own signal just before its group
// closed), so the signal it gives back is one too many for the new G1: one of that group's
// waiters wakes without being counted, the group's count of unsignalled waiters stays one too
// high, and a later pthread_cond_signal adds its signal to a G1 nobody is left in while a
// waiter of G2 sleeps on. Malte Skarupke traced it with a TLA+ model in 2020; glibc 2.41
// removed stealing altogether.
//
// Variants (GlibcCondvarFix):
//   none       2.25 to 2.40 as described: finds the lost signal.
//   broadcast  the mitigation from the bug's discussion that some distributions shipped: after
//              giving a signal back, broadcast, so every waiter wakes (spuriously, which POSIX
//              allows) and no count can be left wrong.
//
// What is not modelled: cancellation and timeouts (__condvar_cancel_waiting), pthread_cond_
// destroy's use of __wrefs beyond its waiter count, process-shared futexes, the spin before
// blocking (glibc's maxspin is 0), and the 32-bit architectures' narrower counters. The
// condvar-internal lock is a three-state futex lock, as glibc's, in a word of its own rather
// than in the low bits of __g1_orig_size. The relock after waiting takes the mutex as
// lock() does (glibc's __pthread_mutex_cond_lock assumes contention; no requeue depends on it
// here).
#pragma once

#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "core/futex/futex_table.hpp"
#include "core/platform.hpp"
#include "core/usync/drepper_mutex.hpp"
#include "core/usync/futex_kernel.hpp"

namespace lockstep::usync {

enum class GlibcCondvarFix : std::uint8_t {
  none,       // glibc 2.25-2.40: the lost signal of bug 25847
  broadcast,  // the mitigation: broadcast after giving back a possibly stolen signal
};

template <class M>
concept CondvarMutex = requires(M m) {
  m.lock();
  m.unlock();
};

template <Platform P, FutexKernel<P> Kernel = futex::FutexTable<P>>
class GlibcCondvar {
 public:
  GlibcCondvar(Kernel& kernel, GlibcCondvarFix fix) : kernel_(std::addressof(kernel)), fix_(fix), lock_(kernel) {}
  GlibcCondvar(const GlibcCondvar&) = delete;
  GlibcCondvar& operator=(const GlibcCondvar&) = delete;

  // The caller holds `mutex`; it holds it again on return. A return may be spurious.
  template <CondvarMutex M>
  void wait(M& mutex) {
    ProtocolSteps<P> steps("cond_wait");
    steps.next("take a position in __wseq");
    const std::uint64_t wseq = wseq_.fetch_add(2, std::memory_order_acquire);
    const unsigned g = static_cast<unsigned>(wseq & 1);  // the slot that was G2
    const std::uint64_t seq = wseq >> 1;
    wrefs_.fetch_add(8, std::memory_order_relaxed);
    steps.next("release the mutex");
    mutex.unlock();
    steps.next("look for a signal in its group");
    std::uint32_t signals = g_signals_[g].load(std::memory_order_acquire);
    bool consumed = false;
    while (!consumed) {
      if ((signals & 1) != 0) break;  // the group is closed: all its waiters count as woken
      if (signals == 0) {
        steps.next("block on its group's __g_signals");
        g_refs_[g].fetch_add(2, std::memory_order_acquire);
        if ((g_signals_[g].load(std::memory_order_acquire) & 1) != 0 ||
            seq < (g1_start_.load(std::memory_order_relaxed) >> 1)) {
          dec_grefs(g);
          break;  // closed while it took the reference
        }
        kernel_->wait(g_signals_[g], 0);
        dec_grefs(g);
        steps.next("look for a signal in its group");
        signals = g_signals_[g].load(std::memory_order_acquire);
        continue;
      }
      steps.next("take a signal");
      // A failed CAS reloads `signals` and looks again (glibc: a weak CAS in a do-while).
      consumed = g_signals_[g].compare_exchange_strong(signals, signals - 2, std::memory_order_acquire);
    }
    if (consumed) give_back_if_stolen(steps, g, seq);
    steps.next("confirm the wakeup");
    wrefs_.fetch_sub(8, std::memory_order_release);
    steps.next("reacquire the mutex");
    mutex.lock();
  }

  void signal() {
    ProtocolSteps<P> steps("cond_signal");
    const std::optional<std::uint64_t> wseq = lock_if_waiters(steps);
    if (!wseq) return;
    unsigned g1 = static_cast<unsigned>(*wseq & 1) ^ 1;
    bool wake = false;
    if (g_size_[g1].load() != 0 || quiesce_and_switch_g1(steps, *wseq >> 1, g1)) {
      steps.next("add a signal to G1");
      g_signals_[g1].fetch_add(2, std::memory_order_relaxed);
      g_size_[g1].store(g_size_[g1].load() - 1);
      wake = true;
    }
    steps.next("release the condvar's lock");
    lock_.unlock();
    if (wake) {
      steps.next("wake one waiter of G1");
      kernel_->wake(g_signals_[g1], 1);
    }
  }

  void broadcast() {
    ProtocolSteps<P> steps("cond_broadcast");
    const std::optional<std::uint64_t> wseq = lock_if_waiters(steps);
    if (!wseq) return;
    unsigned g1 = static_cast<unsigned>(*wseq & 1) ^ 1;
    bool wake = false;
    if (g_size_[g1].load() != 0) {
      steps.next("signal every waiter left in G1");
      g_signals_[g1].fetch_add(g_size_[g1].load() << 1, std::memory_order_relaxed);
      g_size_[g1].store(0);
      kernel_->wake(g_signals_[g1], INT_MAX);  // before quiescing G1 below
    }
    if (quiesce_and_switch_g1(steps, *wseq >> 1, g1)) {
      steps.next("signal every waiter of the new G1");
      g_signals_[g1].fetch_add(g_size_[g1].load() << 1, std::memory_order_relaxed);
      g_size_[g1].store(0);
      wake = true;
    }
    steps.next("release the condvar's lock");
    lock_.unlock();
    if (wake) {
      steps.next("wake every waiter of G1");
      kernel_->wake(g_signals_[g1], INT_MAX);
    }
  }

  // Names its fields in traces and counterexamples as glibc's pthread_cond_t does
  // (C.__g_signals[1]); `name` must outlive the run.
  void label(std::string_view name) const {
    const LabelField fields[] = {label_field(*this, lock_, "lock"),
                                 label_field(*this, wseq_, "__wseq"),
                                 label_field(*this, g1_start_, "__g1_start"),
                                 label_field(*this, g1_orig_size_, "__g1_orig_size"),
                                 label_field(*this, wrefs_, "__wrefs"),
                                 label_field(*this, g_refs_[0], "__g_refs[0]"),
                                 label_field(*this, g_refs_[1], "__g_refs[1]"),
                                 label_field(*this, g_signals_[0], "__g_signals[0]"),
                                 label_field(*this, g_signals_[1], "__g_signals[1]"),
                                 label_field(*this, g_size_[0], "__g_size[0]"),
                                 label_field(*this, g_size_[1], "__g_size[1]")};
    P::label(this, sizeof *this, name, LabelLayout{0, 0, fields});
  }

 private:
  // What signal and broadcast begin with: nothing to do without waiters (__wrefs counts them
  // in steps of 8); else the condvar's lock, and __wseq as it is under it.
  std::optional<std::uint64_t> lock_if_waiters(ProtocolSteps<P>& steps) {
    steps.next("look for waiters (__wrefs)");
    if ((wrefs_.load(std::memory_order_relaxed) >> 3) == 0) return std::nullopt;
    steps.next("take the condvar's lock");
    lock_.lock();
    return wseq_.load(std::memory_order_relaxed);
  }

  // Gives back a signal the waiter may have stolen from a newer group in its slot: it cannot
  // tell, so when its own group is closed and its slot is G1 again, it adds one.
  void give_back_if_stolen(ProtocolSteps<P>& steps, unsigned g, std::uint64_t seq) {
    const std::uint64_t g1_start = g1_start_.load(std::memory_order_relaxed);
    if (seq >= (g1_start >> 1)) return;     // its group is not closed: the signal was its own
    if (((g1_start & 1) ^ 1) != g) return;  // its slot is not G1 now: nothing to give back to
    steps.next("give back a signal it may have stolen");
    std::uint32_t s = g_signals_[g].load(std::memory_order_relaxed);
    while (g1_start_.load(std::memory_order_relaxed) == g1_start) {
      if ((s & 1) != 0 || g_signals_[g].compare_exchange_strong(s, s + 2, std::memory_order_relaxed)) {
        kernel_->wake(g_signals_[g], 1);
        if (fix_ == GlibcCondvarFix::broadcast) {
          steps.next("broadcast, so no count is left wrong (the mitigation)");
          broadcast();
        }
        return;
      }
    }
  }

  // Waiters of G1 that leave drop their reference on its futex; the last one wakes a
  // signaller waiting in quiesce_and_switch_g1 (the reference count's low bit asks for that).
  void dec_grefs(unsigned g) {
    if (g_refs_[g].fetch_sub(2, std::memory_order_release) == 3) {
      g_refs_[g].fetch_and(~std::uint32_t{1}, std::memory_order_relaxed);
      kernel_->wake(g_refs_[g], INT_MAX);
    }
  }

  // Called with the condvar's lock held. Closes G1 (slot g1), waits until none of its waiters
  // is blocked on its futex, turns it into a fresh G2 and makes the old G2 the new G1 (g1 is
  // updated). Returns false when G2 has no waiter (nothing switched) or the new G1 has none.
  bool quiesce_and_switch_g1(ProtocolSteps<P>& steps, std::uint64_t wseq, unsigned& g1) {
    const std::uint32_t old_orig_size = g1_orig_size_.load();
    const std::uint64_t old_g1_start = g1_start_.load(std::memory_order_relaxed) >> 1;
    // G2's waiters: positions from where G1 ends up to wseq, less those that cancelled
    // (__g_size of G2 holds minus their number; unsigned arithmetic, as glibc's).
    if (static_cast<std::uint32_t>(wseq - old_g1_start - old_orig_size) + g_size_[g1 ^ 1].load() == 0) return false;
    steps.next("close G1 (the low bit of its __g_signals)");
    g_signals_[g1].fetch_or(1, std::memory_order_relaxed);
    steps.next("wait until no waiter of G1 is blocked on its futex");
    std::uint32_t r = g_refs_[g1].fetch_or(0, std::memory_order_release);
    while ((r >> 1) > 0) {
      r = g_refs_[g1].fetch_or(1, std::memory_order_relaxed) | 1;  // ask the last one to wake us
      if ((r >> 1) > 0) kernel_->wait(g_refs_[g1], r);
      r = g_refs_[g1].load(std::memory_order_relaxed);
    }
    steps.next("advance __g1_start past G1 and reopen its slot");
    // + 1 or - 1 flips the low bit to the slot that will be G2 (old_orig_size is 0 only at the
    // first switch, when g1 is 1).
    const std::uint64_t add = (std::uint64_t{old_orig_size} << 1) + (g1 == 1 ? 1 : ~std::uint64_t{0});
    g1_start_.store(g1_start_.load(std::memory_order_relaxed) + add, std::memory_order_relaxed);
    g_signals_[g1].store(0, std::memory_order_release);
    steps.next("switch the groups (the low bit of __wseq)");
    std::uint64_t seen = wseq_.load(std::memory_order_relaxed);
    while (!wseq_.compare_exchange_strong(seen, seen ^ 1, std::memory_order_release)) {
    }
    const std::uint64_t now = seen >> 1;
    g1 ^= 1;
    const auto orig_size = static_cast<std::uint32_t>(now - (old_g1_start + old_orig_size));
    g1_orig_size_.store(orig_size);
    g_size_[g1].store(g_size_[g1].load() + orig_size);
    return g_size_[g1].load() != 0;
  }

  using Word = FutexWord<P>;
  template <class T>
  using Shared = typename P::template Shared<T>;

  Kernel* kernel_;
  GlibcCondvarFix fix_;
  Mutex3<P, Kernel> lock_;  // the condvar-internal lock (in glibc, __g1_orig_size's low bits)
  typename P::template Atomic<std::uint64_t> wseq_{0};
  typename P::template Atomic<std::uint64_t> g1_start_{0};
  Shared<std::uint32_t> g1_orig_size_{0};  // under lock_
  typename P::template Atomic<std::uint32_t> wrefs_{0};
  Word g_refs_[2]{0, 0};
  Word g_signals_[2]{0, 0};
  Shared<std::uint32_t> g_size_[2]{0, 0};  // under lock_
};

}  // namespace lockstep::usync
