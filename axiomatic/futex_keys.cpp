#include "axiomatic/futex_keys.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <z3++.h>

#include "core/futex/futex_key.hpp"

namespace lockstep::axiomatic {

namespace {

// lookup3's mix and final (core/futex/futex_key.hpp), on 32-bit vectors.
void mix(z3::expr& a, z3::expr& b, z3::expr& c) {
  a = a - c;
  a = a ^ c.rotate_left(4);
  c = c + b;
  b = b - a;
  b = b ^ a.rotate_left(6);
  a = a + c;
  c = c - b;
  c = c ^ b.rotate_left(8);
  b = b + a;
  a = a - c;
  a = a ^ c.rotate_left(16);
  c = c + b;
  b = b - a;
  b = b ^ a.rotate_left(19);
  a = a + c;
  c = c - b;
  c = c ^ b.rotate_left(4);
  b = b + a;
}

void final_mix(z3::expr& a, z3::expr& b, z3::expr& c) {
  c = c ^ b;
  c = c - b.rotate_left(14);
  a = a ^ c;
  a = a - c.rotate_left(11);
  b = b ^ a;
  b = b - a.rotate_left(25);
  c = c ^ b;
  c = c - b.rotate_left(16);
  a = a ^ c;
  a = a - c.rotate_left(4);
  b = b ^ a;
  b = b - a.rotate_left(14);
  c = c ^ b;
  c = c - b.rotate_left(24);
}

// jhash2 of four 32-bit words seeded by `initval`: one mix of the first three, then the
// fourth and the final mix (jhash2's loop for N = 4).
z3::expr jhash2_4(z3::context& ctx, const z3::expr (&w)[4], const z3::expr& initval) {
  z3::expr a = ctx.bv_val(futex::jhash_detail::kInit + (4u << 2), 32) + initval;
  z3::expr b = a;
  z3::expr c = a;
  a = a + w[0];
  b = b + w[1];
  c = c + w[2];
  mix(a, b, c);
  a = a + w[3];
  final_mix(a, b, c);
  return c;
}

z3::expr hash_of(z3::context& ctx, const futex::FutexConfig& config, const z3::expr& address) {
  const z3::expr offset = address & ctx.bv_val(futex::kPageBytes - 1, 64);
  const z3::expr page = address - offset;
  const bool shared = config.key == futex::KeyKind::shared_key;
  const z3::expr word = shared ? z3::lshr(page, ctx.bv_val(12, 64)) : page;
  const std::uint64_t ptr = shared ? futex::kSharedObjectId : futex::kAddressSpaceId;
  if (config.hash == futex::HashKind::jhash2) {
    const z3::expr w[4] = {word.extract(31, 0), word.extract(63, 32), ctx.bv_val(static_cast<std::uint32_t>(ptr), 32),
                           ctx.bv_val(static_cast<std::uint32_t>(ptr >> 32), 32)};
    return jhash2_4(ctx, w, offset.extract(31, 0));
  }
  const z3::expr folded = (word + offset) ^ ctx.bv_val(std::rotl(ptr, 29), 64);
  return z3::lshr(folded * ctx.bv_val(std::uint64_t{0x9e3779b97f4a7c15ULL}, 64), ctx.bv_val(32, 64)).extract(31, 0);
}

}  // namespace

Bucket real_bucket(const futex::FutexConfig& config, const futex::FutexMachine& machine, std::uint64_t address) {
  const futex::TableShape shape = futex::table_shape(config.sizing, machine);
  const std::uint32_t h = futex::hash_key(config.hash, futex::make_key(config.key, address));
  // As FutexTableImpl: the bucket is the low bits; with several tables the node is
  // (hash >> log2(buckets)) % tables.
  const int table = shape.tables == 1 ? 0
                                      : static_cast<int>((h >> std::countr_zero(shape.buckets_per_table)) %
                                                         static_cast<std::uint32_t>(shape.tables));
  return {table, h & (shape.buckets_per_table - 1)};
}

KeyAnswer colliding_keys(const KeyQuery& q) {
  const auto start = std::chrono::steady_clock::now();
  if (q.align == 0 || (q.align & (q.align - 1)) != 0)
    throw std::invalid_argument("keys: the alignment must be a power of two");
  if (q.hi <= q.lo) throw std::invalid_argument("keys: the range is empty");
  const futex::TableShape shape = futex::table_shape(q.config.sizing, q.machine);
  KeyAnswer answer;
  answer.buckets_per_table = shape.buckets_per_table;
  answer.tables = shape.tables;

  z3::context ctx;
  // A fresh bit-blasting solver per page (the qfbv tactic: simplify, bit-blast, SAT):
  // incremental solving with push and pop would fall back on Z3's general SMT core, which
  // is far slower on a hash.
  const z3::tactic qfbv(ctx, "qfbv");
  const z3::expr bucket = ctx.bv_const("bucket", 32);
  const z3::expr table = ctx.bv_const("table", 32);
  const z3::expr mask = ctx.bv_val(shape.buckets_per_table - 1, 32);
  const auto shift = static_cast<unsigned>(std::countr_zero(shape.buckets_per_table));
  // Page by page: the page address is a constant and only the offset within the page is
  // unknown (10 bits for 4-byte alignment), so each query is one hash over a few input bits,
  // which the solver decides quickly; with the whole address unknown (20 bits and more),
  // inverting jhash's mixing took it minutes for one answer. The first answer fixes the
  // bucket (and the node's table) for the rest; within a page each answer excludes itself.
  const auto in_page_bits = static_cast<unsigned>(std::countr_zero(futex::kPageBytes / q.align));
  const z3::expr slot = ctx.bv_const("slot", in_page_bits);
  const z3::expr offset = z3::zext(slot, 64 - in_page_bits) * ctx.bv_val(q.align, 64);
  bool fixed = false;
  for (std::uint64_t page = q.lo & ~(futex::kPageBytes - 1); page < q.hi && answer.addresses.size() < q.count;
       page += futex::kPageBytes) {
    z3::solver solver = qfbv.mk_solver();
    if (fixed) {
      solver.add(bucket == ctx.bv_val(answer.bucket.index, 32));
      solver.add(table == ctx.bv_val(static_cast<std::uint32_t>(answer.bucket.table), 32));
    }
    const z3::expr a = ctx.bv_val(page, 64) + offset;
    solver.add(z3::uge(a, ctx.bv_val(q.lo, 64)) && z3::ult(a, ctx.bv_val(q.hi, 64)));
    const z3::expr h = hash_of(ctx, q.config, a);
    solver.add((h & mask) == bucket);
    if (shape.tables > 1)
      solver.add(z3::urem(z3::lshr(h, ctx.bv_val(shift, 32)),
                          ctx.bv_val(static_cast<std::uint32_t>(shape.tables), 32)) == table);
    while (answer.addresses.size() < q.count) {
      ++answer.queries;
      const z3::check_result r = solver.check();
      if (r == z3::unknown) throw std::runtime_error("keys: the solver gave up: " + solver.reason_unknown());
      if (r == z3::unsat) break;  // no (more) address of this page in the bucket
      const z3::model m = solver.get_model();
      const std::uint64_t found = m.eval(a, true).get_numeral_uint64();
      answer.addresses.push_back(found);
      if (!fixed) {
        answer.bucket = {static_cast<int>(shape.tables > 1 ? m.eval(table, true).get_numeral_uint64() : 0),
                         static_cast<std::uint32_t>(m.eval(bucket, true).get_numeral_uint64())};
        fixed = true;
        solver.add(bucket == ctx.bv_val(answer.bucket.index, 32));
        solver.add(table == ctx.bv_val(static_cast<std::uint32_t>(answer.bucket.table), 32));
      }
      solver.add(slot != m.eval(slot, true));
    }
  }
  if (answer.addresses.size() < q.count)
    throw std::runtime_error(
        fmt::format("keys: [{:#x}, {:#x}) holds only {} addresses aligned to {} in one bucket "
                    "(proven by the solver, page by page), not {}",
                    q.lo, q.hi, answer.addresses.size(), q.align, q.count));
  std::sort(answer.addresses.begin(), answer.addresses.end());
  // The check that matters: the table's own hash puts every answer in that bucket.
  answer.verified = !answer.addresses.empty();
  for (std::uint64_t addr : answer.addresses)
    answer.verified = answer.verified && real_bucket(q.config, q.machine, addr) == answer.bucket;
  answer.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return answer;
}

std::vector<std::uint64_t> find_colliding_keys(const futex::CollidingKeyRequest& request) {
  using Question = std::tuple<std::string, int, int, int, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>;
  static std::mutex mutex;
  static std::map<Question, std::vector<std::uint64_t>> answers;
  const Question question{futex::describe(request.config),
                          request.machine.cpus,
                          request.machine.nodes,
                          request.machine.threads,
                          request.lo,
                          request.hi,
                          request.count,
                          request.align};
  {
    const std::lock_guard lock(mutex);
    if (const auto it = answers.find(question); it != answers.end()) return it->second;
  }
  const KeyAnswer a = colliding_keys({.config = request.config,
                                      .machine = request.machine,
                                      .count = request.count,
                                      .lo = request.lo,
                                      .hi = request.hi,
                                      .align = request.align});
  if (!a.verified)
    throw std::runtime_error("keys: the table's own hash puts a solver's answer in another bucket (an encoding bug)");
  const std::lock_guard lock(mutex);
  return answers.emplace(question, a.addresses).first->second;
}

}  // namespace lockstep::axiomatic
