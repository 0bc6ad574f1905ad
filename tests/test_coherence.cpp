// The machine model's coherence protocols, access by access: the state each core's copy is
// left in (MESI, MESIF, MOESI), who answers a miss, what a write invalidates (other
// packages' last levels included) and when dirty data is written back.
#include <catch2/catch.hpp>

#include "sim/machine/memory_system.hpp"
#include "sim/machine/presets.hpp"

using namespace lockstep;
using namespace lockstep::sim;
using namespace lockstep::sim::machine;

namespace {

// Drives a MemorySystem directly, one access at a time, each starting when the last ended.
struct Machine {
  explicit Machine(MachineConfig config) : memory(config) {}
  MemorySystem memory;
  std::uint64_t now = 0;

  Source access(OpKind kind, CpuId cpu, std::uint64_t addr, NodeId home = 0) {
    now += memory.access_ns(Access{kind, cpu, addr, 8, now, home});
    return memory.last_source();
  }
  Source read(CpuId cpu, std::uint64_t addr) { return access(OpKind::load, cpu, addr); }
  Source write(CpuId cpu, std::uint64_t addr) { return access(OpKind::store, cpu, addr); }
  char state(CpuId cpu, std::uint64_t addr) const { return memory.state_of(memory.topology().core_of(cpu), addr); }
};

MachineConfig with_states(MachineConfig c, LineStates states) {
  c.line_states = states;
  return c;
}

constexpr std::uint64_t kLine = 0x10000;

}  // namespace

// nehalem-2s: CPUs 0-3 are cores of package 0, CPUs 4-7 of package 1.
TEST_CASE("a read with no other copy is Exclusive, and its write is silent", "[machine][coherence]") {
  for (LineStates states : {LineStates::mesi, LineStates::mesif, LineStates::moesi}) {
    Machine m(with_states(make_preset("nehalem-2s"), states));
    CHECK(m.read(0, kLine) == Source::dram_local);
    CHECK(m.state(0, kLine) == 'E');
    CHECK(m.write(0, kLine) == Source::l1);  // no upgrade: nobody to invalidate
    CHECK(m.state(0, kLine) == 'M');
  }
}

TEST_CASE("reading another core's modified line: MESI and MESIF write it back, MOESI keeps it Owned",
          "[machine][coherence]") {
  SECTION("MESI: both Shared, memory updated") {
    Machine m(with_states(make_preset("nehalem-2s"), LineStates::mesi));
    m.write(0, kLine);
    CHECK(m.read(4, kLine) == Source::remote_cache);
    CHECK(m.state(0, kLine) == 'S');
    CHECK(m.state(4, kLine) == 'S');
    CHECK(m.memory.writebacks() == 1);
    // No Forward copy: a third reader in package 1 finds it in its L3 (inclusive, filled by
    // CPU 4's miss); one in package 0 too.
    CHECK(m.read(5, kLine) == Source::l3);
  }
  SECTION("MESIF: the reader's copy is Forward and answers the next reader") {
    Machine m(with_states(make_preset("nehalem-2s"), LineStates::mesif));
    m.write(0, kLine);
    CHECK(m.read(4, kLine) == Source::remote_cache);
    CHECK(m.state(0, kLine) == 'S');
    CHECK(m.state(4, kLine) == 'F');
    CHECK(m.memory.writebacks() == 1);
    CHECK(m.read(1, kLine) == Source::l3);  // package 0's L3 holds the clean line
    CHECK(m.state(1, kLine) == 'S');
  }
  SECTION("MOESI: the writer's copy is Owned, dirty, and nothing is written back") {
    Machine m(make_preset("barcelona-4s"));  // AMD: MOESI
    m.write(0, kLine);
    CHECK(m.read(4, kLine) == Source::remote_cache);
    CHECK(m.state(0, kLine) == 'O');
    CHECK(m.state(4, kLine) == 'S');
    CHECK(m.read(8, kLine) == Source::remote_cache);  // the Owned copy answers again
    CHECK(m.state(8, kLine) == 'S');
    CHECK(m.memory.writebacks() == 0);
  }
}

TEST_CASE("a write invalidates every other copy, Owned and Forward ones included", "[machine][coherence]") {
  Machine m(make_preset("barcelona-4s"));
  m.write(0, kLine);
  m.read(4, kLine);
  m.read(8, kLine);
  REQUIRE(m.state(0, kLine) == 'O');
  CHECK(m.write(4, kLine) == Source::upgrade);  // Shared here: invalidate the rest
  CHECK(m.state(4, kLine) == 'M');
  CHECK(m.state(0, kLine) == 'I');
  CHECK(m.state(8, kLine) == 'I');
  // The Owned copy's writer wants it back: a transfer, not a hit.
  CHECK(m.write(0, kLine) == Source::remote_cache);
  CHECK(m.state(0, kLine) == 'M');
  CHECK(m.state(4, kLine) == 'I');

  Machine i(make_preset("nehalem-2s"));  // MESIF
  i.write(0, kLine);
  i.read(4, kLine);
  REQUIRE(i.state(4, kLine) == 'F');
  CHECK(i.write(4, kLine) == Source::upgrade);  // Forward is shared: S copies must go
  CHECK(i.state(0, kLine) == 'I');
}

TEST_CASE("a write invalidates other packages' last-level copies", "[machine][coherence]") {
  // nehalem-2s: an inclusive L3 per package. CPU 4 reads the line into package 1's L3, then
  // CPU 0 writes it: package 1's L3 copy must go, or CPU 5 would later hit a stale line.
  Machine m(make_preset("nehalem-2s"));
  m.read(4, kLine);
  REQUIRE(m.memory.llc_holds(1, kLine));
  m.write(0, kLine);
  CHECK_FALSE(m.memory.llc_holds(1, kLine));
  CHECK(m.memory.llc_holds(0, kLine));
  CHECK(m.read(5, kLine) == Source::remote_cache);  // from CPU 0's modified copy

  // Once CPU 0 has evicted its copy (into package 0's L3, dirty), a read from package 1
  // must not hit a stale copy in its own L3: the probe finds the dirty one.
  Machine n(make_preset("nehalem-2s"));
  n.read(4, kLine);
  n.write(0, kLine);
  constexpr std::uint64_t kSameSets = 32 * 1024;  // one L1 set and one L2 set apart
  for (std::uint64_t k = 1; k <= 16; ++k) n.read(0, kLine + k * kSameSets);
  REQUIRE(n.state(0, kLine) == 'I');
  REQUIRE(n.memory.llc_holds(0, kLine));
  CHECK(n.read(5, kLine) == Source::dram_remote);
  CHECK(n.memory.writebacks() == 1);  // MESIF shares no dirty line: the L3's copy goes to memory
}

TEST_CASE("dirty lines are written back when they leave the last cache holding them", "[machine][coherence]") {
  // A small machine: one private 2-line cache per core and no shared level, so a third line
  // evicts the first.
  MachineConfig c = make_preset("barcelona-4s");
  c.caches = {CacheLevel{"L1", 2 * kLineBytes, 2, 1.5, CacheScope::core, Replacement::lru}};
  Machine m(c);
  m.write(0, 0 * kLineBytes);
  m.read(0, 1 * kLineBytes);
  REQUIRE(m.memory.writebacks() == 0);
  m.read(0, 2 * kLineBytes);  // evicts line 0, modified
  CHECK(m.state(0, 0) == 'I');
  CHECK(m.memory.writebacks() == 1);
  m.read(0, 3 * kLineBytes);  // evicts line 1, clean (Exclusive): nothing to write
  CHECK(m.memory.writebacks() == 1);

  // With a victim L3 (Barcelona's), the evicted dirty line moves there instead, and memory
  // sees it only when the L3 evicts it.
  Machine v(make_preset("barcelona-4s"));
  const std::uint64_t l2_bytes = 512 * 1024;
  v.write(0, kLine);
  for (std::uint64_t a = kLine + l2_bytes; a < kLine + 3 * l2_bytes; a += l2_bytes / 16) v.read(0, a);  // same sets
  CHECK(v.state(0, kLine) == 'I');
  CHECK(v.memory.llc_holds(0, kLine));
  CHECK(v.memory.writebacks() == 0);
}

TEST_CASE("a clean line in another core of the package comes from the inclusive L3", "[machine][coherence]") {
  Machine m(make_preset("nehalem-2s"));
  m.read(0, kLine);
  REQUIRE(m.state(0, kLine) == 'E');
  const std::uint64_t before = m.now;
  CHECK(m.read(1, kLine) == Source::l3);
  const MachineConfig& c = m.memory.config();
  CHECK(m.now - before <= static_cast<std::uint64_t>(c.caches[2].hit_ns + c.probe_ns) + 1);
  // A modified one is a cache-to-cache transfer.
  m.write(2, kLine);
  CHECK(m.read(3, kLine) == Source::same_package_core);
}

// migratory_reads (measured by `lockstep calibrate` on a host whose reads take a modified
// line whole): a read of a line another core of the package modified leaves the reader the
// only copy, Modified, so its write hits and the old owner's next read misses. Without it
// the two share the line and the write must invalidate the other copy. Across packages the
// option changes nothing (nothing measured it there).
TEST_CASE("migratory reads take another core's modified line whole, within a package", "[machine][coherence]") {
  for (const bool migratory : {false, true}) {
    INFO("migratory_reads " << migratory);
    MachineConfig config = make_preset("nehalem-2s");
    config.migratory_reads = migratory;
    Machine m(config);
    m.write(0, kLine);
    CHECK(m.read(2, kLine) == Source::same_package_core);  // CPU 2: another core of package 0
    CHECK(m.state(0, kLine) == (migratory ? 'I' : 'S'));
    CHECK(m.state(2, kLine) == (migratory ? 'M' : 'F'));  // nehalem-2s is MESIF
    CHECK(m.write(2, kLine) == (migratory ? Source::l1 : Source::upgrade));
    CHECK(m.read(0, kLine) != Source::l1);  // written since: CPU 0's copy is gone either way
    // Across packages a read shares the line as before.
    Machine far(config);
    far.write(0, kLine + 64);
    far.read(4, kLine + 64);
    CHECK(far.state(0, kLine + 64) == 'S');
  }
}
