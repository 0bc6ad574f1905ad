#include "cli/interleaving.hpp"

#include <cstdint>
#include <map>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace lockstep::cli {

namespace {

using Json = nlohmann::json;

// Labels by start address; a location inside one is named "label+offset".
class Names {
 public:
  void add(std::uint64_t addr, std::uint64_t size, std::string name) { labels_[addr] = {size, std::move(name)}; }
  std::string of(const std::string& hex) const {
    const std::uint64_t addr = std::stoull(hex, nullptr, 16);
    auto it = labels_.upper_bound(addr);
    if (it != labels_.begin()) {
      --it;
      if (addr < it->first + it->second.first) {
        const std::uint64_t off = addr - it->first;
        return off == 0 ? it->second.second : fmt::format("{}+{}", it->second.second, off);
      }
    }
    return hex;
  }

 private:
  std::map<std::uint64_t, std::pair<std::uint64_t, std::string>> labels_;
};

std::string describe(const Json& e, const Names& names) {
  const std::string op = e.value("op", "");
  if (op == "load" || op == "plain_load")
    return fmt::format("{} {} -> {}", op, names.of(e.at("addr")), e.at("val").get<std::uint64_t>());
  if (op == "store" || op == "plain_store")
    return fmt::format("{} {} = {}", op, names.of(e.at("addr")), e.at("val").get<std::uint64_t>());
  if (op == "rmw") {
    const bool ok = e.value("ok", true);
    return fmt::format("{} {}: {} -> {}{}", e.at("rmw").get<std::string>(), names.of(e.at("addr")),
                       e.at("old").get<std::uint64_t>(), e.at("val").get<std::uint64_t>(), ok ? "" : " (failed)");
  }
  if (op == "drain")
    return fmt::format("store buffer drains: {} = {} reaches memory", names.of(e.at("addr")),
                       e.at("val").get<std::uint64_t>());
  return op;  // fence, pause, park
}

}  // namespace

std::vector<std::string> readable_interleaving(std::string_view trace_text) {
  std::vector<std::string> out;
  Names names;
  std::map<std::int64_t, std::string> threads;
  auto thread = [&threads](const Json& e) {
    const auto id = e.value("th", std::int64_t{-1});
    const auto it = threads.find(id);
    return it == threads.end() ? std::string("-") : it->second;
  };
  std::size_t step = 0;
  std::size_t begin = 0;
  while (begin < trace_text.size()) {
    std::size_t end = trace_text.find('\n', begin);
    if (end == std::string_view::npos) end = trace_text.size();
    const Json e = Json::parse(trace_text.substr(begin, end - begin));
    begin = end + 1;
    const std::string ev = e.value("ev", "");
    if (ev == "label") {
      names.add(std::stoull(e.at("addr").get<std::string>(), nullptr, 16), e.at("size"), e.at("name"));
    } else if (ev == "thread") {
      threads[e.at("th")] = e.at("name");
    } else if (ev == "op" && e.value("op", "") != "unpark") {
      out.push_back(fmt::format("{:>4}  {:<10} {}", ++step, thread(e), describe(e, names)));
    } else if (ev == "op") {
      const auto target = e.at("target").get<std::int64_t>();
      out.push_back(fmt::format("{:>4}  {:<10} unpark {}{}", ++step, thread(e),
                                threads.count(target) != 0 ? threads[target] : std::to_string(target),
                                e.value("woke", false) ? " (wakes it)" : " (not parked: leaves a permit)"));
    } else if (ev == "state") {
      const std::string state = e.at("state");
      if (state == "parked" || state == "spinning")
        out.push_back(fmt::format("      {:<10} {}", thread(e), state == "parked" ? "sleeps" : "blocks spinning"));
    } else if (ev == "violation") {
      out.push_back(fmt::format("      {:<10} VIOLATION {}: {}", thread(e), e.at("property").get<std::string>(),
                                e.at("msg").get<std::string>()));
    }
  }
  return out;
}

}  // namespace lockstep::cli
