#include "trace/reader.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace lockstep::trace {

struct Reader::Source {
  virtual ~Source() = default;
  // Up to `n` more bytes into `out`; 0 at the end.
  virtual std::size_t read(char* out, std::size_t n) = 0;
};

namespace {

struct StreamSource final : Reader::Source {
  explicit StreamSource(std::istream& s) : in(s) {}
  std::size_t read(char* out, std::size_t n) override {
    if (!in) return 0;
    in.read(out, static_cast<std::streamsize>(n));
    return static_cast<std::size_t>(in.gcount());
  }
  std::istream& in;
};

struct TextSource final : Reader::Source {
  explicit TextSource(std::string_view t) : text(t) {}
  std::size_t read(char* out, std::size_t n) override {
    const std::size_t k = std::min(n, text.size());
    std::memcpy(out, text.data(), k);
    text.remove_prefix(k);
    return k;
  }
  std::string_view text;
};

bool blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

constexpr std::size_t kFirstCapacity = std::size_t{64} << 10;

}  // namespace

FormatError::FormatError(std::string file, std::size_t line, std::string detail)
    : std::runtime_error(line == 0      ? (file.empty() ? detail : fmt::format("{}: {}", file, detail))
                         : file.empty() ? fmt::format("line {}: {}", line, detail)
                                        : fmt::format("{}, line {}: {}", file, line, detail)),
      file_(std::move(file)),
      line_(line),
      detail_(std::move(detail)) {}

Reader::Reader(std::istream& in, std::string name, ReaderLimits limits)
    : source_(std::make_unique<StreamSource>(in)), name_(std::move(name)), limits_(limits) {
  event_.file_ = &name_;
}

Reader::Reader(std::string_view text, std::string name, ReaderLimits limits)
    : source_(std::make_unique<TextSource>(text)), name_(std::move(name)), limits_(limits) {
  event_.file_ = &name_;
}

Reader::~Reader() = default;

void Reader::fail(std::size_t line, std::string_view what) const { throw FormatError(name_, line, std::string(what)); }

// Moves the unread bytes to the front, grows the buffer when they fill it (up to a line of
// the limit and its newline), and reads more. False at the end of the input.
bool Reader::fill() {
  const std::size_t unread = end_ - begin_;
  if (buffer_ && begin_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + begin_, unread);
    scanned_ -= begin_;
    begin_ = 0;
    end_ = unread;
  }
  if (!buffer_ || end_ == capacity_) {
    const std::size_t most = limits_.max_line_bytes + 1;
    const std::size_t grown = std::min(most, std::max(kFirstCapacity, capacity_ * 2));
    auto bigger = std::make_unique<char[]>(grown + simdjson::SIMDJSON_PADDING);
    if (buffer_) std::memcpy(bigger.get(), buffer_.get(), end_);
    buffer_ = std::move(bigger);
    capacity_ = grown;
  }
  const std::size_t got = source_->read(buffer_.get() + end_, capacity_ - end_);
  end_ += got;
  return got > 0;
}

bool Reader::next_line(std::string_view& line) {
  for (;;) {
    const char* data = buffer_.get();
    const void* nl = data == nullptr ? nullptr : std::memchr(data + scanned_, '\n', end_ - scanned_);
    if (nl != nullptr || (eof_ && begin_ < end_)) {
      const std::size_t stop = nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) - data) : end_;
      ++number_;
      if (stop - begin_ > limits_.max_line_bytes)
        fail(number_, fmt::format("the line is longer than {} bytes", limits_.max_line_bytes));
      line = std::string_view(data + begin_, stop - begin_);
      unterminated_ = nl == nullptr;
      begin_ = scanned_ = nl != nullptr ? stop + 1 : end_;
      if (blank(line)) continue;
      last_line_ = number_;
      return true;
    }
    scanned_ = end_;
    if (end_ - begin_ > limits_.max_line_bytes)
      fail(number_ + 1, fmt::format("the line is longer than {} bytes", limits_.max_line_bytes));
    if (eof_) return false;
    if (!fill()) eof_ = true;
  }
}

void Reader::read_header() {
  header_read_ = true;
  std::string_view line;
  if (!next_line(line)) fail(1, "empty input, not a lockstep trace");
  header_line_ = number_;
  header_ = nlohmann::ordered_json::parse(line, nullptr, false);
  if (header_.is_discarded())
    fail(number_, unterminated_ ? "the last line is cut off (the file is truncated)" : "not valid JSON");
  if (!header_.is_object()) fail(number_, "the header must be a JSON object");
  const auto format = header_.find(field::format);
  if (format == header_.end() || !format->is_string() || format->get<std::string_view>() != kFormatName)
    fail(number_, fmt::format("not a lockstep trace (the header must have \"{}\":\"{}\")", field::format, kFormatName));
  const auto version = header_.find(field::version);
  if (version == header_.end() || !version->is_number_integer() || version->get<std::int64_t>() != kVersion)
    fail(number_, fmt::format("unsupported trace version {} (this build reads version {})",
                              version == header_.end() ? std::string("(none)") : version->dump(), kVersion));
}

const nlohmann::ordered_json& Reader::header() {
  if (!header_read_) read_header();
  return header_;
}

std::size_t Reader::header_line() {
  header();
  return header_line_;
}

TracePlatform Reader::platform() {
  const auto& h = header();
  const auto it = h.find(field::platform);
  if (it == h.end()) return TracePlatform::sim;
  const std::optional<TracePlatform> p = it->is_string() ? parse_platform(it->get<std::string_view>()) : std::nullopt;
  if (!p) fail(header_line_, fmt::format("'{}' is {}, not \"sim\" or \"native\"", field::platform, it->dump()));
  return *p;
}

bool Reader::next() {
  if (!header_read_) read_header();
  if (ended_) return false;
  std::string_view line;
  if (!next_line(line)) return false;
  if (++events_ > limits_.max_events) fail(number_, fmt::format("more than {} events", limits_.max_events));
  event_.read(line, number_, unterminated_);
  ended_ = event_.kind() == EventKind::end;
  return true;
}

void Reader::require_end() const {
  if (!ended_)
    fail(last_line_, fmt::format("the trace is truncated: it ends without an '{}' event", name_of(EventKind::end)));
}

}  // namespace lockstep::trace
