#include "sim/exec/cost_model.hpp"

#include <stdexcept>

namespace lockstep::sim {

std::uint64_t FlatCostModel::access_ns(const Access& access) {
  switch (access.kind) {
    case OpKind::load:
      return costs_.load_ns;
    case OpKind::store:
      return costs_.store_ns;
    case OpKind::rmw:
      return costs_.rmw_ns;
    case OpKind::plain_load:
    case OpKind::plain_store:
      return costs_.plain_ns;
    default:
      throw std::logic_error("FlatCostModel::access_ns: not a memory access");
  }
}

}  // namespace lockstep::sim
