// A trace a reader refuses: the file (or the name its text was given; may be empty), the
// 1-based line at fault (0: the file as a whole) and what is wrong.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace lockstep::trace {

class FormatError : public std::runtime_error {
 public:
  // what(): "FILE, line N: DETAIL"; without a file "line N: DETAIL"; line 0: "FILE: DETAIL".
  FormatError(std::string file, std::size_t line, std::string detail);

  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }
  const std::string& detail() const { return detail_; }  // the message without file and line

 private:
  std::string file_;
  std::size_t line_;
  std::string detail_;
};

}  // namespace lockstep::trace
