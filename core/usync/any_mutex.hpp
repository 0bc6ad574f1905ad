// The user-space futex mutexes a scenario's `lock`/`unlock` ops can use instead of spinlocks
// (`design: {mutex: KIND}`, docs/scenarios.md), and a dispatch over them, as AnySpinlock does
// for the spinlock kinds. Each is one futex word over a futex kernel K.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "core/platform.hpp"
#include "core/usync/drepper_mutex.hpp"
#include "core/usync/forgetful_mutex.hpp"
#include "core/usync/futex_kernel.hpp"
#include "core/usync/glibc_robust_mutex.hpp"

namespace lockstep::usync {

enum class MutexKind : std::uint8_t {
  simple,     // Drepper's take 1 with a CAS for the increment: correct, wakes on every unlock
  mutex2,     // take 2: three states
  mutex3,     // take 3: three states, one exchange on the contended path (glibc's lowlevellock)
  forgetful,  // known bad: take 2 relocking in state 1 after a wakeup (forgetful_mutex.hpp)
  // glibc's robust mutexes (glibc_robust_mutex.hpp): the word holds the owner's thread id, and
  // the kernel marks it when its owner dies (robust_futex.hpp)
  glibc_robust_2_24,  // with the lost wake-up of sourceware bug 20973
  glibc_robust_2_25,  // fixed
};
inline constexpr std::array<std::string_view, 6> kMutexNames{
    "simple", "mutex2", "mutex3", "forgetful", "glibc-robust-2.24", "glibc-robust-2.25"};
inline constexpr bool is_robust(MutexKind kind) {
  return kind == MutexKind::glibc_robust_2_24 || kind == MutexKind::glibc_robust_2_25;
}

template <Platform P, FutexKernel<P> K>
class AnyMutex {
 public:
  AnyMutex(MutexKind kind, K& kernel) {
    switch (kind) {
      case MutexKind::simple:
        mutex_.template emplace<SimpleMutex<P, K>>(kernel);
        return;
      case MutexKind::mutex2:
        mutex_.template emplace<Mutex2<P, K>>(kernel);
        return;
      case MutexKind::mutex3:
        mutex_.template emplace<Mutex3<P, K>>(kernel);
        return;
      case MutexKind::forgetful:
        mutex_.template emplace<ForgetfulMutex<P, K>>(kernel);
        return;
      case MutexKind::glibc_robust_2_24:
        mutex_.template emplace<GlibcRobustMutex<P, K>>(kernel, RobustMutexFix::none);
        return;
      case MutexKind::glibc_robust_2_25:
        mutex_.template emplace<GlibcRobustMutex<P, K>>(kernel, RobustMutexFix::keep_waiters);
        return;
    }
  }
  AnyMutex(const AnyMutex&) = delete;
  AnyMutex& operator=(const AnyMutex&) = delete;

  // For the condvars, which do not know their caller's thread id: a robust mutex refuses.
  void lock() {
    visit([](auto& m) {
      if constexpr (requires { m.lock(); }) {
        m.lock();
      } else {
        throw std::logic_error("a robust mutex is locked with its caller's thread id");
      }
    });
  }
  void unlock() {
    visit([](auto& m) {
      if constexpr (requires { m.unlock(); }) {
        m.unlock();
      } else {
        throw std::logic_error("a robust mutex is unlocked with its caller's thread id");
      }
    });
  }
  // With the caller's thread id (1 .. 2^30 - 1), which a robust mutex stores in its word; the
  // others ignore it. True: the previous owner died holding it (EOWNERDEAD).
  bool lock(std::uint32_t tid) {
    return visit([tid](auto& m) {
      if constexpr (requires { m.lock(tid); }) {
        return m.lock(tid);
      } else {
        m.lock();
        return false;
      }
    });
  }
  void unlock(std::uint32_t tid) {
    visit([tid](auto& m) {
      if constexpr (requires { m.unlock(tid); }) {
        m.unlock(tid);
      } else {
        m.unlock();
      }
    });
  }
  // Locks leaving the word at "someone may sleep here" (the sequence condvar's relock after a
  // requeue); a mutex without that state (the forgetful one) just locks.
  void lock_contended() {
    visit([](auto& m) {
      if constexpr (requires { m.lock_contended(); }) {
        m.lock_contended();
      } else if constexpr (requires { m.lock(); }) {
        m.lock();
      } else {
        throw std::logic_error("a robust mutex is locked with its caller's thread id");
      }
    });
  }
  FutexWord<P>& word() {
    return visit([](auto& m) -> FutexWord<P>& { return m.word(); });
  }

 private:
  // Every alternative answers with the type the first mutex would; the empty one cannot.
  template <class F>
  decltype(auto) visit(F&& f) {
    using R = decltype(f(std::declval<SimpleMutex<P, K>&>()));
    return std::visit(
        [&f](auto& m) -> R {
          if constexpr (std::is_same_v<std::decay_t<decltype(m)>, std::monostate>) {
            throw std::logic_error("AnyMutex holds no mutex");
          } else {
            return f(m);
          }
        },
        mutex_);
  }

  // The mutexes can be neither copied nor moved: the variant is only ever emplaced into.
  std::variant<std::monostate, SimpleMutex<P, K>, Mutex2<P, K>, Mutex3<P, K>, ForgetfulMutex<P, K>,
               GlibcRobustMutex<P, K>>
      mutex_;
};

}  // namespace lockstep::usync
