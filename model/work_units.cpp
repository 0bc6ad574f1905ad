#include "model/work_units.hpp"

#include <stdexcept>

namespace lockstep::model {

namespace {

nlohmann::json encode_choice(const sim::Choice& c) {
  return nlohmann::json::array({static_cast<int>(c.kind), c.thread});
}

sim::Choice decode_choice(const nlohmann::json& j) {
  return sim::Choice{static_cast<sim::Choice::Kind>(j.at(0).get<int>()), j.at(1).get<sim::ThreadId>()};
}

template <class Range>
nlohmann::json encode_list(const Range& items, auto encode) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& item : items) out.push_back(encode(item));
  return out;
}

nlohmann::json encode_access(const sim::StepAccess& a) {
  return nlohmann::json::array({a.addr, a.size, a.write, a.space});
}

sim::StepAccess decode_access(const nlohmann::json& j) {
  return sim::StepAccess{j.at(0).get<std::uint64_t>(), j.at(1).get<std::uint8_t>(), j.at(2).get<bool>(),
                         j.at(3).get<std::uint32_t>()};
}

nlohmann::json encode_asleep(const DporStrategy::Asleep& a) {
  return nlohmann::json::array({encode_choice(a.choice), encode_list(a.accesses, encode_access)});
}

DporStrategy::Asleep decode_asleep(const nlohmann::json& j) {
  DporStrategy::Asleep a;
  a.choice = decode_choice(j.at(0));
  for (const auto& x : j.at(1)) a.accesses.push_back(decode_access(x));
  return a;
}

}  // namespace

nlohmann::json encode_choices(const sim::Schedule& choices) { return encode_list(choices, encode_choice); }

sim::Schedule decode_choices(const nlohmann::json& j) {
  sim::Schedule out;
  out.reserve(j.size());
  for (const auto& c : j) out.push_back(decode_choice(c));
  return out;
}

nlohmann::json encode_violation(const std::optional<sim::Violation>& v) {
  if (!v) return nullptr;
  return nlohmann::json::array({v->property, v->message, v->thread, v->time_ns, v->step, v->witness});
}

std::optional<sim::Violation> decode_violation(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  return sim::Violation{j.at(0).get<std::string>(),   j.at(1).get<std::string>(),   j.at(2).get<sim::ThreadId>(),
                        j.at(3).get<std::uint64_t>(), j.at(4).get<std::uint64_t>(), j.at(5).get<bool>()};
}

nlohmann::json encode_subtree(const DporStrategy::Subtree& t) {
  return encode_list(t.nodes, [](const DporStrategy::Node& n) {
    return nlohmann::json::array({encode_list(n.enabled, encode_choice), encode_list(n.backtrack, encode_choice),
                                  encode_list(n.sleep, encode_asleep), encode_list(n.early, encode_asleep), n.scanned,
                                  encode_choice(n.chosen), n.has_chosen});
  });
}

DporStrategy::Subtree decode_dpor_subtree(const nlohmann::json& j) {
  DporStrategy::Subtree t;
  t.nodes.reserve(j.size());
  for (const auto& x : j) {
    DporStrategy::Node& n =
        t.nodes.emplace_back();  // in place: moving small_vectors trips GCC 12's -Wstringop-overread
    for (const auto& c : x.at(0)) n.enabled.push_back(decode_choice(c));
    for (const auto& c : x.at(1)) n.backtrack.push_back(decode_choice(c));
    for (const auto& a : x.at(2)) n.sleep.push_back(decode_asleep(a));
    for (const auto& a : x.at(3)) n.early.push_back(decode_asleep(a));
    n.scanned = x.at(4).get<std::uint32_t>();
    n.chosen = decode_choice(x.at(5));
    n.has_chosen = x.at(6).get<bool>();
  }
  return t;
}

nlohmann::json encode_request(const DporStrategy::Request& r) { return {r.node, encode_choices(r.initials)}; }

DporStrategy::Request decode_request(const nlohmann::json& j) {
  return DporStrategy::Request{j.at(0).get<std::uint32_t>(), decode_choices(j.at(1))};
}

nlohmann::json encode_subtree(const BoundedStrategy::Subtree& t) {
  return encode_list(t.nodes, [](const BoundedStrategy::Node& n) {
    return nlohmann::json::array({encode_list(n.options,
                                              [](const BoundedStrategy::Option& o) {
                                                return nlohmann::json::array({o.index, o.cost});
                                              }),
                                  n.taken, n.spent_before});
  });
}

BoundedStrategy::Subtree decode_bounded_subtree(const nlohmann::json& j) {
  BoundedStrategy::Subtree t;
  for (const auto& x : j) {
    BoundedStrategy::Node n;
    for (const auto& o : x.at(0)) n.options.push_back({o.at(0).get<std::uint32_t>(), o.at(1).get<unsigned>()});
    n.taken = x.at(1).get<std::size_t>();
    n.spent_before = x.at(2).get<unsigned>();
    t.nodes.push_back(std::move(n));
  }
  return t;
}

namespace {

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(v));
}

// Reads the varint at `at` and moves past it; throws on one cut short or longer than 64 bits.
std::uint64_t get_varint(const std::vector<std::uint8_t>& in, std::size_t& at) {
  std::uint64_t v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (at == in.size()) throw std::runtime_error("work unit: packed runs cut short");
    const std::uint8_t b = in[at++];
    v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
  }
  throw std::runtime_error("work unit: packed runs: a figure longer than 64 bits");
}

}  // namespace

void PackedRuns::add(std::uint64_t steps, std::uint64_t memory_ops, bool abandoned, std::uint64_t count) {
  const RunFigures r{steps, memory_ops, abandoned};
  if (pending_ > 0 && r != last_) flush();
  last_ = r;
  pending_ += count;
}

void PackedRuns::flush() {
  if (pending_ == 0) return;
  put_varint(bytes_, last_.steps);
  put_varint(bytes_, last_.memory_ops * 2 + (last_.abandoned ? 1 : 0));
  put_varint(bytes_, pending_);
  pending_ = 0;
}

nlohmann::json to_json(PackedRuns runs) {
  runs.flush();
  return nlohmann::json::binary(std::move(runs.bytes_));
}

void for_each_run_group(const nlohmann::json& packed, const std::function<void(const RunFigures&, std::uint64_t)>& f) {
  const auto& bytes = packed.get_binary();
  for (std::size_t at = 0; at < bytes.size();) {
    const std::uint64_t steps = get_varint(bytes, at);
    const std::uint64_t ops = get_varint(bytes, at);
    const std::uint64_t count = get_varint(bytes, at);
    if (count == 0) throw std::runtime_error("work unit: packed runs: a group of no runs");
    f(RunFigures{steps, ops >> 1, (ops & 1) != 0}, count);
  }
}

void for_each_run(const nlohmann::json& packed, const std::function<void(const RunFigures&)>& f) {
  for_each_run_group(packed, [&f](const RunFigures& r, std::uint64_t count) {
    if (count > (std::uint64_t{1} << 32))
      throw std::runtime_error("work unit: packed runs: a group too large to expand");
    for (std::uint64_t k = 0; k < count; ++k) f(r);
  });
}

nlohmann::json encode_chunk(const SamplingChunk& c) {
  PackedRuns runs;
  for (const SamplingChunk::RunFigures& r : c.runs) runs.add(r.steps, r.memory_ops, r.abandoned);
  return {{"runs", to_json(std::move(runs))},
          {"violation", encode_violation(c.violation)},
          {"schedule", encode_choices(c.schedule)}};
}

SamplingChunk decode_chunk(const nlohmann::json& j) {
  SamplingChunk c;
  for_each_run(j.at("runs"), [&c](const RunFigures& r) { c.runs.push_back({r.steps, r.memory_ops, r.abandoned}); });
  c.violation = decode_violation(j.at("violation"));
  c.schedule = decode_choices(j.at("schedule"));
  if (c.violation && c.runs.empty()) throw std::runtime_error("work unit: a violation without a run");
  return c;
}

std::string to_bytes(const nlohmann::json& j) {
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_msgpack(j);
  return {bytes.begin(), bytes.end()};
}

nlohmann::json from_bytes(const std::string& bytes) {
  try {
    return nlohmann::json::from_msgpack(bytes);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("work unit: not MessagePack: ") + e.what());
  }
}

std::string serve_unit(const std::string& unit, const UnitContext& context) {
  const nlohmann::json j = from_bytes(unit);
  try {
    const std::string kind = j.at("kind").get<std::string>();
    if (kind == "dfs") return to_bytes(serve_dfs_unit(j, unit, context));
    if (kind == "dfs-resumed") return to_bytes(serve_resumed_dfs_unit(j, context));
    if (kind == "bounded") return to_bytes(serve_bounded_unit(j, context));
    if (kind == "sampling") return to_bytes(serve_sampling_unit(j, context));
    throw std::runtime_error("work unit: unknown kind " + kind);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("work unit: malformed: ") + e.what());
  }
}

}  // namespace lockstep::model
