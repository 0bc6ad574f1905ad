// The condition variables a scenario's `cond_wait`, `cond_signal` and `cond_broadcast` ops can
// use (`design: {condvar: KIND}`, docs/scenarios.md), and a dispatch over them, as AnyMutex
// does for the mutexes. Each waits with one of the program's futex mutexes and sleeps on
// futex words of the program's futex kernel.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <variant>

#include "core/platform.hpp"
#include "core/usync/any_mutex.hpp"
#include "core/usync/condvar.hpp"
#include "core/usync/futex_kernel.hpp"
#include "core/usync/glibc_condvar.hpp"
#include "core/usync/musl_condvar.hpp"

namespace lockstep::usync {

enum class CondvarKind : std::uint8_t {
  sequence,              // one sequence word, broadcast by requeue (condvar.hpp): glibc before 2.25
  glibc_2_25,            // glibc 2.25-2.40's two groups (glibc_condvar.hpp): loses a signal (bug 25847)
  glibc_2_25_broadcast,  // the same with the mitigation: a broadcast after a signal is given back
  musl_2011,             // musl before 97c5b5a8: `block` set to 1 by every waiter (an ABA; musl_condvar.hpp)
  musl_97c5b5a8,         // musl after it: each waiter's own thread id in `block`
};
inline constexpr std::array<std::string_view, 5> kCondvarNames{"sequence", "glibc-2.25", "glibc-2.25-broadcast",
                                                               "musl-2011", "musl-97c5b5a8"};

template <Platform P, FutexKernel<P> K>
class AnyCondvar {
 public:
  using Mutex = AnyMutex<P, K>;

  // `mutex`: the one mutex its waiters use (the sequence condvar's broadcast moves sleepers
  // onto its word; the others ignore it).
  AnyCondvar(CondvarKind kind, K& kernel, Mutex& mutex) {
    switch (kind) {
      case CondvarKind::sequence:
        cv_.template emplace<Condvar<P, Mutex, K>>(kernel, mutex);
        return;
      case CondvarKind::glibc_2_25:
        cv_.template emplace<GlibcCondvar<P, K>>(kernel, GlibcCondvarFix::none);
        return;
      case CondvarKind::glibc_2_25_broadcast:
        cv_.template emplace<GlibcCondvar<P, K>>(kernel, GlibcCondvarFix::broadcast);
        return;
      case CondvarKind::musl_2011:
        cv_.template emplace<MuslCondvar<P, K>>(kernel, MuslCondvarFix::none);
        return;
      case CondvarKind::musl_97c5b5a8:
        cv_.template emplace<MuslCondvar<P, K>>(kernel, MuslCondvarFix::tid_token);
        return;
    }
  }
  AnyCondvar(const AnyCondvar&) = delete;
  AnyCondvar& operator=(const AnyCondvar&) = delete;

  // `tid`: the caller's thread id, never 0 (musl's waiters store it; the others ignore it).
  void wait(Mutex& held, std::uint32_t tid) {
    visit([&held, tid](auto& cv) {
      if constexpr (requires { cv.wait(held, tid); }) {
        cv.wait(held, tid);
      } else {
        cv.wait(held);
      }
    });
  }
  void signal() {
    visit([](auto& cv) { cv.signal(); });
  }
  void broadcast() {
    visit([](auto& cv) { cv.broadcast(); });
  }
  // Names it in traces: glibc's fields by their names; the sequence condvar by its word.
  void label(std::string_view name) {
    visit([name](auto& cv) {
      if constexpr (requires { cv.label(name); }) {
        cv.label(name);
      } else {
        P::label(&cv.word(), sizeof cv.word(), name);
      }
    });
  }

 private:
  template <class F>
  void visit(F&& f) {
    std::visit(
        [&f](auto& cv) {
          if constexpr (std::is_same_v<std::decay_t<decltype(cv)>, std::monostate>) {
            throw std::logic_error("AnyCondvar holds no condvar");
          } else {
            f(cv);
          }
        },
        cv_);
  }

  std::variant<std::monostate, Condvar<P, Mutex, K>, GlibcCondvar<P, K>, MuslCondvar<P, K>> cv_;
};

}  // namespace lockstep::usync
