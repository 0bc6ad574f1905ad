// A trace's `label` event (docs/traces.md) read into a NamedRegion: addr, size, name, and
// the layout members `stride`, `first` and `fields` when present. One reader for the
// command line's counterexample printer, the Chrome exporter and the viewer.
#pragma once

#include <nlohmann/json.hpp>

#include "trace/address_names.hpp"

namespace lockstep::trace {

// Throws std::invalid_argument naming the member that is missing or mistyped.
NamedRegion region_of_label(const nlohmann::json& event);

}  // namespace lockstep::trace
