// Names of simulated memory in the design's words (docs/traces.md, "Names").
//
// A design labels what it allocates (P::label): a plain region ("x"), an object with named
// fields ("futex_q[waiter]" with next, prev, ..., queued), or an array of such objects
// ("bucket" with a stride, so address 0x1c8 reads "bucket[14].waiters"). The simulator, the
// counterexample printer and the viewer all name an address with this one rule, so a
// location has the same name on the terminal, in a schedule's report and in the viewer.
//
// The rule: among the regions that contain the address, the one that starts last (the
// innermost; an inner object labeled after its container names itself); a region labeled
// again at the same start replaces the earlier one (a stack slot reused by a later call).
// Inside the region: the element index when it is an array, then the field that contains
// the offset, then "+k" for a byte offset k inside that field (or inside the region when no
// field contains it). An address in no region is written in hex.
//
// Plain C++ (fmt only): the viewer links it without the simulator.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lockstep::trace {

struct FieldName {
  std::uint64_t offset = 0;  // from the start of the object (of each element of an array)
  std::uint64_t bytes = 0;
  std::string name;
};

struct NamedRegion {
  std::uint64_t addr = 0;
  std::uint64_t bytes = 0;
  std::string name;
  // Above 0: an array of bytes / stride elements, element i named name[first + i].
  std::uint64_t stride = 0;
  std::uint64_t first = 0;
  std::vector<FieldName> fields;  // of one element (of the object when stride is 0)
};

class AddressNames {
 public:
  // Refuses (std::invalid_argument) a region that is empty, wraps around, or whose fields
  // fall outside one element: a name must never point at the wrong bytes.
  void add(NamedRegion region);
  void clear() { regions_.clear(); }
  bool empty() const { return regions_.empty(); }
  std::size_t size() const { return regions_.size(); }

  // The address's name by the rule above, or its hex when no region contains it.
  std::string name_of(std::uint64_t addr) const;
  // The region that names `addr`, or nullptr.
  const NamedRegion* region_of(std::uint64_t addr) const;

 private:
  std::map<std::uint64_t, NamedRegion> regions_;  // by start address
};

}  // namespace lockstep::trace
