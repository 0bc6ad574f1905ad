#include "gui/model/bands.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace lockstep::view {

namespace {

void add(std::vector<ThreadBands>& out, int thread, Band band) {
  if (thread < 0 || thread >= static_cast<int>(out.size())) return;
  ThreadBands& tb = out[static_cast<std::size_t>(thread)];
  tb.longest_ns = std::max(tb.longest_ns, band.end - band.begin);
  tb.bands.push_back(band);
}

// Ends an open band at `t` (never before it began) and adds it to the thread's lane.
void close(std::vector<ThreadBands>& out, int thread, Band band, std::uint64_t t) {
  band.end = std::max(band.begin, t);
  band.open = false;
  add(out, thread, band);
}

// Closes the band open under `key` in `open`, if there is one.
template <typename Key>
void close_open(std::map<Key, Band>& open, const Key& key, std::vector<ThreadBands>& out, int thread, std::uint64_t t) {
  if (const auto it = open.find(key); it != open.end()) {
    close(out, thread, it->second, t);
    open.erase(it);
  }
}

}  // namespace

std::vector<ThreadBands> derive_bands(const Trace& trace) {
  std::vector<ThreadBands> out(trace.threads.size());
  // Open bands, keyed by (thread, address): ordered maps so the result never depends on
  // hashing. Nested holds of one lock by one thread (recursive) stack up.
  std::map<std::pair<int, std::uint64_t>, std::vector<Band>> holding;
  std::map<std::pair<int, std::uint64_t>, Band> waiting;
  for (const LockEvent& e : trace.locks) {
    const auto key = std::pair{e.thread, e.addr};
    switch (e.act) {
      case LockEvent::Act::wait:
        waiting.try_emplace(key, Band{Band::Kind::lock_wait, e.t, e.t, e.addr, e.shared, true});
        break;
      case LockEvent::Act::acquire:
        close_open(waiting, key, out, e.thread, e.t);
        holding[key].push_back(Band{Band::Kind::lock_held, e.t, e.t, e.addr, e.shared, true});
        break;
      case LockEvent::Act::release:
        if (auto it = holding.find(key); it != holding.end() && !it->second.empty()) {
          close(out, e.thread, it->second.back(), e.t);
          it->second.pop_back();
        }
        break;
    }
  }
  std::map<int, Band> queued;  // by waiter
  for (const FutexEvent& e : trace.futexes) {
    if (e.act == FutexEvent::Act::enqueue) {
      queued[e.waiter] = Band{Band::Kind::futex_queued, e.t, e.t, e.key, false, true};
    } else {
      close_open(queued, e.waiter, out, e.waiter, e.t);
    }
  }
  std::map<int, Band> in_syscall;  // by thread
  for (const SyscallEvent& e : trace.syscalls) {
    if (e.enter) {
      in_syscall[e.thread] = Band{Band::Kind::syscall, e.t, e.t, 0, false, true};
    } else {
      close_open(in_syscall, e.thread, out, e.thread, e.t);
    }
  }
  const auto close_at_end = [&](int thread, Band b) {
    b.end = std::max(b.begin, trace.end_time);
    add(out, thread, b);
  };
  for (auto& [key, stack] : holding)
    for (const Band& b : stack) close_at_end(key.first, b);
  for (const auto& [key, b] : waiting) close_at_end(key.first, b);
  for (const auto& [waiter, b] : queued) close_at_end(waiter, b);
  for (const auto& [thread, b] : in_syscall) close_at_end(thread, b);
  for (ThreadBands& tb : out)
    std::stable_sort(tb.bands.begin(), tb.bands.end(), [](const Band& a, const Band& b) { return a.begin < b.begin; });
  return out;
}

}  // namespace lockstep::view
