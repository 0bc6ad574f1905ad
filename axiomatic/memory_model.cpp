#include "axiomatic/memory_model.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace lockstep::axiomatic {

namespace {

class ModelEncoder {
 public:
  ModelEncoder(z3::solver& solver, const EventGraph& g, Model model)
      : ctx_(solver.ctx()), s_(solver), g_(g), model_(model) {}

  Encoding run() {
    const std::size_t n = g_.events.size();
    for (std::size_t i = 0; i < n; ++i) {
      enc_.co.push_back(ctx_.int_const(fmt::format("co{}", i).c_str()));
      enc_.clock.push_back(ctx_.int_const(fmt::format("clk{}", i).c_str()));
      if (model_ == Model::tso) uniproc_.push_back(ctx_.int_const(fmt::format("up{}", i).c_str()));
    }
    position_in_thread_.assign(n, -1);
    for (const auto& events : g_.thread_events)
      for (std::size_t k = 0; k < events.size(); ++k)
        position_in_thread_[static_cast<std::size_t>(events[k])] = static_cast<int>(k);
    coherence();
    reads_from();
    from_reads();
    program_order();
    final_values();
    return std::move(enc_);
  }

 private:
  const Event& ev(int i) const { return g_.events[static_cast<std::size_t>(i)]; }
  const z3::expr& co(int i) const { return enc_.co[static_cast<std::size_t>(i)]; }
  const z3::expr& clk(int i) const { return enc_.clock[static_cast<std::size_t>(i)]; }
  const z3::expr& up(int i) const { return uniproc_[static_cast<std::size_t>(i)]; }

  // a before b in the thread's program order (false across threads and for inits).
  bool po_before(int a, int b) const {
    return ev(a).thread >= 0 && ev(a).thread == ev(b).thread &&
           position_in_thread_[static_cast<std::size_t>(a)] < position_in_thread_[static_cast<std::size_t>(b)];
  }

  // Both write and co orders a before b.
  z3::expr co_before(int a, int b) const { return ev(a).writes && ev(b).writes && co(a) < co(b); }

  // An edge of the model's relations: every clock it constrains increases along it.
  void com_edge(const z3::expr& when, int a, int b, bool external) {
    if (model_ == Model::sc) {
      s_.add(z3::implies(when, clk(a) < clk(b)));
      return;
    }
    s_.add(z3::implies(when, up(a) < up(b)));
    // ghb takes co and fr whole, but rf only between threads (rfe): a load may read its own
    // thread's buffered store before that store reaches memory.
    if (external) s_.add(z3::implies(when, clk(a) < clk(b)));
  }

  void coherence() {
    writers_.assign(varcount(), {});
    readers_.assign(varcount(), {});
    for (std::size_t i = 0; i < g_.events.size(); ++i) {
      const Event& e = g_.events[i];
      if (e.var < 0) continue;
      if (e.may_write()) writers_[static_cast<std::size_t>(e.var)].push_back(static_cast<int>(i));
      if (e.reads_memory()) readers_[static_cast<std::size_t>(e.var)].push_back(static_cast<int>(i));
    }
    for (const auto& ws : writers_) {
      for (std::size_t a = 0; a < ws.size(); ++a) {
        const int wa = ws[a];
        if (ev(wa).kind == EventKind::init) {
          s_.add(co(wa) == 0);
          continue;
        }
        s_.add(co(wa) > 0);  // after the initial value
        for (std::size_t b = a + 1; b < ws.size(); ++b) {
          const int wb = ws[b];
          if (ev(wb).kind == EventKind::init) continue;
          s_.add(z3::implies(ev(wa).writes && ev(wb).writes, co(wa) != co(wb)));
        }
      }
      for (int wa : ws)
        for (int wb : ws)
          if (wa != wb) com_edge(co_before(wa, wb), wa, wb, true);
    }
  }

  // One initial store per variable (build_event_graph).
  std::size_t varcount() const {
    return static_cast<std::size_t>(
        std::count_if(g_.events.begin(), g_.events.end(), [](const Event& e) { return e.kind == EventKind::init; }));
  }

  void reads_from() {
    for (std::size_t v = 0; v < readers_.size(); ++v) {
      for (int r : readers_[v]) {
        z3::expr_vector options(ctx_);
        std::vector<z3::expr> mine;
        for (int w : writers_[v]) {
          // A read never reads its own write, nor a store later in its thread (po-loc
          // would close a cycle with rf: uniproc under TSO, the order itself under SC).
          if (w == r || po_before(r, w)) continue;
          const z3::expr chosen = ctx_.bool_const(fmt::format("rf{}_{}", w, r).c_str());
          s_.add(z3::implies(chosen, ev(r).guard && ev(w).writes && ev(r).read == ev(w).written));
          com_edge(chosen, w, r, ev(w).thread != ev(r).thread);
          enc_.rf.push_back({w, r, chosen});
          options.push_back(chosen);
          mine.push_back(chosen);
        }
        s_.add(z3::implies(ev(r).guard, z3::mk_or(options)));
        for (std::size_t a = 0; a < mine.size(); ++a)
          for (std::size_t b = a + 1; b < mine.size(); ++b) s_.add(!(mine[a] && mine[b]));
      }
    }
  }

  // fr(r, w): r reads a store that co orders before w. A read-modify-write's read is
  // before its own write by construction (one event), so w == r is left out.
  void from_reads() {
    for (const ReadsFrom& source : enc_.rf) {
      const int r = source.read;
      const std::size_t v = static_cast<std::size_t>(ev(r).var);
      for (int w : writers_[v]) {
        if (w == r || w == source.store) continue;
        const z3::expr fr = source.chosen && co_before(source.store, w);
        com_edge(fr, r, w, true);
        // atomic: nothing between a read-modify-write's read and its write in co.
        if (ev(r).kind == EventKind::rmw) s_.add(z3::implies(fr && ev(r).writes, co_before(r, w)));
      }
    }
  }

  // Whether the pair (a before b in one thread) is kept in order: SC keeps every pair;
  // x86-TSO lets a load pass an earlier store (the store buffer) unless a seq_cst fence
  // stands between them (reached through the fence's own edges) or either is locked.
  bool ordered(int a, int b) const {
    if (model_ == Model::sc) return true;
    const Event& x = ev(a);
    const Event& y = ev(b);
    const auto orders = [](const Event& e) { return e.kind != EventKind::fence || e.mfence; };
    if (!orders(x) || !orders(y)) return false;
    return !(x.kind == EventKind::store && !x.locked && y.kind == EventKind::load);
  }

  void program_order() {
    for (const auto& events : g_.thread_events) {
      for (std::size_t i = 0; i < events.size(); ++i) {
        for (std::size_t j = i + 1; j < events.size(); ++j) {
          const int a = events[i];
          const int b = events[j];
          if (model_ == Model::sc) {
            if (j == i + 1) s_.add(clk(a) < clk(b));  // transitive: neighbours suffice
            continue;
          }
          if (ordered(a, b)) s_.add(clk(a) < clk(b));
          if (ev(a).var >= 0 && ev(a).var == ev(b).var) s_.add(up(a) < up(b));  // po-loc
        }
      }
    }
  }

  void final_values() {
    for (std::size_t v = 0; v < writers_.size(); ++v) {
      const z3::expr value = ctx_.bv_const(fmt::format("final{}", v).c_str(), 64);
      for (int w : writers_[v]) {
        z3::expr last = ev(w).writes;
        for (int other : writers_[v])
          if (other != w) last = last && !co_before(w, other);
        s_.add(z3::implies(last, value == ev(w).written));
      }
      enc_.final_values.push_back(value);
    }
  }

  z3::context& ctx_;
  z3::solver& s_;
  const EventGraph& g_;
  Model model_;
  Encoding enc_;
  std::vector<z3::expr> uniproc_;
  std::vector<int> position_in_thread_;
  std::vector<std::vector<int>> writers_;  // per variable: events that may write it
  std::vector<std::vector<int>> readers_;  // per variable: events that read it
};

}  // namespace

Encoding encode_memory_model(z3::solver& solver, const EventGraph& g, Model model) {
  return ModelEncoder(solver, g, model).run();
}

}  // namespace lockstep::axiomatic
