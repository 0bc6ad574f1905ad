// Reading and writing files: whole-file reads, atomic writes (a reader never sees a
// half-written output: write a temporary beside the target, then rename), SHA-256.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace lockstep::io {

// Inputs (scenarios, machine files, schedules, checkpoints, litmus tests) are read whole
// with a bound: a regular file only (a directory, FIFO, device or socket is refused before
// it is opened, so /dev/zero and a FIFO cannot hang or fill memory), at most `max_bytes`.
inline constexpr std::uintmax_t kMaxInputBytes = 64ULL << 20;
// Throws std::runtime_error naming the file and what is wrong.
std::string read_file(const std::string& path, std::uintmax_t max_bytes = kMaxInputBytes);
// AtomicFileWriter's rules, in one piece.
void write_file_atomically(const std::string& path, std::string_view content);
std::string sha256_hex(std::string_view bytes);

}  // namespace lockstep::io

namespace lockstep::io {

// SHA-256 over data given in pieces.
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;
  void update(std::string_view bytes);
  std::string hex();  // once, at the end

 private:
  void* ctx_;
};

// An output file, written in pieces (docs/results.md, "How outputs are written"):
//  - a regular file (or none yet) appears whole or not at all: the pieces go to a temporary
//    made with mkstemp beside it (a fresh name, O_EXCL: nothing planted is followed),
//    renamed over it by commit(), with the mode of the file it replaces; without commit(),
//    or on SIGINT, SIGTERM or SIGHUP, the temporary is removed, and stale ones a killed run
//    left for the same path are swept on the next write;
//  - a symlink is followed: the file it names is written, the link stays;
//  - a character device or a FIFO is written through, in place, never replaced;
//  - "-" is standard output;
//  - a directory, another kind of file, or a regular file with no write permission bit
//    (even for root) is refused: std::runtime_error naming the path.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  void write(std::string_view bytes);
  void commit();

 private:
  enum class Mode : std::uint8_t { replace, through, standard_output };
  void discard();
  std::string path_;    // as given
  std::string target_;  // the file replaced (a symlink's target)
  std::string temp_;
  std::FILE* file_ = nullptr;
  Mode mode_ = Mode::replace;
  int slot_ = -1;  // in the signal handler's list of temporaries
};

}  // namespace lockstep::io
