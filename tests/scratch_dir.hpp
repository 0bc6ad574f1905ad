// A scratch directory per test process. CTest runs each test case in its own process, several
// at once, so a fixed temporary path lets one case read another's files.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

#include <unistd.h>

namespace lockstep::testing {

// Made on first use, removed when the process exits.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& stem)
      : dir_(std::filesystem::temp_directory_path() / (stem + "." + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

inline const std::filesystem::path& scratch_dir() {
  static const ScratchDir dir("lockstep_tests");
  return dir.path();
}

}  // namespace lockstep::testing
