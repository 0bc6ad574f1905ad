// Reading and writing files: whole-file reads, atomic writes (a reader never sees a
// half-written output: write a temporary beside the target, then rename), SHA-256.
#pragma once

#include <string>
#include <cstdio>
#include <string_view>

namespace lockstep::io {

// Throws std::runtime_error naming the file.
std::string read_file(const std::string& path);
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

// A file written in pieces that appears whole or not at all: the pieces go to a temporary
// beside the target, renamed over it by commit(); without commit() the temporary is removed.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  void write(std::string_view bytes);
  void commit();

 private:
  std::string path_;
  std::string temp_;
  std::FILE* file_ = nullptr;
};

}  // namespace lockstep::io
