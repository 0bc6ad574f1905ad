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

namespace lockstep::usync {

enum class MutexKind : std::uint8_t {
  simple,     // Drepper's take 1 with a CAS for the increment: correct, wakes on every unlock
  mutex2,     // take 2: three states
  mutex3,     // take 3: three states, one exchange on the contended path (glibc's lowlevellock)
  forgetful,  // known bad: take 2 relocking in state 1 after a wakeup (forgetful_mutex.hpp)
};
inline constexpr std::array<std::string_view, 4> kMutexNames{"simple", "mutex2", "mutex3", "forgetful"};

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
    }
  }
  AnyMutex(const AnyMutex&) = delete;
  AnyMutex& operator=(const AnyMutex&) = delete;

  void lock() {
    visit([](auto& m) { m.lock(); });
  }
  void unlock() {
    visit([](auto& m) { m.unlock(); });
  }
  // Locks leaving the word at "someone may sleep here" (the sequence condvar's relock after a
  // requeue); a mutex without that state (the forgetful one) just locks.
  void lock_contended() {
    visit([](auto& m) {
      if constexpr (requires { m.lock_contended(); }) {
        m.lock_contended();
      } else {
        m.lock();
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
  std::variant<std::monostate, SimpleMutex<P, K>, Mutex2<P, K>, Mutex3<P, K>, ForgetfulMutex<P, K>> mutex_;
};

}  // namespace lockstep::usync
