#include "io/files.hpp"

#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace lockstep::io {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) throw std::runtime_error(fmt::format("{}: read error", path));
  return out.str();
}

void write_file_atomically(const std::string& path, std::string_view content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  const fs::path temp = target.parent_path() / fmt::format(".{}.tmp.{}", target.filename().string(), getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write: {}", temp.string(), std::strerror(errno)));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temp, ignored);
      throw std::runtime_error(fmt::format("{}: write failed", temp.string()));
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    fs::remove(temp, ec);
    throw std::runtime_error(fmt::format("{}: cannot replace: {}", path, ec.message()));
  }
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed");
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace lockstep::io

namespace lockstep::io {

Sha256Stream::Sha256Stream() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 init failed");
}

Sha256Stream::~Sha256Stream() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

void Sha256Stream::update(std::string_view bytes) {
  if (EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), bytes.data(), bytes.size()) != 1)
    throw std::runtime_error("SHA-256 update failed");
}

std::string Sha256Stream::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), digest, &length) != 1)
    throw std::runtime_error("SHA-256 final failed");
  std::string out;
  for (unsigned int i = 0; i < length; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  namespace fs = std::filesystem;
  const fs::path target(path_);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  temp_ = (target.parent_path() / fmt::format(".{}.tmp.{}", target.filename().string(), getpid())).string();
  file_ = std::fopen(temp_.c_str(), "wb");
  if (file_ == nullptr) throw std::runtime_error(fmt::format("{}: cannot write: {}", temp_, std::strerror(errno)));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (file_ != nullptr) {
    std::fclose(file_);
    std::remove(temp_.c_str());
  }
}

void AtomicFileWriter::write(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    throw std::runtime_error(fmt::format("{}: write failed", temp_));
}

void AtomicFileWriter::commit() {
  const bool ok = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok || std::rename(temp_.c_str(), path_.c_str()) != 0) {
    std::remove(temp_.c_str());
    throw std::runtime_error(fmt::format("{}: cannot replace: {}", path_, std::strerror(errno)));
  }
}

}  // namespace lockstep::io
