#include "model/strategy_spec.hpp"

namespace lockstep::model {

const char* name_of(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::timed: return "timed";
    case StrategyKind::random: return "random";
    case StrategyKind::dfs: return "dfs";
    case StrategyKind::bounded: return "bounded";
    case StrategyKind::pct: return "pct";
    case StrategyKind::naive: return "naive";
    case StrategyKind::smt: return "smt";
  }
  return "?";
}

}  // namespace lockstep::model
