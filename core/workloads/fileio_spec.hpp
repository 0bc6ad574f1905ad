// The `fileio` workload as a scenario gives it (docs/scenarios.md, "fileio"): one file,
// its open file descriptions, and per thread a list of calls on them. cli/ builds it from
// YAML; FileioWorkload<P> runs it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/fileio/file_io.hpp"
#include "core/fileio/fileio_config.hpp"
#include "core/fileio/history.hpp"
#include "core/platform.hpp"

namespace lockstep::fileio {

struct FileOp {
  CallKind kind = CallKind::read;
  int fd = 0;                  // read, write, lseek
  std::uint64_t bytes = 0;     // read, write, pread, pwrite
  std::uint64_t position = 0;  // pread, pwrite
  std::int64_t offset = 0;     // lseek
  Whence whence = Whence::set;
  std::uint64_t id = 0;  // writes: a number of its own (from 1), what its words carry
  std::string where;     // "file:line:col"
};

struct FileThread {
  std::string name;
  CpuId cpu = 0;
  std::vector<FileOp> ops;
};

struct Descriptor {
  std::string name;
  bool append = false;
  std::uint64_t offset = 0;  // where it starts
  std::uint32_t users = 0;   // threads that use it: the file count f_pos_lock looks at
};

struct FileioSpec {
  FileioConfig config;
  std::string design;              // what results call the configuration
  std::uint64_t initial_size = 0;  // bytes of initial content
  std::vector<Descriptor> descriptors;
  std::vector<FileThread> threads;
  // Timed runs: each thread repeats its calls until this much virtual time has passed, and
  // the workload reports throughput; 0: each thread makes its calls once and the history is
  // checked (the model checker's mode).
  std::uint64_t runtime_ns = 0;
  std::vector<std::string> properties;  // the file properties to check (kFileProperties)
};

}  // namespace lockstep::fileio
