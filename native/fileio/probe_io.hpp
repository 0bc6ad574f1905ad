// The system calls the file probe makes, each one call with no retry loop: the probe asks
// what a single read() or write() guarantees, so splitting one into several would measure
// something else. Failures throw std::system_error naming the call, so a full disk or a
// read-only directory ends the probe with a message instead of a wrong count.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <span>
#include <string>

namespace lockstep::native::fileio {

// An owned file descriptor, closed once.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

// Opens (creating with mode 0600 when flags hold O_CREAT).
Fd open_file(const std::string& path, int flags);

// The bytes transferred: a read may be short at the end of the file.
std::size_t pread_once(int fd, std::span<std::byte> buf, off_t offset);
std::size_t read_once(int fd, std::span<std::byte> buf);
// A short write is an error here: every experiment writes whole records and counts them.
void pwrite_whole(int fd, std::span<const std::byte> buf, off_t offset);
void write_whole(int fd, std::span<const std::byte> buf);

void truncate_to(int fd, off_t size);
void seek_to(int fd, off_t offset);
off_t file_size(int fd);
// The file's first size bytes, read with as many pread() calls as it takes: used only to
// check a result after the threads that raced on the file have joined.
std::string read_back(int fd, std::size_t size);

}  // namespace lockstep::native::fileio
