// MemorySystem: the coherence state of each line and what happens to copies and dirty data
// as lines move between caches. memory_system.cpp decides what an access costs and calls
// these to update the directory.
//
// A line is, in each core's private caches, Modified, Owned (MOESI), Exclusive, Shared,
// Forward (MESIF) or Invalid: the directory keeps the one core holding it M, O, E or F
// (`owner`) and the cores holding it S (`sharers`). The packages' shared last levels are
// tracked too, since a write must invalidate their copies as well, and dirty data left in
// a last level must be written back when that cache evicts it.
#include <bit>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/machine/memory_system.hpp"

namespace lockstep::sim::machine {

void MemorySystem::set_owner(Line& line, int core, OwnerState state) {
  line.owner = static_cast<std::int16_t>(core);
  line.owner_state = state;
  line.sharers.clear();
  // A core's Modified copy is newer than any a last level keeps.
  if (state == OwnerState::modified) line.dirty_llc = -1;
}

void MemorySystem::add_sharer(Line& line, int core) {
  if (line.owner != core && !line.shared_by(core)) line.sharers.push_back(core);
}

// After a read miss that no core's copy answered: Exclusive if no other cache holds the line
// (a copy in the reader's own package's last level aside), so a later write needs no
// message; otherwise Shared, or under MESIF Forward (the newest reader answers the next).
void MemorySystem::grant_read(Line& line, int core) {
  const std::uint32_t own_package = package_bit(topology_.package_of_core(core));
  const bool alone = line.sharers.empty() && (line.llc_packages & ~own_package) == 0;
  if (line.owner < 0 && (alone || config_.line_states == LineStates::mesif)) {
    line.owner = static_cast<std::int16_t>(core);
    line.owner_state = alone ? OwnerState::exclusive : OwnerState::forward;
    return;
  }
  add_sharer(line, core);
}

// `reader` reads a line another core holds E, M, O or F (the caller costs the transfer).
void MemorySystem::share_owned_line(Line& line, int reader, double at) {
  const int owner = line.owner;
  const int owner_package = topology_.package_of_core(owner);
  if (line.owner_state == OwnerState::owned) {  // it keeps answering readers
    add_sharer(line, reader);
    return;
  }
  if (line.owner_state == OwnerState::modified) {
    if (config_.line_states == LineStates::moesi) {
      line.owner_state = OwnerState::owned;
      add_sharer(line, reader);
      return;
    }
    // MESI(F) shares no dirty line: the data goes back, into the package's inclusive last
    // level when the reader is in the same package, to memory otherwise.
    if (owner_package == topology_.package_of_core(reader) && config_.inclusive_llc &&
        (line.llc_packages & package_bit(owner_package)) != 0) {
      line.dirty_llc = static_cast<std::int8_t>(owner_package);
    } else {
      writeback(line, owner_package, at);
    }
  }
  // E, F, or M written back: the old copy becomes Shared; under MESIF the reader's is Forward.
  line.sharers.push_back(owner);
  line.owner = -1;
  if (config_.line_states == LineStates::mesif) {
    line.owner = static_cast<std::int16_t>(reader);
    line.owner_state = OwnerState::forward;
  } else {
    line.sharers.push_back(reader);
  }
}

// Invalidates every copy but `core`'s, other packages' last levels included, and returns how
// long the slowest acknowledgement takes. `probed` names packages the access's own request
// already reached: their last levels need no message of their own. Each core keeps reading
// its copy until the invalidation reaches it (half the round trip within a package [guess]).
double MemorySystem::invalidate_others(Line& line, std::uint64_t line_addr, int core, double start,
                                       std::uint32_t probed) {
  const int package = topology_.package_of_core(core);
  double slowest = 0;
  auto round_trip = [&](int p, double* arrival) {
    const double arrive = start + config_.uncore_ns + message(package, p, Message::request, start) + config_.probe_ns;
    if (arrival != nullptr) *arrival = arrive;
    return arrive + message(p, package, Message::request, arrive) - start;
  };
  // Sharers in the order they got the line, then the owner, then last levels holding the
  // line without a core of theirs: the order the invalidations book their links in.
  auto acknowledge = [&](int other) {
    const int p = topology_.package_of_core(other);
    probed |= package_bit(p);
    double arrival = 0;
    if (p == package) {
      const double local = l3_.empty() ? config_.c2c_same_package_ns : l3_[static_cast<std::size_t>(package)].hit_ns();
      slowest = std::max(slowest, local);
      arrival = start + local / 2;
    } else {
      slowest = std::max(slowest, round_trip(p, &arrival));
    }
    depart(other, line_addr, arrival, state_letter(line, other));
  };
  for (int other : line.sharers)
    if (other != core) acknowledge(other);
  if (line.owner >= 0 && line.owner != core) acknowledge(line.owner);
  for (std::uint32_t rest = line.llc_packages & ~probed & ~package_bit(package); rest != 0; rest &= rest - 1)
    slowest = std::max(slowest, round_trip(std::countr_zero(rest), nullptr));

  for (int other : line.sharers)
    if (other != core) evict_from_caches(other, line_addr);
  std::erase_if(line.sharers, [core](int other) { return other != core; });
  if (line.owner >= 0 && line.owner != core) {
    evict_from_caches(line.owner, line_addr);
    line.owner = -1;
  }
  drop_other_llcs(line, line_addr, package);
  return slowest;
}

// A write from `package` invalidates the copies in every other package's last level. Their
// data is not written back: the writer's copy supersedes it.
void MemorySystem::drop_other_llcs(Line& line, std::uint64_t line_addr, int package) {
  for (std::uint32_t rest = line.llc_packages & ~package_bit(package); rest != 0; rest &= rest - 1)
    l3_[static_cast<std::size_t>(std::countr_zero(rest))].invalidate(line_addr);
  line.llc_packages &= package_bit(package);
  if (line.dirty_llc != package) line.dirty_llc = -1;
}

// Puts the line in `core`'s caches (and, when inclusive, its package's last level) and
// deals with what that evicts.
void MemorySystem::fill(int core, Line& line, std::uint64_t line_addr, double at) {
  const auto c = static_cast<std::size_t>(core);
  const int package = topology_.package_of_core(core);
  if (!l3_.empty() && config_.inclusive_llc) {
    if (auto evicted = l3_[static_cast<std::size_t>(package)].insert(line_addr)) leave_llc(package, *evicted, at);
    line.llc_packages |= package_bit(package);
  }
  std::optional<std::uint64_t> evicted = l1_[c].insert(line_addr);
  if (!l2_.empty()) evicted = l2_[c].insert(line_addr);  // L1's victim stays in L2
  if (evicted && *evicted != line_addr) leave_core(core, *evicted, at);
}

// `core` evicts a line for lack of room. Its dirty data (M or O) goes to the package's last
// level if that keeps the line (inclusive, or Barcelona's victim L3, filled by what the
// private levels evict), to memory otherwise.
void MemorySystem::leave_core(int core, std::uint64_t line_addr, double at) {
  const int package = topology_.package_of_core(core);
  Line* line = lines_.find(line_addr);
  const bool dirty = line != nullptr && line->owner == core && line->dirty();
  drop_from_core(core, line_addr);
  if (line == nullptr) return;
  if (!l3_.empty() && !config_.inclusive_llc) {
    if (auto evicted = l3_[static_cast<std::size_t>(package)].insert(line_addr)) leave_llc(package, *evicted, at);
    line->llc_packages |= package_bit(package);
  }
  if (!dirty) return;
  if ((line->llc_packages & package_bit(package)) != 0) {
    line->dirty_llc = static_cast<std::int8_t>(package);
  } else {
    writeback(*line, package, at);
  }
}

// `package`'s last level evicts a line. An inclusive one takes it from the package's cores
// too. Dirty data leaving the package is written back.
void MemorySystem::leave_llc(int package, std::uint64_t line_addr, double at) {
  Line* line = lines_.find(line_addr);
  if (line == nullptr) return;
  line->llc_packages &= ~package_bit(package);
  bool dirty = line->dirty_llc == package;
  if (dirty) line->dirty_llc = -1;
  if (config_.inclusive_llc) {
    auto in_package = [&](int other) { return topology_.package_of_core(other) == package; };
    for (int other : line->sharers)
      if (in_package(other)) evict_from_caches(other, line_addr);
    std::erase_if(line->sharers, in_package);
    if (line->owner >= 0 && in_package(line->owner)) {
      dirty = dirty || line->dirty();
      drop_from_core(line->owner, line_addr);
    }
  }
  if (dirty) writeback(*line, package, at);
}

// Dirty data from `package` to the line's home memory. It delays no access: the memory
// controller buffers writes [guess: it drains them between reads], so only the link it
// crosses is booked.
void MemorySystem::writeback(const Line& line, int package, double at) {
  ++writebacks_;
  if (package != line.home) message(package, line.home, Message::data, at);
}

// Takes the line out of the core's private caches; the directory forgets the core's copy.
void MemorySystem::drop_from_core(int core, std::uint64_t line_addr) {
  evict_from_caches(core, line_addr);
  Line* line = lines_.find(line_addr);
  if (line == nullptr) return;
  if (line->owner == core) line->owner = -1;
  std::erase(line->sharers, core);
}

void MemorySystem::evict_from_caches(int core, std::uint64_t line_addr) {
  const auto c = static_cast<std::size_t>(core);
  l1_[c].invalidate(line_addr);
  if (!l2_.empty()) l2_[c].invalidate(line_addr);
}

// `core` gives up its copy of the line, held in `state`, at `at`, when the request or
// invalidation that takes it arrives; until then it hits it (reads always, writes if it held
// it E or M).
void MemorySystem::depart(int core, std::uint64_t line_addr, double at, char state) {
  if (at <= quiet_until_ns_[static_cast<std::size_t>(core)]) [[unlikely]]
    throw std::logic_error(fmt::format(
        "machine {}: core {} loses a copy at {} ns, not after its quiet hit at {} ns: the lookahead of {} ns "
        "promised more than the model keeps (a simulator bug)",
        config_.name, core, at, quiet_until_ns_[static_cast<std::size_t>(core)], lookahead_ns_));
  auto& list = departures_[static_cast<std::size_t>(core)];
  const double now = links_.now();
  std::erase_if(list, [&](const Departure& d) { return d.until_ns <= now || d.line == line_addr; });
  if (at > now) list.push_back(Departure{line_addr, at, state});
}

void MemorySystem::depart_sharers(const Line& line, std::uint64_t line_addr, int except, double at) {
  for (int sharer : line.sharers)
    if (sharer != except) depart(sharer, line_addr, at, 'S');
}

// Whether `core`, which the directory no longer lists as holding the line (or as holding it
// writable), still has the copy it is losing at `at`.
char MemorySystem::still_holds(int core, std::uint64_t line_addr, bool write, double at) {
  Departure* d = departing(departures_[static_cast<std::size_t>(core)], line_addr, at);
  if (d == nullptr) return 0;
  const bool writable = d->state == 'E' || d->state == 'M';
  if (write && !writable) return 0;
  if (write) d->state = 'M';  // a write to an Exclusive copy makes it Modified, as a hit does
  return d->state;
}

double MemorySystem::copy_lost_at(CpuId cpu, std::uint64_t addr) const {
  if (cpu < 0 || cpu >= topology_.cpus()) return -1;
  const Departure* d =
      departing(departures_[static_cast<std::size_t>(topology_.core_of(cpu))], addr / kLineBytes, links_.now());
  return d == nullptr ? -1 : d->until_ns;
}

char MemorySystem::state_letter(const Line& line, int core) {
  if (line.owner == core) {
    switch (line.owner_state) {
      case OwnerState::exclusive:
        return 'E';
      case OwnerState::modified:
        return 'M';
      case OwnerState::owned:
        return 'O';
      case OwnerState::forward:
        return 'F';
    }
  }
  return line.shared_by(core) ? 'S' : 'I';
}

char MemorySystem::state_of(int core, std::uint64_t addr) const {
  const Line* line = lines_.find(addr / kLineBytes);
  return line == nullptr ? 'I' : state_letter(*line, core);
}

bool MemorySystem::llc_holds(int package, std::uint64_t addr) const {
  const Line* line = lines_.find(addr / kLineBytes);
  return line != nullptr && (line->llc_packages & package_bit(package)) != 0;
}

}  // namespace lockstep::sim::machine
