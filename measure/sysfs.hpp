// What sysfs says about this host, read the same way wherever lockstep needs it: the
// simulator's host preset and calibration (sim/machine/host_topology.hpp) and the native
// probes (native/probes/memory_probe.hpp). Neither simulator nor native code: facts about the
// host and how to read them. Malformed files are errors naming the file; missing optional
// ones are nullopt.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lockstep::measure {

// A file's text without surrounding white space; nullopt when it cannot be read.
std::optional<std::string> read_text(const std::filesystem::path& path);
// The same; throws std::runtime_error naming the file when it cannot be read.
std::string required_text(const std::filesystem::path& path);
// A small non-negative number (at most 1,000,000).
int parse_int(const std::string& text, const std::filesystem::path& path);
// A Linux CPU list: "0-3,8,10-11"; empty means none.
std::vector<int> parse_cpulist(const std::string& text, const std::filesystem::path& path);
// "32K", "8192K", "1M" or plain bytes.
std::uint64_t parse_size(const std::string& text, const std::filesystem::path& path);

// One level of a CPU's caches (devices/system/cpu/cpuN/cache/indexM).
struct HostCache {
  int level = 0;
  std::uint64_t size_bytes = 0;
  std::uint32_t ways = 0;  // 0: fully associative
  std::vector<int> shared_cpus;
};

// The first data or unified cache of each level under `cache_dir`, by level; empty when the
// directory lists none (some VMs).
std::vector<HostCache> read_caches(const std::filesystem::path& cache_dir);

}  // namespace lockstep::measure
