// Engine: the platform's operations. Each one on shared state is a scheduling point
// (yield_for), then runs atomically: read or write the host bytes, cost it, trace it.
// On the host side (setup, final checks, unwinding an aborted thread) they act directly.
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/exec/engine.hpp"
#include "sim/exec/engine_state.hpp"
#include "sim/host_prefetch.hpp"

namespace lockstep::sim {

namespace {

// Values travel as the low `size` bytes of a 64-bit word (hosts are little-endian). A copy
// of a constant size per case compiles to one move; memcpy with a variable size is a libc
// call on every simulated access (8% of the machine model's host time).
template <typename Word>
std::uint64_t read_word(const void* host) {
  Word w;
  std::memcpy(&w, host, sizeof w);
  return w;
}

template <typename Word>
void write_word(void* host, std::uint64_t value) {
  const auto w = static_cast<Word>(value);
  std::memcpy(host, &w, sizeof w);
}

std::uint64_t read_bits(const void* host, unsigned size) {
  switch (size) {
    case 1:
      return read_word<std::uint8_t>(host);
    case 2:
      return read_word<std::uint16_t>(host);
    case 4:
      return read_word<std::uint32_t>(host);
    default:
      return read_word<std::uint64_t>(host);  // check_size admits only 1, 2, 4, 8
  }
}

void write_bits(void* host, unsigned size, std::uint64_t value) {
  switch (size) {
    case 1:
      return write_word<std::uint8_t>(host, value);
    case 2:
      return write_word<std::uint16_t>(host, value);
    case 4:
      return write_word<std::uint32_t>(host, value);
    default:
      return write_word<std::uint64_t>(host, value);
  }
}

std::uint64_t size_mask(unsigned size) { return size >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * size)) - 1; }

std::uint64_t apply_rmw(RmwOp op, std::uint64_t old_value, std::uint64_t operand, std::uint64_t desired, unsigned size,
                        bool* success) {
  *success = true;
  switch (op) {
    case RmwOp::exchange:
      return operand & size_mask(size);
    case RmwOp::compare_exchange:
      *success = old_value == (operand & size_mask(size));
      return *success ? desired & size_mask(size) : old_value;
    case RmwOp::fetch_add:
      return (old_value + operand) & size_mask(size);
    case RmwOp::fetch_sub:
      return (old_value - operand) & size_mask(size);
    case RmwOp::fetch_or:
      return old_value | (operand & size_mask(size));
    case RmwOp::fetch_and:
      return old_value & operand;
  }
  throw std::logic_error("unknown read-modify-write operation");
}

[[noreturn, gnu::cold, gnu::noinline]] void bad_size() { throw std::logic_error("access size must be 1, 2, 4 or 8"); }

void check_size(unsigned size) {
  if (size != 1 && size != 2 && size != 4 && size != 8) [[unlikely]]
    bad_size();
}

}  // namespace

std::uint64_t Engine::direct_load(const void* host, unsigned size) {
  check_size(size);
  return read_bits(host, size);
}

void Engine::direct_store(void* host, unsigned size, std::uint64_t value) {
  check_size(size);
  write_bits(host, size, value & size_mask(size));
}

std::uint64_t Engine::direct_rmw(void* host, unsigned size, RmwOp op, std::uint64_t operand, std::uint64_t desired,
                                 bool* success) {
  check_size(size);
  bool ok = true;
  const std::uint64_t old_value = read_bits(host, size);
  write_bits(host, size, apply_rmw(op, old_value, operand, desired, size, &ok));
  if (success != nullptr) *success = ok;
  return old_value;
}

std::uint64_t Engine::observed_load(const void* host, unsigned size) const {
  check_size(size);
  if (!on_host()) {
    const SimThread& t = threads_[exec_.current];
    if (const BufferedStore* own = t.store_buffer.empty() ? nullptr : forward(t, memory_.address_of(host), size))
      return own->value;
  }
  return read_bits(host, size);
}

// Timed: an access that needed another core's copy of its line takes effect (reads or writes
// its value) when the line arrives, so the thread waits until then, and threads whose clocks
// are earlier run first: among them the copy's old holder, which keeps hitting it until the
// request reaches it (docs/machines.md, "Coherence in time"). Values then change in the
// order the line moves, as on hardware. Returns whether the thread's clock already stands at
// the access's end.
bool Engine::await_line(std::uint64_t start, std::uint64_t latency_ns) {
  if (exec_.mode != EngineMode::timed || !costs_.last_in_flight() || latency_ns == 0) return false;
  SimThread& t = threads_[exec_.current];
  t.clock_ns = advance_virtual(start, latency_ns);
  const ThreadId next = exec_.violation ? kHostId : ready_.exchange_top(ready_entry(exec_.current));
  if (next != exec_.current) switch_to(next);
  if (exec_.buffered_stores > 0) drain_due(threads_[exec_.current].clock_ns);
  return true;
}

void Engine::write_while_observing() {
  throw std::logic_error("an invariant's condition wrote to shared memory: it must only read");
}

std::uint64_t Engine::load(const void* host, unsigned size, std::memory_order order, bool plain) {
  if (exec_.observing) [[unlikely]]
    return observed_load(host, size);
  if (on_host()) return direct_load(host, size);
  check_size(size);
  const std::uint64_t addr = memory_.address_of(host);
  const OpKind kind = plain ? OpKind::plain_load : OpKind::load;
  prefetch_host_line(host);  // read after the threads that go first
  yield_for(PendingOp{.kind = kind, .size = static_cast<std::uint8_t>(size), .order = order, .addr = addr});
  if (races_.enabled()) race_load(plain, addr, order);
  const SimThread& t = threads_[exec_.current];
  const std::uint64_t start = start_time();
  std::uint64_t value = 0;
  std::uint64_t latency = 0;
  const BufferedStore* source = t.store_buffer.empty() ? nullptr : forward(t, addr, size);
  const bool forwarded = source != nullptr;
  std::optional<AccessDetail> detail;
  bool waited = false;
  if (forwarded) {
    value = source->value;
    latency = 1;  // [guess] forwarding costs about an L1 hit
    log_access(source->ordinal, 1, false, buffer_space(exec_.current));
  } else {
    latency =
        access_ns(Access{kind, t.cpu, addr, static_cast<std::uint8_t>(size), start, memory_.node_of_address(addr)});
    if (exec_.trace != nullptr) detail = costs_.last_detail();  // before other threads run
    waited = await_line(start, latency);
    value = read_bits(host, size);
    log_access(addr, size, false);
  }
  if (exec_.trace != nullptr)
    exec_.trace->access(start, exec_.current, t.cpu, kind, addr, size, value, latency, detail ? &*detail : nullptr);
  note_read(addr, host, size, value);
  ++exec_.memory_ops;
  finish_step(waited ? 0 : latency);
  return value;
}

void Engine::store(void* host, unsigned size, std::uint64_t value, std::memory_order order, bool plain) {
  if (exec_.observing) [[unlikely]]
    write_while_observing();
  if (on_host()) return direct_store(host, size, value);
  check_size(size);
  value &= size_mask(size);
  const std::uint64_t addr = memory_.address_of(host);
  const OpKind kind = plain ? OpKind::plain_store : OpKind::store;
  yield_for(PendingOp{.kind = kind, .size = static_cast<std::uint8_t>(size), .order = order, .addr = addr});
  SimThread& t = threads_[exec_.current];
  // x86 implements a seq_cst store as xchg: a locked instruction, not buffered.
  if (order == std::memory_order_seq_cst && !plain) drain_own(t);
  const std::uint64_t start = start_time();
  std::uint64_t latency = 0;
  const bool buffered =
      order != std::memory_order_seq_cst || plain ? buffer_store(t, host, addr, size, value, start, &latency) : false;
  std::optional<AccessDetail> detail;  // a buffered store's entry is not the access the cache answers; its `drain` is
  bool waited = false;
  if (!buffered) {
    latency =
        access_ns(Access{kind, t.cpu, addr, static_cast<std::uint8_t>(size), start, memory_.node_of_address(addr)});
    if (exec_.trace != nullptr) detail = costs_.last_detail();
    wake_invalidated_spinners();
    waited = await_line(start, latency);
    write_bits(host, size, value);
    log_access(addr, size, true);
  }
  if (races_.enabled()) race_store(plain, addr, order, buffered);
  if (exec_.trace != nullptr)
    exec_.trace->access(start, exec_.current, t.cpu, kind, addr, size, value, latency, detail ? &*detail : nullptr,
                        buffered);
  if (!buffered) note_write(addr, t.clock_ns);
  // A spin-loop iteration that buffered a store wrote too: re-running it is not the same.
  if (buffered) t.spin_wrote = true;
  ++exec_.memory_ops;
  finish_step(waited ? 0 : latency);
}

std::uint64_t Engine::rmw(void* host, unsigned size, RmwOp op, std::uint64_t operand, std::uint64_t desired,
                          std::memory_order order, bool* success) {
  if (exec_.observing) [[unlikely]]
    write_while_observing();
  if (on_host()) return direct_rmw(host, size, op, operand, desired, success);
  check_size(size);
  bool ok = true;
  const std::uint64_t addr = memory_.address_of(host);
  prefetch_host_line(host);  // read after the threads that go first
  const PendingOp pending{.kind = OpKind::rmw, .size = static_cast<std::uint8_t>(size), .order = order, .addr = addr};
  yield_for(pending);
  SimThread& t = threads_[exec_.current];
  drain_own(t);  // a locked instruction
  // The share of its cost that comes before it reaches its line (cost_model.hpp): timed, the
  // thread waits that out and yields again, so that a request another CPU makes meanwhile
  // reaches the line first. Exploring has one clock: there it is part of the latency.
  const bool timed = exec_.mode == EngineMode::timed;
  const std::uint64_t prelude = costs_.locked_prelude_ns(t.cpu);
  if (prelude > 0 && timed) {
    t.clock_ns += prelude;
    yield_for(pending);
  }
  if (races_.enabled()) race_rmw(addr, order);
  const std::uint64_t start = start_time();
  const std::uint64_t access = access_ns(
      Access{OpKind::rmw, t.cpu, addr, static_cast<std::uint8_t>(size), start, memory_.node_of_address(addr)});
  const std::uint64_t whole = prelude + access;
  const std::uint64_t latency = timed ? access : whole;
  std::optional<AccessDetail> detail;
  if (exec_.trace != nullptr) detail = costs_.last_detail();  // before other threads run
  wake_invalidated_spinners();
  const bool waited = await_line(start, latency);
  const std::uint64_t old_value = read_bits(host, size);
  const std::uint64_t new_value = apply_rmw(op, old_value, operand, desired, size, &ok);
  write_bits(host, size, new_value);
  // One that leaves the value as it was (a failed CAS) only read it: it commutes with reads.
  log_access(addr, size, new_value != old_value);
  if (exec_.trace != nullptr)
    // Traced as one operation from the instruction's start, the prelude included.
    exec_.trace->rmw(timed ? start - prelude : start, exec_.current, t.cpu, op, addr, size, old_value, new_value, ok,
                     whole, detail ? &*detail : nullptr);
  // An RMW that leaves the value as it was (a failed CAS, exchanging 1 for 1) only read it,
  // as far as a spinning thread can tell.
  if (new_value != old_value) {
    note_write(addr, t.clock_ns);
  } else if (exec_.mode == EngineMode::timed) {
    // Timed, a locked instruction takes its line exclusive even when it changes nothing: a
    // loop retrying it keeps asking for the line, which a blocked spinner would not (its
    // requests are what every handover to it waits for). Its iteration does not block.
    t.spin_wrote = true;
  } else {
    note_read(addr, host, size, old_value);
  }
  ++exec_.memory_ops;
  finish_step(waited ? 0 : latency);
  if (success != nullptr) *success = ok;
  return old_value;
}

std::uint64_t Engine::touch(std::uint64_t addr, OpKind kind) {
  if (kind != OpKind::load && kind != OpKind::store) throw std::logic_error("touch() is a load or a store");
  if (on_host()) return 0;
  yield_for(PendingOp{.kind = kind, .size = 8, .order = std::memory_order_relaxed, .addr = addr});
  const SimThread& t = threads_[exec_.current];
  const std::uint64_t start = start_time();
  const std::uint64_t latency = access_ns(Access{kind, t.cpu, addr, 8, start, memory_.node_of_address(addr)});
  log_access(addr, 8, kind == OpKind::store);
  if (exec_.trace != nullptr) {
    const auto detail = costs_.last_detail();
    exec_.trace->access(start, exec_.current, t.cpu, kind, addr, 8, 0, latency, detail ? &*detail : nullptr);
  }
  ++exec_.memory_ops;
  finish_step(latency);
  return latency;
}

void Engine::fence(std::memory_order order) {
  if (on_host()) return;
  yield_for(PendingOp{.kind = OpKind::fence, .order = order});
  SimThread& t = threads_[exec_.current];
  // On x86 only a seq_cst fence is an instruction (mfence); the others order the compiler.
  if (order == std::memory_order_seq_cst) drain_own(t);
  if (races_.enabled()) race_fence(order);
  const std::uint64_t latency = costs_.fence_ns(t.cpu);
  if (exec_.trace != nullptr) exec_.trace->simple(start_time(), exec_.current, t.cpu, OpKind::fence, latency);
  finish_step(latency);
}

void Engine::pause() {
  if (on_host()) return;
  // In timed mode a pause is not a scheduling point: it touches nothing another thread can
  // see, so running others before or after it changes nothing; the thread's next access
  // yields at its later clock. In exploration it is where a spin loop may block.
  if (exec_.mode == EngineMode::explore) yield_for(PendingOp{OpKind::pause});
  catch_up();  // may_block_spinning reads what other threads wrote
  SimThread& t = threads_[exec_.current];
  const std::uint64_t latency = costs_.pause_ns(t.cpu);
  if (exec_.trace != nullptr) exec_.trace->simple(start_time(), exec_.current, t.cpu, OpKind::pause, latency);
  finish_step(latency);
  // A spin-loop iteration that only read, and found nothing to do, would find the same again
  // until another thread writes what it read. Block it until then. Exploring, this keeps spin
  // loops from hiding deadlocks or making executions unbounded; timed, it fast-forwards the
  // spinning (the thread keeps its CPU and its cached copy of the line, and resumes when the
  // write lands, up to one loop iteration earlier than it would have noticed), so hundreds of
  // threads spinning on contended locks cost no more to simulate than the handovers.
  if (may_block_spinning(t)) {
    set_state(t, ThreadRunState::spinning, exec_.mode == EngineMode::timed ? t.clock_ns : exec_.now_ns);
    ++exec_.spin_blocked;
    // Under TSO, choosing the next step may first drain a buffered store to what this thread
    // watches, which makes it runnable again, and then choose it: it just goes on.
    const ThreadId next = pick_next();
    if (next != exec_.current) switch_to(next);
  }
  t.spin_watch.clear();
  t.spin_wrote = false;
  t.spin_overflow = false;
  t.spin_timed = false;
}

bool Engine::may_block_spinning(const SimThread& t) {
  if (t.spin_wrote || t.spin_overflow || t.spin_timed || t.spin_watch.empty()) return false;
  // A read of one of the thread's own frame objects that has since gone (below its frame
  // floor) was of a local of a function that has returned, such as the MCS node of a lock
  // taken and released within this iteration. The next iteration makes that object afresh,
  // so the read tells nothing about what the next iteration will find. Such an iteration
  // does not block.
  const void* floor = memory_.frame_floor(exec_.current);
  for (const SpinRead& r : t.spin_watch)
    if (memory_.frame_owner(r.host) == static_cast<long>(exec_.current) && r.host < floor) return false;
  // Whether it blocks depends on what memory holds now: the pause reads what it watches.
  for (const SpinRead& r : t.spin_watch) log_access(r.addr, r.size, false);
  if (!spin_reads_unchanged(t)) return false;
  if (exec_.mode == EngineMode::explore) return true;
  // Timed: only if no other thread waits for this CPU, which a spinner would hand over at the
  // end of its time slice; make_runnable wakes a blocked spinner when one arrives.
  return cpus_[static_cast<std::size_t>(t.cpu)].queue.empty();
}

std::uint64_t Engine::read_clock() {
  if (!on_host()) threads_[exec_.current].spin_timed = true;
  return now();
}

void Engine::note_read(std::uint64_t addr, const void* host, unsigned size, std::uint64_t value) {
  SimThread& t = threads_[exec_.current];
  // Once this iteration wrote, overflowed or read the clock, its pause will not block
  // (may_block_spinning), so what it reads next need not be watched.
  if (t.spin_wrote || t.spin_overflow || t.spin_timed) return;
  for (const SpinRead& r : t.spin_watch)
    if (r.addr == addr && r.size == size && r.value == value) return;
  if (t.spin_watch.size() >= EngineLimits::kMaxSpinWatch) {
    t.spin_overflow = true;
    return;
  }
  t.spin_watch.push_back(SpinRead{addr, host, static_cast<std::uint8_t>(size), value});
}

// A write that landed between the iteration's read and its pause woke nobody (the thread
// was not spinning yet), so blocking is only right if memory still holds what was read.
bool Engine::spin_reads_unchanged(const SimThread& t) const {
  for (const SpinRead& r : t.spin_watch)
    if (direct_load(r.host, r.size) != r.value) return false;
  return true;
}

void Engine::note_write(std::uint64_t addr, std::uint64_t at_ns) {
  threads_[exec_.current].spin_wrote = true;
  if (exec_.spin_blocked == 0) return;
  for (SimThread& s : threads_) {
    if (s.state != ThreadRunState::spinning) continue;
    for (const SpinRead& r : s.spin_watch) {
      if (r.addr != addr) continue;
      wake_spinner(s, at_ns);
      break;
    }
  }
}

// Timed: a write that took the line from blocked spinners' copies wakes each of them when
// the invalidation reaches its core (CostModel::copy_lost_at), before the write lands: a
// spinning core asks for the line again as soon as its copy goes, and that request queues
// behind the write's transaction, so the spinner still reads the written value, one
// handover after it (a spinner woken only when the write landed would ask a transfer
// later). A model without coherence in time says no copy was lost: note_write wakes them.
void Engine::wake_invalidated_spinners() {
  if (exec_.spin_blocked == 0 || exec_.mode != EngineMode::timed || !costs_.last_in_flight()) return;
  for (SimThread& s : threads_) {
    if (s.state != ThreadRunState::spinning) continue;
    for (const SpinRead& r : s.spin_watch) {
      const double lost = costs_.copy_lost_at(s.cpu, r.addr);
      if (lost < 0) continue;
      wake_spinner(s, static_cast<std::uint64_t>(std::ceil(lost)));
      break;
    }
  }
}

// A blocked spinner resumes: exploring, as any runnable thread; timed, at the write's time
// (it never left its CPU).
void Engine::wake_spinner(SimThread& s, std::uint64_t at_ns) {
  --exec_.spin_blocked;
  s.enabled_by = current_step();
  if (exec_.mode == EngineMode::explore) {
    make_runnable(s, exec_.now_ns, threads_[exec_.current].cpu);
    return;
  }
  s.clock_ns = std::max(s.clock_ns, at_ns);
  set_state(s, ThreadRunState::running, s.clock_ns);
  enqueue(static_cast<ThreadId>(&s - threads_.data()));
}

void Engine::park() {
  if (on_host()) throw std::logic_error("park() outside a simulated thread");
  yield_for(PendingOp{OpKind::park});
  SimThread& t = threads_[exec_.current];
  drain_own(t);  // entering the kernel executes locked instructions
  log_access(permit_address(exec_.current), 1, true);
  if (races_.enabled()) race_parking();
  if (exec_.trace != nullptr) exec_.trace->simple(start_time(), exec_.current, t.cpu, OpKind::park, 0);
  finish_step(0);
  if (t.permit) {
    t.permit = false;
    return;
  }
  set_state(t, ThreadRunState::parked, start_time());
  if (exec_.mode == EngineMode::timed) leave_cpu(t);
  const ThreadId next = pick_next();
  if (next == exec_.current) throw std::logic_error("a parked thread was chosen to run before anyone unparked it");
  switch_to(next);
}

void Engine::unpark(ThreadId target) {
  if (on_host()) throw std::logic_error("unpark() outside a simulated thread");
  if (target >= threads_.size())
    throw std::out_of_range(fmt::format("unpark of thread {}, which does not exist", target));
  yield_for(PendingOp{.kind = OpKind::unpark, .target = target});
  SimThread& t = threads_[exec_.current];
  // Waking a thread takes its run queue's lock (Linux: try_to_wake_up takes p->pi_lock):
  // locked instructions, which drain the waker's store buffer. Without this a store the
  // wakee must see could still sit in the buffer after the wakee ran, saw the old value
  // and parked again.
  drain_own(t);
  SimThread& u = threads_[target];
  const std::uint64_t start = start_time();
  const std::uint64_t latency = costs_.unpark_ns(t.cpu);
  const bool was_parked = u.state == ThreadRunState::parked;
  std::uint64_t waker_extra = 0;  // an IPI to an idle CPU in hlt (sim/exec/idle_model.hpp)
  log_access(permit_address(target), 1, true);
  if (races_.enabled()) race_unpark(target, was_parked);
  if (was_parked) {
    u.enabled_by = current_step();
    waker_extra = make_runnable(u, start + latency, t.cpu);
  } else {
    u.permit = true;
  }
  if (exec_.trace != nullptr) exec_.trace->unpark(start, exec_.current, t.cpu, target, was_parked);
  finish_step(latency + waker_extra);
}

void* Engine::allocate(std::size_t bytes, std::size_t align, NodeId node) {
  catch_up();  // the arena is shared: addresses go in the order threads ask
  return memory_.allocate(bytes, align, node);
}

void Engine::label(const void* host, std::size_t bytes, std::string_view name, const LabelLayout& layout) {
  const long owner = memory_.frame_owner(host);
  std::string owned;
  if (owner >= 0 && static_cast<std::size_t>(owner) < threads_.size()) {
    owned = fmt::format("{}[{}]", name, threads_[static_cast<std::size_t>(owner)].name);
    name = owned;
  }
  memory_.label(host, bytes, name, layout);
  if (exec_.trace != nullptr) exec_.trace->label(memory_.address_of(host), bytes, name, layout);
}

}  // namespace lockstep::sim
