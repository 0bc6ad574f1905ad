// Calls an atomic operation with a memory order known only at run time (a thread program's
// op says it), as a compile-time constant. GCC and Clang treat an order argument that is not
// a constant as seq_cst (GCC's manual, "__atomic Builtins": "if the memory order argument is
// not a compile-time constant, it is treated as __ATOMIC_SEQ_CST"), so natively every relaxed
// store of a thread program would be an xchg on x86 and store buffering could never show
// (docs/model-checking.md, "Native litmus runs"). The simulator's atomics take the order as
// a value anyway; for them this is only a switch.
//
// Each kind of operation is instantiated with the orders it may take only (the program
// loader allows no others), since a load with release order does not compile cleanly; any
// other order is seq_cst, the strongest, which can hide an outcome but never invent one.
#pragma once

#include <atomic>
#include <type_traits>

namespace lockstep::program {

template <std::memory_order O>
using Order = std::integral_constant<std::memory_order, O>;

// f(Order<o>{}) for a load's order o: relaxed, acquire or seq_cst.
template <class F>
decltype(auto) with_load_order(std::memory_order order, F&& f) {
  if (order == std::memory_order_relaxed) return f(Order<std::memory_order_relaxed>{});
  if (order == std::memory_order_acquire) return f(Order<std::memory_order_acquire>{});
  return f(Order<std::memory_order_seq_cst>{});
}

// f(Order<o>{}) for a store's order o: relaxed, release or seq_cst.
template <class F>
decltype(auto) with_store_order(std::memory_order order, F&& f) {
  if (order == std::memory_order_relaxed) return f(Order<std::memory_order_relaxed>{});
  if (order == std::memory_order_release) return f(Order<std::memory_order_release>{});
  return f(Order<std::memory_order_seq_cst>{});
}

// f(Order<o>{}) for a read-modify-write's or a fence's order: any but consume.
template <class F>
decltype(auto) with_order(std::memory_order order, F&& f) {
  switch (order) {
    case std::memory_order_relaxed:
      return f(Order<std::memory_order_relaxed>{});
    case std::memory_order_acquire:
      return f(Order<std::memory_order_acquire>{});
    case std::memory_order_release:
      return f(Order<std::memory_order_release>{});
    case std::memory_order_acq_rel:
      return f(Order<std::memory_order_acq_rel>{});
    default:
      return f(Order<std::memory_order_seq_cst>{});
  }
}

}  // namespace lockstep::program
