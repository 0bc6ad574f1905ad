// UMA-style kegs and zones (core/alloc/uma_zone.hpp, docs/os.md "Coloured allocation"): the
// seed's arithmetic and each keg's and zone's decisions on hand-checkable cases, on the
// native platform's memory.
#include <catch2/catch.hpp>

#include <set>

#include "core/alloc/uma_zone.hpp"
#include "native/native_platform.hpp"

using namespace lockstep;  // NOLINT(google-build-using-namespace)
using alloc::KegSpec;
using alloc::kLargePage;
using alloc::kSmallPage;
using native::NativePlatform;
using Keg = alloc::Keg<NativePlatform>;
using Zone = alloc::Zone<NativePlatform>;

namespace {

// The colour of an item at `offset` in its slab: its first line, modulo an item's lines.
std::size_t colour(std::size_t offset, std::size_t item_bytes) { return (offset / 64) % (item_bytes / 64); }

}  // namespace

TEST_CASE("keg: 2 KiB items start on 1/32 of the lines uncoloured, on all of them coloured", "[alloc]") {
  Keg plain(2048, KegSpec{0, kLargePage, 1, false});
  Keg coloured(2048, KegSpec{0, kLargePage, 1, true});
  CHECK(plain.stride() == 2048);
  CHECK(coloured.stride() == 2048 + 64);
  CHECK(plain.items_per_slab() == 1024);
  CHECK(coloured.items_per_slab() == 992);  // 2 MiB / 2112
  std::set<std::size_t> plain_colours;
  std::set<std::size_t> coloured_colours;
  for (int i = 0; i < 32; ++i) {
    std::size_t offset = 0;
    REQUIRE(plain.alloc(offset) != nullptr);
    plain_colours.insert(colour(offset, 2048));
    REQUIRE(coloured.alloc(offset) != nullptr);
    CHECK(offset == static_cast<std::size_t>(i) * 2112);
    coloured_colours.insert(colour(offset, 2048));
  }
  CHECK(plain_colours.size() == 1);
  CHECK(coloured_colours.size() == 32);  // 32 successive items: every line of an item's span
}

TEST_CASE("keg: a 4 KiB page holds one padded 2 KiB item, at its start, so colouring buys nothing", "[alloc]") {
  Keg small(2048, KegSpec{0, kSmallPage, 4, true});
  CHECK(small.items_per_slab() == 1);
  std::set<std::size_t> colours;
  for (int i = 0; i < 4; ++i) {
    std::size_t offset = 1;
    REQUIRE(small.alloc(offset) != nullptr);
    CHECK(offset == 0);
    colours.insert(colour(offset, 2048));
  }
  std::size_t offset = 0;
  CHECK(small.alloc(offset) == nullptr);  // max_slabs reached
  CHECK(colours.size() == 1);
  CHECK(small.slabs() == 4);
  CHECK_THROWS(Keg(4096, KegSpec{0, kSmallPage, 1, true}));  // 4096 + 64 does not fit a page
}

TEST_CASE("zone: large pages first, then small ones; own node first, then any", "[alloc]") {
  Zone zone(2048);
  zone.add_keg(KegSpec{0, kLargePage, 1, true});   // 0: node 0, one large page
  zone.add_keg(KegSpec{0, kSmallPage, 2, false});  // 1: node 0, two small pages
  zone.add_keg(KegSpec{1, kSmallPage, 1, false});  // 2: node 1, one small page
  for (int i = 0; i < 992; ++i) CHECK(zone.alloc(0).keg == 0);
  // The large page is used up: node 0 falls back to its small pages (two items each).
  for (int i = 0; i < 4; ++i) CHECK(zone.alloc(0).keg == 1);
  // Node 0's kegs are full: another node's.
  CHECK(zone.alloc(0).keg == 2);
  // Node 1 takes its own keg's last item, then node 0's are full too: nothing is left.
  CHECK(zone.alloc(1).keg == 2);
  CHECK_THROWS_WITH(zone.alloc(1), Catch::Contains("every keg is full"));
}
