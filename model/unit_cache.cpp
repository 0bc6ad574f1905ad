#include "model/unit_cache.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "io/base64.hpp"
#include "model/work_units.hpp"

namespace lockstep::model {

namespace {

// Units and answers are MessagePack; the checkpoint file is JSON text.
nlohmann::json binary(const std::string& s) { return io::base64_encode(s); }

std::string text(const nlohmann::json& j) { return io::base64_decode(j.get<std::string>()); }

}  // namespace

std::optional<std::string> UnitCache::find(const std::string& unit) const {
  const std::lock_guard lock(mutex_);
  const auto it = entries_.find(unit);
  if (it == entries_.end()) return std::nullopt;
  return it->second.answer;
}

void UnitCache::put(const std::string& unit, std::string answer, const std::string* parent) {
  const std::lock_guard lock(mutex_);
  drop_reported(unit);
  // A unit finishes after every unit it made: those are here now, and subsumed.
  std::erase_if(entries_, [&unit](const auto& e) { return e.second.parent == unit; });
  std::erase_if(running_, [&unit](const auto& e) { return e.first == unit || e.second.parent == unit; });
  entries_[unit] = Entry{std::move(answer), parent != nullptr ? std::optional<std::string>(*parent) : std::nullopt};
}

void UnitCache::put_running(const std::string& unit, std::string state, const std::string* parent,
                            const std::set<std::string>& unmerged) {
  const std::lock_guard lock(mutex_);
  if (entries_.contains(unit)) return;  // finished meanwhile (a resumed unit's old state)
  std::erase_if(entries_, [&](const auto& e) { return e.second.parent == unit && !unmerged.contains(e.first); });
  running_[unit] = Entry{std::move(state), parent != nullptr ? std::optional<std::string>(*parent) : std::nullopt};
}

std::optional<std::string> UnitCache::find_running(const std::string& unit) const {
  const std::lock_guard lock(mutex_);
  const auto it = running_.find(unit);
  if (it == running_.end()) return std::nullopt;
  return it->second.answer;
}

bool UnitCache::is_running(const std::string& unit) const {
  const std::lock_guard lock(mutex_);
  return running_.contains(unit);
}

bool UnitCache::has_children(const std::string& unit) const {
  const std::lock_guard lock(mutex_);
  const auto made = [&unit](const auto& e) { return e.second.parent == unit; };
  return std::any_of(entries_.begin(), entries_.end(), made) || std::any_of(running_.begin(), running_.end(), made);
}

std::size_t UnitCache::size() const {
  const std::lock_guard lock(mutex_);
  return entries_.size();
}

nlohmann::json UnitCache::save_from(const std::string& unit) const {
  const std::lock_guard lock(mutex_);
  nlohmann::json out = nlohmann::json::array();
  std::set<std::string> below{unit};
  // Parents are made before their children, but the maps are in key order: sweep until no
  // entry joins.
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto* map : {&entries_, &running_})
      for (const auto& [u, e] : *map)
        if (e.parent && below.contains(*e.parent) && below.insert(u).second) grew = true;
  }
  for (const auto& [u, e] : entries_)
    if (u != unit && below.contains(u)) out.push_back({binary(u), binary(e.answer), binary(*e.parent)});
  for (const auto& [u, e] : running_)
    if (below.contains(u))
      out.push_back(
          {binary(u), binary(e.answer), u == unit || !e.parent ? nlohmann::json() : binary(*e.parent), "running"});
  return out;
}

nlohmann::json UnitCache::save() const {
  const std::lock_guard lock(mutex_);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [unit, e] : entries_)
    out.push_back({binary(unit), binary(e.answer), e.parent ? binary(*e.parent) : nlohmann::json()});
  for (const auto& [unit, e] : running_)  // a fourth member: "running"
    out.push_back({binary(unit), binary(e.answer), e.parent ? binary(*e.parent) : nlohmann::json(), "running"});
  generation_.fetch_add(1, std::memory_order_relaxed);
  return out;
}

std::vector<UnitCache::Parsed> UnitCache::parse(const nlohmann::json& j) {
  std::vector<Parsed> out;
  try {
    if (!j.is_array()) throw std::runtime_error("its units are not a list");
    for (const auto& e : j) {
      if (!e.is_array() || (e.size() != 3 && e.size() != 4) || !e.at(0).is_string() || !e.at(1).is_string())
        throw std::runtime_error("a unit is not (unit, answer, parent) or (unit, state, parent, \"running\")");
      const bool running = e.size() == 4;
      if (running && e.at(3) != "running") throw std::runtime_error("a unit's fourth member is not \"running\"");
      const nlohmann::json& parent = e.at(2);
      // Both must be MessagePack maps (what a search sends and answers); what is inside them
      // is checked when the search reads the answer.
      if (!from_bytes(text(e.at(0))).is_object() || !from_bytes(text(e.at(1))).is_object())
        throw std::runtime_error("a unit or an answer is not a MessagePack map");
      out.push_back(Parsed{
          text(e.at(0)),
          Entry{text(e.at(1)), parent.is_null() ? std::nullopt : std::optional<std::string>(text(parent))}, running});
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed units: ") + e.what());
  }
  return out;
}

void UnitCache::load(const nlohmann::json& j, UnitCache& into) {
  std::vector<Parsed> parsed = parse(j);
  const std::lock_guard lock(into.mutex_);
  for (Parsed& p : parsed) (p.running ? into.running_ : into.entries_)[p.unit] = std::move(p.entry);
}

void UnitCache::merge_remote(const std::string& unit, const std::string* parent, const nlohmann::json& units) {
  std::vector<Parsed> parsed = parse(units);
  const std::lock_guard lock(mutex_);
  if (entries_.contains(unit)) return;  // answered already
  drop_reported(unit);
  std::set<std::string>& reported = reported_[unit];
  for (Parsed& p : parsed) {
    if (p.unit == unit) p.entry.parent = parent != nullptr ? std::optional<std::string>(*parent) : std::nullopt;
    reported.insert(p.unit);
    (p.running ? running_ : entries_)[p.unit] = std::move(p.entry);
  }
}

void UnitCache::drop_reported(const std::string& unit) {
  const auto it = reported_.find(unit);
  if (it == reported_.end()) return;
  for (const std::string& u : it->second) {
    entries_.erase(u);
    running_.erase(u);
  }
  reported_.erase(it);
}

std::unique_ptr<PeriodicSave> save_periodically(const CheckpointPolicy* policy, const UnitCache& cache, unsigned split,
                                                std::function<void()> before) {
  if (policy == nullptr || !policy->save || policy->every_s <= 0) return nullptr;
  return std::make_unique<PeriodicSave>(policy->every_s, [policy, &cache, split, before = std::move(before)] {
    if (before) before();
    SearchCheckpoint c;
    c.units = cache.save();
    c.split = split;
    policy->save(c);
  });
}

}  // namespace lockstep::model
