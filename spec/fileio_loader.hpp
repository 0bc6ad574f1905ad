// The file-I/O parts of a scenario (docs/scenarios.md, "fileio"): `design: {fileio: ...}`
// (the offset and data policies, word size, page size) and the `fileio` workload (the file,
// its descriptors, and each thread's calls).
#pragma once

#include <memory>

#include "core/workloads/fileio_spec.hpp"
#include "spec/scenario.hpp"
#include "spec/yaml_fields.hpp"

namespace lockstep::scenario {

fileio::FileioConfig load_fileio_design(const yaml::Source& src, const YAML::Node& node);

// `workload` is the workload map; `threads` its thread list.
std::shared_ptr<fileio::FileioSpec> load_fileio_workload(const yaml::Map& workload, const MachineSpec& machine,
                                                         const DesignSpec& design);

}  // namespace lockstep::scenario
