// The properties of docs/fileio.md, decided from an execution's History (history.hpp). Each
// check returns why the history breaks it, or nothing. They are host code, the same for every
// platform, and see only what the calls recorded and the final file.
//
// "Serial" below means some order of the calls, one at a time, that respects real time (a
// call that ended before another began comes first): what POSIX XSH 2.9.7 asks of read,
// write, pread, pwrite and lseek on regular files (docs/sources.md section 3).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/fileio/history.hpp"
#include "core/fileio/inode.hpp"

namespace lockstep::fileio {

namespace detail {

inline std::string who(const Call& c, const std::vector<std::string>& threads) {
  return fmt::format("{} by thread '{}' ({})", name_of(c.kind), threads[static_cast<std::size_t>(c.thread)], c.where);
}

inline bool overlap(std::uint64_t a0, std::uint64_t a1, std::uint64_t b0, std::uint64_t b1) {
  return a0 < b1 && b0 < a1;
}
inline bool overlap(const Call& a, const Call& b) {
  return overlap(a.position, a.position + a.bytes, b.position, b.position + b.bytes);
}

// Whether call `a` ended before `b` began, so every serial order puts it first.
inline bool precedes(const Call& a, const Call& b) { return a.end < b.begin; }

inline const Call* write_with_id(const History& h, std::uint64_t id) {
  for (const Call& c : h.calls)
    if (c.is_write() && c.id == id) return &c;
  return nullptr;
}

inline bool has_lseek(const History& h, int fd) {
  return std::any_of(h.calls.begin(), h.calls.end(),
                     [fd](const Call& c) { return c.fd == fd && c.kind == CallKind::lseek; });
}

// Where read `r` shows write `w` at some word and, at another word `w` covers, content from
// before `w` or a write `o` that `r` also shows inside both `w` and `o`: no single instant
// of a serial order looks like that.
inline std::optional<std::string> partial(const Call& r, const Call& w, const History& h,
                                          const std::vector<std::string>& threads) {
  const auto shows = [&r](std::uint64_t p, std::uint64_t id) {
    const std::uint64_t i = (p - r.position) / kWordBytes;
    return p >= r.position && i < r.data.size() && writer_of(r.data[i]) == id;
  };
  const auto within = [](const Call& c, std::uint64_t p) { return p >= c.position && p < c.position + c.bytes; };
  for (std::size_t i = 0; i < r.data.size(); ++i) {
    const std::uint64_t p = r.position + i * kWordBytes;
    const std::uint64_t other = writer_of(r.data[i]);
    if (!within(w, p) || other == w.id) continue;
    const Call* o = other == 0 ? nullptr : write_with_id(h, other);
    std::optional<std::uint64_t> mine;
    for (std::uint64_t q = std::max(w.position, r.position); q < w.position + w.bytes; q += kWordBytes)
      if (shows(q, w.id) && (o == nullptr || precedes(*o, w) || within(*o, q))) {
        mine = q;
        break;
      }
    if (!mine) continue;
    return fmt::format("{} saw part of {}: its word at {} but, at {}, {}", who(r, threads), who(w, threads), *mine, p,
                       o == nullptr ? std::string("the content from before it") : "the word of " + who(*o, threads));
  }
  return std::nullopt;
}

}  // namespace detail

// Every offset a call loaded, and every final offset, is a value some serial order gives: a
// start (the initial offset, an lseek's target, an end of file for SEEK_END or O_APPEND)
// plus what some of the descriptor's calls advanced it by. A torn offset (half of one
// update) or a lost update that skipped ahead is not.
inline std::optional<std::string> check_offset_not_torn(const History& h, const std::vector<std::string>& threads) {
  std::set<std::uint64_t> sizes{h.initial_size, h.final_size};
  for (const Call& c : h.calls)
    if (c.is_write()) sizes.insert(c.position + c.bytes);
  for (std::size_t fd = 0; fd < h.descriptors.size(); ++fd) {
    const DescriptorState& d = h.descriptors[fd];
    std::set<std::uint64_t> reachable{d.initial_offset};
    std::vector<std::uint64_t> advances;
    for (const Call& c : h.calls) {
      if (c.fd != static_cast<int>(fd)) continue;
      if (c.kind == CallKind::lseek && c.seek_set) reachable.insert(c.position);
      if (c.kind == CallKind::read || c.kind == CallKind::write) advances.push_back(c.requested);
      if (c.kind == CallKind::read && c.bytes != c.requested) advances.push_back(c.bytes);
    }
    for (const Call& c : h.calls) {
      if (c.fd != static_cast<int>(fd)) continue;
      // SEEK_END's target is the size at that moment plus a constant, whatever the offset was.
      if (c.kind == CallKind::lseek && c.seek_from_end) reachable.insert(c.position);
      if (c.append) reachable.insert(c.position + c.bytes);
    }
    // Closure under the advances, each used at most once (a DP over sums; values repeat,
    // so the set stays small).
    for (const std::uint64_t a : advances) {
      std::set<std::uint64_t> next = reachable;
      for (const std::uint64_t v : reachable) next.insert(v + a);
      reachable = std::move(next);
    }
    const auto bad = [&](std::uint64_t v) { return reachable.count(v) == 0; };
    for (const Call& c : h.calls) {
      if (c.fd != static_cast<int>(fd) || !bad(c.offset_seen)) continue;
      return fmt::format("descriptor {}: {} saw the offset {:#x}, which no serial order of its calls gives", fd,
                         detail::who(c, threads), c.offset_seen);
    }
    if (bad(d.final_offset))
      return fmt::format("descriptor {}: the final offset is {:#x}, which no serial order of its calls gives", fd,
                         d.final_offset);
  }
  return std::nullopt;
}

// read() calls on one descriptor never return the same bytes twice, and skip none: without
// lseek or O_APPEND the ranges of its read() and write() calls tile the file from the initial
// offset, so two reads may not overlap and no bytes lie unread between them.
inline std::optional<std::string> check_reads_unique(const History& h, const std::vector<std::string>& threads) {
  for (std::size_t fd = 0; fd < h.descriptors.size(); ++fd) {
    std::vector<const Call*> calls;
    for (const Call& c : h.calls)
      if (c.fd == static_cast<int>(fd) && (c.kind == CallKind::read || c.kind == CallKind::write) && c.bytes > 0)
        calls.push_back(&c);
    for (std::size_t i = 0; i < calls.size(); ++i)
      for (std::size_t j = i + 1; j < calls.size(); ++j)
        if (calls[i]->kind == CallKind::read && calls[j]->kind == CallKind::read &&
            detail::overlap(*calls[i], *calls[j]))
          return fmt::format("descriptor {}: {} and {} both returned the bytes at {}", fd,
                             detail::who(*calls[i], threads), detail::who(*calls[j], threads),
                             std::max(calls[i]->position, calls[j]->position));
    if (detail::has_lseek(h, static_cast<int>(fd)) || h.descriptors[fd].append) continue;
    std::sort(calls.begin(), calls.end(), [](const Call* a, const Call* b) { return a->position < b->position; });
    std::uint64_t at = h.descriptors[fd].initial_offset;
    for (const Call* c : calls) {
      if (c->position > at && c->kind == CallKind::read)
        return fmt::format("descriptor {}: {} read at {}, skipping the bytes [{}, {}) that no call on it read or wrote",
                           fd, detail::who(*c, threads), c->position, at, c->position);
      at = std::max(at, c->position + c->bytes);
    }
  }
  return std::nullopt;
}

// No write is lost: two write() calls through one descriptor (without lseek) or two O_APPEND
// writes never land on the same bytes, as they would one after the other; and each word a
// write stored is still in the file unless a write that did not precede it overwrote it.
inline std::optional<std::string> check_no_lost_write(const History& h, const std::vector<std::string>& threads) {
  for (std::size_t i = 0; i < h.calls.size(); ++i) {
    const Call& a = h.calls[i];
    if (a.kind != CallKind::write) continue;
    for (std::size_t j = i + 1; j < h.calls.size(); ++j) {
      const Call& b = h.calls[j];
      if (b.kind != CallKind::write || !detail::overlap(a, b)) continue;
      const bool same_fd = a.fd == b.fd && !detail::has_lseek(h, a.fd);
      if (same_fd || (a.append && b.append))
        return fmt::format(
            "{} and {} both wrote at {}: one overwrote the other, where a serial order puts them "
            "one after the other",
            detail::who(a, threads), detail::who(b, threads), std::max(a.position, b.position));
    }
  }
  for (const Call& w : h.calls) {
    if (!w.is_write()) continue;
    for (std::uint64_t p = w.position; p < w.position + w.bytes; p += kWordBytes) {
      const std::uint64_t id = writer_of(h.final_word(p));
      if (id == w.id) continue;
      const Call* other = id == 0 ? nullptr : detail::write_with_id(h, id);
      if (other != nullptr && !detail::precedes(*other, w)) continue;
      return fmt::format("{} stored the word at {}, but the file holds {} there", detail::who(w, threads), p,
                         other == nullptr ? std::string("the initial content")
                                          : "what the earlier " + detail::who(*other, threads) + " stored");
    }
  }
  return std::nullopt;
}

// Each write's bytes land whole and together: where two writes overlap, the file holds the
// bytes of one of them over the whole overlap, not some of each.
inline std::optional<std::string> check_writes_not_interleaved(const History& h,
                                                               const std::vector<std::string>& threads) {
  for (std::size_t i = 0; i < h.calls.size(); ++i) {
    const Call& a = h.calls[i];
    if (!a.is_write()) continue;
    for (std::size_t j = i + 1; j < h.calls.size(); ++j) {
      const Call& b = h.calls[j];
      if (!b.is_write() || !detail::overlap(a, b)) continue;
      std::optional<std::uint64_t> at_a;
      std::optional<std::uint64_t> at_b;
      for (std::uint64_t p = std::max(a.position, b.position); p < std::min(a.position + a.bytes, b.position + b.bytes);
           p += kWordBytes) {
        const std::uint64_t id = writer_of(h.final_word(p));
        if (id == a.id && !at_a) at_a = p;
        if (id == b.id && !at_b) at_b = p;
      }
      if (at_a && at_b)
        return fmt::format("{} and {} interleaved: the file holds the first's word at {} and the second's at {}",
                           detail::who(a, threads), detail::who(b, threads), *at_a, *at_b);
    }
  }
  return std::nullopt;
}

// Each read returns, over its whole range, the file as it was at one instant between two
// writes (POSIX all-or-nothing): having seen a word of write W, it sees W (or a write not
// before W) at every position W covers; and it never sees two writes each over the other.
inline std::optional<std::string> check_reads_atomic(const History& h, const std::vector<std::string>& threads) {
  for (const Call& r : h.calls) {
    if (!r.is_read()) continue;
    std::set<std::uint64_t> seen;
    for (std::size_t i = 0; i < r.data.size(); ++i) {
      const std::uint64_t p = r.position + i * kWordBytes;
      if (position_of(r.data[i]) != p)
        return fmt::format("{} returned at {} the word that belongs at {}", detail::who(r, threads), p,
                           position_of(r.data[i]));
      if (writer_of(r.data[i]) != 0) seen.insert(writer_of(r.data[i]));
    }
    for (const std::uint64_t id : seen) {
      const Call* w = detail::write_with_id(h, id);
      if (w == nullptr) continue;
      if (auto why = detail::partial(r, *w, h, threads)) return why;
    }
  }
  return std::nullopt;
}

}  // namespace lockstep::fileio
