// The memory models as constraints over an event graph (docs/model-checking.md, "The SMT
// strategy"), after herd's cat models and Alglave, Kroening and Tautschnig's encoding
// ("Partial orders for efficient bounded model checking of concurrent software", CAV 2013):
//
//   rf   a Boolean per (store, read) of one variable: each read that happens reads exactly
//        one store that happens, and returns its value;
//   co   an integer position per store: the stores of a variable that happen are totally
//        ordered, the initial value first;
//   fr   read r before store w when r reads a store that co orders before w.
//
// A relation is acyclic when its events have integer clocks that every edge increases.
//   SC:      acyclic(po | rf | co | fr).
//   x86-TSO (herd's x86tso.cat; Owens, Sarkar, Sewell, TPHOLs 2009):
//     uniproc  acyclic(po-loc | rf | co | fr)
//     atomic   no store between a read-modify-write's read and its write in co
//     ghb      acyclic(ppo | mfence | implied | rfe | co | fr), where ppo is po without
//              store-to-load pairs, mfence restores a pair with a seq_cst fence between,
//              and implied a pair with a locked instruction (every read-modify-write, and
//              x86's xchg for a seq_cst store) at either end.
#pragma once

#include <vector>

#include <z3++.h>

#include "axiomatic/event_graph.hpp"

namespace lockstep::axiomatic {

enum class Model : std::uint8_t { sc, tso };

struct ReadsFrom {
  int store = -1;  // index into events (an init, store or rmw)
  int read = -1;   // a load or rmw
  z3::expr chosen;
};

struct Encoding {
  std::vector<ReadsFrom> rf;
  std::vector<z3::expr> co;            // per event: its place in its variable's coherence order (stores only)
  std::vector<z3::expr> clock;         // per event: SC's order, or TSO's ghb order
  std::vector<z3::expr> final_values;  // per variable: the value of the last store in co
};

// Adds the model's axioms for `g` to `solver`.
Encoding encode_memory_model(z3::solver& solver, const EventGraph& g, Model model);

}  // namespace lockstep::axiomatic
