#include "tests/differential/program_generator.hpp"

#include <fmt/format.h>

#include <vector>

#include "sim/rng.hpp"

namespace lockstep::difftest {

namespace {

class Generator {
 public:
  Generator(std::uint64_t seed, const GeneratorShape& shape) : rng_(seed), shape_(shape) {}

  std::string program() {
    const unsigned vars = between(shape_.min_vars, shape_.max_vars);
    const unsigned threads = between(shape_.min_threads, shape_.max_threads);
    std::string out = "variables: {";
    for (unsigned v = 0; v < vars; ++v) {
      // Now and then a plain (P::Shared) word: load and store only, buffered like a relaxed store.
      const bool plain = one_in(6);
      plain_.push_back(plain);
      out += fmt::format("{}{}: {}", v == 0 ? "" : ", ", name(v), plain ? "{init: 0, kind: plain}" : "0");
    }
    out += "}\nthreads:\n";
    for (unsigned t = 0; t < threads; ++t) {
      regs_ = 0;
      out += fmt::format("  - name: t{}\n    program:\n", t);
      const unsigned ops = between(shape_.min_ops, shape_.max_ops);
      for (unsigned k = 0; k < ops; ++k) out += op(6);
    }
    return out;
  }

 private:
  unsigned between(unsigned lo, unsigned hi) { return lo + static_cast<unsigned>(rng_.below(hi - lo + 1)); }
  bool one_in(unsigned n) { return rng_.below(n) == 0; }
  static std::string name(unsigned v) { return std::string(1, static_cast<char>('x' + v % 3)) + (v >= 3 ? "1" : ""); }
  unsigned var() { return static_cast<unsigned>(rng_.below(plain_.size())); }
  unsigned atomic_var() {
    for (unsigned tries = 0; tries < 8; ++tries) {
      const unsigned v = var();
      if (!plain_[v]) return v;
    }
    return ~0U;
  }
  std::string reg() { return fmt::format("r{}", rng_.below(regs_)); }
  std::string fresh() { return fmt::format("r{}", regs_++); }
  std::string value() {
    if (regs_ > 0 && one_in(4)) return fmt::format("\"{} + 1\"", reg());
    return std::to_string(1 + rng_.below(3));
  }
  std::string order(const char* const* orders) { return orders[rng_.below(3)]; }

  // One op, indented for a thread's program (`indent` spaces before the dash).
  std::string op(unsigned indent) {
    const std::string pad(indent, ' ');
    const std::uint64_t dice = rng_.below(100);
    static const char* const kLoadOrders[] = {"relaxed", "acquire", "seq_cst"};
    static const char* const kStoreOrders[] = {"relaxed", "release", "seq_cst"};
    if (dice < 36) {
      const unsigned v = var();
      if (plain_[v]) return fmt::format("{}- load: {{var: {}, into: {}}}\n", pad, name(v), fresh());
      return fmt::format("{}- load: {{var: {}, into: {}, order: {}}}\n", pad, name(v), fresh(), order(kLoadOrders));
    }
    if (dice < 68) {
      const unsigned v = var();
      const std::string val = value();
      if (plain_[v]) return fmt::format("{}- store: {{var: {}, value: {}}}\n", pad, name(v), val);
      return fmt::format("{}- store: {{var: {}, value: {}, order: {}}}\n", pad, name(v), val, order(kStoreOrders));
    }
    if (dice < 76) return fmt::format("{}- fence{}\n", pad, one_in(4) ? ": acquire" : "");
    if (dice < 88) {
      const unsigned v = atomic_var();
      if (v == ~0U) return fmt::format("{}- fence\n", pad);
      switch (rng_.below(3)) {
        case 0:
          return fmt::format("{}- exchange: {{var: {}, value: {}, into: {}}}\n", pad, name(v), value(), fresh());
        case 1:
          return fmt::format("{}- fetch_add: {{var: {}, value: 1, into: {}}}\n", pad, name(v), fresh());
        default: {
          const std::string expected = std::to_string(rng_.below(3));
          const std::string desired = value();
          return fmt::format("{}- cas: {{var: {}, expected: {}, desired: {}, into: {}}}\n", pad, name(v), expected,
                             desired, fresh());
        }
      }
    }
    if (regs_ == 0) return op(indent);  // `if` and `assert` need a register assigned before them
    if (dice < 95 && indent < 10) {
      std::string out =
          fmt::format("{}- if:\n{}    cond: \"{} == {}\"\n{}    then:\n", pad, pad, reg(), rng_.below(3), pad);
      out += op(indent + 6);
      if (one_in(2)) out += fmt::format("{}    else:\n", pad) + op(indent + 6);
      return out;
    }
    return fmt::format("{}- assert: \"{} != {}\"\n", pad, reg(), 1 + rng_.below(3));
  }

  sim::Rng rng_;
  GeneratorShape shape_;
  std::vector<bool> plain_;
  unsigned regs_ = 0;
};

}  // namespace

std::string generate_program(std::uint64_t seed, const GeneratorShape& shape) {
  return Generator(seed, shape).program();
}

}  // namespace lockstep::difftest
