// Base64 (RFC 4648, with padding), for bytes that travel in JSON text: a parallel search's
// checkpoint holds its work units' MessagePack (model/unit_cache.hpp). OpenSSL's codec.
#pragma once

#include <string>
#include <string_view>

namespace lockstep::io {

std::string base64_encode(std::string_view bytes);
// Throws std::runtime_error on text that is not padded base64.
std::string base64_decode(std::string_view text);

}  // namespace lockstep::io
