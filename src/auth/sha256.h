#pragma once

// SHA-256 through OpenSSL, the digest every mechanism binds credentials to.

#include <array>
#include <cstdint>
#include <string_view>

namespace rota::auth {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest Sha256(std::string_view bytes);

}  // namespace rota::auth
