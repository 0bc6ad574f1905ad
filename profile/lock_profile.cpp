#include "profile/lock_profile.hpp"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>

namespace lockstep::profile {

std::string source_relative(const char* file) {
  if (file == nullptr) return {};
  const std::string_view f(file);
  const std::string_view root(LOCKSTEP_SOURCE_ROOT);
  return std::string(f.starts_with(root) ? f.substr(root.size()) : f);
}

void LockProfiler::Stats::add(const Stats& o) {
  acquisitions += o.acquisitions;
  contended += o.contended;
  hold_total += o.hold_total;
  hold_max = std::max(hold_max, o.hold_max);
  wait_total += o.wait_total;
  wait_max = std::max(wait_max, o.wait_max);
}

LockProfiler::Owner& LockProfiler::owner(std::uint32_t thread) {
  if (thread >= owners_.size()) owners_.resize(thread + 1);
  return owners_[thread];
}

LockProfiler::Table& LockProfiler::table(std::uint32_t cpu) {
  if (cpu >= per_cpu_.size()) per_cpu_.resize(cpu + 1);
  return per_cpu_[cpu];
}

void LockProfiler::note(std::uint32_t thread, std::uint32_t cpu, std::uint64_t lock, LockNote what, bool /*shared*/,
                        const char* file, std::uint32_t line, std::uint64_t now_ns) {
  Owner& o = owner(thread);
  switch (what) {
    case LockNote::wait:
      if (o.waiting) ++unmatched_;
      o.waiting = true;
      o.wait_lock = lock;
      o.wait_start_ns = now_ns;
      return;
    case LockNote::acquire: {
      Hold h{lock, {file, line}, now_ns, 0, false};
      if (o.waiting) {
        if (o.wait_lock == lock) {
          h.contended = true;
          h.waited_ns = now_ns - o.wait_start_ns;
        } else {
          ++unmatched_;
        }
        o.waiting = false;
      }
      o.holds.push_back(h);
      return;
    }
    case LockNote::release: {
      // The latest hold of this lock: a thread releases in any order, and a reader-writer
      // lock may be held shared more than once.
      const auto it = std::find_if(o.holds.rbegin(), o.holds.rend(), [lock](const Hold& h) { return h.lock == lock; });
      if (it == o.holds.rend()) {
        ++unmatched_;
        return;
      }
      const Hold h = *it;
      o.holds.erase(std::next(it).base());
      Stats& s = table(cpu)[Key{h.site.file, h.site.line, h.lock}];
      const std::uint64_t held = now_ns - h.acquired_ns;
      ++s.acquisitions;
      s.hold_total += held;
      s.hold_max = std::max(s.hold_max, held);
      if (h.contended) {
        ++s.contended;
        s.wait_total += h.waited_ns;
        s.wait_max = std::max(s.wait_max, h.waited_ns);
      }
      return;
    }
  }
}

void LockProfiler::absorb(const LockProfiler& other) {
  for (std::size_t cpu = 0; cpu < other.per_cpu_.size(); ++cpu)
    for (const auto& [key, stats] : other.per_cpu_[cpu]) table(static_cast<std::uint32_t>(cpu))[key].add(stats);
  unmatched_ += other.unmatched_;
}

LockProfile LockProfiler::profile(const Namer& name_of, double ns_per_unit) const {
  const auto ns = [ns_per_unit](std::uint64_t units) {
    return ns_per_unit == 1.0 ? units : static_cast<std::uint64_t>(static_cast<double>(units) * ns_per_unit + 0.5);
  };
  // Merged by (file, line, name): the per-CPU tables, and the locks one name folds together.
  std::map<std::tuple<std::string, std::uint32_t, std::string>, Stats> merged;
  std::unordered_map<std::uint64_t, std::string> names;
  for (const Table& t : per_cpu_) {
    for (const auto& [key, stats] : t) {
      auto [it, fresh] = names.try_emplace(key.lock);
      if (fresh) it->second = fold_indices(name_of(key.lock));
      merged[{source_relative(key.file), key.line, it->second}].add(stats);
    }
  }
  LockProfile p;
  for (const auto& [key, s] : merged) {
    LockProfileEntry e;
    std::tie(e.file, e.line, e.name) = key;
    e.acquisitions = s.acquisitions;
    e.contended = s.contended;
    e.hold_total_ns = ns(s.hold_total);
    e.hold_max_ns = ns(s.hold_max);
    e.wait_total_ns = ns(s.wait_total);
    e.wait_max_ns = ns(s.wait_max);
    p.entries.push_back(std::move(e));
  }
  std::stable_sort(p.entries.begin(), p.entries.end(), [](const LockProfileEntry& a, const LockProfileEntry& b) {
    return std::tie(b.wait_total_ns, b.hold_total_ns) < std::tie(a.wait_total_ns, a.hold_total_ns);
  });
  return p;
}

std::string fold_indices(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    out += name[i];
    if (name[i] != '[') continue;
    std::size_t j = i + 1;
    while (j < name.size() && name[j] >= '0' && name[j] <= '9') ++j;
    if (j > i + 1 && j < name.size() && name[j] == ']') i = j - 1;  // drop the digits
  }
  return out;
}

}  // namespace lockstep::profile
