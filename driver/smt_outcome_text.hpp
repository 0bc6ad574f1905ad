// An SMT outcome in the words the reference enumerator and the explorers use for final
// states ("x=1 y=0 t0.r0=1"), or the checks that failed ("assertion at FILE:L:C"), so that
// the three sets can be compared string for string.
#pragma once

#include <string>

#include "axiomatic/checker.hpp"
#include "core/workloads/program.hpp"

namespace lockstep::driver {

std::string smt_outcome_text(const program::Program& prog, const axiomatic::Outcome& o);

}  // namespace lockstep::driver
