// A futex's identity and its hash. Linux keys a private futex by (address space, page
// address) and a shared one by (backing object, page index), plus the offset in the page,
// and hashes the two words with jhash2 seeded by the offset (docs/sources.md section 1). Keys are built
// from P::address_of, so in the simulator they are simulated addresses and a run hashes
// the same way every time.
#pragma once

#include <bit>
#include <cstdint>

#include "core/futex/futex_config.hpp"

namespace lockstep::futex {

inline constexpr std::uint64_t kPageBytes = 4096;
// Private futexes of this one simulated process share one address-space id; shared ones
// one backing object (a shared mapping). Arbitrary nonzero tags.
inline constexpr std::uint64_t kAddressSpaceId = 0x6d6d;  // "mm"
inline constexpr std::uint64_t kSharedObjectId = 0x696e;  // "in"(ode)

struct FutexKey {
  std::uint64_t word = 0;  // private: page address; shared: page index in the object
  std::uint64_t ptr = 0;   // private: address space; shared: the object
  std::uint32_t offset = 0;

  friend bool operator==(const FutexKey&, const FutexKey&) = default;
};

inline FutexKey make_key(KeyKind kind, std::uint64_t address) {
  const auto offset = static_cast<std::uint32_t>(address % kPageBytes);
  const std::uint64_t page = address - offset;
  if (kind == KeyKind::private_key) return FutexKey{page, kAddressSpaceId, offset};
  return FutexKey{page / kPageBytes, kSharedObjectId, offset};
}

// The address of the futex word a key was made from (make_key backwards), for trace notes:
// a waker holds only the keys of the waiters it dequeues.
inline std::uint64_t word_address(const FutexKey& key) {
  return key.ptr == kSharedObjectId ? key.word * kPageBytes + key.offset : key.word + key.offset;
}

// Bob Jenkins' lookup3 hash of 32-bit words, as Linux's jhash2 computes it.
namespace jhash_detail {
constexpr std::uint32_t kInit = 0xdeadbeef;

constexpr void mix(std::uint32_t& a, std::uint32_t& b, std::uint32_t& c) {
  a -= c;
  a ^= std::rotl(c, 4);
  c += b;
  b -= a;
  b ^= std::rotl(a, 6);
  a += c;
  c -= b;
  c ^= std::rotl(b, 8);
  b += a;
  a -= c;
  a ^= std::rotl(c, 16);
  c += b;
  b -= a;
  b ^= std::rotl(a, 19);
  a += c;
  c -= b;
  c ^= std::rotl(b, 4);
  b += a;
}

constexpr void final_mix(std::uint32_t& a, std::uint32_t& b, std::uint32_t& c) {
  c ^= b;
  c -= std::rotl(b, 14);
  a ^= c;
  a -= std::rotl(c, 11);
  b ^= a;
  b -= std::rotl(a, 25);
  c ^= b;
  c -= std::rotl(b, 16);
  a ^= c;
  a -= std::rotl(c, 4);
  b ^= a;
  b -= std::rotl(a, 14);
  c ^= b;
  c -= std::rotl(b, 24);
}
}  // namespace jhash_detail

template <std::size_t N>
constexpr std::uint32_t jhash2(const std::uint32_t (&words)[N], std::uint32_t initval) {
  using namespace jhash_detail;
  std::uint32_t a = kInit + (static_cast<std::uint32_t>(N) << 2) + initval;
  std::uint32_t b = a;
  std::uint32_t c = a;
  std::size_t i = 0;
  std::size_t left = N;
  for (; left > 3; left -= 3, i += 3) {
    a += words[i];
    b += words[i + 1];
    c += words[i + 2];
    mix(a, b, c);
  }
  if (left == 0) return c;
  if (left >= 3) c += words[i + 2];
  if (left >= 2) b += words[i + 1];
  a += words[i];
  final_mix(a, b, c);
  return c;
}

inline std::uint32_t hash_key(HashKind kind, const FutexKey& key) {
  if (kind == HashKind::jhash2) {
    const std::uint32_t words[4] = {static_cast<std::uint32_t>(key.word), static_cast<std::uint32_t>(key.word >> 32),
                                    static_cast<std::uint32_t>(key.ptr), static_cast<std::uint32_t>(key.ptr >> 32)};
    return jhash2(words, key.offset);
  }
  // Fibonacci hashing: multiply by 2^64 / golden ratio and keep the high half, whose bits
  // each depend on every lower input bit. The key's parts are folded first (word + offset is
  // the address itself for private keys).
  const std::uint64_t folded = (key.word + key.offset) ^ std::rotl(key.ptr, 29);
  return static_cast<std::uint32_t>((folded * 0x9e3779b97f4a7c15ULL) >> 32);
}

}  // namespace lockstep::futex
