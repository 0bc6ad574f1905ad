// Reading and writing files: whole-file reads, atomic writes (a reader never sees a
// half-written output: write a temporary beside the target, then rename), SHA-256.
#pragma once

#include <string>
#include <string_view>

namespace lockstep::cli {

// Throws std::runtime_error naming the file.
std::string read_file(const std::string& path);
void write_file_atomically(const std::string& path, std::string_view content);
std::string sha256_hex(std::string_view bytes);

}  // namespace lockstep::cli
