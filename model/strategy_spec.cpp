#include "model/strategy_spec.hpp"

namespace lockstep::model {

// The table is in StrategyKind's order, so info_of indexes it.
static_assert([] {
  for (std::size_t i = 0; i < kStrategies.size(); ++i)
    if (static_cast<std::size_t>(kStrategies[i].kind) != i) return false;
  return true;
}());

// Its names are string literals, so data() is a C string.
const char* name_of(StrategyKind kind) { return info_of(kind).name.data(); }

}  // namespace lockstep::model
