// switch_fiber must be exactly Boost.Context's resume: the engine mixes the two (fibers are
// created, finished and unwound by Boost.Context, switched by switch_fiber), so each must
// resume what the other suspended, and a switch keeps each context's registers and
// floating-point control state.
#include <catch2/catch.hpp>

#include <cfenv>
#include <vector>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "sim/exec/fiber_switch.hpp"

using boost::context::fiber;
using lockstep::sim::switch_fiber;

namespace {
// Alternates the two ways of resuming, so every switch in a test is answered by the other.
fiber resume_either(fiber&& f, int round) {
  return round % 2 == 0 ? switch_fiber(std::move(f)) : std::move(f).resume();
}
}  // namespace

TEST_CASE("fiber switch: switch_fiber and Boost's resume hand a fiber back and forth", "[engine]") {
  std::vector<int> log;
  fiber f{[&log](fiber&& host) {
    for (int round = 0; round < 6; ++round) {
      log.push_back(round);
      host = resume_either(std::move(host), round + 1);  // the other way from the host's
    }
    return std::move(host);
  }};
  for (int round = 0; round < 6; ++round) {
    f = resume_either(std::move(f), round);
    REQUIRE(f);  // suspended, not finished: the fiber switched back
    REQUIRE(log.size() == static_cast<std::size_t>(round) + 1);
  }
  f = switch_fiber(std::move(f));
  CHECK_FALSE(f);  // it returned: finished
  CHECK(log == std::vector<int>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("fiber switch: a chain of fibers passes control along and back", "[engine]") {
  // Host -> a -> b -> a -> host, each hop by switch_fiber, as the engine switches threads.
  std::vector<char> order;
  fiber b;
  fiber a{[&](fiber&& host) {
    order.push_back('a');
    b = fiber{[&](fiber&& from_a) {
      order.push_back('b');
      return switch_fiber(std::move(from_a));  // back to a; b finishes when resumed
    }};
    fiber back_from_b = switch_fiber(std::move(b));
    order.push_back('A');
    CHECK(back_from_b);                                  // b switched back while suspended in its return: a live fiber
    back_from_b = switch_fiber(std::move(back_from_b));  // b finishes, control returns here
    CHECK_FALSE(back_from_b);
    return std::move(host);
  }};
  a = switch_fiber(std::move(a));
  CHECK_FALSE(a);
  CHECK(order == std::vector<char>{'a', 'b', 'A'});
}

// Not under AddressSanitizer: unwinding throws on the fiber's stack, which ASan takes for the
// host thread's unless told of each switch (fiber_sanitizer.hpp), and these raw fibers do not
// tell it. The engine's own unwinding, which does, runs under ASan in test_engine.cpp's
// deadlock cases (a thread left parked is unwound when its fiber is destroyed).
#if !defined(__SANITIZE_ADDRESS__)
TEST_CASE("fiber switch: a fiber suspended by switch_fiber unwinds when destroyed", "[engine]") {
  struct SetOnDestruction {
    bool* flag;
    ~SetOnDestruction() { *flag = true; }
  };
  bool unwound = false;
  bool resumed = false;
  {
    fiber f{[&](fiber&& host) {
      const SetOnDestruction guard{&unwound};
      host = switch_fiber(std::move(host));
      resumed = true;  // never: the host destroys this fiber instead
      return std::move(host);
    }};
    f = switch_fiber(std::move(f));
    REQUIRE(f);
    REQUIRE_FALSE(unwound);
  }  // destroying a suspended fiber unwinds its stack (Boost.Context's forced_unwind)
  CHECK(unwound);
  CHECK_FALSE(resumed);
}
#endif

TEST_CASE("fiber switch: each context keeps its own rounding mode", "[engine]") {
  const int host_rounding = std::fegetround();
  REQUIRE(host_rounding != FE_TOWARDZERO);
#if defined(__SSE__)
  const unsigned host_csr = _mm_getcsr();
#endif
  int fiber_rounding_after = -1;
  fiber f{[&](fiber&& host) {
    std::fesetround(FE_TOWARDZERO);  // the x87 control word and MXCSR
    host = switch_fiber(std::move(host));
    fiber_rounding_after = std::fegetround();
    std::fesetround(host_rounding);
    return std::move(host);
  }};
  f = switch_fiber(std::move(f));
  CHECK(std::fegetround() == host_rounding);  // restored with the host's context
#if defined(__SSE__)
  CHECK(_mm_getcsr() == host_csr);
#endif
  f = switch_fiber(std::move(f));
  CHECK_FALSE(f);
  CHECK(fiber_rounding_after == FE_TOWARDZERO);  // and the fiber's with its own
  CHECK(std::fegetround() == host_rounding);
}
