// Where the file probe works: a fresh temporary directory inside the one the user named,
// removed with everything in it when the probe ends, by return, exception or interruption.
// A fresh directory means the probe never touches a file it did not create.
#pragma once

#include <string>

namespace lockstep::native::fileio {

class ProbeDir {
 public:
  // Throws std::system_error when parent is not a directory the probe may create in.
  explicit ProbeDir(const std::string& parent);
  ~ProbeDir();
  ProbeDir(const ProbeDir&) = delete;
  ProbeDir& operator=(const ProbeDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The file system holding path, from statfs(2)'s f_type: "ext4", "tmpfs", "overlay", ...,
// or the magic number in hex ("0x12345678") when it is not one this table knows.
std::string filesystem_name(const std::string& path);

}  // namespace lockstep::native::fileio
