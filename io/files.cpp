#include "io/files.hpp"

#include <openssl/evp.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

namespace lockstep::io {

std::string read_file(const std::string& path, std::uintmax_t max_bytes) {
  // Looked at before it is opened: opening a FIFO blocks until a writer comes, and a device
  // (/dev/zero) never ends.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw std::runtime_error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw std::runtime_error(fmt::format("{}: is a directory, not a file", path));
  if (!S_ISREG(st.st_mode))
    throw std::runtime_error(fmt::format("{}: is not a regular file (a FIFO, a device or a socket): not read", path));
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    throw std::runtime_error(
        fmt::format("{}: {} bytes, more than the {} this input may have", path, st.st_size, max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::string out;
  out.resize(static_cast<std::size_t>(st.st_size));
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw std::runtime_error(fmt::format("{}: read error", path));
  // A file that grew since stat: read on, within the bound.
  char more[4096];
  while (in.read(more, sizeof more) || in.gcount() > 0) {
    out.append(more, static_cast<std::size_t>(in.gcount()));
    if (out.size() > max_bytes)
      throw std::runtime_error(fmt::format("{}: more than the {} bytes this input may have", path, max_bytes));
  }
  return out;
}

void write_file_atomically(const std::string& path, std::string_view content) {
  AtomicFileWriter out(path);
  out.write(content);
  out.commit();
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

namespace {

// Temporaries in flight, removed if a signal ends the process (async-signal-safe: fixed
// slots, unlink only). A slot is claimed with a compare-and-swap on its flag.
constexpr std::size_t kSlots = 32;
struct TempSlot {
  std::atomic<bool> used{false};
  char path[4096]{};
};
std::array<TempSlot, kSlots> temps;
constexpr std::array<int, 3> kEndSignals{SIGINT, SIGTERM, SIGHUP};
std::array<struct sigaction, kEndSignals.size()> before{};
std::mutex handlers_mutex;

extern "C" void remove_temporaries_and_end(int sig) {
  for (TempSlot& t : temps)
    if (t.used.load()) ::unlink(t.path);
  // What was there before takes the signal: by default, the process ends as it would have.
  for (std::size_t i = 0; i < kEndSignals.size(); ++i)
    if (kEndSignals[i] == sig) ::sigaction(sig, &before[i], nullptr);
  ::raise(sig);
}

// On each temporary made: a signal whose disposition is the default (ending the process)
// gets the handler. One the process ignores stays ignored; one a part of the program handles
// (native fileio's interrupt guard, a test framework) is left to it.
void install_handlers() {
  const std::lock_guard lock(handlers_mutex);
  struct sigaction action {};
  action.sa_handler = remove_temporaries_and_end;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < kEndSignals.size(); ++i) {
    struct sigaction now {};
    ::sigaction(kEndSignals[i], nullptr, &now);
    if (now.sa_handler != SIG_DFL) continue;
    before[i] = now;
    ::sigaction(kEndSignals[i], &action, nullptr);
  }
}

int claim_slot(const std::string& path) {
  if (path.size() >= sizeof(TempSlot::path)) return -1;
  for (std::size_t i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (temps[i].used.load() || !temps[i].used.compare_exchange_strong(expected, true)) continue;
    // The flag is set before the path is whole: a signal in between may unlink a prefix of
    // it, which names nothing this process made (the names end in a random suffix).
    std::memcpy(temps[i].path, path.c_str(), path.size() + 1);
    return static_cast<int>(i);
  }
  return -1;  // more than kSlots at once: this one is not removed on a signal
}

void release_slot(int slot) {
  if (slot >= 0) temps[static_cast<std::size_t>(slot)].used.store(false);
}

// Temporaries for `target` left by a process of this program that no longer runs (killed
// with SIGKILL, or the machine stopped): ".NAME.tmp.PID", or that with a random suffix.
void sweep_stale(const std::filesystem::path& dir, const std::string& name) {
  namespace fs = std::filesystem;
  const std::string prefix = "." + name + ".tmp.";
  std::error_code ec;
  for (fs::directory_iterator it(dir.empty() ? fs::path(".") : dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string f = it->path().filename().string();
    if (!f.starts_with(prefix)) continue;
    const std::string rest = f.substr(prefix.size());
    const std::size_t digits = rest.find_first_not_of("0123456789");
    if (digits == 0 || rest.empty() || (digits != std::string::npos && rest[digits] != '.')) continue;
    const long pid = std::strtol(rest.substr(0, digits).c_str(), nullptr, 10);
    if (pid <= 0 || pid == static_cast<long>(::getpid())) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // still running (or not ours to tell)
    std::error_code ignored;
    if (!fs::is_directory(fs::symlink_status(it->path(), ignored))) fs::remove(it->path(), ignored);
  }
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  namespace fs = std::filesystem;
  if (path_ == "-") {  // standard output
    mode_ = Mode::standard_output;
    file_ = stdout;
    return;
  }
  fs::path target(path_);
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(target, ec);
  if (fs::is_symlink(link)) {
    // A symlink is followed: the file it names is written, the link stays.
    const fs::path resolved = fs::canonical(target, ec);
    if (ec)
      throw std::runtime_error(fmt::format("{}: is a symlink to {}, which cannot be written: {}", path_,
                                           fs::read_symlink(target, ec).string(), ec.message()));
    target = resolved;
  }
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw std::runtime_error(fmt::format("{}: is a directory", path_));
  if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    // A device or a FIFO is written through, in place: never replaced by a file.
    mode_ = Mode::through;
    file_ = std::fopen(target.c_str(), "wb");
    if (file_ == nullptr) throw std::runtime_error(fmt::format("{}: cannot write: {}", path_, std::strerror(errno)));
    return;
  }
  if (exists && !S_ISREG(st.st_mode)) throw std::runtime_error(fmt::format("{}: is not a regular file", path_));
  if (exists && (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0)
    throw std::runtime_error(fmt::format("{}: is read-only: not replaced (chmod it, or write elsewhere)", path_));
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  target_ = target.string();
  sweep_stale(target.parent_path(), target.filename().string());
  // mkstemp: a fresh name, created with O_EXCL, so a file or symlink planted under a
  // predictable name is never written through.
  // mkstemp(3) replaces the template's last six characters, which must be 'X', by random ones.
  std::string name =
      (target.parent_path() / fmt::format(".{}.tmp.{}.{}", target.filename().string(), getpid(), std::string(6, 'X')))
          .string();
  install_handlers();
  const int fd = ::mkstemp(name.data());
  if (fd < 0)
    throw std::runtime_error(fmt::format("{}: cannot create a temporary beside it: {}", path_, std::strerror(errno)));
  temp_ = name;
  slot_ = claim_slot(temp_);
  // The output keeps the mode of the file it replaces, or the usual one for a new file.
  mode_t mode = 0;
  if (exists) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  ::fchmod(fd, mode);
  file_ = ::fdopen(fd, "wb");
  if (file_ == nullptr) {
    ::close(fd);
    discard();
    throw std::runtime_error(fmt::format("{}: cannot write: {}", temp_, std::strerror(errno)));
  }
}

void AtomicFileWriter::discard() {
  if (!temp_.empty()) ::unlink(temp_.c_str());
  release_slot(slot_);
  slot_ = -1;
}

AtomicFileWriter::~AtomicFileWriter() {
  if (file_ == nullptr) return;
  if (mode_ == Mode::standard_output) {
    std::fflush(file_);
    return;
  }
  std::fclose(file_);
  if (mode_ == Mode::replace) discard();
}

void AtomicFileWriter::write(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    throw std::runtime_error(
        fmt::format("{}: write failed: {}", mode_ == Mode::replace ? temp_ : path_, std::strerror(errno)));
}

void AtomicFileWriter::commit() {
  std::FILE* f = file_;
  file_ = nullptr;
  if (mode_ == Mode::standard_output) {
    if (std::fflush(f) != 0)
      throw std::runtime_error(fmt::format("standard output: write failed: {}", std::strerror(errno)));
    return;
  }
  const bool ok = std::fclose(f) == 0;
  const int error = errno;
  if (mode_ == Mode::through) {
    if (!ok) throw std::runtime_error(fmt::format("{}: write failed: {}", path_, std::strerror(error)));
    return;
  }
  if (!ok || std::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int why = ok ? errno : error;
    discard();
    throw std::runtime_error(fmt::format("{}: cannot replace: {}", path_, std::strerror(why)));
  }
  release_slot(slot_);
  slot_ = -1;
}

}  // namespace lockstep::io
