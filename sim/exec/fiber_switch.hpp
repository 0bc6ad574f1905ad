// The engine's fiber-to-fiber switch: Boost.Context's resume, with a switch routine that
// returns the way it was called.
//
// Boost.Context's jump_fcontext is entered by a call but leaves by an indirect jump to the
// saved return address. The processor's return stack buffer, which predicts each `ret`
// from the calls before it, is then one entry off on the fiber it arrives on: every return
// on the way back up that fiber's frames (out of the switch, the engine's operation, the
// design's lock) is predicted to land where the previous one did, and mispredicts. The
// timed engine switches threads at 45% of sim-speed's operations, so those mispredictions
// were a large share of its host time.
//
// switch_fiber does what `std::move(fiber).resume()` does, with a routine that saves the
// context in exactly jump_fcontext's layout (so contexts made, resumed or unwound by
// Boost.Context itself and ones suspended here are interchangeable) and returns with `ret`
// to the address that layout holds. Both fibers of a switch were suspended at the same call
// (this function's), so that return, and usually the ones after it, are predicted right.
// Fibers are still created, finished and unwound by Boost.Context.
//
// The routine is written for x86-64 System V and the frame of Boost 1.74's fcontext (the
// version Debian 12 ships; checked against its jump_fcontext). Boost.Context's current
// sources lay the frame out differently (a stack-guard slot moves the registers up by 8
// bytes), so with any other version, or another architecture, switch_fiber is plain
// resume().
#pragma once

#include <boost/context/fiber.hpp>
#include <boost/version.hpp>

#if defined(__x86_64__) && defined(__ELF__) && !defined(BOOST_USE_UCONTEXT) && !defined(BOOST_USE_WINFIB) && \
    !defined(BOOST_USE_TSX) && !defined(__CET__) && BOOST_VERSION >= 107400 && BOOST_VERSION < 107500
#define LOCKSTEP_RETURNING_FIBER_SWITCH 1
#else
#define LOCKSTEP_RETURNING_FIBER_SWITCH 0
#endif

namespace lockstep::sim {

// Resumes `to` (which must hold a suspended fiber) until something switches back; returns
// the fiber that did, or an empty one if it finished. Exactly `std::move(to).resume()`.
boost::context::fiber switch_fiber(boost::context::fiber&& to);

}  // namespace lockstep::sim
