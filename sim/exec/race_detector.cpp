#include "sim/exec/race_detector.hpp"

#include <algorithm>
#include <stdexcept>

namespace lockstep::sim {

namespace {

bool acquires(std::memory_order order) {
  return order == std::memory_order_consume || order == std::memory_order_acquire ||
         order == std::memory_order_acq_rel || order == std::memory_order_seq_cst;
}

bool releases(std::memory_order order) {
  return order == std::memory_order_release || order == std::memory_order_acq_rel || order == std::memory_order_seq_cst;
}

}  // namespace

void RaceDetector::reset(std::size_t threads, bool enabled) {
  enabled_ = enabled;
  locations_.clear();
  threads_.clear();
  if (!enabled_) return;
  threads_.resize(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    ThreadState& s = threads_[t];
    s.now.assign(threads, 0);
    // A thread's first epoch is 1, so that no other thread's clock (all 0) covers it.
    s.now[t] = 1;
    s.release_fence.assign(threads, 0);
    s.acquired_relaxed.assign(threads, 0);
    s.woken_by.assign(threads, 0);
  }
}

void RaceDetector::join(VectorClock& into, const VectorClock& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

bool RaceDetector::ordered_before(const Epoch& e, ThreadId t) const {
  return e.thread == kNoThread || e.thread == t || e.clock <= threads_[t].now[e.thread];
}

// A load that store-to-load forwarding answers reads the thread's own store: it
// synchronizes with nobody.
bool RaceDetector::forwarded(ThreadId t, std::uint64_t addr) const {
  const auto& buffer = threads_[t].buffer;
  return std::any_of(buffer.begin(), buffer.end(), [addr](const Buffered& b) { return b.addr == addr; });
}

// What a store or RMW of `order` publishes: the thread's clock for a release (which then
// ticks, so later accesses are not covered), the last release fence's for a relaxed one.
VectorClock RaceDetector::release_clock(ThreadId t, std::memory_order order) {
  ThreadState& s = threads_[t];
  if (!releases(order)) return s.release_fence;
  VectorClock published = s.now;
  ++s.now[t];
  return published;
}

void RaceDetector::acquire(ThreadId t, const VectorClock& sync, std::memory_order order) {
  join(acquires(order) ? threads_[t].now : threads_[t].acquired_relaxed, sync);
}

std::optional<Race> RaceDetector::plain_load(ThreadId t, std::uint64_t addr) {
  if (!enabled_) return std::nullopt;
  Location& loc = locations_[addr];
  const std::uint32_t now = threads_[t].now[t];
  if (!ordered_before(loc.write, t))
    return Race{addr, {loc.write.thread, OpKind::plain_store, loc.write.clock}, {t, OpKind::plain_load, now}};
  for (Epoch& r : loc.reads) {
    if (r.thread == t) {
      r.clock = now;
      return std::nullopt;
    }
  }
  loc.reads.push_back(Epoch{t, now});
  return std::nullopt;
}

std::optional<Race> RaceDetector::plain_store(ThreadId t, std::uint64_t addr, bool buffered) {
  if (!enabled_) return std::nullopt;
  Location& loc = locations_[addr];
  const std::uint32_t now = threads_[t].now[t];
  if (!ordered_before(loc.write, t))
    return Race{addr, {loc.write.thread, OpKind::plain_store, loc.write.clock}, {t, OpKind::plain_store, now}};
  for (const Epoch& r : loc.reads)
    if (!ordered_before(r, t))
      return Race{addr, {r.thread, OpKind::plain_load, r.clock}, {t, OpKind::plain_store, now}};
  loc.write = Epoch{t, now};
  loc.reads.clear();  // every read so far happens before this write
  if (buffered) threads_[t].buffer.push_back(Buffered{addr, false, {}});
  return std::nullopt;
}

void RaceDetector::atomic_load(ThreadId t, std::uint64_t addr, std::memory_order order) {
  if (!enabled_ || forwarded(t, addr)) return;
  const auto it = locations_.find(addr);
  if (it != locations_.end()) acquire(t, it->second.sync, order);
}

void RaceDetector::atomic_store(ThreadId t, std::uint64_t addr, std::memory_order order, bool buffered) {
  if (!enabled_) return;
  VectorClock published = release_clock(t, order);
  if (buffered) {
    threads_[t].buffer.push_back(Buffered{addr, true, std::move(published)});
  } else {
    // A store that is not an RMW ends the release sequence: what was published is replaced.
    locations_[addr].sync = std::move(published);
  }
}

void RaceDetector::rmw(ThreadId t, std::uint64_t addr, std::memory_order order) {
  if (!enabled_) return;
  if (!threads_[t].buffer.empty()) throw std::logic_error("race detector: an RMW ran with stores still buffered");
  Location& loc = locations_[addr];
  acquire(t, loc.sync, order);
  // An RMW continues the release sequence of the stores before it, whatever its order.
  join(loc.sync, release_clock(t, order));
}

void RaceDetector::fence(ThreadId t, std::memory_order order) {
  if (!enabled_) return;
  ThreadState& s = threads_[t];
  if (acquires(order)) join(s.now, s.acquired_relaxed);
  if (releases(order)) {
    s.release_fence = s.now;
    ++s.now[t];
  }
}

// A sleeping target does nothing before its park returns, so its clock can take the
// unparker's at once; an awake one gets a permit, which its next park consumes.
void RaceDetector::unpark(ThreadId t, ThreadId target, bool parked) {
  if (!enabled_) return;
  join(parked ? threads_[target].now : threads_[target].woken_by, threads_[t].now);
  ++threads_[t].now[t];
}

// Joining at every park, permit or not, is harmless: without a permit, woken_by holds only
// clocks that an earlier park already joined.
void RaceDetector::parking(ThreadId t) {
  if (!enabled_) return;
  join(threads_[t].now, threads_[t].woken_by);
}

void RaceDetector::drained(ThreadId t, std::uint64_t addr) {
  if (!enabled_) return;
  auto& buffer = threads_[t].buffer;
  if (buffer.empty() || buffer.front().addr != addr)
    throw std::logic_error("race detector: its store buffer mirror disagrees with the engine's");
  if (buffer.front().publishes) locations_[addr].sync = std::move(buffer.front().clock);
  buffer.pop_front();
}

}  // namespace lockstep::sim
