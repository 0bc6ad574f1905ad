// The futex operations over one bucket-lock type: wait, wake, requeue and (for the
// per-process private table) growing by rehashing. FutexTable (futex_table.hpp) picks the
// lock type at run time and forwards here, so each operation is compiled per lock kind.
//
// Semantics follow Linux's kernel/futex (docs/sources.md section 1): wait checks the word under the
// bucket lock and returns EAGAIN on a mismatch; wake returns how many it woke; the waiter
// counter is incremented before the lock is taken and read by wake after barrier (B).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/futex/bucket_array.hpp"
#include "core/futex/futex_bucket.hpp"
#include "core/futex/futex_config.hpp"
#include "core/futex/futex_deadline.hpp"
#include "core/futex/futex_key.hpp"
#include "core/futex/futex_sizing.hpp"
#include "core/platform.hpp"
#include "core/sync/ttas_lock.hpp"

namespace lockstep::futex {

// [guess] What a shared key costs over a private one: get_user_pages_fast, the page's
// reference and mapping checks; a few hundred instructions.
inline constexpr std::uint32_t kSharedKeyInstructions = 200;
// Each grow at least doubles the table, so 32 generations cover any 32-bit size.
inline constexpr std::size_t kMaxGenerations = 32;

struct WakeResult {
  int woken = 0;
  bool took_lock = false;  // false when the fast path returned without the bucket lock
};

struct RequeueResult {
  FutexError error = FutexError::ok;
  int woken = 0;
  int requeued = 0;
};

template <Platform P, class Lock, bool kChainApart = false>
class FutexTableImpl {
 public:
  using Bucket = FutexBucket<P, Lock, kChainApart>;
  using Table = BucketArray<P, Lock, kChainApart>;
  using Node = typename Lock::Node;
  using Word = typename P::template Atomic<std::uint32_t>;

  FutexTableImpl(const FutexConfig& config, const FutexMachine& machine) : config_(config), machine_(machine) {
    if (growable()) {
      generation_ = make_on<P, typename P::template Atomic<std::uint32_t>>(0, kCacheLineBytes, 0U);
      grow_lock_ = make_on<P, TtasLock<P>>(0, kCacheLineBytes);
      P::label(generation_, sizeof *generation_, "futex_generation");
    }
    build_generation(0, shape());
    make_refs();
  }

  ~FutexTableImpl() {
    if (generation_ != nullptr) destroy_on<P>(generation_);
    if (grow_lock_ != nullptr) destroy_on<P>(grow_lock_);
    for (RefCount* r : refs_) destroy_on<P>(r);
  }
  FutexTableImpl(const FutexTableImpl&) = delete;
  FutexTableImpl& operator=(const FutexTableImpl&) = delete;

  const FutexConfig& config() const { return config_; }
  std::int64_t references_held() {
    std::uint64_t sum = 0;
    for (RefCount* r : refs_) sum += r->load(std::memory_order_relaxed);
    return static_cast<std::int64_t>(sum);
  }
  std::uint32_t buckets_per_table() const { return current().tables.front()->size(); }
  int tables() const { return static_cast<int>(current().tables.size()); }

  // Which table and bucket `word` hashes to, now (for tests and reports).
  std::pair<int, std::uint32_t> bucket_of(const Word& word) const {
    const std::uint32_t h = hash_key(config_.hash, make_key(config_.key, P::address_of(&word)));
    const Generation& g = current();
    return {table_index(g, h), h & (g.tables.front()->size() - 1)};
  }

  FutexError wait(Word& word, std::uint32_t expected, std::uint32_t priority, FutexDeadline<P>* deadline) {
    // The protocol steps (P::note_step) are futex_wait's as the kernel's comments tell them;
    // counterexamples are printed in these words.
    ProtocolSteps<P> steps("futex_wait");
    P::charge(Work::syscall_entry, 1);
    const FutexKey key = key_of(word);
    take_ref(steps);
    for (;;) {
      steps.next("hash the word to its bucket");
      const Slot s = locate(key);
      // Waiter side: count ourselves before taking the lock. On x86 the locked increment is
      // also barrier (A); weaker machines need smp_mb__after_atomic (docs/sources.md section 1), which the
      // counter-missing-a variant leaves out: a relaxed increment.
      if (counting()) {
        steps.next(config_.fastpath == WakeFastpath::counter_missing_a ? "count the waiter (waiters++, no barrier A)"
                                                                       : "count the waiter (waiters++, barrier A)");
        s.bucket->waiters.fetch_add(1, waiter_increment_order());
      }
      Local<P, Node> node;  // on this thread's stack (P::Local)
      steps.next("lock the bucket");
      s.bucket->lock.lock(*node);
      if (stale(s)) {  // the private table grew while we hashed: start over on the new one
        steps.next("the table grew: unlock, uncount, start over");
        unlock_and_uncount(*s.bucket, *node);
        continue;
      }
      steps.next("read the futex word");
      if (word.load(std::memory_order_relaxed) != expected) {
        steps.next("the word changed: unlock, uncount, return EAGAIN");
        unlock_and_uncount(*s.bucket, *node);
        drop_ref(steps, *s.bucket);
        P::charge(Work::syscall_exit, 1);
        return FutexError::eagain;
      }
      steps.next("queue the waiter on the bucket");
      Local<P, FutexWaiter<P>> waiter;  // futex_q: on the waiting thread's stack, as in Linux
      FutexWaiter<P>& self = *waiter;
      label_waiter(self);
      self.set_key(key);
      self.thread.store(thread_bits<P>(P::self()));
      self.queued.store(1, std::memory_order_relaxed);
      s.bucket->enqueue(self, priority);
      note_queue(FutexQueueNote::enqueue, s.index, key, self);
      steps.next("unlock the bucket");
      s.bucket->lock.unlock(*node);
      drop_ref(steps, *s.bucket);  // the sleeper holds no reference (the table may be replaced)
      steps.next("sleep until woken");
      while (self.queued.load(std::memory_order_acquire) != 0) {
        if (deadline != nullptr && deadline->arm_and_check()) {
          deadline->disarm();
          return time_out(steps, self);
        }
        P::park();
      }
      if (deadline != nullptr) deadline->disarm();
      steps.next("woken: return");
      P::charge(Work::syscall_exit, 1);
      return FutexError::ok;
    }
  }

  // A timed wait whose deadline passed (futex_unqueue): takes itself off the bucket its key
  // now hashes to (a requeue may have moved it, a grow rehashed it) unless a wake did first.
  FutexError time_out(ProtocolSteps<P>& steps, FutexWaiter<P>& self) {
    take_ref(steps);
    for (;;) {
      steps.next("the deadline passed: hash its key to its bucket");
      const FutexKey key{self.key_word.load(), self.key_ptr.load(), self.key_offset.load()};
      const Slot s = locate(key);
      Local<P, Node> node;
      steps.next("lock the bucket");
      s.bucket->lock.lock(*node);
      const bool queued = self.queued.load(std::memory_order_acquire) != 0;
      if (stale(s) || (queued && !self.has_key(key))) {  // moved meanwhile: look again
        steps.next("moved meanwhile: unlock, look again");
        s.bucket->lock.unlock(*node);
        continue;
      }
      if (queued) {
        steps.next("take itself off, unlock, return ETIMEDOUT");
        s.bucket->unlink(self);
        note_queue(FutexQueueNote::dequeue, s.index, key, self);
        if (counting()) s.bucket->waiters.fetch_sub(1, std::memory_order_relaxed);
        self.queued.store(0, std::memory_order_relaxed);
      } else {
        steps.next("a wake took it off first: unlock, return 0");
      }
      s.bucket->lock.unlock(*node);
      drop_ref(steps, *s.bucket);
      P::charge(Work::syscall_exit, 1);
      return queued ? FutexError::timedout : FutexError::ok;
    }
  }

  WakeResult wake(Word& word, int count) {
    ProtocolSteps<P> steps("futex_wake");
    P::charge(Work::syscall_entry, 1);
    const FutexKey key = key_of(word);
    take_ref(steps);
    for (;;) {
      steps.next("hash the word to its bucket");
      const Slot s = locate(key);
      steps.next(fastpath_step());
      if (nobody_waits(*s.bucket)) {
        steps.next("nobody waits: return without the lock");
        drop_ref(steps, *s.bucket);
        P::charge(Work::syscall_exit, 1);
        return WakeResult{0, false};
      }
      Local<P, Node> node;  // on this thread's stack (P::Local)
      steps.next("lock the bucket");
      s.bucket->lock.lock(*node);
      if (stale(s)) {
        steps.next("the table grew: unlock, start over");
        s.bucket->lock.unlock(*node);
        continue;
      }
      steps.next("take the word's waiters off the bucket");
      std::vector<typename P::Thread> woken;
      for (std::uint64_t cur = s.bucket->head.load(); cur != 0 && static_cast<int>(woken.size()) < count;) {
        FutexWaiter<P>& w = *Bucket::at(cur);
        cur = w.next.load();
        if (w.has_key(key)) woken.push_back(mark_woken(s, w, key));
      }
      steps.next("unlock the bucket");
      s.bucket->lock.unlock(*node);
      steps.next("wake the waiters taken off");
      for (typename P::Thread t : woken) P::unpark(t);  // after the lock, as wake_up_q
      drop_ref(steps, *s.bucket);
      P::charge(Work::syscall_exit, 1);
      return WakeResult{static_cast<int>(woken.size()), true};
    }
  }

  // FUTEX_REQUEUE, or FUTEX_CMP_REQUEUE when `expected` is given: wakes up to `nr_wake`
  // waiters of `from` and moves up to `nr_requeue` more onto `to`.
  RequeueResult requeue(Word& from, Word& to, int nr_wake, int nr_requeue, std::optional<std::uint32_t> expected) {
    ProtocolSteps<P> steps("futex_requeue");
    P::charge(Work::syscall_entry, 1);
    const FutexKey key1 = key_of(from);
    const FutexKey key2 = key_of(to);
    take_ref(steps);
    for (;;) {
      steps.next("hash both words to their buckets");
      const Slot s1 = locate(key1);
      const Slot s2 = locate_in(key2, s1.generation);
      // The target's counter goes up first, so a waker of `to` cannot miss waiters that are
      // about to arrive on its bucket (docs/sources.md section 1: requeue raises the target's count first).
      if (counting()) {
        steps.next("count on the target bucket first (waiters++)");
        s2.bucket->waiters.fetch_add(1, std::memory_order_seq_cst);
      }
      Local<P, Node> node1;  // on this thread's stack (P::Local)
      Local<P, Node> node2;
      steps.next("lock both buckets");
      lock_pair(*s1.bucket, *node1, *s2.bucket, *node2);
      RequeueResult result;
      const bool was_stale = stale(s1);
      if (!was_stale && expected) {
        steps.next("read the futex word");
        if (from.load(std::memory_order_relaxed) != *expected) result.error = FutexError::eagain;
      }
      std::vector<typename P::Thread> woken;
      if (!was_stale && result.error == FutexError::ok) {
        steps.next("wake some waiters, move the rest to the target");
        for (std::uint64_t cur = s1.bucket->head.load(); cur != 0;) {
          FutexWaiter<P>& w = *Bucket::at(cur);
          cur = w.next.load();
          if (!w.has_key(key1)) continue;
          if (result.woken < nr_wake) {
            woken.push_back(mark_woken(s1, w, key1));
            ++result.woken;
          } else if (result.requeued < nr_requeue) {
            move_waiter(s1, s2, w, key1, key2);
            ++result.requeued;
          } else {
            break;
          }
        }
      }
      steps.next("unlock both buckets");
      unlock_pair(*s1.bucket, *node1, *s2.bucket, *node2);
      if (counting()) {
        steps.next("uncount on the target bucket");
        s2.bucket->waiters.fetch_sub(1, std::memory_order_seq_cst);
      }
      if (was_stale) continue;
      steps.next("wake the waiters taken off");
      for (typename P::Thread t : woken) P::unpark(t);
      drop_ref(steps, *s1.bucket);
      P::charge(Work::syscall_exit, 1);
      return result;
    }
  }

  // How many threads are queued on `word` now (under its bucket lock). Not a futex(2)
  // operation: tests and workloads use it to wait until their sleepers are asleep.
  int waiters_on(Word& word) {
    const FutexKey key = make_key(config_.key, P::address_of(&word));
    for (;;) {
      const Slot s = locate(key);
      Local<P, Node> node;  // on this thread's stack (P::Local)
      s.bucket->lock.lock(*node);
      int count = 0;
      if (!stale(s)) {
        for (std::uint64_t cur = s.bucket->head.load(); cur != 0; cur = Bucket::at(cur)->next.load())
          if (Bucket::at(cur)->has_key(key)) ++count;
      }
      const bool retry = stale(s);
      s.bucket->lock.unlock(*node);
      if (!retry) return count;
    }
  }

  // The per-process private table grows when the process gains threads (6.16: sized from
  // threads and CPUs, never shrinks): every waiter moves to the new table under the old
  // bucket locks, then the new table is published (RCU in Linux; here a release store of
  // its generation, which every operation re-checks under its bucket lock). Returns whether
  // the table grew.
  bool grow(int threads) {
    if (!growable()) return false;
    grow_lock_->lock();
    machine_.threads = std::max(machine_.threads, threads);
    const std::uint32_t old_gen = generation_->load(std::memory_order_relaxed);
    Generation& old = *generations_[old_gen];
    const TableShape shape = this->shape();
    if (shape.buckets_per_table <= old.tables.front()->size() || old_gen + 1 >= kMaxGenerations) {
      grow_lock_->unlock();
      return false;
    }
    build_generation(old_gen + 1, shape);
    Generation& fresh = *generations_[old_gen + 1];
    Table& from = *old.tables.front();
    // Every old bucket's lock, taken in index order (the table is contiguous, so this is
    // address order too, the order requeue uses), held until the new table is published.
    auto* nodes = static_cast<Node*>(P::allocate(sizeof(Node) * from.size(), kCacheLineBytes, 0));
    for (std::uint32_t i = 0; i < from.size(); ++i) from.bucket(i).lock.lock(*new (&nodes[i]) Node());
    for (std::uint32_t i = 0; i < from.size(); ++i) rehash_chain(from.bucket(i), i, fresh);
    generation_->store(old_gen + 1, std::memory_order_release);
    for (std::uint32_t i = 0; i < from.size(); ++i) from.bucket(i).lock.unlock(nodes[i]);
    P::deallocate(nodes, sizeof(Node) * from.size());
    grow_lock_->unlock();
    return true;
  }

 private:
  struct Generation {
    std::vector<std::unique_ptr<Table>> tables;
    int hash_shift = 0;  // per-node tables: the node is (hash >> hash_shift) % nodes
  };
  struct Slot {
    std::uint32_t generation = 0;
    std::uint32_t index = 0;  // of the bucket in its table, for trace notes
    Bucket* bucket = nullptr;
  };

  // A fixed private table (`perf bench futex hash -b N`) does not grow with the threads.
  bool growable() const { return config_.sizing == Sizing::process_private && config_.private_buckets == 0; }
  TableShape shape() const {
    if (config_.sizing == Sizing::process_private && config_.private_buckets != 0) return {config_.private_buckets, 1};
    return table_shape(config_.sizing, machine_);
  }

  // The per-process reference (ProcessRef): one count on a line of its own on node 0, or one
  // per CPU, each on its CPU's node.
  using RefCount = typename P::template Atomic<std::uint64_t>;
  std::vector<RefCount*> refs_;
  void make_refs() {
    if (config_.ref == ProcessRef::none) return;
    const int counts = config_.ref == ProcessRef::shared ? 1 : machine_.cpus;
    for (int cpu = 0; cpu < counts; ++cpu) {
      const NodeId node = config_.ref == ProcessRef::shared ? 0 : P::node_of(cpu);
      refs_.push_back(make_on<P, RefCount>(node, kCacheLineBytes, std::uint64_t{0}));
      P::label(refs_.back(), sizeof(RefCount), config_.ref == ProcessRef::shared ? "futex_ref" : "futex_ref_cpu");
    }
  }
  RefCount& my_ref() {
    if (config_.ref == ProcessRef::shared) return *refs_.front();
    const auto cpu = static_cast<std::size_t>(P::this_cpu());
    return *refs_[cpu % refs_.size()];
  }
  // 6.16's rcuref_get is a locked add on the shared count; 6.17's this_cpu_inc is one add
  // on the CPU's own count, atomic against preemption but without a lock prefix. The
  // platform has no such instruction, so it is a fetch_add here too [simplification: on a
  // modelled machine it costs locked_ns more than 6.17's add].
  void take_ref(ProtocolSteps<P>& steps) {
    if (config_.ref == ProcessRef::none) return;
    steps.next("pin the process's private table (take a reference)");
    my_ref().fetch_add(1, std::memory_order_relaxed);
  }
  // futex_hash_put: reads the bucket's pointer to its table (after the bucket was unlocked),
  // then drops the reference.
  void drop_ref(ProtocolSteps<P>& steps, Bucket& bucket) {
    if (config_.back_pointer) {
      steps.next("read the bucket's pointer to its table");
      read_back_pointer(bucket);
    }
    if (config_.ref == ProcessRef::none) return;
    steps.next("unpin the table (drop the reference)");
    my_ref().fetch_sub(1, std::memory_order_relaxed);
  }
  // The bucket's pointer to its table, read by futex_hash (locate_in) and futex_hash_put
  // (drop_ref): modelled as a read of a word on the line the field is on, since the model
  // knows the table and 6.16's buckets are cacheline-aligned, so the field widens nothing.
  // Linux's bucket is {waiters, lock, chain, priv}: the pointer shares the lock's line
  // (`waiters`), or, where the chain starts a line of its own (Layout::split, the 2026 RFC),
  // the chain's (`tail`). The read off the contended line is what the RFC's discussion found
  // to matter (B. Leitao, LKML 2026-06-09: futex_hash's lockless `priv` load was the
  // dominant HITM source, not the chain's writes).
  void read_back_pointer(Bucket& bucket) {
    if constexpr (kChainApart) {
      (void)bucket.tail.load();
    } else {
      (void)bucket.waiters.load(std::memory_order_relaxed);
    }
  }
  bool counting() const {
    return config_.fastpath == WakeFastpath::counter || config_.fastpath == WakeFastpath::counter_missing_b ||
           config_.fastpath == WakeFastpath::counter_missing_a;
  }
  // The increment with (A) after it is seq_cst; without (A), only the atomicity remains.
  std::memory_order waiter_increment_order() const {
    return config_.fastpath == WakeFastpath::counter_missing_a ? std::memory_order_relaxed : std::memory_order_seq_cst;
  }

  void build_generation(std::uint32_t index, const TableShape& shape) {
    auto g = std::make_unique<Generation>();
    g->hash_shift = std::countr_zero(shape.buckets_per_table);
    for (int t = 0; t < shape.tables; ++t) {
      NodeId node = 0;
      if (config_.sizing == Sizing::per_node) {
        node = t;  // each node's table on its node
      } else if (config_.placement == Placement::interleave) {
        node = -1;
      }
      // Names in traces: bucket[i] for one table, node1.bucket[i] per node, gen2.bucket[i]
      // for the tables a private table grew into.
      std::string name = config_.sizing == Sizing::per_node ? fmt::format("node{}.bucket", t) : std::string("bucket");
      if (index > 0) name = fmt::format("gen{}.{}", index, name);
      g->tables.push_back(std::make_unique<Table>(shape.buckets_per_table, config_.layout, node, machine_.nodes, name));
    }
    generations_[index] = std::move(g);
  }

  const Generation& current() const {
    return *generations_[growable() ? generation_->load(std::memory_order_relaxed) : 0];
  }

  FutexKey key_of(const Word& word) const {
    if (config_.key == KeyKind::shared_key) P::charge(Work::compute, kSharedKeyInstructions);
    return make_key(config_.key, P::address_of(&word));
  }

  static int table_index(const Generation& g, std::uint32_t hash) {
    const auto tables = static_cast<std::uint32_t>(g.tables.size());
    return tables == 1 ? 0 : static_cast<int>((hash >> g.hash_shift) % tables);
  }

  Slot locate(const FutexKey& key) {
    const std::uint32_t gen = growable() ? generation_->load(std::memory_order_acquire) : 0;
    return locate_in(key, gen);
  }

  Slot locate_in(const FutexKey& key, std::uint32_t gen) {
    P::charge(Work::hash, 1);
    const std::uint32_t h = hash_key(config_.hash, key);
    Generation& g = *generations_[gen];
    Table& table = *g.tables[static_cast<std::size_t>(table_index(g, h))];
    const std::uint32_t index = h & (table.size() - 1);
    Bucket& bucket = table.bucket(index);
    // futex_hash (6.16+) reads the bucket's pointer to its table, lockless, to pin that table.
    if (config_.back_pointer) read_back_pointer(bucket);
    return Slot{gen, index, &bucket};
  }

  // Checked under the bucket lock: a grow publishes its table while holding every old lock.
  bool stale(const Slot& s) const { return growable() && generation_->load(std::memory_order_relaxed) != s.generation; }

  void unlock_and_uncount(Bucket& b, Node& node) {
    b.lock.unlock(node);
    if (counting()) b.waiters.fetch_sub(1, std::memory_order_seq_cst);
  }

  // The wake fast path's step, in the words of the variant.
  std::string_view fastpath_step() const {
    switch (config_.fastpath) {
      case WakeFastpath::none:
        break;
      case WakeFastpath::empty_list:
        return "barrier (B), then is the queue empty and the lock free?";
      case WakeFastpath::counter:
      case WakeFastpath::counter_missing_a:
        return "barrier (B), then read the waiter count";
      case WakeFastpath::counter_missing_b:
        return "read the waiter count (no barrier B)";
    }
    return "no fast path: always take the lock";
  }

  // The wake fast path: may wake() return 0 without the bucket lock?
  bool nobody_waits(Bucket& b) {
    switch (config_.fastpath) {
      case WakeFastpath::none:
        return false;
      case WakeFastpath::empty_list:
        // b0c29f79's first version: an empty list and a free lock mean no waiter is queued
        // or about to queue; sound only if is_locked() sees waiting lockers (ticket locks).
        P::fence(std::memory_order_seq_cst);  // (B)
        return b.head.load() == 0 && !b.lock.is_locked();
      case WakeFastpath::counter:
      case WakeFastpath::counter_missing_a:   // the waker's side is intact
        P::fence(std::memory_order_seq_cst);  // (B): order the caller's store to the word before the read
        return b.waiters.load(std::memory_order_relaxed) == 0;
      case WakeFastpath::counter_missing_b:
        // 76835b0ebf8a: no barrier. The caller's store to the word can still sit in its
        // store buffer while this load reads 0.
        return b.waiters.load(std::memory_order_relaxed) == 0;
    }
    return false;
  }

  // Names a waiter's queue entry for traces: Linux calls it futex_q; the simulator adds the
  // thread whose stack holds it (futex_q[waiter].queued).
  static void label_waiter(const FutexWaiter<P>& w) {
    const LabelField fields[] = {label_field(w, w.next, "next"),
                                 label_field(w, w.prev, "prev"),
                                 label_field(w, w.key_word, "key_word"),
                                 label_field(w, w.key_ptr, "key_ptr"),
                                 label_field(w, w.key_offset, "key_offset"),
                                 label_field(w, w.priority, "priority"),
                                 label_field(w, w.thread, "thread"),
                                 label_field(w, w.queued, "queued")};
    P::label(&w, sizeof w, "futex_q", LabelLayout{0, 0, fields});
  }

  // Trace notes of the bucket queues (P::note_futex_queue); `w` lives on its waiter's stack.
  static void note_queue(FutexQueueNote what, std::uint32_t bucket, const FutexKey& key, const FutexWaiter<P>& w) {
    P::note_futex_queue(what, bucket, word_address(key), &w);
  }

  // Unqueues a waiter of `key` the caller will wake; returns its thread. Caller holds the lock.
  typename P::Thread mark_woken(const Slot& s, FutexWaiter<P>& w, const FutexKey& key) {
    Bucket& b = *s.bucket;
    b.unlink(w);
    note_queue(FutexQueueNote::dequeue, s.index, key, w);
    if (counting()) b.waiters.fetch_sub(1, std::memory_order_relaxed);
    const typename P::Thread t = thread_from_bits<P>(w.thread.load());
    w.queued.store(0, std::memory_order_release);  // the last touch: the waiter may return now
    return t;
  }

  // Within one bucket a requeued waiter keeps its place and only changes key, as in Linux
  // (requeue_futex); moving it to the back would lose its FIFO turn, and a requeue of a word
  // onto itself would chase its own tail until nr_requeue ran out. The trace still shows a
  // dequeue and an enqueue, so that it says which key the waiter now waits on.
  void move_waiter(const Slot& s1, const Slot& s2, FutexWaiter<P>& w, const FutexKey& old_key, const FutexKey& key) {
    Bucket& from = *s1.bucket;
    Bucket& to = *s2.bucket;
    w.set_key(key);
    if (&from == &to) {
      note_queue(FutexQueueNote::dequeue, s1.index, old_key, w);
      note_queue(FutexQueueNote::enqueue, s2.index, key, w);
      return;
    }
    from.unlink(w);
    note_queue(FutexQueueNote::dequeue, s1.index, old_key, w);
    if (counting()) {
      from.waiters.fetch_sub(1, std::memory_order_relaxed);
      to.waiters.fetch_add(1, std::memory_order_relaxed);
    }
    to.enqueue(w, w.priority.load());
    note_queue(FutexQueueNote::enqueue, s2.index, key, w);
  }

  // Two buckets locked in address order, so concurrent requeues cannot deadlock; one lock
  // when both keys share a bucket (Linux's double_lock_hb).
  static void lock_pair(Bucket& a, Node& na, Bucket& b, Node& nb) {
    if (&a == &b) {
      a.lock.lock(na);
    } else if (P::address_of(&a) < P::address_of(&b)) {
      a.lock.lock(na);
      b.lock.lock(nb);
    } else {
      b.lock.lock(nb);
      a.lock.lock(na);
    }
  }
  static void unlock_pair(Bucket& a, Node& na, Bucket& b, Node& nb) {
    a.lock.unlock(na);
    if (&a != &b) b.lock.unlock(nb);
  }

  // Moves every waiter of `old` (bucket `old_index` of the old table) to its bucket in `fresh`.
  void rehash_chain(Bucket& old, std::uint32_t old_index, Generation& fresh) {
    for (std::uint64_t cur = old.head.load(); cur != 0;) {
      FutexWaiter<P>& w = *Bucket::at(cur);
      cur = w.next.load();
      const FutexKey key{w.key_word.load(), w.key_ptr.load(), w.key_offset.load()};
      const std::uint32_t h = hash_key(config_.hash, key);
      Table& table = *fresh.tables[static_cast<std::size_t>(table_index(fresh, h))];
      const std::uint32_t index = h & (table.size() - 1);
      Bucket& target = table.bucket(index);
      note_queue(FutexQueueNote::dequeue, old_index, key, w);
      target.enqueue(w, w.priority.load());
      note_queue(FutexQueueNote::enqueue, index, key, w);
      if (counting()) target.waiters.fetch_add(1, std::memory_order_relaxed);
    }
    old.head.store(0);
    old.tail.store(0);
  }

  FutexConfig config_;
  FutexMachine machine_;
  std::array<std::unique_ptr<Generation>, kMaxGenerations> generations_;
  typename P::template Atomic<std::uint32_t>* generation_ = nullptr;  // published table (private sizing)
  TtasLock<P>* grow_lock_ = nullptr;  // one grower at a time (Linux: mm->futex_hash_lock)
};

}  // namespace lockstep::futex
