#include "native/probes/thread_state.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

namespace lockstep::native::probes {

int this_thread_tid() { return static_cast<int>(::syscall(SYS_gettid)); }

std::optional<char> thread_state(int tid) {
  const std::string path = fmt::format("/proc/self/task/{}/stat", tid);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  // "pid (comm) S ...": comm is at most 16 bytes but may hold ')' and spaces, so the state
  // is the letter after the *last* ')'. 512 bytes hold the fields up to it with room.
  std::array<char, 512> buf{};
  const ssize_t n = ::read(fd, buf.data(), buf.size());
  ::close(fd);
  if (n <= 0) return std::nullopt;
  const std::string_view text(buf.data(), static_cast<std::size_t>(n));
  const std::size_t close_paren = text.rfind(')');
  if (close_paren == std::string_view::npos || close_paren + 2 >= text.size()) return std::nullopt;
  return text[close_paren + 2];
}

}  // namespace lockstep::native::probes
