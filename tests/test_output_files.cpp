// How outputs are written (io/files.hpp, docs/results.md "How outputs are written"): what
// stands at an output's path is never destroyed by accident. The cases careless and hostile use makes:
// devices, FIFOs, symlinks, read-only files, planted temporaries, interrupted writes.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "io/files.hpp"
#include "tests/scratch_dir.hpp"

using lockstep::io::AtomicFileWriter;
using lockstep::io::write_file_atomically;
namespace fs = std::filesystem;

namespace {

lockstep::testing::ScratchDir& scratch() {
  static lockstep::testing::ScratchDir dir("lockstep-output-files");
  return dir;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Files in `dir` whose names start with `prefix`.
int count_prefixed(const fs::path& dir, const std::string& prefix) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string().starts_with(prefix) ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("an output replaces a regular file whole, keeping its mode, and leaves no temporary", "[outputs]") {
  const fs::path p = scratch().path() / "a.json";
  write_file_atomically(p.string(), "old");
  ::chmod(p.c_str(), 0640);
  write_file_atomically(p.string(), "new");
  CHECK(slurp(p) == "new");
  CHECK((fs::status(p).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  CHECK(count_prefixed(scratch().path(), ".a.json.tmp.") == 0);
}

TEST_CASE("an output to a character device is written through, never replaced by a file", "[outputs]") {
  write_file_atomically("/dev/null", "anything");
  CHECK(fs::is_character_file("/dev/null"));
  if (fs::exists("/dev/full")) {
    CHECK_THROWS_WITH(write_file_atomically("/dev/full", std::string(1 << 16, 'x')), Catch::Contains("/dev/full"));
    CHECK(fs::is_character_file("/dev/full"));
  }
}

TEST_CASE("an output to a FIFO is written through to its reader", "[outputs]") {
  const fs::path p = scratch().path() / "pipe";
  REQUIRE(::mkfifo(p.c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] { got = slurp(p); });
  write_file_atomically(p.string(), "through the pipe");
  reader.join();
  CHECK(got == "through the pipe");
  CHECK(fs::is_fifo(fs::symlink_status(p)));
}

TEST_CASE("an output through a symlink writes the file it names and keeps the link", "[outputs]") {
  const fs::path target = scratch().path() / "target.json", link = scratch().path() / "link.json";
  write_file_atomically(target.string(), "before");
  fs::create_symlink(target, link);
  write_file_atomically(link.string(), "after");
  CHECK(fs::is_symlink(fs::symlink_status(link)));
  CHECK(slurp(target) == "after");
  const fs::path dangling = scratch().path() / "dangling.json";
  fs::create_symlink(scratch().path() / "nowhere" / "x.json", dangling);
  CHECK_THROWS_WITH(write_file_atomically(dangling.string(), "x"), Catch::Contains("is a symlink"));
}

TEST_CASE("a read-only file or a directory is never replaced, even by root", "[outputs]") {
  const fs::path p = scratch().path() / "ro.json";
  write_file_atomically(p.string(), "keep me");
  ::chmod(p.c_str(), 0444);
  CHECK_THROWS_WITH(write_file_atomically(p.string(), "lost"), Catch::Contains("read-only"));
  CHECK(slurp(p) == "keep me");
  CHECK_THROWS_WITH(write_file_atomically(scratch().path().string(), "x"), Catch::Contains("is a directory"));
}

TEST_CASE("a file planted under a predictable temporary name is neither written nor followed", "[outputs]") {
  const fs::path victim = scratch().path() / "victim";
  write_file_atomically(victim.string(), "secret");
  const fs::path out = scratch().path() / "r.json";
  // The names the writer used to take: ".r.json.tmp.PID".
  fs::create_symlink(victim, scratch().path() / (".r.json.tmp." + std::to_string(::getpid())));
  write_file_atomically(out.string(), "result");
  CHECK(slurp(victim) == "secret");
  CHECK(fs::is_regular_file(fs::symlink_status(out)));
  CHECK(slurp(out) == "result");
}

TEST_CASE("a temporary is removed when SIGTERM ends the writer, and a dead writer's is swept", "[outputs]") {
  const fs::path out = scratch().path() / "big.jsonl";
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGTERM, SIG_DFL);  // as in lockstep itself (Catch2 handles it in this process)
    AtomicFileWriter w(out.string());
    w.write("half of a trace");
    ::raise(SIGTERM);
    ::_exit(0);  // not reached
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(count_prefixed(scratch().path(), ".big.jsonl.tmp.") == 0);
  CHECK_FALSE(fs::exists(out));

  // SIGKILL cannot be caught: the next write to the same path sweeps what it left.
  const pid_t gone = ::fork();
  REQUIRE(gone >= 0);
  if (gone == 0) ::_exit(0);
  REQUIRE(::waitpid(gone, &status, 0) == gone);
  const fs::path stale = scratch().path() / (".big.jsonl.tmp." + std::to_string(gone) + ".Ab12Cd");
  write_file_atomically(stale.string(), "117 MB of an interrupted trace");
  write_file_atomically(out.string(), "whole");
  CHECK_FALSE(fs::exists(stale));
  CHECK(slurp(out) == "whole");
}
