#include "native/fileio/probe_dir.hpp"

#include <sys/statfs.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace lockstep::native::fileio {

ProbeDir::ProbeDir(const std::string& parent) {
  std::string templ = parent + "/lockstep-probe-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr)
    throw std::system_error(errno, std::generic_category(), fmt::format("cannot create a directory in {}", parent));
  path_ = buf.data();
}

ProbeDir::~ProbeDir() {
  // The directory is the probe's own (mkdtemp made it), so removing all of it is safe;
  // a destructor must not throw, and a failure here has nowhere better to go than stderr.
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  if (ec) fmt::print(stderr, "warning: could not remove {}: {}\n", path_, ec.message());
}

namespace {

// linux/magic.h's numbers for the file systems a probe is likely to meet. ext2, ext3 and
// ext4 share one magic; today it is almost always ext4, so that is the name reported.
constexpr std::array<std::pair<std::uint32_t, const char*>, 18> kMagics{{
    {0xEF53, "ext4"},
    {0x01021994, "tmpfs"},
    {0x794c7630, "overlay"},
    {0x58465342, "xfs"},
    {0x9123683E, "btrfs"},
    {0x2FC12FC1, "zfs"},
    {0xF2F52010, "f2fs"},
    {0x6969, "nfs"},
    {0x65735546, "fuse"},
    {0x858458f6, "ramfs"},
    {0x01021997, "9p"},
    {0xFF534D42, "cifs"},
    {0xFE534D42, "smb2"},
    {0x00c36400, "ceph"},
    {0x4d44, "vfat"},
    {0x2011BAB0, "exfat"},
    {0x5346544e, "ntfs"},
    {0x62656570, "configfs"},
}};

}  // namespace

std::string filesystem_name(const std::string& path) {
  struct statfs st {};
  if (::statfs(path.c_str(), &st) != 0)
    throw std::system_error(errno, std::generic_category(), fmt::format("statfs {}", path));
  const auto magic = static_cast<std::uint32_t>(st.f_type);
  for (const auto& [number, name] : kMagics)
    if (number == magic) return name;
  return fmt::format("{:#x}", magic);
}

}  // namespace lockstep::native::fileio
