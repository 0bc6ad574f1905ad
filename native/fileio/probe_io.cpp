#include "native/fileio/probe_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include <fmt/format.h>

namespace lockstep::native::fileio {

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::system_error(errno, std::generic_category(), what); }

void check_whole(ssize_t n, std::size_t want, const char* call) {
  if (n < 0) fail(call);
  if (static_cast<std::size_t>(n) != want)
    throw std::runtime_error(fmt::format("{}: short write, {} of {} bytes", call, n, want));
}

}  // namespace

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

Fd open_file(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0600);
  if (fd < 0) fail(fmt::format("open {}", path));
  return Fd(fd);
}

std::size_t pread_once(int fd, std::span<std::byte> buf, off_t offset) {
  const ssize_t n = ::pread(fd, buf.data(), buf.size(), offset);
  if (n < 0) fail("pread");
  return static_cast<std::size_t>(n);
}

std::size_t read_once(int fd, std::span<std::byte> buf) {
  const ssize_t n = ::read(fd, buf.data(), buf.size());
  if (n < 0) fail("read");
  return static_cast<std::size_t>(n);
}

void pwrite_whole(int fd, std::span<const std::byte> buf, off_t offset) {
  check_whole(::pwrite(fd, buf.data(), buf.size(), offset), buf.size(), "pwrite");
}

void write_whole(int fd, std::span<const std::byte> buf) {
  check_whole(::write(fd, buf.data(), buf.size()), buf.size(), "write");
}

void truncate_to(int fd, off_t size) {
  if (::ftruncate(fd, size) != 0) fail("ftruncate");
}

void seek_to(int fd, off_t offset) {
  if (::lseek(fd, offset, SEEK_SET) < 0) fail("lseek");
}

off_t file_size(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail("fstat");
  return st.st_size;
}

std::string read_back(int fd, std::size_t size) {
  std::string out(size, '\0');
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, out.data() + done, size - done, static_cast<off_t>(done));
    if (n < 0) fail("pread");
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  out.resize(done);
  return out;
}

}  // namespace lockstep::native::fileio
